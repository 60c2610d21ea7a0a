package cli

import (
	"flag"
	"fmt"
	"strconv"

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

// foreignReport is what inspect prints for another program's filter;
// its JSON form is a stable interface for scripts.
type foreignReport struct {
	File   string `json:"file"`
	Format string `json:"format"`
	// Strategy is a Guava filter's (MURMUR128_MITZ_64 or _32).
	Strategy          string  `json:"strategy,omitempty"`
	M                 uint64  `json:"m"`
	K                 int     `json:"k"`
	SizeBytes         uint64  `json:"size_bytes"`
	EncodedBytes      int64   `json:"encoded_bytes"`
	SetBits           uint64  `json:"set_bits"`
	FillRatio         float64 `json:"fill_ratio"`
	EstimatedCount    float64 `json:"estimated_count"`
	FalsePositiveRate float64 `json:"false_positive_rate"`
	Folds             int     `json:"folds"`
	// Blocks is a Parquet split block filter's number of 32-byte blocks.
	Blocks int `json:"blocks,omitempty"`
}

// inspectForeign is inspect for another program's filter.
func inspectForeign(e *env, path string, lf *loadedFilter, asJSON bool) error {
	s := lf.Stats()
	r := foreignReport{File: path, Format: s.Format.String(), Strategy: s.Strategy, M: s.Bits, K: s.K,
		SizeBytes: s.SizeBytes, EncodedBytes: lf.Size, SetBits: s.SetBits, FillRatio: s.FillRatio,
		EstimatedCount: s.EstimatedCount, FalsePositiveRate: s.FalsePositiveRate, Folds: s.Folds, Blocks: s.Blocks}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	var kv keyValues
	kv.add("file", displayName(r.File))
	format := r.Format + " (" + lf.kind() + ")"
	if r.Strategy != "" {
		format += ", strategy " + r.Strategy
	}
	if r.Blocks != 0 {
		format += fmt.Sprintf(", %d blocks of 256 bits", r.Blocks)
	}
	kv.add("format", format)
	kv.add("m", fmt.Sprintf("%d bits", r.M))
	kv.add("k", strconv.Itoa(r.K))
	kv.add("size", fmt.Sprintf("%d bytes of bits, %d bytes encoded (%s)", r.SizeBytes, r.EncodedBytes, humanBytes(r.EncodedBytes)))
	kv.add("set bits", strconv.FormatUint(r.SetBits, 10))
	kv.add("fill ratio", strconv.FormatFloat(r.FillRatio, 'f', 4, 64))
	kv.add("estimated count", fmt.Sprintf("%.0f distinct keys, from the set bits", r.EstimatedCount))
	kv.add("false-positive rate", rate(r.FalsePositiveRate)+" now, from the set bits")
	folds := "0 (cannot be halved)"
	if r.Folds > 0 {
		folds = fmt.Sprintf("%d (halves down to %d bits, 1/%d)", r.Folds, r.M>>r.Folds, uint64(1)<<r.Folds)
	}
	kv.add("folds", folds)
	return kv.write(e.stdout)
}
