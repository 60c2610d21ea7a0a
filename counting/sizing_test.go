package counting_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/bloomcast/bloomcast/counting"
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
		l := counting.SurveyOverflowLog10(1, 1<<c.bits)
		digits := 3
		if c.printed == "0.049" || c.printed == "9.5e-06" || c.printed == "4.4e-40" {
			digits = 2
		}
		if got := mantissaExp(l, digits); got != c.printed {
			t.Errorf("t = %d: survey bound %s (log10 %.4f), printed %s", c.bits, got, l, c.printed)
		}
	}
	if l := counting.SurveyOverflowLog10(1, 256); math.Abs(l-(-546.03)) > 0.005 {
		t.Errorf("j = 256: log10 %.4f, want about -546.03", l)
	}
	if l := counting.SurveyOverflowLog10(1000, 16) - counting.SurveyOverflowLog10(1, 16); math.Abs(l-3) > 1e-12 {
		t.Errorf("q = 1000 adds %g to log10, want 3", l)
	}
	if !math.IsInf(counting.SurveyOverflowLog10(0, 16), -1) || counting.SurveyOverflowLog10(5, 0) != 0 {
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
		b := counting.OverflowBound(c.m, c.n, c.k, c.i)
		if l := counting.OverflowLog10(c.m, c.n, c.k, c.i); math.Abs(l-math.Log10(b)) > 1e-9 {
			t.Errorf("OverflowLog10%v = %g, log10 of the bound %g", c, l, math.Log10(b))
		}
	}
	// Where it underflows, the logarithm stays finite: at the optimal load
	// k·n/m = ln 2 it is the 004 form m·(e·ln2/i)^i, just below the
	// survey's rounded 1.885.
	m, n := uint64(1<<20), uint64(72683) // k = 10: k·n/m ≈ ln 2
	if counting.OverflowBound(m, n, 10, 65536) != 0 {
		t.Fatal("the bound at i = 65536 no longer underflows; pick a larger i")
	}
	l := counting.OverflowLog10(m, n, 10, 65536)
	s := counting.SurveyOverflowLog10(m, 65536)
	if math.IsInf(l, 0) || l > s || s-l > 65536*math.Log10(counting.SurveyOverflowBase/(math.E*math.Ln2))*1.01 {
		t.Errorf("OverflowLog10 at i = 65536: %g, survey form %g", l, s)
	}
	if counting.OverflowLog10(m, n, 10, 0) != 0 || !math.IsInf(counting.OverflowLog10(m, 0, 10, 16), -1) {
		t.Error("OverflowLog10 edge cases")
	}
}

func TestOverflowBoundAtOptimum(t *testing.T) {
	for _, m := range []uint64{1000, 1 << 20, 1 << 40} {
		got := counting.OverflowBoundOptimal(m, 16)
		if relErr(got, 1.37e-15*float64(m)) > 0.004 {
			t.Errorf("OverflowBoundOptimal(%d, 16) = %g, want about 1.37e-15·m", m, got)
		}
	}
	// At k = ln2·m/n (n rounded down) the general bound is just below the
	// optimal one; fewer probes, fewer increments, a smaller bound.
	m := uint64(1 << 20)
	n := uint64(math.Ln2 * float64(m) / 10)
	if b, o := counting.OverflowBound(m, n, 10, 16), counting.OverflowBoundOptimal(m, 16); b > o || relErr(b, o) > 1e-3 {
		t.Errorf("OverflowBound at the optimum %g, optimal bound %g", counting.OverflowBound(m, n, 10, 16), counting.OverflowBoundOptimal(m, 16))
	}
	if counting.OverflowBound(m, n, 5, 16) >= counting.OverflowBound(m, n, 10, 16) {
		t.Error("OverflowBound should grow with k")
	}
	if counting.OverflowBound(m, 0, 5, 16) != 0 || counting.OverflowBound(m, n, 5, 0) != 1 || counting.OverflowBoundOptimal(m, 0) != 1 {
		t.Error("OverflowBound edge cases")
	}
}

