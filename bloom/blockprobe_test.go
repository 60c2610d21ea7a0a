package bloom

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/xxh3asm"
	"github.com/bloomcast/bloomcast/params"
)

// TestBlockAllSetAssembly cross-checks the AVX-512 block query against the
// pure-Go one for every k from 1 to params.MaxK, on blocks from sparse to
// full, for members (every probe set) and random hashes.
func TestBlockAllSetAssembly(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this machine, or a purego build: only the Go form runs")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 1; k <= params.MaxK; k++ {
		for _, density := range []float64{0, 0.05, 0.3, 0.6, 0.9, 1} {
			var w [8]uint64
			for b := range 512 {
				if rng.Float64() < density {
					w[b>>6] |= 1 << (b & 63)
				}
			}
			for range 200 {
				h := hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()}
				checkBlockQuery(t, &w, h, k)
				member := w
				blockSet(&member, h, k)
				checkBlockQuery(t, &member, h, k)
				vector := w
				blockSetAVX512(&vector, h.Lo, h.Hi, k)
				if vector != member {
					t.Fatalf("k=%d: blockSetAVX512 set %x, blockSet %x", k, vector, member)
				}
				if !blockAllSetAVX512(&member, h.Lo, h.Hi, k) {
					t.Fatalf("k=%d: a member's probes are not all set", k)
				}
			}
		}
	}
}

func checkBlockQuery(t *testing.T, w *[8]uint64, h hashing.Hash128, k int) {
	t.Helper()
	want := blockAllSet(w, h, k)
	if got := blockAllSetAVX512(w, h.Lo, h.Hi, k); got != want {
		t.Fatalf("k=%d h=%#x: assembly %v, Go %v", k, h, got, want)
	}
	if early := blockHas(w, h, k); early != want {
		t.Fatalf("k=%d h=%#x: early exit %v, branch-free %v", k, h, early, want)
	}
}

// TestBlockedQueryForms checks that every size regime of containsBlocked
// and containsBlockedKeyed (in cache, AVX-512 or not, out of cache)
// answers as the reference loop does, by hash and by key, and finds every
// member.
func TestBlockedQueryForms(t *testing.T) {
	for _, m := range []uint64{1 << 16, inCacheBits * 2, branchFreeBits * 2} {
		f := mustNew(t, Config{Layout: Blocked, M: m, K: 7})
		hs := make([]hashing.Hash128, 20_000)
		for i := range hs {
			hs[i] = f.HashString(key(i))
		}
		for _, h := range hs[:10_000] {
			f.AddHash(h)
		}
		for i, h := range hs {
			got, want := f.ContainsHash(h), blockHas(f.block(h), h, f.k)
			if got != want || (i < 10_000 && !got) {
				t.Fatalf("m=%d key %d: ContainsHash %v, reference %v", m, i, got, want)
			}
			if keyed := f.ContainsString(key(i)); keyed != want {
				t.Fatalf("m=%d key %d: ContainsString %v, reference %v", m, i, keyed, want)
			}
		}
	}
}

// TestBlockedKeyAssembly checks the key methods of blocked filters, which
// hash a key of 17 to 128 bytes in assembly (blockAllSetKey,
// blockSetKey), against hashing the key and the hash methods: on every key
// length from 0 to 200 (those outside 17..128 take the Go path), as []byte
// and as string, with random seeds, on k from 1 to 64, over one to 1000
// blocks. Add by key and AddHash of the key's hash must set the same
// bits; Contains and ContainsString must answer as ContainsHash, at fills
// where both answers are common.
func TestBlockedKeyAssembly(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	key := make([]byte, 200)
	for _, k := range []int{1, 2, 7, 8, 9, 16, 17, 33, 64} {
		for _, blocks := range []uint64{1, 3, 1000} {
			seed := rng.Uint64()
			byKey := MustNew(Config{Layout: Blocked, M: 512 * blocks, K: k, Seed: seed})
			byHash := MustNew(Config{Layout: Blocked, M: 512 * blocks, K: k, Seed: seed})
			if hasAVX512 && byKey.keyed == nil {
				t.Fatal("a blocked filter with AVX-512 does not take the assembly")
			}
			fill := blocks * 512 / uint64(k) / 2
			for n := range len(key) + 1 {
				b := key[len(key)-n:] // ends where the buffer does
				for range 20 {
					for i := range b {
						b[i] = byte(rng.Uint32())
					}
					if rng.Uint64N(uint64(len(key)+1)*20) < fill {
						if n%2 == 0 {
							byKey.Add(b)
						} else {
							byKey.AddString(string(b))
						}
						byHash.AddHash(byHash.Hash(b))
						continue
					}
					want := byHash.ContainsHash(byHash.Hash(b))
					if got := byKey.Contains(b); got != want {
						t.Fatalf("k=%d blocks=%d n=%d key %x: Contains %v, ContainsHash %v", k, blocks, n, b, got, want)
					}
					if got := byKey.ContainsString(string(b)); got != want {
						t.Fatalf("k=%d blocks=%d n=%d key %x: ContainsString %v, ContainsHash %v", k, blocks, n, b, got, want)
					}
				}
			}
			if !byKey.Equal(byHash) {
				t.Fatalf("k=%d blocks=%d: Add by key and AddHash set different bits", k, blocks)
			}
			if byKey.Count() != byHash.Count() {
				t.Fatalf("k=%d blocks=%d: counts %d and %d", k, blocks, byKey.Count(), byHash.Count())
			}
		}
	}
}

