package anyfile

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/formats/bitsandblooms"
	"github.com/bloomcast/bloomcast/formats/guava"
	"github.com/bloomcast/bloomcast/params"
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
)

var formatNames = [...]string{FormatBloomcast: "bloomcast", FormatSquid: "squid", FormatGuava: "guava",
	FormatBitsAndBlooms: "bits-and-blooms", FormatBitsAndBloomsJSON: "bits-and-blooms-json"}

// String names the format as ParseFormat reads it: "bloomcast", "squid",
// "guava", "bits-and-blooms", "bits-and-blooms-json".
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
	// Guava's Funnels.longFunnel() puts it.
	KeyLong
)

// String names the key type as ParseKeyType reads it: "string", "long".
func (t KeyType) String() string {
	switch t {
	case KeyString:
		return "string"
	case KeyLong:
		return "long"
	}
	return fmt.Sprintf("KeyType(%d)", int(t))
}

// ParseKeyType returns the key type named s: "string" or "long".
func ParseKeyType(s string) (KeyType, error) {
	switch s {
	case "string":
		return KeyString, nil
	case "long":
		return KeyLong, nil
	}
	return 0, errorf("unknown key type %q (want string or long)", s)
}

// Check says whether key is a key of type t: any bytes are a KeyString,
// a decimal 64-bit integer a KeyLong.
func (t KeyType) Check(key []byte) error {
	if t == KeyLong {
		_, err := parseLong(key)
		return err
	}
	return nil
}

// parseLong reads a key of type KeyLong.
func parseLong(key []byte) (int64, error) {
	v, err := strconv.ParseInt(string(key), 10, 64)
	if err != nil {
		return 0, errorf("key %q is not a long (a decimal 64-bit integer)", key)
	}
	return v, nil
}

// checkKeys refuses a key type that f's format does not hash.
func (f *File) checkKeys() error {
	if f.Keys == KeyString || f.Kind() == Guava {
		return nil
	}
	return errorf("%s hashes keys as bytes: only Guava filters take keys as longs", article(f.Kind()))
}

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
	f := &File{Size: int64(len(data)), format: format}
	switch format {
	case FormatGuava:
		f.Guava, err = guava.Decode(data)
	case FormatBitsAndBlooms:
		f.BitsAndBlooms, err = bitsandblooms.Decode(data)
	case FormatBitsAndBloomsJSON:
		f.BitsAndBlooms, err = bitsandblooms.DecodeJSON(data)
	default:
		err = errorf("format %v is not another program's", format)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// containsForeign is Contains for the foreign kinds.
func (f *File) containsForeign(key []byte) (bool, error) {
	switch f.Kind() {
	case Guava:
		if f.Keys == KeyLong {
			v, err := parseLong(key)
			if err != nil {
				return false, err
			}
			return f.Guava.TestLong(v), nil
		}
		return f.Guava.Test(key), nil
	case BitsAndBlooms:
		return f.BitsAndBlooms.Test(key), nil
	}
	return false, errEmptyFile
}

// addForeign is Add for the foreign kinds.
func (f *File) addForeign(key []byte) error {
	switch f.Kind() {
	case Guava:
		if f.Keys == KeyLong {
			v, err := parseLong(key)
			if err != nil {
				return err
			}
			f.Guava.AddLong(v)
			return nil
		}
		f.Guava.Add(key)
	case BitsAndBlooms:
		f.BitsAndBlooms.Add(key)
	default:
		return errorf("%s takes no keys", article(f.Kind()))
	}
	return nil
}

// encodeForeign returns the encoding of a foreign kind in its format.
func (f *File) encodeForeign() (Frame, error) {
	var b []byte
	var err error
	switch f.Kind() {
	case Guava:
		b, err = f.Guava.MarshalBinary()
	case BitsAndBlooms:
		if f.format == FormatBitsAndBloomsJSON {
			b, err = f.BitsAndBlooms.MarshalJSON()
		} else {
			b, err = f.BitsAndBlooms.MarshalBinary()
		}
	default:
		err = errorf("%s is not written back", article(f.Kind()))
	}
	return b, err
}

// combineForeign is Union and Intersect for the foreign kinds, of one
// kind.
func (f *File) combineForeign(g *File, intersect bool) error {
	switch f.Kind() {
	case Guava:
		if intersect {
			return f.Guava.Intersect(g.Guava)
		}
		return f.Guava.Union(g.Guava)
	case BitsAndBlooms:
		if intersect {
			return f.BitsAndBlooms.Intersect(g.BitsAndBlooms)
		}
		return f.BitsAndBlooms.Union(g.BitsAndBlooms)
	}
	return errorf("%s does not combine", article(f.Kind()))
}

// halver is a foreign filter that folds.
type halver interface {
	Fold() error
	Folds() int
}

// halverOf returns f's foreign filter as a halver, and its size in bits.
func (f *File) halverOf() (halver, func() uint64) {
	switch f.Kind() {
	case Guava:
		return f.Guava, f.Guava.Bits
	case BitsAndBlooms:
		return f.BitsAndBlooms, f.BitsAndBlooms.M
	}
	return nil, nil
}

// foldForeign is Fold for a foreign kind: once, or until at most toBits
// bits, checked first so that a target out of reach changes nothing.
func (f *File) foldForeign(toBits uint64) error {
	h, size := f.halverOf()
	if h == nil {
		return errorf("%s cannot be folded", article(f.Kind()))
	}
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
}

// Stats describes f, a filter of another program's format (Kind Guava
// or BitsAndBlooms); the zero Stats for any other kind.
func (f *File) Stats() Stats {
	var s Stats
	switch f.Kind() {
	case Guava:
		g := f.Guava
		s = Stats{Strategy: g.Strategy().String(), Bits: g.Bits(), K: g.K(), SetBits: g.Ones(), Folds: g.Folds()}
	case BitsAndBlooms:
		b := f.BitsAndBlooms
		s = Stats{Bits: b.M(), K: int(b.K()), SetBits: b.Ones(), Folds: b.Folds()}
	default:
		return s
	}
	s.Format = f.Format()
	s.SizeBytes = (s.Bits + 63) / 64 * 8
	if s.Bits > 0 {
		s.FillRatio = float64(s.SetBits) / float64(s.Bits)
	}
	s.EstimatedCount = params.EstimateCount(s.Bits, s.SetBits, s.K)
	s.FalsePositiveRate = params.FalsePositiveFromFill(s.FillRatio, s.K)
	return s
}
