package cli

import (
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/params"
)

var unionCommand = &command{
	name:    "union",
	summary: "OR compatible filters together",
	usage:   usageText("union"),
	run: func(e *env, args []string) error {
		return combine(e, "union", args, false)
	},
}

var intersectCommand = &command{
	name:    "intersect",
	summary: "AND compatible filters together",
	usage:   usageText("intersect"),
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
	e.targetFlag(fs)
	e.quietFlag(fs)
	inputs, err := parseFlagsOut(fs, args, &out)
	if err != nil {
		return err
	}
	if len(inputs) < 2 {
		return usagef("want at least two filters, got %d", len(inputs))
	}
	if err := stdinOnce(inputs); err != nil {
		return err
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
			var m *mismatch
			if errors.As(err, &m) {
				return fmt.Errorf("%s: %w", name, m)
			}
			return fileErr(path, err)
		}
	}
	return e.writeBackChecked(out, first, nil, func(health) string {
		return "build the filters for more keys (a larger -n or -m) before combining them"
	})
}

var foldCommand = &command{
	name:    "fold",
	summary: "halve a filter's size",
	usage:   usageText("fold"),
	run:     runFold,
}

func runFold(e *env, args []string) error {
	fs := newFlagSet("fold")
	var out string
	var to countValue
	e.outFlag(fs, &out, "")
	e.formatFlag(fs)
	e.targetFlag(fs)
	e.quietFlag(fs)
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
	var before params.Shape
	var folds int
	if b := lf.bits(); b != nil {
		before, folds = b.Shape(), b.Folds()
	}
	if err := lf.Fold(uint64(to)); err != nil {
		if errors.Is(err, bloom.ErrFold) {
			err = fmt.Errorf("%w; \"bloomcast build --folds F\" makes filters that halve F times", err)
		}
		return fileErr(args[0], err)
	}
	target, _ := e.targetRate()
	return e.writeBackChecked(out, lf, nil, func(h health) string { return foldAdvice(h, before, folds, target) })
}
