// Package parquet reads, writes, queries and folds the Split Block Bloom
// Filters (SBBF) of Apache Parquet, standalone and inside Parquet files.
//
// The filter is the one of the Parquet format's BloomFilter.md
// (apache/parquet-format): a bitset of z blocks of 32 bytes, each block
// eight 32-bit little-endian words. A value is hashed with xxHash64
// (seed 0) of its plain encoding: a BYTE_ARRAY's bytes without the length
// prefix, a FIXED_LEN_BYTE_ARRAY's bytes, an INT32 or FLOAT as four
// little-endian bytes, an INT64 or DOUBLE as eight. The hash h picks the
// block ((h>>32)·z)>>32 (multiply-shift of the high 32 bits) and, with
// x = the low 32 bits of h, sets or tests in word i of that block the bit
// (x·salt[i])>>27 (32-bit product), for the eight odd salts of the spec.
// The blocked layout is Putze, Sanders and Singler's ("Cache-, Hash- and
// Space-Efficient Bloom Filters", WEA 2007), one bit per 32-bit lane the
// split Bloom filter of Broder and Mitzenmacher's survey (§2.1).
//
// Standalone, a filter is what Parquet writers store at a column chunk's
// bloom_filter_offset: a thrift compact BloomFilterHeader (numBytes,
// algorithm BLOCK, hash XXHASH, compression UNCOMPRESSED) followed by the
// bitset (Decode, Filter.MarshalBinary, Sniff). Inside a file, OpenFile
// reads the footer and lists the column chunks that carry a filter
// (File.Filters), and File.Probe answers, per value, the row groups whose
// filter may hold it. Headers and footers are decoded by
// github.com/parquet-go/parquet-go's format and encoding/thrift packages,
// after a bounded walk of the thrift input (nesting, and every list, set
// and map no longer than the bytes left) so that no input makes the
// decoder allocate more than a small multiple of its size.
//
// Fold halves a filter exactly: with multiply-shift indexing, the block of
// a hash among z/2 blocks is its block among z blocks divided by two, so
// ORing blocks 2i and 2i+1 gives, bit for bit, the filter of z/2 blocks
// built from the same values. Fit builds large and folds to the smallest
// size that meets a false-positive target for the values actually added,
// by the rate of params.SplitBlockFalsePositive (docs/PARQUET.md gives the
// bytes it saves against a guessed distinct count).
//
// The layout and hashing were checked against parquet-go v0.32.0 (its
// bloom package builds filters word-for-word identical to these) and
// DuckDB (whose parquet_bloom_probe answers as File.Probe does), by the
// test-only module in crosscheck/; the files in testdata/ were written by
// both (crosscheck/generate.sh).
package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

const (
	// BlockBytes is the size of one block: eight 32-bit words.
	BlockBytes = 32
	// MinBytes is the smallest bitset, one block.
	MinBytes = BlockBytes
	// MaxBytes is the largest bitset this package builds or decodes,
	// 128 MiB: the upper bound of parquet-java and Arrow's writers.
	MaxBytes = 128 << 20
)

var (
	// ErrCorrupt reports input that is not a well-formed SBBF or Parquet
	// file.
	ErrCorrupt = errors.New("parquet: corrupt encoding")
	// ErrUnsupported reports a well-formed filter or column this package
	// does not handle: another algorithm, hash or compression than the
	// spec's BLOCK, XXHASH and UNCOMPRESSED, an encrypted footer, or a
	// physical type without a plain-encoding hash (BOOLEAN).
	ErrUnsupported = errors.New("parquet: unsupported")
	// ErrConfig reports parameters a filter cannot be built from.
	ErrConfig = errors.New("parquet: invalid configuration")
	// ErrFold reports a filter that cannot be folded further: one block,
	// or an odd number of blocks.
	ErrFold = errors.New("parquet: cannot fold")
)

// salt holds the eight odd constants of BloomFilter.md; lane i of a block
// tests bit (x·salt[i])>>27.
var salt = [8]uint32{
	0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d,
	0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31,
}

// Filter is a Split Block Bloom Filter: z blocks of eight 32-bit words.
//
// The zero value is a filter of no blocks: it holds nothing (the Check
// methods report false), Insert panics naming New, and MarshalBinary
// refuses it. Make one with New, NewBlocks or NewNDV, or decode one with
// Decode or UnmarshalBinary. A Filter is not safe for concurrent Insert.
type Filter struct {
	words []uint32 // 8 per block
}

