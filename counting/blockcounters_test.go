package counting

import (
	"math/rand/v2"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// TestBlockCountersAssembly cross-checks blockCountersAVX512 against its Go
// twin blockCounters4, and both against the layout's own positions
// (bloom.Geometry.Positions over a one-block filter), on every k and on
// blocks from all-zero counters to none zero.
func TestBlockCountersAssembly(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 1; k <= params.MaxK; k++ {
		f := MustNew(Config{Layout: bloom.Blocked, M: 512, K: k, NoBitView: true})
		w := (*[32]uint64)(f.counters)
		for _, nonzero := range []float64{0, 0.05, 0.3, 0.6, 0.9, 0.99, 1} {
			for b := range uint64(512) {
				c := uint64(0)
				if rng.Float64() < nonzero {
					c = 1 + rng.Uint64N(15)
				}
				w[b>>4] = w[b>>4]&^(15<<(b&15*4)) | c<<(b&15*4)
			}
			for range 200 {
				h := hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()}
				checkBlockCounters(t, f, h)
			}
		}
	}
}

func checkBlockCounters(t *testing.T, f *Filter, h hashing.Hash128) {
	t.Helper()
	var buf [params.MaxK]uint64
	want := f.allNonZero(f.geo.Positions(h, &buf))
	w, k := f.counterBlock(h), f.geo.K()
	if got := blockCounters4(w, h, k); got != want {
		t.Fatalf("k=%d h=%#x: Go %v, positions %v", k, h, got, want)
	}
	if !hasAVX512 {
		return // a purego build or a CPU without AVX-512: no assembly
	}
	if got := blockCountersAVX512(w, h.Lo, h.Hi, k); got != want {
		t.Fatalf("k=%d h=%#x: assembly %v, positions %v", k, h, got, want)
	}
}

// TestBlockedCountersForms checks that a counters-only blocked filter,
// which answers through the block forms above, finds every member and
// answers every other key as a filter with a bit view does, in cache and
// beyond it.
func TestBlockedCountersForms(t *testing.T) {
	for _, m := range []uint64{1 << 14, inCacheWords * 16 * 2} {
		only := MustNew(Config{Layout: bloom.Blocked, M: m, K: 6, NoBitView: true})
		viewed := MustNew(Config{Layout: bloom.Blocked, M: m, K: 6})
		rng := rand.New(rand.NewPCG(5, 6))
		n := int(m / 10)
		for range n {
			h := hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()}
			only.AddHash(h)
			viewed.AddHash(h)
		}
		rng = rand.New(rand.NewPCG(5, 6))
		for range n {
			h := hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()}
			if !only.ContainsHash(h) {
				t.Fatalf("m=%d: false negative", m)
			}
		}
		for range 100_000 {
			h := hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()}
			if got, want := only.ContainsHash(h), viewed.ContainsHash(h); got != want {
				t.Fatalf("m=%d h=%#x: counters only %v, bit view %v", m, h, got, want)
			}
		}
	}
}

// TestClassicCountersAssembly cross-checks classicCountersAVX512 against
// its Go twin classicCounters4, and both against the layout's own
// positions, on every k, on counter arrays of sizes that are and are not
// multiples of a word's 16 counters and at the largest size the assembly
// takes, from all-zero counters to none zero.
func TestClassicCountersAssembly(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, m := range []uint64{1, 17, 1000, 4093, 65536} {
		for k := 1; k <= params.MaxK; k++ {
			f := MustNew(Config{Layout: bloom.Classic, M: m, K: k, NoBitView: true})
			for _, nonzero := range []float64{0, 0.3, 0.9, 0.99, 1} {
				fillCounters(rng, f, nonzero)
				for range 100 {
					checkClassicCounters(t, f, hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()})
				}
			}
		}
	}
	checkClassicCountersLarge(t, rng)
}

