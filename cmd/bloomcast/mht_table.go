package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/bloomcast/bloomcast/mht"
	"github.com/bloomcast/bloomcast/params"
)

// mht build and mht get: a multilevel hash table as a file (frame type 6).

// mhtBuild reads KEY<TAB>VALUE lines and writes the table.
func (e *env) mhtBuild(args []string) error {
	fs := newFlagSet("mht build")
	levels := mht.DefaultLevels
	first, ratio := float64(mht.DefaultFirstPerItem), mht.DefaultRatio
	var sizes listValue
	var seed uint64
	var out string
	fs.IntVar(&levels, "levels", levels, "")
	fs.Float64Var(&first, "first", first, "")
	fs.Float64Var(&ratio, "ratio", ratio, "")
	fs.Var(&sizes, "sizes", "")
	fs.Uint64Var(&seed, "seed", 0, "")
	e.outFlag(fs, &out, "")
	e.keyFlags(fs)
	e.quietFlag(fs)
	inputs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if out == "" {
		return usagef("missing -o OUT")
	}
	in, err := e.readEntries(inputs, seed)
	if err != nil {
		return err
	}
	n := uint64(max(1, len(in.values)))
	cfg := mht.Config{Seed: seed}
	if len(sizes) > 0 {
		if flagSet(fs, "levels") || flagSet(fs, "first") || flagSet(fs, "ratio") {
			return usagef("--sizes replaces --levels, --first and --ratio")
		}
		for _, s := range sizes {
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil || v < 1 {
				return usagef("--sizes: %q is not a size", s)
			}
			cfg.Sizes = append(cfg.Sizes, v)
		}
	} else {
		if !(first > 0) {
			return usagef("--first %g: want a positive number of buckets per item", first)
		}
		s, err := params.GeometricSizes(uint64(first*float64(n)+0.5), ratio, levels)
		if err != nil {
			return usagef("%v", err)
		}
		cfg.Sizes = s
	}
	t, err := mht.New(cfg)
	if err != nil {
		return usagef("%v", err)
	}
	for i, h := range in.hashes {
		if err := t.Insert(h, in.values[i]); err != nil {
			if errors.Is(err, mht.ErrCrisis) {
				return fmt.Errorf("%s: %w, after %d items in %d buckets: give more room (--first, --ratio or --sizes)",
					in.where(i), err, t.Len(), t.Buckets())
			}
			return fmt.Errorf("%s: %w", in.where(i), err)
		}
	}
	return e.writeFilter(out, t)
}

// mhtGet prints the value of each key in a table file.
func (e *env) mhtGet(args []string) error {
	file, keys, withKeys, err := e.lookupArgs(newFlagSet("mht get"), args, "FILE", "table")
	if err != nil {
		return err
	}
	lf, err := e.openAny(file)
	if err != nil {
		return err
	}
	if lf.other == nil || lf.other.table == nil {
		return fileErr(lf.path, fmt.Errorf("holds %s, not a multilevel hash table (build one with \"bloomcast mht build\")", lf.kind()))
	}
	t := lf.other.table
	return e.answerKeys(keys, withKeys, func(key []byte) (string, bool) {
		if v, ok := t.Get(t.Hash(key)); ok {
			return strconv.FormatUint(v, 10), true
		}
		return "absent", false
	})
}
