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
		return fmt.Errorf("cannot combine with %s: %w", displayName(lf.path), err)
	}
	return nil
}
