// Package hashing derives the 128-bit key hashes and the probe positions that
// every bloomcast structure uses.
//
// A key is hashed once, to a [Hash128], by XXH3-128 with a 64-bit seed that
// every bloomcast format records. Probe positions are then derived from the
// two 64-bit halves by enhanced double hashing (Kirsch and Mitzenmacher,
// "Less hashing, same performance: building a better Bloom filter", 2006;
// Dillinger and Manolios, "Bloom filters in probabilistic verification",
// 2004) and reduced to a range by multiply-shift (Lemire, "A fast alternative
// to the modulo reduction", 2016) instead of a division. A caller that hashes
// a key once can probe many filters with the same Hash128, provided they
// share the seed.
//
// The derivation is a wire contract: docs/FORMAT.md states it byte for byte
// and testdata/vectors.tsv pins it with language-neutral golden vectors, so
// a digest built here can be queried by a program written in any language.
// Other derivations (for instance Squid's MD5-based cache digests) plug in
// through the [Scheme] interface without changing the filter layouts.
package hashing

import (
	"math/bits"

	"github.com/zeebo/xxh3"
)

// Hash128 is a key's 128-bit hash. Lo and Hi are the low and high 64-bit
// halves of the XXH3-128 value (XXH128_hash_t's low64 and high64).
type Hash128 struct {
	Lo, Hi uint64
}

// Sum hashes b with XXH3-128 and seed 0.
func Sum(b []byte) Hash128 { return SumSeed(b, 0) }

// SumString hashes s with XXH3-128 and seed 0, without converting it to a
// byte slice.
func SumString(s string) Hash128 { return SumStringSeed(s, 0) }

// SumSeed hashes b with XXH3-128 and the given seed. A secret seed keeps an
// adversary from choosing keys that collide in a filter.
func SumSeed(b []byte, seed uint64) Hash128 {
	u := xxh3.Hash128Seed(b, seed)
	return Hash128{Lo: u.Lo, Hi: u.Hi}
}

// SumStringSeed hashes s with XXH3-128 and the given seed.
func SumStringSeed(s string, seed uint64) Hash128 {
	u := xxh3.HashString128Seed(s, seed)
	return Hash128{Lo: u.Lo, Hi: u.Hi}
}

// Reduce maps x uniformly onto [0, n) by multiply-shift: the high 64 bits
// of the 128-bit product x·n. It costs one multiplication where x % n costs
// a division, and it keeps the property that halving an even n halves the
// result (Reduce(x, n/2) == Reduce(x, n)/2), which is what lets a filter
// fold without false negatives.
func Reduce(x, n uint64) uint64 {
	hi, _ := bits.Mul64(x, n)
	return hi
}

// StepMultiplier scrambles the second half of a hash into the double-hashing
// step (2^64 divided by the golden ratio, rounded to odd). Multiplying by an
// odd constant is a bijection, so the step stays uniform, and its top bits
// depend on every bit of Hi: keys that share a block (chosen from the top
// bits of Hi) do not share steps.
const StepMultiplier = 0x9E3779B97F4A7C15

// OffsetMultiplier scales the quadratic offset of the probe sequence into
// the high bits, where multiply-shift reduction reads (XXH64's PRIME64_2).
const OffsetMultiplier = 0xC2B2AE3D27D4EB4F

// Probes is the state of an enhanced double hashing sequence. The i-th value
// (from 0) is
//
//	x_i = h1 + i·h2 + C·i(i+1)/2  (mod 2^64)
//
// with h1 = Lo, h2 = Hi·StepMultiplier and C = OffsetMultiplier, and each is
// reduced to its range with [Reduce].
//
// Why the offset: plain double hashing, h1 + i·h2, degenerates for the keys
// whose step h2 is close to 0 (or to a fraction j/d of 2^64): their probes
// pile onto one or d positions. Dillinger and Manolios add the cubic
// (i³ − i)/6, but under multiply-shift reduction a small additive term falls
// below the bits that the reduction keeps and changes nothing. Scaling a
// quadratic offset by an odd 64-bit constant puts it in the high bits, so no
// step can cancel it for every i, and the k probes of every key spread out
// even within a 512-bit block.
//
// Probes is a value type so that filters run it inline, with no allocation
// and no interface call.
type Probes struct {
	x, y uint64
}

// NewProbes starts the probe sequence of h.
func NewProbes(h Hash128) Probes {
	return Probes{x: h.Lo, y: h.Hi*StepMultiplier + OffsetMultiplier}
}

// Next returns the next probe's 64-bit value, before range reduction.
func (p *Probes) Next() uint64 {
	v := p.x
	p.x += p.y
	p.y += OffsetMultiplier
	return v
}

// Block picks the block (of nblocks) that the blocked and paged layouts use
// for h: the high half reduced by multiply-shift.
func Block(h Hash128, nblocks uint64) uint64 { return Reduce(h.Hi, nblocks) }
