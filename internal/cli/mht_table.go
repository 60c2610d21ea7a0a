package cli

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/mht"
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
	inputs, err := parseFlagsOut(fs, args, &out)
	if err != nil {
		return err
	}
	in, err := e.readEntries(inputs, seed)
	if err != nil {
		return err
	}
	cfg := mht.Config{Seed: seed}
	if cfg.Sizes, err = tableSizes(fs, uint64(max(1, in.Len())), levels, first, ratio, sizes); err != nil {
		return err
	}
	t, err := mht.BuildHashes(cfg, in.Hashes, in.Values)
	var ie *mht.InsertError
	switch {
	case errors.As(err, &ie) && errors.Is(err, mht.ErrCrisis):
		return fmt.Errorf("%s: %w, after %d items in %d buckets: give more room (--first, --ratio or --sizes)",
			in.where(ie.Index), ie.Err, ie.Items, ie.Buckets)
	case errors.As(err, &ie):
		return fmt.Errorf("%s: %w", in.where(ie.Index), ie.Err)
	case err != nil:
		return usagef("%v", err)
	}
	if in.Len() == 0 {
		e.warnf("%s: no entries read: the table is empty", outputName(out))
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
	t, ok := anyfile.As[*mht.Table](lf.File)
	if !ok {
		return fileErr(lf.path, fmt.Errorf("holds %s, not a multilevel hash table (build one with \"bloomcast mht build\")", lf.kind()))
	}
	return e.answerKeys(keys, withKeys, func(key []byte) (string, bool, error) {
		if v, ok := t.Get(t.Hash(key)); ok {
			return strconv.FormatUint(v, 10), true, nil
		}
		return "absent", false, nil
	})
}
