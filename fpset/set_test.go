package fpset

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

func key(i int) string { return fmt.Sprintf("key-%d", i) }

func mustNew(t testing.TB, c Config) *Set {
	t.Helper()
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConfig(t *testing.T) {
	good := []struct {
		c    Config
		bits int
	}{
		{Config{N: 1_000_000}, 40},
		{Config{N: 1_000_000, C: 3}, 60},
		{Config{N: 1024, C: 2}, 20},
		{Config{N: 1 << 40, C: 3}, 64},
		{Config{N: 1}, MinBits},
		{Config{Bits: 17}, 17},
		{Config{N: 5, Bits: 64, CountBits: 32}, 64},
		{Config{N: 1000, C: 100}, 64},
		{Config{N: 1000, P: 0.001}, 20},
		{Config{N: 1, P: 0.5}, MinBits},
	}
	for _, g := range good {
		b, err := g.c.validate()
		if err != nil || b != g.bits {
			t.Errorf("%+v: bits %d, err %v; want %d", g.c, b, err, g.bits)
		}
	}
	bad := []Config{
		{},
		{Bits: 1},
		{Bits: 65},
		{N: 10, C: -1},
		{N: 10, C: math.NaN()},
		{N: 10, CountBits: 33},
		{N: 10, CountBits: -1},
		{N: MaxLen + 1, Bits: 8},
		{N: 10, C: math.Inf(1)},
		{P: 0.01},
		{N: 10, P: 0.01, Bits: 8},
		{N: 10, P: 0.01, C: 2},
		{N: 10, P: 1},
		{N: 10, P: 1e-30},
	}
	if s, err := New(Config{N: 1000, C: 3}); err != nil || s.Bits() != 30 {
		t.Errorf("New: %v", err)
	}
	for _, c := range bad {
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: error %v, want ErrConfig", c, err)
		}
	}
}

// checkInvariants verifies the ordered table: increasing fingerprints, each
// at or after its home with no empty slot in between, and the counters.
func checkInvariants(t *testing.T, s *Set) {
	t.Helper()
	var n, total, prev uint64
	for i := uint64(0); i < s.slots; i++ {
		f := s.fps.Get(i)
		if f == 0 {
			if s.countBits > 0 && s.counts.Get(i) != 0 {
				t.Fatalf("empty slot %d has a count", i)
			}
			continue
		}
		if f <= prev {
			t.Fatalf("slot %d: %#x after %#x", i, f, prev)
		}
		h := s.homeOf(f)
		if h > i {
			t.Fatalf("slot %d holds %#x whose home is %d", i, f, h)
		}
		for j := h; j < i; j++ {
			if s.fps.Get(j) == 0 {
				t.Fatalf("hole at %d between home %d and slot %d", j, h, i)
			}
		}
		c := s.countAt(i)
		if c == 0 {
			t.Fatalf("slot %d has count 0", i)
		}
		n, total, prev = n+1, total+c, f
	}
	if n != s.n || total != s.total {
		t.Fatalf("n, total = %d, %d; recorded %d, %d", n, total, s.n, s.total)
	}
}