// New returns an empty filter with a bitset of numBytes bytes, a multiple
// of 32 in [MinBytes, MaxBytes].
func New(numBytes int) (*Filter, error) {
	if numBytes < MinBytes || numBytes > MaxBytes || numBytes%BlockBytes != 0 {
		return nil, fmt.Errorf("%w: %d bytes, want a multiple of %d in %d..%d", ErrConfig, numBytes, BlockBytes, MinBytes, MaxBytes)
	}
	return &Filter{words: make([]uint32, numBytes/4)}, nil
}

// NewBlocks returns an empty filter of numBlocks blocks of 32 bytes.
func NewBlocks(numBlocks int) (*Filter, error) {
	if numBlocks < 1 || numBlocks > MaxBytes/BlockBytes {
		return nil, fmt.Errorf("%w: %d blocks, want 1..%d", ErrConfig, numBlocks, MaxBytes/BlockBytes)
	}
	return New(numBlocks * BlockBytes)
}

// BitsPerValue returns the bits per distinct value that BloomFilter.md
// gives for a false-positive rate p: −8 / ln(1 − p^(1/8)), 9.68 for 1%.
func BitsPerValue(p float64) float64 {
	return -8 / math.Log1p(-math.Pow(p, 1.0/8))
}

// NDVBytes returns the bitset size in bytes that DuckDB's Parquet writer
// (ParquetBloomFilter in extension/parquet) gives ndv distinct values at
// false-positive rate p, and that NewNDV builds: m = ndv·BitsPerValue(p)
// bits, m/8 bytes (truncated) rounded up to a power of two, at least one
// block and at most MaxBytes. parquet-java rounds the same m up to a power
// of two too, but caps it at its maximum (1 MiB by default).
func NDVBytes(ndv uint64, p float64) (int, error) {
	if !(p > 0 && p < 1) {
		return 0, fmt.Errorf("%w: false-positive rate %v, want in (0, 1)", ErrConfig, p)
	}
	m := float64(ndv) * BitsPerValue(p)
	if m/8 >= MaxBytes {
		return MaxBytes, nil
	}
	b := uint64(m / 8)
	if b <= MinBytes {
		return MinBytes, nil
	}
	return int(uint64(1) << bits.Len64(b-1)), nil
}

// NewNDV returns an empty filter sized by NDVBytes for ndv distinct values
// at false-positive rate p.
func NewNDV(ndv uint64, p float64) (*Filter, error) {
	n, err := NDVBytes(ndv, p)
	if err != nil {
		return nil, err
	}
	return New(n)
}

// Blocks returns the number of 32-byte blocks.
func (f *Filter) Blocks() int { return len(f.words) / 8 }

// Bytes returns the size of the bitset in bytes (numBytes of the header).
func (f *Filter) Bytes() int { return 4 * len(f.words) }

// Ones returns the number of set bits.
func (f *Filter) Ones() uint64 {
	var n uint64
	for _, w := range f.words {
		n += uint64(bits.OnesCount32(w))
	}
	return n
}

// Fill returns the fraction of bits set, 0 for the zero Filter.
func (f *Filter) Fill() float64 {
	if len(f.words) == 0 {
		return 0
	}
	return float64(f.Ones()) / float64(32*len(f.words))
}

// EstimateNDV estimates the number of distinct values inserted from the
// fill. A value sets one bit in each 32-bit lane of one block; with n
// values spread over z blocks, a block's load is close to Poisson with
// mean λ = n/z, and a lane bit is clear with probability
// E[(31/32)^J] = exp(−λ/32) (the Poisson generating function). Solving
// fill = 1 − exp(−n/(32z)) for n gives
//
//	n̂ = −32·z·ln(1 − fill) = −(bits/8)·ln(1 − fill).
//
// The estimate is unbiased to first order; its spread comes from which
// bits the values happen to share, and TestEstimateNDV holds it within
// 5% of the true count for 10^3 to 10^6 values at fills from 0.01 to
// 0.9. Values that collide in every lane (false positives among the
// inserted values) are not counted. A full filter gives +Inf; the zero
// Filter gives 0.
func (f *Filter) EstimateNDV() float64 {
	if len(f.words) == 0 {
		return 0
	}
	return -float64(4*len(f.words)) * math.Log1p(-f.Fill())
}

