package counting

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
)

// multisetRun drives a filter with a random interleaving of adds and
// removes against a reference multiset and checks every answer.
type multisetRun struct {
	t     *testing.T
	f     *Filter
	r     *rand.Rand
	hs    []hashing.Hash128 // the key universe, hashed
	mult  []uint64          // reference multiplicities
	exact int               // Count answers equal to the multiplicity
	asked int
}

func (run *multisetRun) step() {
	i := run.r.IntN(len(run.hs))
	h := run.hs[i]
	switch op := run.r.IntN(100); {
	case op < 45:
		run.f.AddHash(h)
		run.mult[i]++
	case run.mult[i] > 0:
		if err := run.f.RemoveHash(h); err != nil {
			run.t.Fatalf("removing key %d (multiplicity %d): %v", i, run.mult[i], err)
		}
		run.mult[i]--
	case !run.f.ContainsHash(h):
		// Absent and certainly so: removal must be refused.
		if err := run.f.RemoveHash(h); !errors.Is(err, ErrNotPresent) {
			run.t.Fatalf("removing absent key %d: %v", i, err)
		}
	}
}

// check asks about every key: no false negative, ever, and Count never
// below the multiplicity unless it is Max (saturated: "Max or more").
func (run *multisetRun) check() {
	for i, h := range run.hs {
		n := run.mult[i]
		if n > 0 && !run.f.ContainsHash(h) {
			run.t.Fatalf("false negative: key %d added %d times", i, n)
		}
		c := run.f.CountHash(h)
		if c < n && c != run.f.max {
			run.t.Fatalf("Count %d below multiplicity %d for key %d", c, n, i)
		}
		if n > 0 {
			run.asked++
			if c == n {
				run.exact++
			}
		}
	}
}

// rebuilt returns a fresh filter holding the reference multiset, in the
// mode of the filter under test.
func (run *multisetRun) rebuilt() *Filter {
	g, _ := newFilter(run.f.Shape(), run.f.width, false, run.f.view != nil, run.f.Seed(), nil)
	for i, h := range run.hs {
		for range run.mult[i] {
			g.AddHash(h)
		}
	}
	return g
}

// modes are the two ways a filter can be built: with a bit view and
// counters only (Config.NoBitView).
var modes = []struct {
	name   string
	noView bool
}{{"view", false}, {"counters-only", true}}

func TestAgainstReferenceMultiset(t *testing.T) {
	seeds := uint64(3)
	if testing.Short() || raceEnabled {
		seeds = 1
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) { testAgainstReferenceMultiset(t, seeds, mode.noView) })
	}
}

func testAgainstReferenceMultiset(t *testing.T, seeds uint64, noView bool) {
	for seed := uint64(1); seed <= seeds; seed++ {
		for _, l := range layouts {
			for _, w := range widths {
				r := rand.New(rand.NewPCG(seed, uint64(l)*100+uint64(w)))
				const universe = 6000
				f := mustNew(t, Config{Layout: l, N: universe, P: 0.02, Width: w, Seed: seed, NoBitView: noView})
				run := &multisetRun{t: t, f: f, r: r, hs: make([]hashing.Hash128, universe), mult: make([]uint64, universe)}
				for i := range run.hs {
					run.hs[i] = f.HashString(key(i))
				}
				for round := range 8 {
					for range 2500 {
						run.step()
					}
					run.check()
					if round%4 == 3 {
						checkInvariants(t, f)
					}
				}
				// With no saturation, the counters are exactly those of
				// a filter that only ever saw the final multiset, whatever
				// the order of adds and removes. (4-bit counters do
				// saturate here now and then: keys are added up to ~10
				// times.)
				if f.Saturated() > 0 {
					t.Logf("%v/%d seed %d: %d saturated counters", l, w, seed, f.Saturated())
				} else if g := run.rebuilt(); !f.Equal(g) {
					t.Fatalf("%v/%d seed %d: counters differ from a filter built from the final multiset", l, w, seed)
				}
				if frac := float64(run.exact) / float64(run.asked); frac < 0.9 {
					t.Errorf("%v/%d seed %d: Count exact for %.3f of present keys, want most", l, w, seed, frac)
				}
			}
		}
	}
}

// TestFalsePositiveRate fills filters by adds and removes down to n
// distinct keys and checks that the false-positive rate on fresh keys
// matches params' model for n keys, for filters with a bit view (which
// answers from the view) and without (which answers from the counters).
func TestFalsePositiveRate(t *testing.T) {
	n, queries := 20000, 400000
	if testing.Short() || raceEnabled {
		n, queries = 5000, 100000
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) { testFalsePositiveRate(t, n, queries, mode.noView) })
	}
}

func testFalsePositiveRate(t *testing.T, n, queries int, noView bool) {
	for _, l := range layouts {
		f := mustNew(t, Config{Layout: l, N: uint64(n), P: 0.01, Seed: 77, NoBitView: noView})
		// Add 2n keys, remove every other one: n distinct keys remain.
		for i := range 2 * n {
			f.AddString(key(i))
		}
		for i := 1; i < 2*n; i += 2 {
			if err := f.RemoveString(key(i)); err != nil {
				t.Fatal(err)
			}
		}
		hits := 0
		for i := range queries {
			if f.ContainsString(key(10*n + i)) {
				hits++
			}
		}
		measured := float64(hits) / float64(queries)
		model := f.Shape().FalsePositive(uint64(n))
		sigma := math.Sqrt(model * (1 - model) / float64(queries))
		if math.Abs(measured-model) > 4*sigma+0.03*model {
			t.Errorf("%v: measured false-positive rate %.5f, model %.5f (σ %.5f)", l, measured, model, sigma)
		}
		t.Logf("%-11v measured %.5f model %.5f", l, measured, model)
		// The view (or without one, the counters' projection) is exactly
		// a bloom filter of the n remaining keys.
		b := bloom.MustNew(bloom.Config{Layout: l, N: uint64(n), P: 0.01, Seed: 77})
		for i := 0; i < 2*n; i += 2 {
			b.AddString(key(i))
		}
		if !f.bitFilter().Equal(b) {
			t.Errorf("%v: the view differs from a bloom filter of the remaining keys", l)
		}
		if (f.BitView() == nil) != noView {
			t.Errorf("%v: BitView %v with NoBitView %t", l, f.BitView(), noView)
		}
	}
}
