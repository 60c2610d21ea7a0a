package counting

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

// overflowFrequency fills trials fresh filters of m 4-bit counters with n
// random keys of k probes and returns the fraction in which some counter
// reached i (read from the histogram, i ≤ 15) — or, for i = 15, in which
// the filter reports a saturated counter.
func overflowFrequency(r *rand.Rand, m uint64, k int, n uint64, i int, trials int) float64 {
	f, _ := New(Config{M: m, K: k})
	hits := 0
	for range trials {
		f.Clear()
		for range n {
			f.AddHash(hashing.Hash128{Lo: r.Uint64(), Hi: r.Uint64()})
		}
		reached := false
		if i == 15 {
			reached = f.Saturated() > 0
		} else {
			for _, c := range f.Histogram()[i:] {
				reached = reached || c > 0
			}
		}
		if reached {
			hits++
		}
	}
	return float64(hits) / float64(trials)
}

// binomialTail returns Pr(X ≥ i) for X ~ Binomial(trials, p).
func binomialTail(trials uint64, p float64, i int) float64 {
	term := math.Pow(1-p, float64(trials)) // Pr(X = 0)
	below := 0.0
	for j := 0; j < i; j++ {
		below += term
		term *= float64(trials-uint64(j)) / float64(j+1) * p / (1 - p)
	}
	return max(0, 1-below)
}

// TestOverflowBound measures Pr(max counter ≥ i) over many small random
// filters of 4-bit counters and compares it with Fan et al.'s bound
// m·(e·n·k/(i·m))^i (OverflowBound). For each i the load is chosen
// so that the bound is 0.3, where the event is frequent enough to measure.
//
// The measured frequency must stay below the bound. The bound is loose,
// and more so as i grows: it is a union bound over the m counters, each
// a Binomial(nk, 1/m), with the tail C(nk, i)/m^i bounded by
// (e·nk/(i·m))^i, which drops the 1/√(2πi) of Stirling's formula and the
// e^(−nk/m) of the Poisson term. So "within reason" is checked two ways:
// the bound is within a factor 200 of the measurement, and the
// measurement matches the model the bound simplifies, 1 − (1 − q)^m with
// q the exact binomial tail, within 4σ + 15%. i = 15 is the 4-bit
// maximum, so there the frequency is that of Saturated() > 0.
func TestOverflowBound(t *testing.T) {
	const m, k, trials, target = 1024, 4, 4000, 0.3
	r := rand.New(rand.NewPCG(2000, 3))
	for _, i := range []int{4, 5, 6, 7, 8, 15} {
		// Solve m·(e·n·k/(i·m))^i = target for n.
		n := uint64(math.Pow(target/m, 1/float64(i)) * float64(i) * m / (math.E * k))
		bound := OverflowBound(m, n, k, i)
		model := 1 - math.Pow(1-binomialTail(n*k, 1.0/m, i), m)
		measured := overflowFrequency(r, m, k, n, i, trials)
		t.Logf("i = %2d, n = %3d (nk/m = %.2f): measured Pr(max ≥ i) = %.4f, binomial model %.4f, bound %.4f (%.0f× measured)",
			i, n, float64(n*k)/m, measured, model, bound, bound/measured)
		if measured > bound {
			t.Errorf("i = %d: measured %.4f above the bound %.4f", i, measured, bound)
		}
		if measured < bound/200 {
			t.Errorf("i = %d: measured %.4f, the bound %.4f is over 200 times larger", i, measured, bound)
		}
		sigma := math.Sqrt(model * (1 - model) / trials)
		if math.Abs(measured-model) > 4*sigma+0.15*model {
			t.Errorf("i = %d: measured %.4f, binomial model %.4f (σ %.4f)", i, measured, model, sigma)
		}
	}
}

// TestOverflowBoundOptimal checks the optimal-k form against the general
// one and the seed's figure: 1.37e−15·m at i = 16 (4-bit counters).
func TestOverflowBoundOptimal(t *testing.T) {
	if got := OverflowBoundOptimal(1, 16); math.Abs(got-1.37e-15)/1.37e-15 > 0.01 {
		t.Errorf("OverflowBoundOptimal(1, 16) = %g, the seed says 1.37e-15", got)
	}
	const m, n = 1 << 20, 100000
	k := int(math.Floor(math.Ln2 * m / n)) // at most the optimum
	for i := 4; i <= 16; i++ {
		if g, o := OverflowBound(m, n, k, i), OverflowBoundOptimal(m, i); g > o*(1+1e-12) {
			t.Errorf("i = %d: bound %g above the optimal-k bound %g", i, g, o)
		}
	}
}
