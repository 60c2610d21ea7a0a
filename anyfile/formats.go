package anyfile

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/bloomcast/bloomcast/params"

	"github.com/bloomcast/bloomcast/formats/bitsandblooms"
	"github.com/bloomcast/bloomcast/formats/guava"
	"github.com/bloomcast/bloomcast/formats/parquet"
)

// A Format is how a file encodes its filter: bloomcast's own frame, a
// Squid Cache Digest, or the format of another program whose filters
// anyfile reads, queries and writes back (packages under formats/). The
// zero Format names none: Read then detects the format from the bytes.
type Format int

// The formats.
const (
	FormatBloomcast         Format = iota + 1 // a bloomcast frame (package envelope)
	FormatSquid                               // a Squid Cache Digest, version 5 (package squid)
	FormatGuava                               // a Guava BloomFilter.writeTo stream (package formats/guava)
	FormatBitsAndBlooms                       // bits-and-blooms/bloom/v3's binary form, WriteTo and MarshalBinary
	FormatBitsAndBloomsJSON                   // bits-and-blooms/bloom/v3's JSON form, MarshalJSON
	FormatParquetSBBF                         // a Parquet split block Bloom filter alone: thrift header and bitset (package formats/parquet)
	FormatParquet                             // a Parquet file whose column chunks carry split block Bloom filters
)

var formatNames = [...]string{FormatBloomcast: "bloomcast", FormatSquid: "squid", FormatGuava: "guava",
	FormatBitsAndBlooms: "bits-and-blooms", FormatBitsAndBloomsJSON: "bits-and-blooms-json",
	FormatParquetSBBF: "parquet-sbbf", FormatParquet: "parquet"}

// String names the format as ParseFormat reads it: "bloomcast", "squid",
// "guava", "bits-and-blooms", "bits-and-blooms-json", "parquet-sbbf",
// "parquet".
func (f Format) String() string {
	if f > 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Formats lists the formats in the order of their constants.
func Formats() []Format {
	fs := make([]Format, 0, len(formatNames)-1)
	for f := range formatNames[1:] {
		fs = append(fs, Format(f+1))
	}
	return fs
}

// FormatNames is the formats' names, comma-separated, for messages.
func FormatNames() string {
	names := make([]string, 0, len(formatNames)-1)
	for _, f := range Formats() {
		names = append(names, f.String())
	}
	return strings.Join(names, ", ")
}

// ParseFormat returns the format named s (Format.String).
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if f.String() == s {
			return f, nil
		}
	}
	return 0, errorf("unknown format %q (want one of %s)", s, FormatNames())
}

// foreign reports whether the format is another program's.
func (f Format) foreign() bool { return f >= FormatGuava }

// A KeyType says how a key, given as bytes (a line of text, say), goes
// into a filter whose hashing depends on the type of its keys. The zero
// value, KeyString, takes the key's bytes as they are.
type KeyType int

// The key types.
const (
	// KeyString hashes the key's bytes: what Guava's
	// Funnels.stringFunnel(UTF_8) (and byteArrayFunnel) put, and what
	// bloomcast, Squid and bits-and-blooms filters hash.
	KeyString KeyType = iota
	// KeyLong reads the key as a decimal 64-bit integer and hashes it as
	// Guava's Funnels.longFunnel() puts it, or as a Parquet INT64.
	KeyLong
	// KeyInt, KeyFloat and KeyDouble read the key as a decimal 32-bit
	// integer or a number and hash it as a Parquet INT32, FLOAT or DOUBLE
	// (its plain encoding, parquet.Plain).
	KeyInt
	KeyFloat
	KeyDouble
)

var keyTypeNames = [...]string{KeyString: "string", KeyLong: "long", KeyInt: "int", KeyFloat: "float", KeyDouble: "double"}

// parquetTypes are the Parquet physical types of the key types.
var parquetTypes = [...]parquet.Type{KeyString: parquet.ByteArray, KeyLong: parquet.Int64, KeyInt: parquet.Int32,
	KeyFloat: parquet.Float, KeyDouble: parquet.Double}

// String names the key type as ParseKeyType reads it: "string", "long",
// "int", "float", "double".
func (t KeyType) String() string {
	if t >= 0 && int(t) < len(keyTypeNames) {
		return keyTypeNames[t]
	}
	return fmt.Sprintf("KeyType(%d)", int(t))
}

// ParseKeyType returns the key type named s (KeyType.String).
func ParseKeyType(s string) (KeyType, error) {
	for t, name := range keyTypeNames {
		if s == name {
			return KeyType(t), nil
		}
	}
	return 0, errorf("unknown key type %q (want string, long, int, float or double)", s)
}

// Check says whether key is a key of type t: any bytes are a KeyString,
// a decimal 64-bit integer a KeyLong, and so on.
func (t KeyType) Check(key []byte) error {
	_, err := t.Plain(key)
	return err
}

