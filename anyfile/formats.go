package anyfile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/formats/bitsandblooms"
	"github.com/bloomcast/bloomcast/formats/guava"
	"github.com/bloomcast/bloomcast/formats/parquet"
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
	switch k := f.Kind(); {
	case f.Keys == KeyString, k == SBBF, k == ParquetFile:
		return nil
	case k == Guava && f.Keys == KeyLong:
		return nil
	case k == Guava:
		return errorf("a Guava filter takes keys as strings or longs, not as %vs", f.Keys)
	}
	return errorf("%s hashes keys as bytes: only Guava filters take keys as longs, and Parquet filters as long, int, float or double", article(f.Kind()))
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
	f := &File{Size: int64(len(data)), format: format}
	switch format {
	case FormatGuava:
		f.Guava, err = guava.Decode(data)
	case FormatBitsAndBlooms:
		f.BitsAndBlooms, err = bitsandblooms.Decode(data)
	case FormatBitsAndBloomsJSON:
		f.BitsAndBlooms, err = bitsandblooms.DecodeJSON(data)
	case FormatParquetSBBF:
		f.SBBF, err = parquet.Decode(data)
	case FormatParquet:
		f.Parquet, err = parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
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
	case SBBF:
		p, err := f.Keys.Plain(key)
		if err != nil {
			return false, err
		}
		return f.SBBF.Check(p), nil
	case ParquetFile:
		return false, errParquetFile("answers by column and row group (File.Parquet.Probe)")
	}
	return false, errEmptyFile
}

// errParquetFile is the error of what a Parquet file does not do.
func errParquetFile(what string) error {
	return errorf("a Parquet file holds one filter per column chunk: it %s", what)
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
	case SBBF:
		p, err := f.Keys.Plain(key)
		if err != nil {
			return err
		}
		f.SBBF.Insert(p)
	case ParquetFile:
		return errParquetFile("takes no keys: its filters describe the values in its row groups, which bloomcast does not rewrite")
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
	case SBBF:
		b, err = f.SBBF.MarshalBinary()
	case ParquetFile:
		err = errParquetFile("is not written back: bloomcast does not rewrite Parquet files")
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
	case SBBF:
		if intersect {
			return f.intersectSBBF(g.SBBF)
		}
		return f.SBBF.Union(g.SBBF)
	case ParquetFile:
		return errParquetFile("does not combine: bloomcast does not rewrite Parquet files")
	}
	return errorf("%s does not combine", article(f.Kind()))
}

// intersectSBBF ANDs g's bits into f's split block filter, of the same
// size.
func (f *File) intersectSBBF(g *parquet.Filter) error {
	a, b := f.SBBF.Bitset(), g.Bitset()
	if len(a) != len(b) {
		return fmt.Errorf("split block filters of %d and %d blocks do not combine", f.SBBF.Blocks(), g.Blocks())
	}
	for i := range a {
		a[i] &= b[i]
	}
	h, err := parquet.FromBitset(a)
	if err == nil {
		f.SBBF = h
	}
	return err
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
	case SBBF:
		return sbbfHalver{f.SBBF}, func() uint64 { return 8 * uint64(f.SBBF.Bytes()) }
	}
	return nil, nil
}

// sbbfHalver is a split block filter as a halver.
type sbbfHalver struct{ *parquet.Filter }

func (s sbbfHalver) Folds() int { return bits.TrailingZeros(uint(s.Blocks())) }

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
	// Blocks is a split block filter's number of 32-byte blocks; 0 for
	// the others.
	Blocks int
}

// sbbfStats describes a split block filter: a key sets one bit in each
// of the eight 32-bit words of its block, so the rate from the bits is
// the mean over the blocks of the product of the words' fills, and the
// count is the filter's own estimate (parquet.Filter.EstimateNDV).
func sbbfStats(f *parquet.Filter) Stats {
	s := Stats{Format: FormatParquetSBBF, Bits: 8 * uint64(f.Bytes()), K: 8, SizeBytes: uint64(f.Bytes()),
		SetBits: f.Ones(), FillRatio: f.Fill(), EstimatedCount: f.EstimateNDV(), Blocks: f.Blocks(),
		Folds: sbbfHalver{f}.Folds()}
	words := f.Words()
	var sum float64
	for b := 0; b+8 <= len(words); b += 8 {
		p := 1.0
		for _, w := range words[b : b+8] {
			p *= float64(bits.OnesCount32(w)) / 32
		}
		sum += p
	}
	if n := len(words) / 8; n > 0 {
		s.FalsePositiveRate = sum / float64(n)
	}
	return s
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
	case SBBF:
		return sbbfStats(f.SBBF)
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

// readParquet reads a Parquet file: its footer, and every split block
// filter its column chunks carry, into memory, so that the File answers
// after r is closed. A reader that can seek (an *os.File) is read only
// there, however large the file; any other is read whole, within the
// payload limit.
func readParquet(r io.Reader, br *bufio.Reader, opt Options) (*File, error) {
	type statReaderAt interface {
		io.ReaderAt
		Stat() (os.FileInfo, error)
	}
	sr, ok := r.(statReaderAt)
	if !ok {
		return readForeign(br, FormatParquet, opt)
	}
	fi, err := sr.Stat()
	if err != nil {
		return nil, err
	}
	rec := &recordingReaderAt{r: sr}
	pf, err := parquet.OpenFile(rec, fi.Size())
	if err != nil {
		return nil, err
	}
	for _, c := range pf.Filters() {
		if _, err := pf.ReadFilter(c); err != nil {
			return nil, err
		}
	}
	rec.r = nil // from now on, only what was read
	return &File{Size: fi.Size(), Parquet: pf, format: FormatParquet}, nil
}

// recordingReaderAt reads through r and keeps what it read; once r is
// nil it serves those bytes only.
type recordingReaderAt struct {
	r     io.ReaderAt
	spans []span
}

type span struct {
	off int64
	b   []byte
}

func (rr *recordingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if rr.r != nil {
		n, err := rr.r.ReadAt(p, off)
		rr.spans = append(rr.spans, span{off, append([]byte(nil), p[:n]...)})
		return n, err
	}
	for _, s := range rr.spans {
		if off >= s.off && off+int64(len(p)) <= s.off+int64(len(s.b)) {
			return copy(p, s.b[off-s.off:]), nil
		}
	}
	for _, s := range rr.spans { // a read that ended at the file's end
		if off == s.off && len(s.b) < len(p) {
			return copy(p, s.b), io.EOF
		}
	}
	return 0, errorf("bytes %d to %d of the Parquet file were not read when it was opened", off, off+int64(len(p)))
}