// TestSetAgainstModel runs random adds and removes on narrow fingerprints
// (so they collide and runs are long) against a map of fingerprint counts.
func TestSetAgainstModel(t *testing.T) {
	for _, c := range []Config{
		{Bits: 10, Seed: 1},
		{Bits: 12, CountBits: 2, Seed: 2},
		{Bits: 64, CountBits: 8, Seed: 3},
		{Bits: 2, CountBits: 1, Seed: 4},
	} {
		t.Run(fmt.Sprintf("bits%d-count%d", c.Bits, c.CountBits), func(t *testing.T) {
			s := mustNew(t, c)
			model := map[uint64]uint64{}
			rng := rand.New(rand.NewPCG(7, uint64(c.Bits)))
			maxCount := uint64(1)<<c.CountBits - 1
			for op := 0; op < 20000; op++ {
				h := s.HashString(key(rng.IntN(1500)))
				f := s.Fingerprint(h)
				if rng.IntN(3) > 0 {
					s.AddHash(h)
					if c.CountBits == 0 {
						model[f] = 1
					} else if model[f] < maxCount {
						model[f]++
					}
				} else {
					got := s.RemoveHash(h)
					if got != (model[f] > 0) {
						t.Fatalf("op %d: Remove = %v, model count %d", op, got, model[f])
					}
					if model[f] > 0 && (c.CountBits == 0 || model[f] < maxCount) {
						model[f]--
					}
					if model[f] == 0 {
						delete(model, f)
					}
				}
				if s.CountHash(h) != model[f] || s.ContainsHash(h) != (model[f] > 0) {
					t.Fatalf("op %d: count %d, model %d", op, s.CountHash(h), model[f])
				}
				if op%997 == 0 {
					checkInvariants(t, s)
				}
			}
			checkInvariants(t, s)
			if s.Len() != uint64(len(model)) {
				t.Fatalf("Len %d, model %d", s.Len(), len(model))
			}
		})
	}
}

func TestGrowAndShrink(t *testing.T) {
	s := mustNew(t, Config{N: 100, Bits: 32, Seed: 9})
	start := s.Capacity()
	const n = 20000
	for i := range n {
		s.AddString(key(i))
	}
	if s.Len() != n || s.Capacity() < n*5/4 {
		t.Fatalf("after %d adds: Len %d, capacity %d", n, s.Len(), s.Capacity())
	}
	if load := float64(s.Len()) / float64(s.Capacity()); load > 0.8 || load < 0.4 {
		t.Errorf("load %.3f outside [0.4, 0.8]", load)
	}
	checkInvariants(t, s)
	for i := range n {
		if !s.ContainsString(key(i)) {
			t.Fatalf("false negative for %s", key(i))
		}
		s.RemoveString(key(i))
		if i%1000 == 0 {
			checkInvariants(t, s)
		}
	}
	if s.Len() != 0 || s.Capacity() != start {
		t.Fatalf("after removing all: Len %d, capacity %d, started at %d", s.Len(), s.Capacity(), start)
	}
}

func TestMultisetCounts(t *testing.T) {
	s := mustNew(t, Config{N: 10, Bits: 40, CountBits: 3})
	for range 5 {
		s.AddString("a")
	}
	for range 20 {
		s.AddString("b")
	}
	if s.CountString("a") != 5 || s.CountString("b") != 7 || s.CountString("c") != 0 {
		t.Fatalf("counts a=%d b=%d c=%d", s.CountString("a"), s.CountString("b"), s.CountString("c"))
	}
	if !s.RemoveString("b") || s.CountString("b") != 7 {
		t.Fatal("a saturated count must stay")
	}
	for range 5 {
		s.RemoveString("a")
	}
	if s.ContainsString("a") || s.RemoveString("a") || s.Total() != 7 || s.Len() != 1 {
		t.Fatalf("after removing a: total %d, len %d", s.Total(), s.Len())
	}
}

// forms returns the three forms of s.
func forms(s *Set) map[string]interface {
	ContainsHash(hashing.Hash128) bool
	CountHash(hashing.Hash128) uint64
} {
	sorted := s.Sorted()
	return map[string]interface {
		ContainsHash(hashing.Hash128) bool
		CountHash(hashing.Hash128) uint64
	}{"set": s, "sorted": sorted, "compressed": sorted.Compress()}
}

