package main

import (
	"bufio"
)

var queryCommand = &command{
	name:    "query",
	summary: "ask a filter about keys",
	usage: `usage: bloomcast query [-v] FILTER [KEY...]

Ask FILTER about each KEY, or about each line of standard input when no KEY
is given (a trailing "\r" is dropped and empty lines are skipped). Prints
one line per key: "maybe" if the key may be in the set, "no" if it
certainly is not. FILTER may be "-" (standard input) when the keys are
arguments.

flags:
  -v, --keys   print KEY<TAB>maybe or KEY<TAB>no

Exit status: 0 if every key may be present, 1 if any is absent, 2 on error.
`,
	run: runQuery,
}

func runQuery(e *env, args []string) error {
	fs := newFlagSet("query")
	var withKeys bool
	fs.BoolVar(&withKeys, "keys", false, "")
	fs.BoolVar(&withKeys, "v", false, "")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return usagef("missing FILTER")
	}
	if args[0] == "-" && len(args) == 1 {
		return usagef("the filter is read from standard input, so give the keys as arguments")
	}
	lf, err := e.openFilter(args[0])
	if err != nil {
		return err
	}

	w := bufio.NewWriterSize(e.stdout, 64<<10)
	interactive := isTerminal(e.stdin) // answer each line as it is typed
	absent := false
	answer := func(key []byte) {
		ok := lf.contains(key)
		absent = absent || !ok
		if withKeys {
			w.Write(key)
			w.WriteByte('\t')
		}
		if ok {
			w.WriteString("maybe\n")
		} else {
			w.WriteString("no\n")
		}
		if interactive {
			w.Flush()
		}
	}
	if keys := args[1:]; len(keys) > 0 {
		for _, k := range keys {
			answer([]byte(k))
		}
	} else if err := e.keys(nil).each(answer); err != nil {
		w.Flush()
		return err
	}
	if err := w.Flush(); err != nil {
		return fileErr(outputName("-"), err)
	}
	if absent {
		return exitStatus(1)
	}
	return nil
}
