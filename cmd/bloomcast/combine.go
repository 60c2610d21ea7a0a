package main

import (
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
)

var unionCommand = &command{
	name:    "union",
	summary: "OR compatible filters together",
	usage: `usage: bloomcast union -o OUT A B [FILE...]

Write the union (bitwise OR) of the filters to OUT: a key added to any of
them is reported present. The filters must be compatible: same layout,
m, k, block size, hashing scheme and seed.

flags:
  -o OUT   output file (required; "-" for standard output)
`,
	run: func(e *env, args []string) error {
		return combine(e, "union", args, (*bloom.Filter).Union)
	},
}

var intersectCommand = &command{
	name:    "intersect",
	summary: "AND compatible filters together",
	usage: `usage: bloomcast intersect -o OUT A B [FILE...]

Write the intersection (bitwise AND) of the filters to OUT: a key added to
all of them is reported present, and the false-positive rate is at most
that of any input. The filters must be compatible: same layout, m, k,
block size, hashing scheme and seed.

flags:
  -o OUT   output file (required; "-" for standard output)
`,
	run: func(e *env, args []string) error {
		return combine(e, "intersect", args, (*bloom.Filter).Intersect)
	},
}

// combine folds the filters named in args into the first with op and
// writes the result. It holds at most two filters in memory.
func combine(e *env, name string, args []string, op func(f, g *bloom.Filter) error) error {
	fs := newFlagSet(name)
	var out string
	fs.StringVar(&out, "o", "", "")
	inputs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if out == "" {
		return usagef("missing -o OUT")
	}
	if len(inputs) < 2 {
		return usagef("want at least two filters, got %d", len(inputs))
	}
	first, err := e.openFilter(inputs[0])
	if err != nil {
		return err
	}
	for _, path := range inputs[1:] {
		next, err := e.openFilter(path)
		if err != nil {
			return err
		}
		if err := first.filter.Compatible(next.filter); err != nil {
			return fileErr(path, fmt.Errorf("cannot combine with %s: %w", displayName(inputs[0]), err))
		}
		if err := op(first.filter, next.filter); err != nil {
			return fileErr(path, err)
		}
	}
	return e.writeFilter(out, first.filter)
}

var foldCommand = &command{
	name:    "fold",
	summary: "halve a filter's size",
	usage: `usage: bloomcast fold [--to BITS] -o OUT FILE

Halve the filter in FILE by OR-ing neighbouring bits (classic, partitioned)
or blocks (blocked, paged) and write it to OUT: once, or with --to as many
times as it takes to reach at most BITS bits. No key is lost; the
false-positive rate rises to that of the smaller filter.

flags:
  --to BITS   fold until the filter has at most BITS bits
  -o OUT      output file (required; "-" for standard output)
`,
	run: runFold,
}

func runFold(e *env, args []string) error {
	fs := newFlagSet("fold")
	var out string
	var to countValue
	fs.StringVar(&out, "o", "", "")
	fs.Var(&to, "to", "")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := oneFileToOut(out, args); err != nil {
		return err
	}
	if flagSet(fs, "to") && to == 0 {
		return usagef("--to must be at least 1")
	}
	lf, err := e.openFilter(args[0])
	if err != nil {
		return err
	}
	if to == 0 {
		err = lf.filter.Fold()
	} else {
		err = lf.filter.FoldTo(uint64(to))
	}
	if err != nil {
		return fileErr(args[0], err)
	}
	return e.writeFilter(out, lf.filter)
}
