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

func TestSizeCounters(t *testing.T) {
	s := params.SizeCounters(40000, 2000, 7)
	if s.N != 2000 || s.M != 40000 || s.K != 7 || math.Abs(s.Load-0.35) > 1e-12 || !s.SurveyApplies {
		t.Fatalf("%+v", s)
	}
	if s.ExpectedMaxCount != params.ExpectedMaxCount(40000, 2000, 7) || len(s.Overflow) != 15 || s.SmallestWidth != 4 {
		t.Errorf("%+v", s)
	}
	for _, w := range s.Overflow {
		j := 1 << w.Bits
		if w.OverflowsAt != uint64(j) || w.Log10P != params.SurveyOverflowLog10(40000, j) || w.Log10AtLoad != params.OverflowLog10(40000, 2000, 7, j) {
			t.Errorf("width %d: %+v", w.Bits, w)
		}
	}
	if w := s.Overflow[6]; w.Bits != 8 || math.Abs(w.Log10P-math.Log10(40000)-(-546.03)) > 0.005 {
		t.Errorf("8-bit counters: %+v, want the survey's −546.03 + log10 m", w)
	}
	// Above the optimal load the survey's form does not apply, and a
	// heavy load needs wider counters.
	if s := params.SizeCounters(1000, 1000, 7); s.SurveyApplies || s.SmallestWidth <= 4 {
		t.Errorf("load 7: %+v", s)
	}
}

// Counters for a million keys in ten million counters at the best k: 4
// bits keep the chance of an overflow below 10^−6.
func ExampleSizeCounters() {
	m, n := uint64(10_000_000), uint64(1_000_000)
	s := params.SizeCounters(m, n, params.OptimalK(m, n))
	fmt.Printf("k = %d, load %.2f, expected largest count %.1f\n", s.K, s.Load, s.ExpectedMaxCount)
	w := s.Overflow[s.SmallestWidth-2]
	fmt.Printf("%d-bit counters: Pr(overflow) < 10^%.1f\n", w.Bits, w.Log10AtLoad)
	// Output:
	// k = 7, load 0.70, expected largest count 9.8
	// 4-bit counters: Pr(overflow) < 10^-7.8
}
