// Package guava reads, writes and queries the Bloom filters of Google
// Guava (com.google.common.hash.BloomFilter) without a JVM.
//
// The stream is what BloomFilter.writeTo writes through a
// java.io.DataOutputStream: one signed byte, the strategy's ordinal
// (0 MURMUR128_MITZ_32, 1 MURMUR128_MITZ_64); one unsigned byte, the
// number of hash functions k; a big-endian int32, the number of 64-bit
// words; then the words, each a big-endian int64. Bit i of the filter is
// bit i%64 of word i/64, and the filter has 64 times as many bits as
// words.
//
// A key is hashed as Guava hashes it: MurmurHash3 x64 128 (seed 0) of the
// bytes its funnel puts. Funnels.stringFunnel(UTF_8) puts the string's
// UTF-8 bytes (AddString, TestString), Funnels.longFunnel() puts the long
// as eight little-endian bytes (AddLong, TestLong), and
// Funnels.byteArrayFunnel() puts the bytes (Add, Test). MURMUR128_MITZ_64
// takes the digest's two little-endian halves h1, h2 and probes
// (h1 + i*h2) & MaxInt64 mod bits for i in 0..k-1; MURMUR128_MITZ_32
// takes the low and high 32-bit halves a, b of h1 and probes a + i*b
// (32-bit, complemented when negative) mod bits for i in 1..k.
//
// Decoding is bounded: the words must be present in the input before any
// are allocated. The layout and hashing were checked against Guava 31.1
// (Debian's libguava-java) by the program in crosscheck/, whose filters
// and answers are the golden files in testdata/.
package guava

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/bloomcast/bloomcast/internal/murmur3"
)

// Strategy is the ordinal of a Guava BloomFilterStrategies value: how a
// key's hash becomes its k bit positions. Its zero value is
// Murmur128Mitz32.
type Strategy uint8

const (
	// Murmur128Mitz32 is MURMUR128_MITZ_32, the strategy of filters
	// written by Guava before release 12; Guava still reads them.
	Murmur128Mitz32 Strategy = 0
	// Murmur128Mitz64 is MURMUR128_MITZ_64, the strategy of every filter
	// Guava's BloomFilter.create builds.
	Murmur128Mitz64 Strategy = 1
)

// String returns Guava's name of the strategy.
func (s Strategy) String() string {
	switch s {
	case Murmur128Mitz32:
		return "MURMUR128_MITZ_32"
	case Murmur128Mitz64:
		return "MURMUR128_MITZ_64"
	}
	return fmt.Sprintf("Strategy(%d)", uint8(s))
}

const (
	// MaxK is the largest number of hash functions: the stream stores k
	// in one unsigned byte.
	MaxK = 255
	// MaxWords is the largest number of 64-bit words: a Java array
	// length, a positive int32.
	MaxWords = math.MaxInt32
	// headerSize is the strategy byte, k and the word count.
	headerSize = 6
)

var (
	// ErrCorrupt reports input that is not a Guava Bloom filter stream.
	ErrCorrupt = errors.New("guava: corrupt encoding")
	// ErrConfig reports parameters a filter cannot be built from.
	ErrConfig = errors.New("guava: invalid configuration")
)

// Filter is a Guava Bloom filter: a strategy, k hash functions and a bit
// array of 64 bits per word.
//
// The zero value is not usable: it has no bits, so Add and Test panic
// and its encoding does not decode. It is a target for UnmarshalBinary;
// otherwise make one with New or NewSized.
type Filter struct {
	strategy Strategy
	k        int
	words    []uint64
}

// New returns an empty MURMUR128_MITZ_64 filter sized as Guava's
// BloomFilter.create(funnel, expectedInsertions, fpp) sizes it, so that
// both have the same bits and k: expectedInsertions 0 counts as 1; the
// bit count is floor(-n ln(fpp) / ln(2)^2), rounded up to whole words;
// k is round(bits/n * ln 2), at least 1 (before rounding up to words,
// as Guava 31.1 computes it). fpp must be in (0, 1).
func New(expectedInsertions int64, fpp float64) (*Filter, error) {
	if expectedInsertions < 0 {
		return nil, fmt.Errorf("%w: expected insertions %d, want >= 0", ErrConfig, expectedInsertions)
	}
	if !(fpp > 0 && fpp < 1) {
		return nil, fmt.Errorf("%w: false positive probability %v, want in (0, 1)", ErrConfig, fpp)
	}
	n := max(expectedInsertions, 1)
	m := optimalNumOfBits(n, fpp)
	return NewSized(Murmur128Mitz64, m, optimalNumOfHashFunctions(n, m))
}