func TestInverseGamma(t *testing.T) {
	for x := 1.5; x < 170; x *= 1.37 {
		g := math.Gamma(x)
		if got := counting.InverseGamma(g); math.Abs(got-x) > 1e-9*x {
			t.Errorf("InverseGamma(Γ(%g)) = %.12g", x, got)
		}
	}
	if got := counting.InverseGamma(3628800); math.Abs(got-11) > 1e-9 { // 10!
		t.Errorf("InverseGamma(10!) = %g, want 11", got)
	}
	if !math.IsNaN(counting.InverseGamma(0.5)) || !math.IsInf(counting.InverseGamma(math.Inf(1)), 1) {
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
		got := counting.ExpectedMaxCount(c.m, c.n, c.k)
		want := poissonMaxMean(c.m, float64(c.k)*float64(c.n)/float64(c.m))
		if d := got - want; d < -1 || d > 1.8 {
			t.Errorf("ExpectedMaxCount(%d, %d, %d) = %.3f, Poisson maximum %.3f", c.m, c.n, c.k, got, want)
		}
	}
	if a, b := counting.ExpectedMaxCount(1e6, 1e5, 3), counting.ExpectedMaxCount(1e6, 1e5, 7); a >= b {
		t.Errorf("ExpectedMaxCount does not grow with k: %g, %g", a, b)
	}
	// Far from the asymptote's loads: never below 1 (a counter holds the
	// one key) nor below the mean count.
	if got := counting.ExpectedMaxCount(1<<62, 1, 64); got != 1 {
		t.Errorf("ExpectedMaxCount(2^62, 1, 64) = %g, want 1", got)
	}
	if got := counting.ExpectedMaxCount(2, 1e12, 1); got < 5e11 {
		t.Errorf("ExpectedMaxCount(2, 1e12, 1) = %g, below the mean count 5e11", got)
	}
	if counting.ExpectedMaxCount(1, 5, 3) != 0 || counting.ExpectedMaxCount(100, 0, 3) != 0 {
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
	s := counting.SizeCounters(40000, 2000, 7)
	if s.N != 2000 || s.M != 40000 || s.K != 7 || math.Abs(s.Load-0.35) > 1e-12 || !s.SurveyApplies {
		t.Fatalf("%+v", s)
	}
	if s.ExpectedMaxCount != counting.ExpectedMaxCount(40000, 2000, 7) || len(s.Overflow) != 15 || s.SmallestWidth != 4 {
		t.Errorf("%+v", s)
	}
	for _, w := range s.Overflow {
		j := 1 << w.Bits
		if w.OverflowsAt != uint64(j) || w.Log10P != counting.SurveyOverflowLog10(40000, j) || w.Log10AtLoad != counting.OverflowLog10(40000, 2000, 7, j) {
			t.Errorf("width %d: %+v", w.Bits, w)
		}
	}
	if w := s.Overflow[6]; w.Bits != 8 || math.Abs(w.Log10P-math.Log10(40000)-(-546.03)) > 0.005 {
		t.Errorf("8-bit counters: %+v, want the survey's −546.03 + log10 m", w)
	}
	// Above the optimal load the survey's form does not apply, and a
	// heavy load needs wider counters.
	if s := counting.SizeCounters(1000, 1000, 7); s.SurveyApplies || s.SmallestWidth <= 4 {
		t.Errorf("load 7: %+v", s)
	}
}

// Counters for a million keys in ten million counters at the best k: 4
// bits keep the chance of an overflow below 10^−6.
func ExampleSizeCounters() {
	m, n := uint64(10_000_000), uint64(1_000_000)
	s := counting.SizeCounters(m, n, params.OptimalK(m, n))
	fmt.Printf("k = %d, load %.2f, expected largest count %.1f\n", s.K, s.Load, s.ExpectedMaxCount)
	w := s.Overflow[s.SmallestWidth-2]
	fmt.Printf("%d-bit counters: Pr(overflow) < 10^%.1f\n", w.Bits, w.Log10AtLoad)
	// Output:
	// k = 7, load 0.70, expected largest count 9.8
	// 4-bit counters: Pr(overflow) < 10^-7.8
}

// Four-bit counters overflow with probability at most 1.37e−15 per counter
// (Fan et al. 2000).
func ExampleOverflowBoundOptimal() {
	fmt.Printf("%.3g\n", counting.OverflowBoundOptimal(1, 16))
	fmt.Printf("%.3g\n", counting.OverflowBoundOptimal(1<<30, 16))
	// Output:
	// 1.37e-15
	// 1.47e-06
}

// The survey's bound for 8-bit counters, 9.34·10⁻⁵⁴⁷ per counter, is far
// below the smallest float64; its logarithm is not.
func ExampleSurveyOverflowLog10() {
	fmt.Printf("%.2f\n", counting.SurveyOverflowLog10(1, 1<<4))
	fmt.Printf("%.2f\n", counting.SurveyOverflowLog10(1, 1<<8))
	// Output:
	// -14.86
	// -546.03
}

// The largest count of a counting filter of 10^7 counters holding 10^6
// keys with 6 probes each, by Fan et al.'s asymptote.
func ExampleExpectedMaxCount() {
	fmt.Printf("%.2f\n", counting.ExpectedMaxCount(10_000_000, 1_000_000, 6))
	// Output:
	// 9.03
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }
