package cli

import (
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
)

var unionCommand = &command{
	name:    "union",
	summary: "OR compatible filters together",
	usage: `usage: bloomcast union -o OUT A B [FILE...]

Write the union (bitwise OR) of the filters to OUT: a key added to any of
them is reported present. The filters must be of one kind and
compatible: same layout, m, k, block size, hashing scheme and seed
(counting filters also the counter width and mode; Squid digests the
mask size). OUT is of the first filter's kind, codec and sequence:
counting filters are merged (their counters summed), Squid digests stay
Squid digests (masks OR-ed, the count estimated from the bits). Guava and
bits-and-blooms filters of one size and k are OR-ed as their own union
(putAll, Merge) does; OUT is in the first one's format.

flags:
  -o OUT   output file (required; "-" for standard output)
  --force  write to standard output even when it is a terminal
` + formatHelp,
	run: func(e *env, args []string) error {
		return combine(e, "union", args, false)
	},
}

var intersectCommand = &command{
	name:    "intersect",
	summary: "AND compatible filters together",
	usage: `usage: bloomcast intersect -o OUT A B [FILE...]

Write the intersection (bitwise AND) of the filters to OUT: a key added to
all of them is reported present, and the false-positive rate is at most
that of any input. The filters must be Bloom filters or Squid digests,
of one kind and compatible: same layout, m, k, block size, hashing scheme
and seed; or Guava or bits-and-blooms filters of one size and k. OUT is of
the first filter's kind, format, codec and sequence. Counting filters have
no intersection: refused.

flags:
  -o OUT   output file (required; "-" for standard output)
  --force  write to standard output even when it is a terminal
` + formatHelp,
	run: func(e *env, args []string) error {
		return combine(e, "intersect", args, true)
	},
}

// combine folds the filters named in args into the first, by union or
// intersection, and writes the result as the first's kind and codec. It
// holds at most two filters in memory.
func combine(e *env, name string, args []string, intersect bool) error {
	fs := newFlagSet(name)
	var out string
	e.outFlag(fs, &out, "")
	e.formatFlag(fs)
	inputs, err := parseFlagsOut(fs, args, &out)
	if err != nil {
		return err
	}
	if len(inputs) < 2 {
		return usagef("want at least two filters, got %d", len(inputs))
	}
	first, err := e.openCombinable(inputs[0])
	if err != nil {
		return err
	}
	for _, path := range inputs[1:] {
		next, err := e.openCombinable(path)
		if err != nil {
			return err
		}
		if err := first.combineWith(next, intersect); err != nil {
			return fileErr(path, err)
		}
	}
	return e.writeBack(out, first)
}

var foldCommand = &command{
	name:    "fold",
	summary: "halve a filter's size",
	usage: `usage: bloomcast fold [--to BITS] -o OUT FILE

Halve the filter in FILE by OR-ing neighbouring bits (classic, partitioned)
or blocks (blocked, paged) and write it to OUT: once, or with --to as many
times as it takes to reach at most BITS bits. No key is lost; the
false-positive rate rises to that of the smaller filter. OUT keeps FILE's
codec and sequence; its count stays what FILE records (the same keys are
in it). A filter halves as many times as its bits, bits per slice or
blocks halve to a whole number ("folds" in "bloomcast inspect"); "bloomcast
build" makes filters that fold at least 4 times (to 1/16), more with
--folds. Counting filters and Squid digests do not fold (a Squid digest's
positions are taken modulo its size): refused, exit 2.

A Guava or bits-and-blooms filter takes its positions modulo its size, so
OR-ing the upper half of its bits into the lower half gives exactly the
filter of half the size that program builds from the same keys: it folds
while its size (Guava: its number of 64-bit words; bits-and-blooms: m) is
even, and OUT is in its format.

flags:
  --to BITS   fold until the filter has at most BITS bits
  -o OUT      output file (required; "-" for standard output)
  --force     write to standard output even when it is a terminal
` + formatHelp,
	run: runFold,
}

func runFold(e *env, args []string) error {
	fs := newFlagSet("fold")
	var out string
	var to countValue
	e.outFlag(fs, &out, "")
	e.formatFlag(fs)
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
	lf, err := e.openCombinable(args[0])
	if err != nil {
		return err
	}
	if err := lf.Fold(uint64(to)); err != nil {
		if errors.Is(err, bloom.ErrFold) {
			err = fmt.Errorf("%w; \"bloomcast build --folds F\" makes filters that halve F times", err)
		}
		return fileErr(args[0], err)
	}
	return e.writeBack(out, lf)
}