// optimalNumOfBits is Guava's BloomFilter.optimalNumOfBits: the double
// -n*ln(p)/(ln 2)^2 truncated as Java's (long) cast truncates.
func optimalNumOfBits(n int64, p float64) int64 {
	x := float64(-n) * math.Log(p) / (math.Log(2) * math.Log(2))
	if x >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(x)
}

// optimalNumOfHashFunctions is Guava 31.1's optimalNumOfHashFunctions:
// Math.round(m/n * ln 2), at least 1.
func optimalNumOfHashFunctions(n, m int64) int {
	x := math.Floor(float64(m)/float64(n)*math.Log(2) + 0.5)
	if x > math.MaxInt32 {
		return math.MaxInt32
	}
	return max(1, int(x))
}

// NewSized returns an empty filter with the strategy, at least numBits
// bits (rounded up to whole 64-bit words, as Guava's bit array does) and
// k hash functions. numBits must be in [1, 64*MaxWords] and k in
// [1, MaxK].
func NewSized(strategy Strategy, numBits int64, k int) (*Filter, error) {
	if strategy > Murmur128Mitz64 {
		return nil, fmt.Errorf("%w: strategy %d, want 0 or 1", ErrConfig, strategy)
	}
	if numBits < 1 || numBits > 64*MaxWords {
		return nil, fmt.Errorf("%w: %d bits, want 1..%d", ErrConfig, numBits, int64(64*MaxWords))
	}
	if k < 1 || k > MaxK {
		return nil, fmt.Errorf("%w: k=%d hash functions, want 1..%d", ErrConfig, k, MaxK)
	}
	nw := (numBits + 63) / 64
	if nw > math.MaxInt/8 {
		return nil, fmt.Errorf("%w: %d bits do not fit in memory on this platform", ErrConfig, numBits)
	}
	return &Filter{strategy: strategy, k: k, words: make([]uint64, nw)}, nil
}

// Strategy returns the filter's strategy.
func (f *Filter) Strategy() Strategy { return f.strategy }

// K returns the number of hash functions.
func (f *Filter) K() int { return f.k }

// Bits returns the number of bits, 64 per word.
func (f *Filter) Bits() uint64 { return 64 * uint64(len(f.words)) }

// Ones returns the number of set bits.
func (f *Filter) Ones() uint64 {
	var n uint64
	for _, w := range f.words {
		n += uint64(bits.OnesCount64(w))
	}
	return n
}

// probe calls visit with each of the k bit positions of the hash h1, h2
// under the filter's strategy, stopping when visit returns false; it
// reports whether every call returned true.
func (f *Filter) probe(h1, h2 uint64, visit func(b uint64) bool) bool {
	size := f.Bits()
	if f.strategy == Murmur128Mitz32 {
		a, b := int32(h1), int32(h1>>32)
		for i := int32(1); i <= int32(f.k); i++ {
			c := a + i*b
			if c < 0 {
				c = ^c
			}
			if !visit(uint64(c) % size) {
				return false
			}
		}
		return true
	}
	c := h1
	for i := 0; i < f.k; i++ {
		if !visit((c & math.MaxInt64) % size) {
			return false
		}
		c += h2
	}
	return true
}

func (f *Filter) add(h1, h2 uint64) {
	f.probe(h1, h2, func(b uint64) bool {
		f.words[b/64] |= 1 << (b % 64)
		return true
	})
}

func (f *Filter) test(h1, h2 uint64) bool {
	return f.probe(h1, h2, func(b uint64) bool { return f.words[b/64]&(1<<(b%64)) != 0 })
}

// Add adds key as Guava's put does with Funnels.byteArrayFunnel().
func (f *Filter) Add(key []byte) { f.add(murmur3.Sum128(key)) }