// block returns the index of h's block among z blocks.
func block(h uint64, z int) int {
	return int(((h >> 32) * uint64(z)) >> 32)
}

// InsertHash adds a value by its xxHash64. It panics on the zero Filter.
func (f *Filter) InsertHash(h uint64) {
	if len(f.words) == 0 {
		panic("parquet: Insert on a zero Filter: make one with parquet.New, NewBlocks or NewNDV")
	}
	w := f.words[8*block(h, len(f.words)/8):][:8]
	x := uint32(h)
	for i := range w {
		w[i] |= 1 << ((x * salt[i]) >> 27)
	}
}

// CheckHash reports whether a value with xxHash64 h may have been
// inserted: false means it was not.
func (f *Filter) CheckHash(h uint64) bool {
	if len(f.words) == 0 {
		return false
	}
	w := f.words[8*block(h, len(f.words)/8):][:8]
	x := uint32(h)
	for i := range w {
		if w[i]&(1<<((x*salt[i])>>27)) == 0 {
			return false
		}
	}
	return true
}

// Hash returns the xxHash64 (seed 0) of a value's plain encoding: the
// bytes of a BYTE_ARRAY (without the length prefix) or FIXED_LEN_BYTE_ARRAY.
func Hash(plain []byte) uint64 { return xxhash.Sum64(plain) }

// HashString returns Hash of s's bytes, a BYTE_ARRAY (STRING) value.
func HashString(s string) uint64 { return xxhash.Sum64String(s) }

// HashInt32 returns the hash of an INT32 value: its four little-endian
// bytes.
func HashInt32(v int32) uint64 {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(v))
	return xxhash.Sum64(b[:])
}

// HashInt64 returns the hash of an INT64 value: its eight little-endian
// bytes.
func HashInt64(v int64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	return xxhash.Sum64(b[:])
}

// HashFloat32 returns the hash of a FLOAT value: the four little-endian
// bytes of its IEEE 754 bits (so −0 and +0, and NaNs with different
// payloads, hash apart).
func HashFloat32(v float32) uint64 { return HashInt32(int32(math.Float32bits(v))) }

// HashFloat64 returns the hash of a DOUBLE value: the eight little-endian
// bytes of its IEEE 754 bits.
func HashFloat64(v float64) uint64 { return HashInt64(int64(math.Float64bits(v))) }

// Insert adds a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY value.
func (f *Filter) Insert(v []byte) { f.InsertHash(Hash(v)) }

// Check reports whether a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY value may
// have been inserted.
func (f *Filter) Check(v []byte) bool { return f.CheckHash(Hash(v)) }

// Add is Insert and Contains is Check under the names every filter of
// this module answers to (bloom.Filter.Add, Contains), so that code
// written against one filter type compiles against another; Insert and
// Check are the names of Parquet's specification and of Arrow's and
// parquet-go's filters, kept for code written against those.
func (f *Filter) Add(v []byte) { f.Insert(v) }

// Contains is Check (see Add).
func (f *Filter) Contains(v []byte) bool { return f.Check(v) }

// InsertString adds a BYTE_ARRAY (STRING) value.
func (f *Filter) InsertString(s string) { f.InsertHash(HashString(s)) }

// CheckString reports whether a BYTE_ARRAY (STRING) value may have been
// inserted.
func (f *Filter) CheckString(s string) bool { return f.CheckHash(HashString(s)) }

// InsertInt32 adds an INT32 value.
func (f *Filter) InsertInt32(v int32) { f.InsertHash(HashInt32(v)) }

// CheckInt32 reports whether an INT32 value may have been inserted.
func (f *Filter) CheckInt32(v int32) bool { return f.CheckHash(HashInt32(v)) }

// InsertInt64 adds an INT64 value.
func (f *Filter) InsertInt64(v int64) { f.InsertHash(HashInt64(v)) }

// CheckInt64 reports whether an INT64 value may have been inserted.
func (f *Filter) CheckInt64(v int64) bool { return f.CheckHash(HashInt64(v)) }

// InsertFloat32 adds a FLOAT value.
func (f *Filter) InsertFloat32(v float32) { f.InsertHash(HashFloat32(v)) }

// CheckFloat32 reports whether a FLOAT value may have been inserted.
func (f *Filter) CheckFloat32(v float32) bool { return f.CheckHash(HashFloat32(v)) }