// TestBlockedKey64Assembly checks the key routines of the XXH3-64 hash
// (blockAllSetKey64, blockSetKey64 and their string forms, which hash a
// key in assembly) against hashing.Sum64Seed (scheme XXH3x64) and the Go
// block routines: on every key length from 17 to 128, as []byte and as
// string, with random seeds, on k from 1 to 64, over one to 1000 blocks.
// An add by key must set exactly the bits blockSet sets in the hash's
// block; a query must answer as blockAllSet there, at fills where both
// answers are common, and yes for every key added.
func TestBlockedKey64Assembly(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this machine, or a purego build: the routines are not assembled")
	}
	rng := rand.New(rand.NewPCG(38, 64))
	buf := make([]byte, xxh3asm.MaxLen)
	for _, k := range []int{1, 2, 7, 8, 9, 16, 17, 33, 64} {
		for _, blocks := range []uint64{1, 3, 1000} {
			seed := rng.Uint64()
			if k == 7 {
				seed = 0
			}
			byKey := MustNew(Config{Layout: Blocked, M: 512 * blocks, K: k, Seed: seed, Scheme: hashing.Fast64})
			byHash := MustNew(Config{Layout: Blocked, M: 512 * blocks, K: k, Seed: seed, Scheme: hashing.Fast64})
			if byKey.keyPath != keyBlocked64 {
				t.Fatal("a blocked filter of scheme XXH3x64 with AVX-512 does not hash keys in assembly")
			}
			fill := blocks * 512 / uint64(k) / 2
			added := 0
			for n := xxh3asm.MinLen; n <= xxh3asm.MaxLen; n++ {
				b := buf[len(buf)-n:] // ends where the buffer does
				for range 20 {
					for i := range b {
						b[i] = byte(rng.Uint32())
					}
					h := hashing.Sum64Seed(b, seed)
					if rng.Uint64N(uint64(xxh3asm.MaxLen-xxh3asm.MinLen+1)*20) < fill {
						if n%2 == 0 {
							byKey.blockSetKey64(b)
						} else {
							byKey.blockSetKey64String(string(b))
						}
						blockSet(byHash.block(h), h, k)
						if *byKey.block(h) != *byHash.block(h) {
							t.Fatalf("k=%d blocks=%d n=%d key %x: the routine made the block %x, blockSet %x", k, blocks, n, b, *byKey.block(h), *byHash.block(h))
						}
						if !byKey.blockAllSetKey64(b) || !byKey.blockAllSetKey64String(string(b)) {
							t.Fatalf("k=%d blocks=%d n=%d key %x: a key just added is absent", k, blocks, n, b)
						}
						added++
						continue
					}
					want := blockAllSet(byHash.block(h), h, k)
					if got := byKey.blockAllSetKey64(b); got != want {
						t.Fatalf("k=%d blocks=%d n=%d key %x: blockAllSetKey64 %v, blockAllSet %v", k, blocks, n, b, got, want)
					}
					if got := byKey.blockAllSetKey64String(string(b)); got != want {
						t.Fatalf("k=%d blocks=%d n=%d key %x: blockAllSetKey64String %v, blockAllSet %v", k, blocks, n, b, got, want)
					}
				}
			}
			if !slices.Equal(byKey.words, byHash.words) {
				t.Fatalf("k=%d blocks=%d: the routine and blockSet set different bits", k, blocks)
			}
			if added == 0 {
				t.Fatalf("k=%d blocks=%d: no key added", k, blocks)
			}
		}
	}
}

// TestRangeKeyAssembly checks the key queries of classic and partitioned
// filters, which hash a key of 17 to 128 bytes in assembly
// (rangeHasKey), against hashing the key and ContainsHash: on every key
// length from 0 to 200, as []byte and as string, with random seeds, on k
// from 1 to 64, over sizes that are and are not multiples of 64, at fills
// where both answers are common.
func TestRangeKeyAssembly(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	key := make([]byte, 200)
	for _, layout := range []Layout{Classic, Partitioned} {
		for _, k := range []int{1, 2, 3, 7, 16, 64} {
			for _, m := range []uint64{64 * uint64(k), 6400 + 64*uint64(k), 100_003 * uint64(k)} {
				f := MustNew(Config{Layout: layout, M: m, K: k, Seed: rng.Uint64()})
				if hasKeyAsm && f.keyPath != keyRange {
					t.Fatalf("%v: the key methods do not take the assembly", layout)
				}
				for range f.M() / uint64(k) / 2 {
					f.AddHash(hashing.Hash128{Lo: rng.Uint64(), Hi: rng.Uint64()})
				}
				for n := range len(key) + 1 {
					b := key[len(key)-n:] // ends where the buffer does
					for range 10 {
						for i := range b {
							b[i] = byte(rng.Uint32())
						}
						want := f.ContainsHash(f.Hash(b))
						if got := f.Contains(b); got != want {
							t.Fatalf("%v k=%d m=%d n=%d key %x: Contains %v, ContainsHash %v", layout, k, f.M(), n, b, got, want)
						}
						if got := f.ContainsString(string(b)); got != want {
							t.Fatalf("%v k=%d m=%d n=%d key %x: ContainsString %v, ContainsHash %v", layout, k, f.M(), n, b, got, want)
						}
					}
				}
			}
		}
	}
}