// AddString adds s as Guava's put does with
// Funnels.stringFunnel(StandardCharsets.UTF_8): s is taken as UTF-8.
func (f *Filter) AddString(s string) { f.add(murmur3.Sum128([]byte(s))) }

// AddLong adds v as Guava's put does with Funnels.longFunnel().
func (f *Filter) AddLong(v int64) { f.add(murmur3.Sum128Uint64(uint64(v))) }

// Test reports whether key may have been added with Add (Guava's
// mightContain with Funnels.byteArrayFunnel()): false means it was not.
func (f *Filter) Test(key []byte) bool { return f.test(murmur3.Sum128(key)) }

// Contains is Test under the name every filter of this module answers
// to (bloom.Filter.Contains): code written against one filter type then
// compiles against another. Test stays for those who know Guava's
// filter by the bits-and-blooms name.
func (f *Filter) Contains(key []byte) bool { return f.Test(key) }

// TestString reports whether s may have been added with AddString
// (Guava's mightContain with Funnels.stringFunnel(UTF_8)).
func (f *Filter) TestString(s string) bool { return f.test(murmur3.Sum128([]byte(s))) }

// TestLong reports whether v may have been added with AddLong (Guava's
// mightContain with Funnels.longFunnel()).
func (f *Filter) TestLong(v int64) bool { return f.test(murmur3.Sum128Uint64(uint64(v))) }

// MarshalBinary returns the filter as Guava's BloomFilter.writeTo writes
// it.
func (f *Filter) MarshalBinary() ([]byte, error) {
	dst := make([]byte, 0, headerSize+8*len(f.words))
	dst = append(dst, byte(f.strategy), byte(f.k))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(f.words)))
	for _, w := range f.words {
		dst = binary.BigEndian.AppendUint64(dst, w)
	}
	return dst, nil
}

// UnmarshalBinary decodes a BloomFilter.writeTo stream into f, as Decode
// does.
func (f *Filter) UnmarshalBinary(data []byte) error {
	g, err := Decode(data)
	if err != nil {
		return err
	}
	*f = *g
	return nil
}

// checkHeader validates a stream's header against the input's size and
// returns the number of words.
func checkHeader(data []byte) (int, error) {
	if len(data) < headerSize {
		return 0, fmt.Errorf("%w: %d bytes, want at least %d", ErrCorrupt, len(data), headerSize)
	}
	if s := Strategy(data[0]); s > Murmur128Mitz64 {
		return 0, fmt.Errorf("%w: strategy ordinal %d, want 0 (MURMUR128_MITZ_32) or 1 (MURMUR128_MITZ_64)", ErrCorrupt, int8(data[0]))
	}
	if data[1] == 0 {
		return 0, fmt.Errorf("%w: 0 hash functions, want 1..%d", ErrCorrupt, MaxK)
	}
	nw := int32(binary.BigEndian.Uint32(data[2:]))
	if nw < 1 {
		return 0, fmt.Errorf("%w: %d words, want 1..%d", ErrCorrupt, nw, MaxWords)
	}
	if have := len(data) - headerSize; have%8 != 0 || uint64(have/8) != uint64(nw) {
		return 0, fmt.Errorf("%w: %d words need %d bytes after the header, have %d", ErrCorrupt, nw, 8*uint64(nw), have)
	}
	return int(nw), nil
}

// Decode decodes a stream written by Guava's BloomFilter.writeTo. The
// input must hold exactly one filter: missing or trailing bytes are
// errors, and no words are allocated before the input is known to hold
// them all.
func Decode(data []byte) (*Filter, error) {
	nw, err := checkHeader(data)
	if err != nil {
		return nil, err
	}
	f := &Filter{strategy: Strategy(data[0]), k: int(data[1]), words: make([]uint64, nw)}
	for i := range f.words {
		f.words[i] = binary.BigEndian.Uint64(data[headerSize+8*i:])
	}
	return f, nil
}

// Sniff reports whether data looks like one Guava filter stream: a known
// strategy, k at least 1, and a word count that fills the input exactly.
// It does not decode the words.
func Sniff(data []byte) bool {
	_, err := checkHeader(data)
	return err == nil
}
