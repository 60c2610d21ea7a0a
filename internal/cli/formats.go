package cli

import (
	"flag"
	"fmt"

	"github.com/bloomcast/bloomcast/anyfile"
)

// Filters of other programs (Guava, bits-and-blooms): package anyfile
// reads, answers, changes and writes them in their own format; here are
// only the flags that force a format or a key type, and inspect's report.

// formatValue is --format: an anyfile.Format by name; 0 detects.
type formatValue anyfile.Format

func (f *formatValue) String() string {
	if *f == 0 {
		return ""
	}
	return anyfile.Format(*f).String()
}

func (f *formatValue) Set(s string) error {
	v, err := anyfile.ParseFormat(s)
	if err != nil {
		return fmt.Errorf("want one of %s", anyfile.FormatNames())
	}
	*f = formatValue(v)
	return nil
}

// keyTypeValue is --key-type: an anyfile.KeyType by name.
type keyTypeValue anyfile.KeyType

func (k *keyTypeValue) String() string { return anyfile.KeyType(*k).String() }

func (k *keyTypeValue) Set(s string) error {
	v, err := anyfile.ParseKeyType(s)
	if err != nil {
		return fmt.Errorf("want string or long")
	}
	*k = keyTypeValue(v)
	return nil
}

// formatFlag registers --format, which every file the command reads
// then must be in.
func (e *env) formatFlag(fs *flag.FlagSet) { fs.Var(&e.format, "format", "") }

// keyTypeFlag registers --key-type.
func (e *env) keyTypeFlag(fs *flag.FlagSet) { fs.Var(&e.keyType, "key-type", "") }

// combineForeign is combineWith for filters of another program's format.
func combineForeign(lf, next *loadedFilter, intersect bool) error {
	var err error
	if intersect {
		err = lf.Intersect(next.File)
	} else {
		err = lf.Union(next.File)
	}
	if err != nil {
		if m := foreignMismatch(lf, next); m != nil {
			return m
		}
		return fmt.Errorf("cannot combine with %s: %w", displayName(lf.path), err)
	}
	return nil
}

// foreignMismatch is describeMismatch for other programs' filters of one
// format and k that differ in size only: fold the larger to the smaller's
// size, if it folds that far.
func foreignMismatch(a, b *loadedFilter) error {
	as, bs := a.Stats(), b.Stats()
	if as.Bits == bs.Bits || as.K != bs.K || as.Format != bs.Format || as.Strategy != bs.Strategy {
		return nil
	}
	an, bn := displayName(a.path), displayName(b.path)
	what := fmt.Sprintf("%s has %d bits, %s %d", an, as.Bits, bn, bs.Bits)
	large, ls, ss := b, bs, as
	if as.Bits > bs.Bits {
		large, ls, ss = a, as, bs
	}
	m := ls.Bits
	for i := 0; i < ls.Folds && m > ss.Bits; i++ {
		m /= 2
	}
	if m == ss.Bits {
		return &mismatch{fmt.Sprintf("%s: fold %s --to %d first, or build both with the same -m", what, displayName(large.path), ss.Bits)}
	}
	return &mismatch{fmt.Sprintf("%s: build both with the same -m and -k", what)}
}
