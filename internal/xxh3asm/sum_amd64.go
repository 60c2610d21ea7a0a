//go:build amd64 && !purego

package xxh3asm

// sum is the macro XXH3_MID as a function, for the tests: the hash of the
// n bytes at p, MinLen ≤ n ≤ MaxLen, under the seed of t.
//
//go:noescape
func sum(p *byte, n int, t *Keyed) (lo, hi uint64)

// sum64 is the macro XXH3_MID64 as a function, for the tests: XXH3-64 of
// the n bytes at p, MinLen ≤ n ≤ MaxLen, under the seed of t, and the
// second word derived from it.
//
//go:noescape
func sum64(p *byte, n int, t *Keyed) (lo, hi uint64)