// InsertFloat64 adds a DOUBLE value.
func (f *Filter) InsertFloat64(v float64) { f.InsertHash(HashFloat64(v)) }

// CheckFloat64 reports whether a DOUBLE value may have been inserted.
func (f *Filter) CheckFloat64(v float64) bool { return f.CheckHash(HashFloat64(v)) }

// Words returns a copy of the bitset as 32-bit words, eight per block, in
// the order they are stored.
func (f *Filter) Words() []uint32 { return append([]uint32(nil), f.words...) }

// Bitset returns the bitset as stored after the header: the words,
// little-endian.
func (f *Filter) Bitset() []byte {
	out := make([]byte, 0, 4*len(f.words))
	for _, w := range f.words {
		out = binary.LittleEndian.AppendUint32(out, w)
	}
	return out
}

// FromBitset returns a filter whose bitset is a copy of b (the bytes after
// the header): a multiple of 32 bytes in [MinBytes, MaxBytes].
func FromBitset(b []byte) (*Filter, error) {
	if len(b) < MinBytes || len(b) > MaxBytes || len(b)%BlockBytes != 0 {
		return nil, fmt.Errorf("%w: bitset of %d bytes, want a multiple of %d in %d..%d", ErrCorrupt, len(b), BlockBytes, MinBytes, MaxBytes)
	}
	f := &Filter{words: make([]uint32, len(b)/4)}
	for i := range f.words {
		f.words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return f, nil
}

// Equal reports whether f and g have the same blocks, bit for bit (nil
// counts as the zero Filter).
func (f *Filter) Equal(g *Filter) bool {
	if g == nil {
		g = &Filter{}
	}
	if len(f.words) != len(g.words) {
		return false
	}
	for i, w := range f.words {
		if g.words[i] != w {
			return false
		}
	}
	return true
}

// Union ORs g into f: afterwards f holds every value either held. Both
// must have the same number of blocks.
func (f *Filter) Union(g *Filter) error {
	if g == nil {
		return fmt.Errorf("%w: union with nil", ErrConfig)
	}
	if len(f.words) != len(g.words) || len(f.words) == 0 {
		return fmt.Errorf("%w: union of %d and %d blocks, want the same nonzero count", ErrConfig, f.Blocks(), g.Blocks())
	}
	for i, w := range g.words {
		f.words[i] |= w
	}
	return nil
}

// Clone returns a copy of f.
func (f *Filter) Clone() *Filter { return &Filter{words: f.Words()} }

// Fold halves the number of blocks in place by ORing blocks 2i and 2i+1
// into block i. The result is, bit for bit, the filter of half the blocks
// built from the same values: a hash's block among z/2 blocks,
// ((h>>32)·z/2)>>32, is its block among z, ((h>>32)·z)>>32, halved
// (⌊⌊2a/2^32⌋/2⌋ = ⌊a/2^32⌋ for a = (h>>32)·z/2), and the bits within
// a block do not depend on z. It returns ErrFold when the block count is
// odd or 1 (or the Filter is zero), leaving f as it was.
func (f *Filter) Fold() error {
	z := f.Blocks()
	if z < 2 || z%2 != 0 {
		return fmt.Errorf("%w: %d blocks, want an even number", ErrFold, z)
	}
	for i := 0; i < z/2; i++ {
		dst := f.words[8*i : 8*i+8]
		a, b := f.words[16*i:16*i+8], f.words[16*i+8:16*i+16]
		for j := range dst {
			dst[j] = a[j] | b[j]
		}
	}
	f.words = f.words[: 4*z : 4*z]
	return nil
}

// FoldTo folds f until it has blocks blocks: blocks must be z/2^j for the
// current count z and some j ≥ 0 (f is left as it was otherwise).
func (f *Filter) FoldTo(blocks int) error {
	z := f.Blocks()
	if blocks < 1 || blocks > z {
		return fmt.Errorf("%w: %d blocks to %d", ErrFold, z, blocks)
	}
	for c := z; c != blocks; c /= 2 {
		if c%2 != 0 || c < 2 {
			return fmt.Errorf("%w: %d blocks do not halve to %d", ErrFold, z, blocks)
		}
	}
	for f.Blocks() != blocks {
		if err := f.Fold(); err != nil {
			return err
		}
	}
	f.words = append([]uint32(nil), f.words...) // release the unfolded half
	return nil
}
