package cli

import (
	"flag"
	"fmt"

	"github.com/bloomcast/bloomcast/anyfile"
)

// Filters of other programs (Guava, bits-and-blooms): package anyfile
// reads, answers, changes and writes them in their own format; here are
// only the flags that force a format or a key type, and inspect's report.

// formatHelp ends the usage of the commands that read other programs'
// filters.
const formatHelp = `
FILE may also be another program's Bloom filter, detected from its bytes
and written back in its own format: a Guava BloomFilter (writeTo stream),
a bits-and-blooms/bloom/v3 filter (binary or JSON), a Parquet split block
Bloom filter (thrift header and bitset), or a Parquet file (read only:
inspect lists its filters, query --column probes them).
  --format NAME   read the file(s) as NAME: bloomcast, squid, guava,
                  bits-and-blooms, bits-and-blooms-json, parquet-sbbf or
                  parquet
`

// keyTypeHelp ends the usage of the commands that hash keys into other
// programs' filters.
const keyTypeHelp = `  --key-type T    how keys go into a Guava or Parquet split block filter:
                  string (default: the key's bytes; Guava's
                  Funnels.stringFunnel(UTF_8), Parquet's BYTE_ARRAY), long
                  (a decimal 64-bit integer: Funnels.longFunnel(), INT64),
                  and for Parquet int (INT32), float (FLOAT), double (DOUBLE)
`

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