// Plain returns the Parquet plain encoding of key read as type t (a
// KeyString key is its own bytes), the value a Parquet split block filter
// hashes (parquet.Hash).
func (t KeyType) Plain(key []byte) ([]byte, error) {
	if t < 0 || int(t) >= len(parquetTypes) {
		return nil, errorf("unknown key type %v", t)
	}
	if t == KeyString {
		return key, nil
	}
	b, err := parquet.Plain(parquetTypes[t], 0, string(key))
	if err != nil {
		return nil, errorf("key %q is not a %v (%v)", key, t, parquetTypes[t])
	}
	return b, nil
}

// checkKeys refuses a key type that f's format does not hash.
func (f *File) checkKeys() error { return f.kind().checkKeys(f) }

// sniffForeign returns the foreign format that data, a whole file,
// is in, or 0. The checks are exact (a header consistent with the
// size), and no two formats' checks accept the same bytes: a
// bits-and-blooms header starts with 0x00 0x00 (m < 2^40), where a Guava
// stream's second byte, k, is at least 1.
func sniffForeign(data []byte) Format {
	switch {
	case guava.Sniff(data):
		return FormatGuava
	}
	switch bitsandblooms.Sniff(data) {
	case "binary":
		return FormatBitsAndBlooms
	case "json":
		return FormatBitsAndBloomsJSON
	}
	if parquet.Sniff(data) {
		return FormatParquetSBBF
	}
	return 0
}

// readForeign reads the rest of br, at most the payload limit, and decodes
// it in format, or in the format it is detected to be when format is 0.
func readForeign(br *bufio.Reader, format Format, opt Options) (*File, error) {
	limit := opt.Limits.Payload()
	data, err := io.ReadAll(io.LimitReader(br, int64(min(limit, 1<<62))+1))
	if err != nil {
		return nil, err
	}
	if uint64(len(data)) > limit {
		return nil, errorf("more than %d bytes: larger than any filter read here (the limit)", limit)
	}
	if format == 0 {
		if format = sniffForeign(data); format == 0 {
			return nil, &Error{ErrMagic}
		}
	}
	dec := foreignDecoders[format]
	if dec == nil {
		return nil, errorf("format %v is not another program's", format)
	}
	f := &File{Size: int64(len(data)), format: format}
	if err := dec(f, data); err != nil {
		return nil, err
	}
	return f, nil
}

// Stats are what the bits of a filter of another program's format say
// about it, for inspection. The zero value describes no filter.
type Stats struct {
	Format Format
	// Strategy is a Guava filter's strategy (MURMUR128_MITZ_64 or _32);
	// empty for the others.
	Strategy string
	// Bits is the size of the bit array, m; K the bits a key sets.
	Bits uint64
	K    int
	// SizeBytes is the bit array's size in memory.
	SizeBytes uint64
	SetBits   uint64
	FillRatio float64
	// EstimatedCount is the number of distinct keys the set bits suggest
	// (Swamidass and Baldi: params.EstimateCount).
	EstimatedCount float64
	// FalsePositiveRate is the rate now, from the set bits
	// (params.FalsePositiveFromFill).
	FalsePositiveRate float64
	// Folds is how many times Fold can halve the filter.
	Folds int
	// Blocks is a split block filter's number of 32-byte blocks; 0 for
	// the others.
	Blocks int
}

// Stats describes f, a filter of another program's format (Kind Guava,
// BitsAndBlooms or SBBF); the zero Stats for any other kind.
func (f *File) Stats() Stats { return f.kind().stats(f) }

// bitStats completes the Stats of a filter of another program's format
// from its size, probes and set bits: the format, the array's size in
// 64-bit words, the fill, and the count and rate the fill gives.
func bitStats(f *File, s Stats) Stats {
	s.Format = f.Format()
	s.SizeBytes = (s.Bits + 63) / 64 * 8
	if s.Bits > 0 {
		s.FillRatio = float64(s.SetBits) / float64(s.Bits)
	}
	s.EstimatedCount = params.EstimateCount(s.Bits, s.SetBits, s.K)
	s.FalsePositiveRate = params.FalsePositiveFromFill(s.FillRatio, s.K)
	return s
}

// halver is a foreign filter that folds.
type halver interface {
	Fold() error
	Folds() int
}

// foldHalver folds h, f's filter of size() bits, once, or until at most
// toBits bits, checked first so that a target out of reach changes
// nothing.
func foldHalver(f *File, h halver, size func() uint64, toBits uint64) error {
	if toBits == 0 {
		return h.Fold()
	}
	if lowest := size() >> h.Folds(); lowest > toBits {
		return errorf("%s of %d bits halves %d times, to %d bits, not to %d or fewer",
			article(f.Kind()), size(), h.Folds(), lowest, toBits)
	}
	for size() > toBits {
		if err := h.Fold(); err != nil {
			return err
		}
	}
	return nil
}