// checkClassicCountersLarge checks the assembly at the largest counter
// count it takes, 2^32 − 1, where its reduction from 32-bit products must
// still reach every counter. The array is 2 GiB of address space, but only
// the pages of the probed counters are ever written: a key's counters are
// set, the key found, one of them cleared, the key refused.
func checkClassicCountersLarge(t *testing.T, rng *rand.Rand) {
	const m, k = 1<<32 - 1, 8
	geo, err := bloom.NewGeometry(params.Shape{Layout: bloom.Classic, M: m, K: k}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := make([]uint64, (m+15)/16)
	for range 300 {
		h := hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()}
		var buf [params.MaxK]uint64
		pos := geo.Positions(h, &buf)
		for _, b := range pos {
			c[b>>4] |= 1 << (b & 15 * 4)
		}
		cleared := pos[rng.IntN(k)]
		for _, want := range []bool{true, false} {
			if !want {
				c[cleared>>4] &^= 15 << (cleared & 15 * 4)
			}
			if got := classicCounters4(c, m, h, k); got != want {
				t.Fatalf("m=2^32−1 h=%#x: Go %v, want %v", h, got, want)
			}
			if hasAVX512 {
				if got := classicCountersAVX512(c, m, h.Lo, h.Hi, k); got != want {
					t.Fatalf("m=2^32−1 h=%#x: assembly %v, want %v", h, got, want)
				}
			}
		}
		for _, b := range pos {
			c[b>>4] = 0
		}
	}
}

// fillCounters sets each counter of f to a random non-zero value with
// probability nonzero, and to zero otherwise.
func fillCounters(rng *rand.Rand, f *Filter, nonzero float64) {
	for b := range f.geo.M() {
		c := uint64(0)
		if rng.Float64() < nonzero {
			c = 1 + rng.Uint64N(15)
		}
		i, sh := f.locate(b)
		f.counters[i] = f.counters[i]&^(f.max<<sh) | c<<sh
	}
}

func checkClassicCounters(t *testing.T, f *Filter, h hashing.Hash128) {
	t.Helper()
	var buf [params.MaxK]uint64
	want := f.allNonZero(f.geo.Positions(h, &buf))
	m, k := f.geo.M(), f.geo.K()
	if got := classicCounters4(f.counters, m, h, k); got != want {
		t.Fatalf("m=%d k=%d h=%#x: Go %v, positions %v", m, k, h, got, want)
	}
	if got := classicPair4(f.counters, m, h, k); got != want {
		t.Fatalf("m=%d k=%d h=%#x: pair first %v, positions %v", m, k, h, got, want)
	}
	if got := f.ContainsHash(h); got != want {
		t.Fatalf("m=%d k=%d h=%#x: ContainsHash %v, positions %v", m, k, h, got, want)
	}
	if !hasAVX512 {
		return // a purego build or a CPU without AVX-512: no assembly
	}
	if got := classicCountersAVX512(f.counters, m, h.Lo, h.Hi, k); got != want {
		t.Fatalf("m=%d k=%d h=%#x: assembly %v, positions %v", m, k, h, got, want)
	}
}

