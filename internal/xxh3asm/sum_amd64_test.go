//go:build amd64 && !purego

package xxh3asm

import (
	"math/rand/v2"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

// TestSumMatchesHashing checks the macro XXH3_MID against
// hashing.SumSeed on every length it takes, with random bytes and seeds
// (and seed 0, the default), reading from the end of a buffer so that a
// read past the key would fall on other bytes, not on a guard.
func TestSumMatchesHashing(t *testing.T) {
	checkMacro(t, rand.New(rand.NewPCG(8, 1)), sum, hashing.SumSeed)
}

// TestSum64MatchesXXH3 checks the macro XXH3_MID64 against
// hashing.Sum64Seed (github.com/zeebo/xxh3's HashSeed, an implementation
// of XXH3-64 written apart from this one, and the derived high half of
// scheme XXH3x64) in the same way.
func TestSum64MatchesXXH3(t *testing.T) {
	checkMacro(t, rand.New(rand.NewPCG(38, 64)), sum64, hashing.Sum64Seed)
}

// checkMacro compares the routine asm with want on 400 keys of every
// length from MinLen to MaxLen, random bytes from r and random seeds, one
// trial in four with seed 0, each key at the end of a buffer.
func checkMacro(t *testing.T, r *rand.Rand, asm func(*byte, int, *Keyed) (uint64, uint64), want func([]byte, uint64) hashing.Hash128) {
	t.Helper()
	buf := make([]byte, 2*MaxLen)
	for trial := range 400 {
		for n := MinLen; n <= MaxLen; n++ {
			key := buf[len(buf)-n:]
			for i := range key {
				key[i] = byte(r.Uint32())
			}
			seed := r.Uint64()
			if trial%4 == 0 {
				seed = 0
			}
			tab := NewKeyed(seed)
			lo, hi := asm(&key[0], n, &tab)
			w := want(key, seed)
			if lo != w.Lo || hi != w.Hi {
				t.Fatalf("n=%d seed=%#x: got %#x %#x, want %#x %#x", n, seed, lo, hi, w.Lo, w.Hi)
			}
		}
	}
}