// TestFalsePositiveRate measures every form against the model with fixed
// seeds: 20 000 keys in 20-bit fingerprints (rate ≈ 0.0191), 400 000
// absent keys. The three forms must give identical answers.
func TestFalsePositiveRate(t *testing.T) {
	const n, q = 20000, 400000
	for _, c := range []Config{{Bits: 20, Seed: 11}, {Bits: 16, CountBits: 4, Seed: 12}} {
		s := mustNew(t, Config{N: n, Bits: c.Bits, CountBits: c.CountBits, Seed: c.Seed})
		for i := range n {
			s.AddString(key(i))
		}
		fs := forms(s)
		for name, f := range fs {
			for i := range n {
				if h := s.HashString(key(i)); !f.ContainsHash(h) || f.CountHash(h) != s.CountHash(h) {
					t.Fatalf("%s: key %d lost", name, i)
				}
			}
		}
		hits := 0
		for i := n; i < n+q; i++ {
			h := s.HashString(key(i))
			want := s.ContainsHash(h)
			for name, f := range fs {
				if f.ContainsHash(h) != want {
					t.Fatalf("%s disagrees with the set on key %d", name, i)
				}
			}
			if want {
				hits++
			}
		}
		p := s.FalsePositiveRate()
		if pn := FalsePositive(n, c.Bits); math.Abs(p-pn) > 0.02*pn || pn > n/float64(uint64(1)<<c.Bits-1) {
			t.Errorf("bits %d: rate of the fingerprints held %.5f, model for n keys %.5f", c.Bits, p, pn)
		}
		sigma := math.Sqrt(q * p * (1 - p))
		if d := math.Abs(float64(hits) - q*p); d > 5*sigma {
			t.Errorf("bits %d: %d false positives of %d, model %.0f ± %.0f", c.Bits, hits, q, q*p, sigma)
		}
		t.Logf("bits %d: measured %.5f, model %.5f", c.Bits, float64(hits)/q, p)
	}
}

// TestCompressedSize checks the Rice code's size against the model and the
// entropy of the fingerprint set.
func TestCompressedSize(t *testing.T) {
	const n = 50000
	for _, b := range []int{20, 24, 32, 40, 64} {
		s := mustNew(t, Config{N: n, Bits: b, Seed: uint64(b)})
		for i := range n {
			s.AddString(key(i))
		}
		c := s.Compress()
		_, model := BestRiceParameter(s.Len(), b)
		entropy := Entropy(s.Len(), b)
		got := c.BitsPerKey()
		if math.Abs(got-model) > 0.05 || got < entropy {
			t.Errorf("bits %d: %.3f bits/key, model %.3f, entropy %.3f", b, got, model, entropy)
		}
		if got > -math.Log2(s.FalsePositiveRate())+1.6 {
			t.Errorf("bits %d: %.3f bits/key, more than log2(1/f) + 1.6", b, got)
		}
	}
}

// TestSortedSearchSkewed searches fingerprints that are far from uniform:
// interpolation alone would take a linear number of steps.
func TestSortedSearchSkewed(t *testing.T) {
	sh := shape{bits: 64}
	const n = 5000
	tab := newSorted(sh, n)
	for i := range uint64(n - 1) {
		tab.put(i, i+1, 1)
	}
	tab.put(n-1, math.MaxUint64, 1)
	for i := range uint64(n - 1) {
		if j, ok := tab.search(i + 1); !ok || j != i {
			t.Fatalf("search(%d) = %d, %v", i+1, j, ok)
		}
	}
	if _, ok := tab.search(n + 7); ok {
		t.Fatal("found an absent fingerprint")
	}
	if _, ok := tab.search(math.MaxUint64); !ok {
		t.Fatal("lost the largest fingerprint")
	}
}

func TestEmptyForms(t *testing.T) {
	s := mustNew(t, Config{N: 1, Bits: 8})
	sorted, c := s.Sorted(), s.Compress()
	if sorted.ContainsString("x") || c.ContainsString("x") || c.BitsPerKey() != 0 || c.Sorted().Len() != 0 {
		t.Fatal("an empty set answers present")
	}
}

