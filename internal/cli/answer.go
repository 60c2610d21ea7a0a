package cli

import (
	"bufio"
	"errors"
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
// any does not, the command exits with status 1. A key that answer
// refuses (not of the filter's key type, say) gets no line, so that no
// script takes an answer for it: the keys given as arguments are all
// answered before any line is written, and one refused writes none; keys
// read from standard input are answered as they are read, up to the one
// refused, whose line the error names. When standard input is a terminal
// each line is flushed as soon as it is answered, so a person typing keys
// sees every answer at once. A write to standard output that fails (a
// full disk, /dev/full) ends the command with that error at once, without
// reading the rest of the keys. query, count, bloomier get and mht get
// answer this way.
func (e *env) answerKeys(keys []string, withKeys bool, answer func(key []byte) (string, bool, error)) error {
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	interactive := isTerminal(e.stdin)
	absent := false
	// put writes one answer and returns w's error: bufio.Writer keeps its
	// first and fails every later write with it, so a failed write stops
	// the reading, which has nowhere left to put its answers.
	put := func(key []byte, text string, ok bool) error {
		absent = absent || !ok
		if withKeys {
			_, _ = w.Write(key)
			_ = w.WriteByte('\t')
		}
		_, _ = w.WriteString(text)
		err := w.WriteByte('\n')
		if interactive && err == nil {
			err = w.Flush()
		}
		return err
	}
	var err, werr error
	if len(keys) > 0 {
		err = answerAll(keys, answer, func(key []byte, text string, ok bool) error {
			werr = put(key, text, ok)
			return werr
		})
	} else {
		err = e.keys(nil).eachChecked(func(key []byte) error {
			text, ok, err := answer(key)
			if err == nil {
				if werr = put(key, text, ok); werr != nil {
					return errOutputFailed
				}
			}
			return err
		})
	}
	if werr == nil {
		// The answers before a refused key are written too; the refusal
		// is the error to report.
		if ferr := w.Flush(); err == nil {
			werr = ferr
		}
	}
	if werr != nil {
		return fileErr(outputName("-"), werr)
	}
	if err == nil && absent {
		err = exitStatus(1)
	}
	return err
}

// errOutputFailed stops the reading of keys when their answers can no
// longer be written; answerKeys reports the write's own error.
var errOutputFailed = errors.New("output failed")

// answerAll answers every key, then puts the answers, up to the first
// put that fails; if one key is refused, none.
func answerAll(keys []string, answer func(key []byte) (string, bool, error), put func(key []byte, text string, ok bool) error) error {
	texts, oks := make([]string, len(keys)), make([]bool, len(keys))
	for i, k := range keys {
		var err error
		if texts[i], oks[i], err = answer([]byte(k)); err != nil {
			return err
		}
	}
	for i, k := range keys {
		if err := put([]byte(k), texts[i], oks[i]); err != nil {
			return err
		}
	}
	return nil
}
