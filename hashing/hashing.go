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
// A second scheme, [XXH3x64] ([Fast64], [Sum64Seed]), hashes keys with
// XXH3-64 and derives the high half from the low one, with the same
// probes: a filter records which scheme it uses.
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

// Hash128 is a key's 128-bit hash. Under the default scheme, Lo and Hi
// are the low and high 64-bit halves of the XXH3-128 value
// (XXH128_hash_t's low64 and high64); other schemes define their own
// (Sum64Seed, SquidWord).
// The zero value is the hash whose halves are both 0, a valid Hash128.
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

// HiMultiplier is the odd constant by which [Sum64Seed] derives a hash's
// high half from its low one.
const HiMultiplier = 0x9FB21C651E98DF25

// Sum64Seed hashes b with XXH3-64 and the given seed, the key hash of
// scheme [XXH3x64]: Lo is the XXH3-64 value and Hi = t ⊕ t≫28 with t =
// Lo·HiMultiplier. Hi is a bijection of Lo (an odd multiplier, then an
// xor-shift), so two keys collide in Hash128 exactly when their 64-bit
// hashes do, with probability 2^-64 a pair: for any set a filter holds,
// far below its false-positive rate. The multiply gives the top bits of
// Hi, which choose a key's block, a dependence on every bit of Lo; the
// shift folds them into the low bits, from which the probe step starts.
func Sum64Seed(b []byte, seed uint64) Hash128 { return mix64(xxh3.HashSeed(b, seed)) }

// SumString64Seed is Sum64Seed for a string key.
func SumString64Seed(s string, seed uint64) Hash128 { return mix64(xxh3.HashStringSeed(s, seed)) }

// mix64 is the Hash128 of a key whose XXH3-64 value is lo.
func mix64(lo uint64) Hash128 {
	t := lo * HiMultiplier
	return Hash128{Lo: lo, Hi: t ^ t>>28}
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

// OffsetMultiplier derives the third hash h3 = Lo·OffsetMultiplier, the
// coefficient of the probe sequence's quadratic term (XXH64's PRIME64_2).
const OffsetMultiplier = 0xC2B2AE3D27D4EB4F

// FinalMultiplier is the odd constant of the probe finaliser [Finalize].
const FinalMultiplier = 0xD6E8FEB86659FD93

// Finalize is the last step of every probe value: (x ⊕ x≫32)·FinalMultiplier
// mod 2^64, a bijection. It breaks the linear structure of the sequence
// below (measured in a 512-bit block at p = 10⁻³: 1.03–1.06 times the
// model's rate without it, 1.00–1.03 with it, like independent probes).
// Any function of x_i may stand here without losing the fold property,
// which needs only that positions be Reduce(g, n).
func Finalize(x uint64) uint64 { return (x ^ x>>32) * FinalMultiplier }

// Probes is the state of a probe sequence. The i-th value (from 0) is
//
//	x_i = h1 + i·h2 + h3·i(i+1)/2  (mod 2^64),  v_i = Finalize(x_i)
//
// with h1 = Lo, h2 = Hi·StepMultiplier and h3 = Lo·OffsetMultiplier, and
// each v_i is reduced to its range with [Reduce]. This is enhanced double
// hashing (Dillinger and Manolios; Kirsch and Mitzenmacher) adapted to
// multiply-shift reduction, which reads only the high bits of x_i:
//
//   - Dillinger and Manolios add the cubic (i³ − i)/6 so that no step h2
//     makes the probes pile up; that small term falls below the bits the
//     reduction keeps, so here the quadratic term has a full 64-bit
//     coefficient.
//   - The coefficient is a third hash of the key, not a constant. With two
//     hashes, a key's k probes in a small range are fixed by two numbers,
//     so two keys in one 512-bit block share all their probes with
//     probability about 1/512² per pair, which at ~50 keys per block adds
//     ~10⁻⁴ to the false-positive rate (measured: +12% at p = 10⁻³). A
//     third hash makes such a coincidence ~1/512³.
//
// h3 is derived from Lo by an odd multiplication: a bijection whose high
// bits depend on every bit of Lo, so keys whose first probes agree (equal
// high bits of Lo) still have unrelated h3.
//
// Probes is a value type so that filters run it inline, with no allocation
// and no interface call.
//
// The zero value is the probe sequence of the zero hash,
// NewProbes(Hash128{}).
type Probes struct {
	x, y, z uint64
}

// NewProbes starts the probe sequence of h.
func NewProbes(h Hash128) Probes {
	z := h.Lo * OffsetMultiplier
	return Probes{x: h.Lo, y: h.Hi*StepMultiplier + z, z: z}
}

// Next returns the next probe's 64-bit value v_i, before range reduction.
func (p *Probes) Next() uint64 {
	v := Finalize(p.x)
	p.x += p.y
	p.y += p.z
	return v
}

// Advance is Next for hot loops: it returns v_i and the state after it,
// as in v, p = p.Advance(). The compiler keeps a Probes whose address is
// never taken in registers; a call of Next takes its address, which keeps
// the state in memory, and each probe then waits on a store and a reload
// of it (measured: 3–9% off an in-cache query by hash).
func (p Probes) Advance() (uint64, Probes) {
	return Finalize(p.x), Probes{x: p.x + p.y, y: p.y + p.z, z: p.z}
}

// Block picks the block (of nblocks) that the blocked and paged layouts use
// for h: the high half reduced by multiply-shift.
func Block(h Hash128, nblocks uint64) uint64 { return Reduce(h.Hi, nblocks) }