func TestQueriesDoNotAllocate(t *testing.T) {
	s := mustNew(t, Config{N: 1000, Bits: 30, CountBits: 4})
	for i := range 1000 {
		s.AddString(key(i))
	}
	h := s.HashString(key(5))
	for name, f := range forms(s) {
		if a := testing.AllocsPerRun(100, func() { f.ContainsHash(h); f.CountHash(h) }); a != 0 {
			t.Errorf("%s: %v allocations per query", name, a)
		}
	}
	if a := testing.AllocsPerRun(100, func() { s.AddHash(h); s.RemoveHash(h) }); a != 0 {
		t.Errorf("add/remove: %v allocations", a)
	}
}

func FuzzSetOps(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 130, 131, 4})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s := mustNew(t, Config{N: 4, Bits: 6, CountBits: 2})
		model := map[uint64]uint64{}
		for _, op := range ops {
			h := hashing.Hash128{Lo: uint64(op&63) * 0x9E3779B97F4A7C15}
			fp := s.Fingerprint(h)
			if op < 128 {
				s.AddHash(h)
				model[fp] = min(model[fp]+1, 3)
			} else {
				s.RemoveHash(h)
				if c := model[fp]; c > 0 && c < 3 {
					model[fp] = c - 1
				}
			}
			if s.CountHash(h) != model[fp] {
				t.Fatalf("count %d, model %d", s.CountHash(h), model[fp])
			}
		}
		checkInvariants(t, s)
		sorted := s.Sorted()
		if got := sorted.Compress().Sorted(); got.Len() != sorted.Len() || got.Total() != s.Total() {
			t.Fatal("compress round trip lost fingerprints")
		}
	})
}

func TestFromHashes(t *testing.T) {
	hs := make([]hashing.Hash128, 4000)
	for i := range hs {
		hs[i] = hashing.SumStringSeed(key(i%3000), 7) // 1000 repeats
	}
	s, err := FromHashes(Config{P: 0.001, Seed: 7}, hs)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := BitsFor(3000, 0.001); s.Bits() != want {
		t.Errorf("%d bits, want %d for 3000 distinct keys", s.Bits(), want)
	}
	for i := range 3000 {
		if !s.ContainsString(key(i)) {
			t.Fatalf("%s absent", key(i))
		}
	}
	if s.Len() > 3000 || s.Len() < 2990 || s.FalsePositiveRate() > 0.001 {
		t.Errorf("%d fingerprints, rate %g", s.Len(), s.FalsePositiveRate())
	}
	m, err := FromHashes(Config{N: 10, Bits: 40, CountBits: 8, Seed: 7}, hs)
	if err != nil || m.Bits() != 40 || m.Total() != 4000 || m.CountString(key(5)) != 2 {
		t.Errorf("multiset: %v", err)
	}
	if s, err := FromHashes(Config{}, nil); err != nil || s.Len() != 0 || s.Bits() != MinBits {
		t.Errorf("no hashes: %v", err)
	}
	if _, err := FromHashes(Config{P: 1e-30}, hs); !errors.Is(err, ErrConfig) {
		t.Errorf("P = 1e-30 for 3000 keys: %v", err)
	}
}

// TestConcurrentQueries checks the documented claims that a Sorted and a
// Compressed are safe for concurrent queries (run with -race).
func TestConcurrentQueries(t *testing.T) {
	set := mustNew(t, Config{N: 2000, CountBits: 4})
	for i := range 1000 {
		set.AddString(key(i))
	}
	sorted := set.Sorted()
	forms := map[string]interface{ CountString(string) uint64 }{
		"Sorted":     sorted,
		"Compressed": sorted.Compress(),
	}
	for name, q := range forms {
		want := make([]uint64, 2000)
		for i := range want {
			want[i] = q.CountString(key(i))
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range want {
					if got := q.CountString(key(i)); got != want[i] {
						t.Errorf("%s: Count(%q) = %d under concurrent queries, %d alone", name, key(i), got, want[i])
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}
