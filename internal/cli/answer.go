package cli

import (
	"bufio"
	"flag"
)

// lookupArgs parses the flags and arguments of a command that looks keys
// up in one file (query, count, bloomier get, mht get): the file, the keys
// given as arguments (none: the lines of standard input), and -v/--keys.
// fileArg and what name the file in messages ("FILTER", "table").
func (e *env) lookupArgs(fs *flag.FlagSet, args []string, fileArg, what string) (file string, keys []string, withKeys bool, err error) {
	e.keyFlags(fs)
	e.quietFlag(fs)
	fs.BoolVar(&withKeys, "keys", false, "")
	fs.BoolVar(&withKeys, "v", false, "")
	if args, err = parseFlags(fs, args); err != nil {
		return "", nil, false, err
	}
	switch {
	case len(args) == 0:
		return "", nil, false, usagef("missing %s", fileArg)
	case args[0] == "-" && len(args) == 1:
		return "", nil, false, usagef("the %s is read from standard input, so give the keys as arguments", what)
	}
	return args[0], args[1:], withKeys, nil
}

// eachKey calls fn with each key of args, or of standard input if there
// are none.
func (e *env) eachKey(keys []string, fn func(key []byte)) error {
	return e.eachKeyChecked(keys, func(key []byte) error { fn(key); return nil })
}

// eachKeyChecked is eachKey for a fn that may refuse a key: its error
// stops the reading, attributed to the line of standard input it came
// from.
func (e *env) eachKeyChecked(keys []string, fn func(key []byte) error) error {
	if len(keys) == 0 {
		return e.keys(nil).eachChecked(fn)
	}
	for _, k := range keys {
		if err := fn([]byte(k)); err != nil {
			return err
		}
	}
	return nil
}

// answerKeys writes one line per key (the keys given as arguments, or else
// each line of standard input): the answer, or with withKeys
// "KEY<TAB>answer". answer also says whether the key counts as present; if
// any does not, the command exits with status 1. When standard input is a
// terminal each line is flushed as soon as it is answered, so a person
// typing keys sees every answer at once. query, count and bloomier get
// answer this way.
func (e *env) answerKeys(keys []string, withKeys bool, answer func(key []byte) (string, bool)) error {
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	interactive := isTerminal(e.stdin)
	absent := false
	err := e.eachKey(keys, func(key []byte) {
		text, ok := answer(key)
		absent = absent || !ok
		// w keeps its first error and fails every later write with it;
		// the Flush after the loop reports it.
		if withKeys {
			_, _ = w.Write(key)
			_ = w.WriteByte('\t')
		}
		_, _ = w.WriteString(text)
		_ = w.WriteByte('\n')
		if interactive {
			_ = w.Flush()
		}
	})
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = fileErr(outputName("-"), ferr)
	}
	if err == nil && absent {
		err = exitStatus(1)
	}
	return err
}
