// Package ribbon implements static approximate-membership filters near
// the information bound: standard ribbon filters (Dillinger and Walzer,
// "Ribbon filter: practically smaller than Bloom and Xor", 2021,
// arXiv:2103.02515).
//
// A filter for a fixed set of n keys is the solution Z of a linear system
// over GF(2): m slots of r bits each. Each key has a start slot s, a
// 128-bit coefficient row c whose first bit is 1, and an r-bit
// fingerprint f, all derived from its hash; its equation says that the
// XOR of the slots Z[s+i] for the bits i set in c is f. The rows form a
// band, so the system is solved by Gaussian elimination on the fly, each
// key's row reduced against the rows already stored until it finds an
// empty slot (the paper's "ribbon insertion"), then by back-substitution
// from the last slot to the first: linear time. A query computes the XOR
// for the key's row, one AND and parity per fingerprint bit over three
// words of each column, and compares it with the fingerprint; an absent
// key matches with probability 2^−r. With m = n·(1 + δ) slots, the filter
// takes (1 + δ)·r bits per key for a rate of 2^−r, that much above the
// information bound n·log2(1/ε) that no filter can beat.
//
// Z is stored column by column in blocks of 64 slots (the paper's
// interleaved layout), which lets the width vary by block: the first h
// blocks may have a column more than the rest, so that a rate that is
// not a power of two costs a fraction of a bit per key, not a whole one
// (Size chooses r and h; Shape has the rate).
// The extra column is a system of its own, over the keys whose start
// falls in those blocks.
//
// Elimination fails when a key's row reduces to zero with a fingerprint
// that is not (a linear dependency with another right-hand side); Build
// then tries a new salt, which changes every key's start, row and
// fingerprint, at most Config.MaxAttempts times, and returns [ErrBuild].
// Keys are hashed once to a [hashing.Hash128] with the filter's seed;
// BuildHashes and ContainsHash take hashes, and ContainsHash allocates
// nothing. Filters travel in the bloomcast frame as structure type 12
// (docs/FORMAT.md).
package ribbon

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/bloomcast/bloomcast/hashing"
)

// Limits.
const (
	// MaxKeys is the largest key set Build accepts (2^32).
	MaxKeys = 1 << 32
	// DefaultAttempts is the number of salts Build tries when
	// Config.MaxAttempts is 0.
	DefaultAttempts = 16
	// DefaultRate is the false-positive rate Build aims at when
	// Config.Rate and Config.Bits are both 0: 1/256.
	DefaultRate = 1.0 / 256
)

// Errors. Functions wrap them with details; test with errors.Is.
var (
	ErrConfig  = errors.New("ribbon: invalid configuration")
	ErrBuild   = errors.New("ribbon: construction failed")
	ErrCorrupt = errors.New("ribbon: corrupt encoding")
)

// Config describes a filter.
// The zero Config builds a filter of rate DefaultRate (8-bit
// fingerprints) with seed 0.
type Config struct {
	// Rate is the false-positive rate asked for, in (0, 1) and at least
	// 2^−32: the filter's rate is at most Rate, with r = ⌊log2(1/Rate)⌋
	// bits and, unless Rate is a power of two, a column more in the
	// first blocks (Size). 0 means Bits, or DefaultRate.
	Rate float64
	// Bits is r, a fingerprint width of 1 to 32 bits throughout (rate
	// 2^−r), when Rate is 0. Rate and Bits are exclusive.
	Bits int
	// Seed is the hashing seed, recorded in the encoding.
	Seed uint64
	// MaxAttempts bounds the salts construction tries before it gives
	// up; 0 means DefaultAttempts.
	MaxAttempts int
}

func (c Config) validate() error {
	switch {
	case c.Rate != 0 && c.Bits != 0:
		return fmt.Errorf("%w: Rate = %g and Bits = %d both given; give one", ErrConfig, c.Rate, c.Bits)
	case c.Rate != 0 && !(c.Rate > 0 && c.Rate < 1):
		return fmt.Errorf("%w: Rate = %g outside (0, 1)", ErrConfig, c.Rate)
	case c.Bits < 0 || c.Bits > MaxBits:
		return fmt.Errorf("%w: Bits = %d outside [1, %d]", ErrConfig, c.Bits, MaxBits)
	case c.MaxAttempts < 0:
		return fmt.Errorf("%w: MaxAttempts = %d is negative", ErrConfig, c.MaxAttempts)
	}
	return nil
}

// shape returns the filter shape for n keys.
func (c Config) shape(n uint64) (Shape, error) {
	var (
		s   Shape
		err error
	)
	switch {
	case c.Bits != 0:
		s, err = OfBits(n, c.Bits)
	case c.Rate != 0:
		s, err = Size(n, c.Rate)
	default:
		s, err = Size(n, DefaultRate)
	}
	// Size's and OfBits's errors wrap ErrConfig already.
	return s, err
}

// Filter is a ribbon filter. Its queries are safe for concurrent use.
//
// The zero Filter holds no keys: it reports every key absent, and its
// encoders return an error wrapping ErrConfig; make one with Build or a
// decoder.
type Filter struct {
	shape Shape
	seed  uint64
	salt  uint64   // the construction attempt's salt
	main  []uint64 // Blocks·r words: block b's column j at b·r + j
	hi    []uint64 // HiWords words: the (r+1)-th column of the first blocks
	r     uint     // shape.Bits, for the query
	mask  uint32   // the low r bits
	built bool     // false in the zero Filter, which has no encoding
}

