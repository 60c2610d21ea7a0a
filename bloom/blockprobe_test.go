package bloom

import (
	"math/rand/v2"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
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