// TestBlockCountersKey cross-checks the key methods of a counters-only
// blocked filter, which hash a key of 17 to 128 bytes in assembly
// (blockCountersKey), against hashing the key and ContainsHash: on every
// key length from 0 to 200 (those outside 17..128 take the other path),
// as []byte and as string, with random seeds, on k from 1 to 64 (more
// than one step of eight probes), over filters of one to 1000 blocks at
// fills where both answers are common.
func TestBlockCountersKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	key := make([]byte, 200)
	for _, k := range []int{1, 2, 6, 7, 8, 9, 16, 17, 33, 64} {
		for _, blocks := range []uint64{1, 3, 1000} {
			seed := rng.Uint64()
			f := MustNew(Config{Layout: bloom.Blocked, M: 512 * blocks, K: k, NoBitView: true, Seed: seed})
			if hasAVX512 && f.blockKeys == nil {
				t.Fatal("a counters-only blocked filter with AVX-512 does not take the assembly")
			}
			for range blocks * 512 / uint64(k) / 2 {
				f.AddHash(hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()})
			}
			for n := range len(key) + 1 {
				for range 20 {
					b := key[len(key)-n:] // ends where the buffer does
					for i := range b {
						b[i] = byte(rng.Uint32())
					}
					want := f.ContainsHash(f.Hash(b))
					if got := f.Contains(b); got != want {
						t.Fatalf("k=%d blocks=%d n=%d key %x: Contains %v, ContainsHash %v", k, blocks, n, b, got, want)
					}
					if got := f.ContainsString(string(b)); got != want {
						t.Fatalf("k=%d blocks=%d n=%d key %x: ContainsString %v, ContainsHash %v", k, blocks, n, b, got, want)
					}
				}
			}
		}
	}
}

// TestBlockCountersKey64 checks blockCountersKey64, the key routine of
// hashing scheme XXH3x64, and its string form, against hashing the key
// with hashing.Sum64Seed and containsCounters: on every key length it
// takes (17 to 128), with random seeds, on k from 1 to 64, over filters
// of one to 1000 blocks half full, each key asked as a non-member and,
// one in three, again as a member (added, then removed). It also checks
// that the key methods of such a filter take the routine (blockKeys64)
// and answer as it does.
func TestBlockCountersKey64(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	key := make([]byte, 128)
	for _, k := range []int{1, 2, 6, 7, 8, 9, 16, 17, 33, 64} {
		for _, blocks := range []uint64{1, 3, 1000} {
			seed := rng.Uint64()
			f := MustNew(Config{Layout: bloom.Blocked, M: 512 * blocks, K: k, NoBitView: true, Seed: seed, Scheme: hashing.Fast64})
			if hasAVX512 && (f.blockKeys64 == nil || f.blockKeys != nil) {
				t.Fatal("a counters-only blocked filter of scheme XXH3x64 with AVX-512 does not take its assembly")
			}
			for range blocks * 512 / uint64(k) / 2 {
				f.AddHash(hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()})
			}
			found := 0
			for n := 17; n <= 128; n++ {
				for i := range 20 {
					b := key[len(key)-n:] // ends where the buffer does
					for j := range b {
						b[j] = byte(rng.Uint32())
					}
					member := i%3 == 0
					if member {
						f.Add(b)
					}
					want := f.containsCounters(hashing.Sum64Seed(b, seed))
					if member && !want {
						t.Fatalf("k=%d blocks=%d n=%d key %x: added, not found", k, blocks, n, b)
					}
					if want {
						found++
					}
					checkKey64(t, f, b, want)
					if member {
						if err := f.Remove(b); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			if found == 20*112 {
				t.Fatalf("k=%d blocks=%d: every key found", k, blocks)
			}
		}
	}
}

func checkKey64(t *testing.T, f *Filter, b []byte, want bool) {
	t.Helper()
	k, n := f.geo.K(), len(b)
	if hasAVX512 { // else an amd64 build has no routine to run
		if got := f.blockCountersKey64(b); got != want {
			t.Fatalf("k=%d n=%d key %x: blockCountersKey64 %v, containsCounters %v", k, n, b, got, want)
		}
		if got := f.blockCountersKey64String(string(b)); got != want {
			t.Fatalf("k=%d n=%d key %x: blockCountersKey64String %v, containsCounters %v", k, n, b, got, want)
		}
	}
	if got := f.Contains(b); got != want {
		t.Fatalf("k=%d n=%d key %x: Contains %v, containsCounters %v", k, n, b, got, want)
	}
	if got := f.ContainsString(string(b)); got != want {
		t.Fatalf("k=%d n=%d key %x: ContainsString %v, containsCounters %v", k, n, b, got, want)
	}
}