func newFilter(s Shape, seed uint64) *Filter {
	return &Filter{shape: s, seed: seed, r: uint(s.Bits), mask: uint32(1<<s.Bits - 1), built: true,
		main: make([]uint64, s.Blocks*uint64(s.Bits)), hi: make([]uint64, s.HiWords())}
}

// mix is the finaliser of SplitMix64 (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014): a bijection
// whose outputs for neighbouring inputs look independent.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// golden is the increment of SplitMix64's sequence, 2^64 divided by the
// golden ratio, rounded to odd.
const golden = 0x9e3779b97f4a7c15

// row is a key's equation: its start slot, its coefficient row (bit i of
// lo|hi<<64 selects slot start+i; bit 0 is always set) and its 32-bit
// fingerprint, of which the query compares the low r (or r + 1) bits.
type row struct {
	start  uint64
	lo, hi uint64
	fp     uint32
}

// rowOf derives h's row under salt for a ribbon with the given number of
// starts: the start from mix(Lo ⊕ salt) by multiply-shift, the row's
// first word from mix(Hi ⊕ salt') with bit 0 set, its second word from
// the next value of Lo's SplitMix64 sequence and the fingerprint from the
// next of Hi's, so that start, row and fingerprint are unrelated.
func rowOf(h hashing.Hash128, salt, starts uint64) row {
	a, b := h.Lo^salt, h.Hi^bits.RotateLeft64(salt, 32)
	return row{
		start: startOf(h, salt, starts),
		lo:    mix(b) | 1,
		hi:    mix(a + golden),
		fp:    uint32(mix(b+golden) >> 32),
	}
}

// startOf returns the start of rowOf(h, salt, starts).
func startOf(h hashing.Hash128, salt, starts uint64) uint64 {
	return hashing.Reduce(mix(h.Lo^salt), starts)
}

// Hash returns the hash of key under the filter's seed.
func (f *Filter) Hash(key []byte) hashing.Hash128 { return hashing.SumSeed(key, f.seed) }

// HashString is Hash for a string key.
func (f *Filter) HashString(key string) hashing.Hash128 { return hashing.SumStringSeed(key, f.seed) }

// Contains reports whether key may be in the set: always for a key of
// the set, with probability FalsePositiveRate for any other.
func (f *Filter) Contains(key []byte) bool { return f.ContainsHash(f.Hash(key)) }

// ContainsString is Contains for a string key.
func (f *Filter) ContainsString(key string) bool { return f.ContainsHash(f.HashString(key)) }

// ContainsHash is Contains for a key hashed with the filter's seed. It
// allocates nothing.
func (f *Filter) ContainsHash(h hashing.Hash128) bool {
	if len(f.main) == 0 { // the empty and the zero Filter
		return false
	}
	k := rowOf(h, f.salt, f.shape.Starts())
	b, o := k.start>>6, uint(k.start&63)
	got := column(f.main, f.r, b, o, k.lo, k.hi)
	if b < f.shape.HiBlocks {
		got |= column(f.hi, 1, b, o, k.lo, k.hi) << f.r
		return got == k.fp&(f.mask<<1|1)
	}
	return got == k.fp&f.mask
}

// column returns the r bits of the solution words (r columns per block)
// that the row (lo, hi) at block b, offset o selects: bit j is the parity
// of the row ANDed with column j's 128 slots from 64·b + o. A shift by 64
// is 0 in Go, so o = 0 needs no branch; the third block exists whenever
// o > 0 (a row ends inside the filter), and min keeps its index in range
// when o = 0.
func column(words []uint64, r uint, b uint64, o uint, lo, hi uint64) uint32 {
	n := uint64(len(words)) / uint64(r)
	w0 := words[b*uint64(r) : (b+1)*uint64(r)]
	w1 := words[(b+1)*uint64(r) : (b+2)*uint64(r)]
	b2 := min(b+2, n-1)
	w2 := words[b2*uint64(r) : (b2+1)*uint64(r)]
	var got uint32
	for j := range w0 {
		x := (w0[j]>>o | w1[j]<<(64-o)) & lo
		y := (w1[j]>>o | w2[j]<<(64-o)) & hi
		got |= uint32(bits.OnesCount64(x^y)&1) << j
	}
	return got
}

// Len returns n, the distinct keys the filter holds.
func (f *Filter) Len() uint64 { return f.shape.Keys }

// Shape returns the filter's shape: blocks, widths and keys.
func (f *Filter) Shape() Shape { return f.shape }

// Seed returns the hashing seed.
func (f *Filter) Seed() uint64 { return f.seed }

// Bits returns r, the fingerprint width past the first HiBlocks blocks.
func (f *Filter) Bits() int { return f.shape.Bits }

// SizeBits returns the size of the solution in bits.
func (f *Filter) SizeBits() uint64 { return f.shape.SizeBits() }

// BitsPerKey returns SizeBits/Len (+Inf for an empty filter).
func (f *Filter) BitsPerKey() float64 { return f.shape.BitsPerKey() }

// FalsePositiveRate returns the probability that Contains reports a key
// outside the set: 2^−r, or the mixture of 2^−r and 2^−(r+1) when the
// first blocks have a column more (Shape.FalsePositiveRate).
func (f *Filter) FalsePositiveRate() float64 { return f.shape.FalsePositiveRate() }
