package counting

import "math"

// Counter sizing: how large the counts grow
// (Fan, Cao, Almeida and Broder, "Summary cache", 2000) and how likely a
// counter of a given width is to overflow (the same paper's bound, and the
// form of Broder and Mitzenmacher's survey). Every probability here is
// returned as its base-10 logarithm, so the bounds stay finite far below
// the smallest float64 (the survey prints 9.34·10⁻⁵⁴⁷ for 8-bit counters).

// SurveyOverflowBase is the constant of the survey's overflow bound
// Pr(any counter ≥ j) < q·(1.885/j)^j: e·ln 2 ≈ 1.88417 rounded up to
// three decimals, as the survey prints it.
const SurveyOverflowBase = 1.885

// InverseGamma returns the x ≥ x₀ ≈ 1.4616 (where Γ is smallest) with
// Γ(x) = y, found by bisection on ln Γ. It returns NaN for y below
// Γ(x₀) ≈ 0.8856 or for NaN, and +Inf for y = +Inf.
func InverseGamma(y float64) float64 {
	const x0, gmin = 1.4616321449683623, 0.8856031944108887
	switch {
	case math.IsNaN(y) || y < gmin:
		return math.NaN()
	case math.IsInf(y, 1):
		return y
	}
	target := math.Log(y)
	lo, hi := x0, 2.0
	for lgamma(hi) < target {
		lo, hi = hi, 2*hi
	}
	for i := 0; i < 200 && hi-lo > 1e-13*hi; i++ {
		mid := (lo + hi) / 2
		if lgamma(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// ExpectedMaxCount returns the asymptotic expected largest count of a
// counting Bloom filter of m counters after n insertions with k probes
// each (Fan et al. 2000, after Knuth's analysis of the fullest of m
// buckets holding k·n balls):
//
//	Γ⁻¹(m)·(1 + ln(k·n/m)/ln Γ⁻¹(m) + O(1/ln² Γ⁻¹(m)))
//
// without the O term. It is an asymptote in m: for filters of 2^16 to 2^30
// counters near the optimal load it runs 1.2 to 1.7 above the exact
// expected maximum of m Poisson(k·n/m) counts (at load 1 Gonnet's finer
// analysis gives Γ⁻¹(m) − 3/2), and below it for light loads (calc
// --counting sets it beside a simulation). Far from those loads the
// asymptote says nothing (it turns negative as the load goes to 0, and
// stays near Γ⁻¹(m) as the load grows past it), so the result is never
// below the load k·n/m, the mean count, nor below 1: the largest count
// is at least the mean, and at least one counter holds a key. It returns
// 0 for m < 2, n = 0 or k < 1.
func ExpectedMaxCount(m, n uint64, k int) float64 {
	if m < 2 || n == 0 || k < 1 {
		return 0
	}
	g := InverseGamma(float64(m))
	load := float64(k) * float64(n) / float64(m)
	return max(g*(1+math.Log(load)/math.Log(g)), load, 1)
}

// OverflowBound bounds the probability that any of the m counters of a
// counting Bloom filter reaches i after n insertions with k probes each
// (Fan et al. 2000): a counter is a sum of n·k Bernoulli(1/m) trials, so
// Pr(max count ≥ i) ≤ m·C(n·k, i)/m^i ≤ m·(e·n·k/(i·m))^i. The bound may
// exceed 1, which means it says nothing. It returns 1 for i < 1 (every
// count is at least 0) and 0 for m = 0, n = 0 or k < 1 (no counter is ever
// incremented).
func OverflowBound(m, n uint64, k, i int) float64 {
	if i < 1 {
		return 1
	}
	if m == 0 || n == 0 || k < 1 {
		return 0
	}
	mf, fi := float64(m), float64(i)
	ratio := math.E * float64(n) * float64(k) / (fi * mf)
	return math.Exp(math.Log(mf) + fi*math.Log(ratio))
}

// OverflowBoundOptimal is [OverflowBound] for any k ≤ ln2·m/n, the regime
// of a filter sized near its optimum (Fan et al. 2000): n·k/m ≤ ln 2, so
// Pr(max count ≥ i) ≤ m·(e·ln2/i)^i. At i = 16, the first value 4-bit
// counters cannot hold, it is about 1.37e−15·m. It returns 1 for i < 1.
func OverflowBoundOptimal(m uint64, i int) float64 {
	if i < 1 {
		return 1
	}
	fi := float64(i)
	return float64(m) * math.Exp(fi*math.Log(math.E*math.Ln2/fi))
}

// OverflowLog10 returns log10 of [OverflowBound](m, n, k, i),
// log10 m + i·log10(e·n·k/(i·m)), which stays finite where the bound
// itself underflows to 0. The result may be above 0 (a bound above 1 says
// nothing). It returns 0 for i < 1 and −Inf for m = 0, n = 0 or k < 1.
func OverflowLog10(m, n uint64, k, i int) float64 {
	if i < 1 {
		return 0
	}
	if m == 0 || n == 0 || k < 1 {
		return math.Inf(-1)
	}
	fi := float64(i)
	return math.Log10(float64(m)) + fi*math.Log10(math.E*float64(n)*float64(k)/(fi*float64(m)))
}

// SurveyOverflowLog10 returns log10 of the survey's bound on the chance
// that any of q counters reaches j, q·(1.885/j)^j ([SurveyOverflowBase]),
// valid for any k ≤ ln2·m/n. A counter of t bits overflows at j = 2^t:
// for q = 1 the survey prints 0.049 (t = 2), 9.5·10⁻⁶ (t = 3),
// 1.38·10⁻¹⁵ (t = 4), 4.4·10⁻⁴⁰, 1.06·10⁻⁹⁸, 3.29·10⁻²³⁵ and 9.34·10⁻⁵⁴⁷
// (t = 8, log10 ≈ −546.03). It returns 0 for j < 1 and −Inf for q = 0.
func SurveyOverflowLog10(q uint64, j int) float64 {
	if j < 1 {
		return 0
	}
	if q == 0 {
		return math.Inf(-1)
	}
	fj := float64(j)
	return math.Log10(float64(q)) + fj*math.Log10(SurveyOverflowBase/fj)
}

// CounterWidth is one counter width in a Sizing: a counter of Bits
// bits overflows at OverflowsAt = 2^Bits, and the base-10 logarithms of
// the two bounds on Pr(any counter ≥ OverflowsAt). The zero value is an
// empty row.
type CounterWidth struct {
	Bits        int     `json:"bits"`
	OverflowsAt uint64  `json:"overflows_at"`
	Log10P      float64 `json:"log10_probability"`   // SurveyOverflowLog10(m, 2^Bits)
	Log10AtLoad float64 `json:"log10_bound_at_load"` // OverflowLog10(m, n, k, 2^Bits)
}

// Sizing sizes the counters of a counting Bloom filter of M
// counters holding N keys with K probes each: the expected largest count,
// and for each width of 2 to 16 bits the bounds on an overflow. The JSON
// form is what "bloomcast calc --counting --json" prints. SizeCounters
// computes one; the zero value describes no filter.
type Sizing struct {
	N    uint64  `json:"n"`
	M    uint64  `json:"m"`
	K    int     `json:"k"`
	Load float64 `json:"load"` // k·n/m, the mean count
	// SurveyApplies is k ≤ ln2·m/n, where the survey's form bounds.
	SurveyApplies    bool    `json:"survey_bound_applies"`
	ExpectedMaxCount float64 `json:"expected_max_count"` // ExpectedMaxCount(m, n, k)
	// SmallestWidth is the narrowest width whose at-load bound is below
	// 10^−6 (0 when none up to 16 bits is).
	SmallestWidth int            `json:"smallest_width"`
	Overflow      []CounterWidth `json:"overflow"` // widths 2..16
}

// SizeCounters returns the counter sizing of m counters holding n keys
// with k probes each.
func SizeCounters(m, n uint64, k int) Sizing {
	load := float64(k) * float64(n) / float64(m)
	r := Sizing{N: n, M: m, K: k, Load: load, SurveyApplies: load <= math.Ln2,
		ExpectedMaxCount: ExpectedMaxCount(m, n, k)}
	for t := 2; t <= 16; t++ {
		j := 1 << t
		w := CounterWidth{Bits: t, OverflowsAt: uint64(j), Log10P: SurveyOverflowLog10(m, j), Log10AtLoad: OverflowLog10(m, n, k, j)}
		if r.SmallestWidth == 0 && w.Log10AtLoad < -6 {
			r.SmallestWidth = t
		}
		r.Overflow = append(r.Overflow, w)
	}
	return r
}

// lgamma is ln Γ(x) for x > 0.
func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}
