// Package xxh3asm holds what the amd64 assembly of bloom and counting
// needs to hash a key itself: XXH3-128 of 17 to 128 bytes, the lengths of
// most URLs and other string keys, as an assembler macro (xxh3_amd64.h),
// and the table of seed-keyed secret words the macro reads ([Keyed]).
//
// Why the filters hash in assembly: a filter far larger than the caches
// answers a query by key at the speed of its memory misses, and how many
// of those overlap depends on how many instructions separate one key's
// load from the next key's, since the CPU's out-of-order window holds a
// few hundred (fewer while the sibling hyperthread runs: it shares them).
// hashing.SumSeed (a call, around which Go spills every live register),
// then the query (another call) took about 250 instructions a key; the
// macro and the query in one routine take about 120. By 45-byte key,
// medians of interleaved rounds, one run each: a counters-only counting
// filter of 10^7 keys (48 MB) answered non-members in 129 against 228 ns,
// a blocked Bloom filter of 2·10^7 keys at p = 1% members in 124 against
// 197 ns (docs/BENCHMARKS.md, "Why the blocked query looks as it does").
//
// The macro computes exactly hashing.SumSeed (XXH3-128 with a seed, the
// project's hash); TestSumMatchesHashing checks it on every length it
// takes, with random bytes and seeds. A second macro, XXH3_MID64, hashes
// the same lengths with XXH3-64 and derives a second word from that hash,
// for a scheme that spends less on the hash; TestSum64MatchesXXH3 checks
// it against github.com/zeebo/xxh3 the same way.
package xxh3asm

// Keyed is the default XXH3 secret's first sixteen 64-bit words keyed with
// a seed, as XXH3's 17–128-byte rounds use them: the seed added to the
// even words and subtracted from the odd ones, then the seed itself. The
// macro reads it by pointer, so a filter builds it once, when its seed is
// set.
type Keyed [17]uint64

// secret is the first 128 bytes of XXH3's default secret (kSecret) as
// little-endian words.
var secret = [16]uint64{
	0xbe4ba423396cfeb8, 0x1cad21f72c81017c, 0xdb979083e96dd4de, 0x1f67b3b7a4a44072,
	0x78e5c0cc4ee679cb, 0x2172ffcc7dd05a82, 0x8e2443f7744608b8, 0x4c263a81e69035e0,
	0xcb00c391bb52283c, 0xa32e531b8b65d088, 0x4ef90da297486471, 0xd8acdea946ef1938,
	0x3f349ce33f76faa8, 0x1d4f0bc7c7bbdcf9, 0x3159b4cd4be0518a, 0x647378d9c97e9fc8,
}

// NewKeyed returns the table for seed.
func NewKeyed(seed uint64) Keyed {
	var k Keyed
	for i, s := range secret {
		if i%2 == 0 {
			k[i] = s + seed
		} else {
			k[i] = s - seed
		}
	}
	k[16] = seed
	return k
}

// MinLen and MaxLen bound the key lengths the macro hashes; callers take
// another path for the others.
const (
	MinLen = 17
	MaxLen = 128
)

// Fits reports whether the macro hashes a key of n bytes.
func Fits(n int) bool { return n >= MinLen && n <= MaxLen }
