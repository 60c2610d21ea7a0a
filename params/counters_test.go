package params_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/bloomcast/bloomcast/params"
)

// TestSurveyOverflowPrinted checks SurveyOverflowLog10 against every
// number the survey (seed 001) prints for t-bit counters, j = 2^t.
func TestSurveyOverflowPrinted(t *testing.T) {
	for _, c := range []struct {
		bits    int
		printed string // as the survey prints it, q = 1
	}{
		{2, "0.049"}, {3, "9.5e-06"}, {4, "1.38e-15"}, {5, "4.4e-40"},
		{6, "1.06e-98"}, {7, "3.29e-235"}, {8, "9.34e-547"},
	} {
		l := params.SurveyOverflowLog10(1, 1<<c.bits)
		digits := 3
		if c.printed == "0.049" || c.printed == "9.5e-06" || c.printed == "4.4e-40" {
			digits = 2
		}
		if got := mantissaExp(l, digits); got != c.printed {
			t.Errorf("t = %d: survey bound %s (log10 %.4f), printed %s", c.bits, got, l, c.printed)
		}
	}
	if l := params.SurveyOverflowLog10(1, 256); math.Abs(l-(-546.03)) > 0.005 {
		t.Errorf("j = 256: log10 %.4f, want about -546.03", l)
	}
	if l := params.SurveyOverflowLog10(1000, 16) - params.SurveyOverflowLog10(1, 16); math.Abs(l-3) > 1e-12 {
		t.Errorf("q = 1000 adds %g to log10, want 3", l)
	}
	if !math.IsInf(params.SurveyOverflowLog10(0, 16), -1) || params.SurveyOverflowLog10(5, 0) != 0 {
		t.Error("SurveyOverflowLog10 edge cases")
	}
}

// mantissaExp writes 10^l as the survey does: digits significant digits,
// exponent form below 0.01.
func mantissaExp(l float64, digits int) string {
	e := math.Floor(l)
	mant := math.Pow(10, l-e)
	if e >= -2 {
		return fmt.Sprintf("%.*g", digits, math.Pow(10, l))
	}
	s := fmt.Sprintf("%.*g", digits, mant)
	if s == "10" {
		s, e = "1", e+1
	}
	return fmt.Sprintf("%se-%02d", s, int(-e))
}

func TestOverflowLog10(t *testing.T) {
	// Where the bound is representable, the logarithm agrees with it.
	for _, c := range []struct {
		m, n uint64
		k, i int
	}{{1 << 20, 70000, 10, 16}, {1000, 100, 7, 4}, {1 << 30, 1 << 26, 8, 32}} {
		b := params.OverflowBound(c.m, c.n, c.k, c.i)
		if l := params.OverflowLog10(c.m, c.n, c.k, c.i); math.Abs(l-math.Log10(b)) > 1e-9 {
			t.Errorf("OverflowLog10%v = %g, log10 of the bound %g", c, l, math.Log10(b))
		}
	}
	// Where it underflows, the logarithm stays finite: at the optimal load
	// k·n/m = ln 2 it is the 004 form m·(e·ln2/i)^i, just below the
	// survey's rounded 1.885.
	m, n := uint64(1<<20), uint64(72683) // k = 10: k·n/m ≈ ln 2
	if params.OverflowBound(m, n, 10, 65536) != 0 {
		t.Fatal("the bound at i = 65536 no longer underflows; pick a larger i")
	}
	l := params.OverflowLog10(m, n, 10, 65536)
	s := params.SurveyOverflowLog10(m, 65536)
	if math.IsInf(l, 0) || l > s || s-l > 65536*math.Log10(params.SurveyOverflowBase/(math.E*math.Ln2))*1.01 {
		t.Errorf("OverflowLog10 at i = 65536: %g, survey form %g", l, s)
	}
	if params.OverflowLog10(m, n, 10, 0) != 0 || !math.IsInf(params.OverflowLog10(m, 0, 10, 16), -1) {
		t.Error("OverflowLog10 edge cases")
	}
}

func TestInverseGamma(t *testing.T) {
	for x := 1.5; x < 170; x *= 1.37 {
		g := math.Gamma(x)
		if got := params.InverseGamma(g); math.Abs(got-x) > 1e-9*x {
			t.Errorf("InverseGamma(Γ(%g)) = %.12g", x, got)
		}
	}
	if got := params.InverseGamma(3628800); math.Abs(got-11) > 1e-9 { // 10!
		t.Errorf("InverseGamma(10!) = %g, want 11", got)
	}
	if !math.IsNaN(params.InverseGamma(0.5)) || !math.IsInf(params.InverseGamma(math.Inf(1)), 1) {
		t.Error("InverseGamma edge cases")
	}
}

// TestExpectedMaxCount compares the 004 asymptote with the expected
// maximum of m independent Poisson(k·n/m) counts, computed exactly:
// E[max] = Σ_{j≥1} 1 − Pr(X < j)^m. The asymptote drops its O(1/ln² Γ⁻¹(m))
// term (at load 1 Gonnet's finer analysis gives Γ⁻¹(m) − 3/2), so it is
// checked to run at most 1.8 counts above and 1 below over filters of
// practical size, and to grow with the load.
func TestExpectedMaxCount(t *testing.T) {
	for _, c := range []struct {
		m, n uint64
		k    int
	}{
		{1 << 16, 4540, 10}, {1 << 20, 72683, 10}, {1e6, 1e5, 7}, {1e8, 1e7, 7},
		{1e6, 1e6, 1}, {1e6, 1e5, 3}, {1e9, 1e8, 4},
	} {
		got := params.ExpectedMaxCount(c.m, c.n, c.k)
		want := poissonMaxMean(c.m, float64(c.k)*float64(c.n)/float64(c.m))
		if d := got - want; d < -1 || d > 1.8 {
			t.Errorf("ExpectedMaxCount(%d, %d, %d) = %.3f, Poisson maximum %.3f", c.m, c.n, c.k, got, want)
		}
	}
	if a, b := params.ExpectedMaxCount(1e6, 1e5, 3), params.ExpectedMaxCount(1e6, 1e5, 7); a >= b {
		t.Errorf("ExpectedMaxCount does not grow with k: %g, %g", a, b)
	}
	if params.ExpectedMaxCount(1, 5, 3) != 0 || params.ExpectedMaxCount(100, 0, 3) != 0 {
		t.Error("ExpectedMaxCount edge cases")
	}
}

func poissonMaxMean(m uint64, lambda float64) float64 {
	mean, cdf, pmf := 0.0, 0.0, math.Exp(-lambda)
	for j := 1; j < 1000; j++ {
		cdf += pmf // Pr(X ≤ j−1)
		pmf *= lambda / float64(j)
		tail := -math.Expm1(float64(m) * math.Log1p(-(1 - cdf)))
		if 1-cdf <= 0 {
			tail = 0
		}
		mean += tail
		if tail < 1e-12 {
			break
		}
	}
	return mean
}
