package ribbon

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// urlKey is the i-th key of a set: URLs over a hundred hosts.
func urlKey(i int) string { return fmt.Sprintf("http://www.host%d.example/objects/%d.html", i%100, i) }

// hashes returns the hashes of the keys [from, from+n) under seed.
func hashes(from, n int, seed uint64) []hashing.Hash128 {
	hs := make([]hashing.Hash128, n)
	for i := range hs {
		hs[i] = hashing.SumStringSeed(urlKey(from+i), seed)
	}
	return hs
}

func mustBuild(t testing.TB, c Config, hs []hashing.Hash128) *Filter {
	t.Helper()
	f, err := BuildHashes(c, hs)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// measured returns the fraction of the hashes f reports present.
func measured(f *Filter, hs []hashing.Hash128) float64 {
	fp := 0
	for _, h := range hs {
		if f.ContainsHash(h) {
			fp++
		}
	}
	return float64(fp) / float64(len(hs))
}

func TestNoFalseNegatives(t *testing.T) {
	for _, n := range []int{1, 2, 3, 64, 100, 129, 1000, 20000} {
		for _, c := range []Config{{Bits: 1}, {Bits: 7}, {Bits: 8}, {Bits: 31}, {Bits: 32}, {Rate: 0.01}, {Rate: 0.3}, {Rate: 1e-9}, {}} {
			c.Seed = uint64(n)
			hs := hashes(0, n, c.Seed)
			f := mustBuild(t, c, hs)
			for i, h := range hs {
				if !f.ContainsHash(h) {
					t.Fatalf("n = %d, %+v: key %d (%s) reported absent", n, c, i, f.Shape())
				}
			}
			if f.Len() != uint64(n) {
				t.Errorf("n = %d, %+v: Len %d", n, c, f.Len())
			}
			if !f.ContainsString(urlKey(0)) || !f.Contains([]byte(urlKey(n-1))) {
				t.Errorf("n = %d, %+v: Contains by key differs from ContainsHash", n, c)
			}
		}
	}
}

func TestEmpty(t *testing.T) {
	f := mustBuild(t, Config{}, nil)
	if f.ContainsString("a") || f.Len() != 0 || f.FalsePositiveRate() != 0 || f.SizeBits() != 0 {
		t.Errorf("empty filter: %v %d %g %d", f.ContainsString("a"), f.Len(), f.FalsePositiveRate(), f.SizeBits())
	}
	var z Filter
	if z.ContainsString("a") || z.Len() != 0 {
		t.Error("the zero Filter reports a key")
	}
	if _, err := z.MarshalBinary(); !errors.Is(err, ErrConfig) {
		t.Errorf("zero Filter encoded: %v", err)
	}
}

func TestDuplicates(t *testing.T) {
	hs := hashes(0, 500, 0)
	hs = append(hs, hs[:200]...)
	f := mustBuild(t, Config{Bits: 8}, hs)
	if f.Len() != 500 {
		t.Errorf("Len %d, want 500 distinct keys", f.Len())
	}
	for _, h := range hs {
		if !f.ContainsHash(h) {
			t.Fatal("false negative")
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{{Rate: 0.01, Bits: 8}, {Rate: 1}, {Rate: -1}, {Rate: math.NaN()}, {Bits: 33}, {Bits: -1}, {MaxAttempts: -1}, {Rate: 1e-12}} {
		_, err := BuildHashes(c, hashes(0, 10, 0))
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", c, err)
			continue
		}
		// One package prefix, not one per layer that wraps the error.
		if n := strings.Count(err.Error(), "ribbon: "); n != 1 {
			t.Errorf("%+v: %q says \"ribbon: \" %d times", c, err, n)
		}
	}
}

// A shape with fewer slots than the keys need fails on every salt, and
// Build says so after MaxAttempts of them.
func TestBuildGivesUp(t *testing.T) {
	hs := hashes(0, 3000, 0)
	s := Shape{Keys: 3000, Blocks: 40, Bits: 8} // 2560 slots
	_, err := build(s, Config{MaxAttempts: 3}, hs)
	if !errors.Is(err, ErrBuild) {
		t.Fatalf("err = %v, want ErrBuild", err)
	}
	t.Log(err)
}

// Builds are reproducible: the same keys and seed give the same filter.
func TestDeterministic(t *testing.T) {
	hs := hashes(0, 5000, 3)
	a, _ := mustBuild(t, Config{Rate: 0.02, Seed: 3}, hs).MarshalBinary()
	b, _ := mustBuild(t, Config{Rate: 0.02, Seed: 3}, hs).MarshalBinary()
	if string(a) != string(b) {
		t.Error("two builds of the same keys differ")
	}
}

func TestContainsAllocatesNothing(t *testing.T) {
	f := mustBuild(t, Config{Rate: 0.01}, hashes(0, 1000, 0))
	h := hashing.SumString("absent")
	if n := testing.AllocsPerRun(100, func() { f.ContainsHash(h) }); n != 0 {
		t.Errorf("ContainsHash allocates %g times", n)
	}
}

// The rate measured on absent keys matches the shape's formula, for
// integer and fractional widths, within four standard deviations.
func TestRateMatchesModel(t *testing.T) {
	const n, absent = 20000, 400000
	others := hashes(1<<30, absent, 7)
	for _, c := range []Config{{Bits: 1}, {Bits: 4}, {Rate: 0.01}, {Rate: 0.05}, {Rate: 0.003}} {
		c.Seed = 7
		f := mustBuild(t, c, hashes(0, n, 7))
		p := f.FalsePositiveRate()
		got := measured(f, others)
		sd := math.Sqrt(p * (1 - p) / absent)
		if math.Abs(got-p) > 4*sd {
			t.Errorf("%+v (%s): measured %.5f, model %.5f (σ %.5f)", c, f.Shape(), got, p, sd)
		}
		if c.Rate != 0 && p > c.Rate {
			t.Errorf("%+v: model rate %g above the rate asked", c, p)
		}
	}
}

// TestInformationBound is the measurement: on n URL keys, at
// rates of about 1/256 and 1%, the filter takes at most 1.08 times the
// information bound n·log2(1/ε), ε the rate measured on 10^6 absent keys,
// and ε is not above the rate asked. The filter's rate is exact in
// expectation, so a measurement on N keys scatters by √(p/N) around it;
// the test asks for the rate less four of those deviations, so that the
// measurement stays below p.
func TestInformationBound(t *testing.T) {
	sizes := []int{100000}
	if !testing.Short() {
		sizes = append(sizes, 10000000)
	}
	const absent = 1000000
	others := hashes(-absent, absent, 11) // keys of negative index: not in any set
	for _, n := range sizes {
		hs := hashes(0, n, 11)
		for _, p := range []float64{1.0 / 256, 0.01} {
			asked := p * (1 - 4/math.Sqrt(p*absent))
			f := mustBuild(t, Config{Rate: asked, Seed: 11}, hs)
			eps := measured(f, others)
			bound := params.MinimumBits(uint64(n), eps)
			ratio := float64(f.SizeBits()) / bound
			t.Logf("n = %d, ε asked %.5f (filter %.5f): measured %.5f, %.3f bits/key, bound %.3f, × %.4f (%s)",
				n, asked, f.FalsePositiveRate(), eps, f.BitsPerKey(), bound/float64(n), ratio, f.Shape())
			if eps > p {
				t.Errorf("n = %d, p = %g: measured rate %g above the rate asked", n, p, eps)
			}
			if ratio > 1.08 {
				t.Errorf("n = %d, p = %g: %.4f × the bound", n, p, ratio)
			}
		}
	}
}

// TestConcurrentQueries checks the Filter's documented claim that its
// queries are safe for concurrent use (run with -race).
func TestConcurrentQueries(t *testing.T) {
	f := mustBuild(t, Config{}, hashes(0, 1000, 0))
	probe := hashes(0, 2000, 0)
	want := make([]bool, len(probe))
	for i, h := range probe {
		want[i] = f.ContainsHash(h)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, h := range probe {
				if f.ContainsHash(h) != want[i] {
					t.Errorf("key %d: answer differs under concurrent queries", i)
					return
				}
			}
			if _, err := f.MarshalBinary(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}
