package sim_test

import (
	"errors"
	"math"
	"testing"

	"github.com/bloomcast/bloomcast/sim"
)

// TestMaxCount measures the largest count of real counting filters and
// sets it beside the exact expected maximum of m independent Poisson(λ)
// counts, λ = k·n/m: the two agree within half a count over 20 filters.
func TestMaxCount(t *testing.T) {
	for _, c := range []sim.MaxCountConfig{
		{M: 1 << 16, N: 4540, K: 10, Trials: 20, Seed: 3}, // k·n/m ≈ ln 2
		{M: 1 << 14, N: 1 << 14, K: 1, Trials: 20, Seed: 4},
	} {
		r, err := sim.MaxCount(c)
		if err != nil {
			t.Fatal(err)
		}
		want := poissonMaxMean(c.M, float64(c.K)*float64(c.N)/float64(c.M))
		if math.Abs(r.Mean-want) > 0.5 {
			t.Errorf("%+v: measured mean maximum %.2f (%v), Poisson %.2f", c, r.Mean, r.Max, want)
		}
		again, _ := sim.MaxCount(c)
		for i := range r.Max {
			if again.Max[i] != r.Max[i] {
				t.Fatalf("same seed, different maxima: %v, %v", r.Max, again.Max)
			}
		}
	}
	if _, err := sim.MaxCount(sim.MaxCountConfig{M: 1 << 20, N: 1 << 30, K: 4}); !errors.Is(err, sim.ErrTrialTooLarge) {
		t.Errorf("oversized trial: %v", err)
	}
	if _, err := sim.MaxCount(sim.MaxCountConfig{M: 100, K: 4}); err == nil {
		t.Error("a trial without keys ran")
	}
}

// poissonMaxMean is E[max of m Poisson(λ)] = Σ_{j≥1} 1 − Pr(X < j)^m.
func poissonMaxMean(m uint64, lambda float64) float64 {
	mean, cdf, pmf := 0.0, 0.0, math.Exp(-lambda)
	for j := 1; j < 1000; j++ {
		cdf += pmf
		pmf *= lambda / float64(j)
		if cdf >= 1 {
			break
		}
		tail := -math.Expm1(float64(m) * math.Log1p(-(1 - cdf)))
		mean += tail
		if tail < 1e-12 {
			break
		}
	}
	return mean
}
