//go:build amd64 && !purego

package xxh3asm

import (
	"math/rand/v2"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

// TestSumMatchesHashing checks the macro against hashing.SumSeed on every
// length it takes, with random bytes and seeds (and seed 0, the default),
// reading from the end of a buffer so that a read past the key would fall
// on other bytes, not on a guard.
func TestSumMatchesHashing(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
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
			lo, hi := sum(&key[0], n, &tab)
			want := hashing.SumSeed(key, seed)
			if lo != want.Lo || hi != want.Hi {
				t.Fatalf("n=%d seed=%#x: got %#x %#x, want %#x %#x", n, seed, lo, hi, want.Lo, want.Hi)
			}
		}
	}
}

// TestSum64MatchesXXH3 checks the macro XXH3_MID64 against
// hashing.Sum64Seed (github.com/zeebo/xxh3's HashSeed, an implementation
// of XXH3-64 written apart from this one, and the derived high half of
// scheme XXH3x64), on every length the macro takes,
// with random bytes and seeds (and seed 0), reading from the end of a
// buffer as TestSumMatchesHashing does.
func TestSum64MatchesXXH3(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 64))
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
			lo, hi := sum64(&key[0], n, &tab)
			want := hashing.Sum64Seed(key, seed)
			if lo != want.Lo || hi != want.Hi {
				t.Fatalf("n=%d seed=%#x: got %#x %#x, want %#x %#x", n, seed, lo, hi, want.Lo, want.Hi)
			}
		}
	}
}
