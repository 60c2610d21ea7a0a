package params_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/params"
)

// atPrecision reports whether got rounds to the printed value want: got is
// formatted with as many significant digits as want shows.
func atPrecision(got float64, want string) bool {
	digits := 0
	mantissa, _, _ := strings.Cut(strings.ToLower(want), "e")
	started := false
	for _, r := range mantissa {
		if r >= '1' && r <= '9' {
			started = true
		}
		if started && r >= '0' && r <= '9' {
			digits++
		}
	}
	w, err := strconv.ParseFloat(want, 64)
	if err != nil {
		panic(err)
	}
	g, _ := strconv.ParseFloat(strconv.FormatFloat(got, 'g', digits, 64), 64)
	return g == w
}

func TestAtPrecision(t *testing.T) {
	for _, c := range []struct {
		got  float64
		want string
		ok   bool
	}{
		{7.92314, "7.923", true}, {7.9236, "7.923", false}, {0.01772, "0.0177", true},
		{4.587e-4, "4.59e-4", true}, {4.584e-4, "4.59e-4", false}, {15.8463, "15.846", true},
	} {
		if atPrecision(c.got, c.want) != c.ok {
			t.Errorf("atPrecision(%g, %q) = %v", c.got, c.want, !c.ok)
		}
	}
}

func TestEntropy(t *testing.T) {
	for _, c := range []struct{ p, want, tol float64 }{
		{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {2, 0, 0}, {0.5, 1, 1e-15},
		{0.25, 0.8112781244591328, 1e-15},              // 2 − (3/4)·log2 3
		{1e-10, 1e-10 * math.Log2(math.E/1e-10), 1e-9}, // ≈ p·log2(e/p)
	} {
		if got := params.Entropy(c.p); math.Abs(got-c.want) > c.tol*c.want {
			t.Errorf("Entropy(%g) = %.17g, want %.17g", c.p, got, c.want)
		}
	}
	for _, p := range []float64{0.01, 0.3, 0.4999} {
		if a, b := params.Entropy(p), params.Entropy(1-p); relErr(a, b) > 1e-13 {
			t.Errorf("Entropy not symmetric at %g: %g vs %g", p, a, b)
		}
	}
	if !math.IsNaN(params.Entropy(math.NaN())) {
		t.Error("Entropy(NaN) is not NaN")
	}
}

// paperRow is one row of Mitzenmacher's Tables 1 and 2: the array bits per
// element, k, the transmitted bits per element and the rate, as printed.
type paperRow struct {
	budget float64
	m      float64
	k      int
	z, f   string
	raw    bool
}

var paperRows = []paperRow{
	{8, 8, 6, "8", "0.0216", true},
	{8, 14, 2, "7.923", "0.0177", false},
	{8, 92, 1, "7.923", "0.0108", false},
	{16, 16, 11, "16", "4.59e-4", true},
	{16, 28, 4, "15.846", "3.14e-4", false},
	{16, 48, 3, "15.829", "2.22e-4", false},
}

// TestTransmitForPaper evaluates every printed (m/n, k) pair.
func TestTransmitForPaper(t *testing.T) {
	for _, r := range paperRows {
		z, f := params.TransmitFor(r.m, r.k)
		if r.raw {
			z = r.m // the standard filter is sent as it is
		}
		if !atPrecision(z, r.z) || !atPrecision(f, r.f) {
			t.Errorf("TransmitFor(%g, %d) = z/n %.4f, f %.4g; paper %s, %s", r.m, r.k, z, f, r.z, r.f)
		}
		if z > r.budget {
			t.Errorf("m/n = %g, k = %d sends %g bits per element, over %g", r.m, r.k, z, r.budget)
		}
		// The same numbers from the package's rate and the general shape.
		const n = 1000
		if g := params.ApproxFalsePositive(uint64(r.m*n), n, r.k); relErr(g, f) > 1e-12 {
			t.Errorf("ApproxFalsePositive disagrees with TransmitFor: %g vs %g", g, f)
		}
	}
	// The standard filter compresses a little, but not enough to matter:
	// H(e^(−6/8)) = 0.9978.
	if z, _ := params.TransmitFor(8, 6); !atPrecision(z, "7.982") {
		t.Errorf("TransmitFor(8, 6) sends %g", z)
	}
	if z, f := params.TransmitFor(0, 3); z != 0 || f != 1 {
		t.Errorf("TransmitFor(0, 3) = %g, %g", z, f)
	}
	if z, f := params.TransmitFor(8, 0); z != 0 || f != 1 {
		t.Errorf("TransmitFor(8, 0) = %g, %g", z, f)
	}
}

func mustTransmit(t *testing.T, q params.TransmitQuery) params.TransmitResult {
	t.Helper()
	res, err := params.OptimizeTransmit(q)
	if err != nil {
		t.Fatalf("OptimizeTransmit(%+v): %v", q, err)
	}
	return res
}

func checkShape(t *testing.T, what string, s params.CompressedShape, r paperRow) {
	t.Helper()
	if s.BitsPerElement != r.m || s.K != r.k || !atPrecision(s.TransmitPerElement, r.z) ||
		!atPrecision(s.FalsePositive, r.f) || s.Compressed == r.raw {
		t.Errorf("%s: m/n %g k %d z/n %.4f f %.4g compressed %v; paper m/n %g k %d z/n %s f %s",
			what, s.BitsPerElement, s.K, s.TransmitPerElement, s.FalsePositive, s.Compressed, r.m, r.k, r.z, r.f)
	}
}

// TestOptimizeTransmitPaper reproduces Tables 1 and 2: for each budget the
// standard filter, and the optimum when the receivers allow the array the
// paper gave them. Like the paper, it looks for fewer hash functions than
// the standard filter's (MaxK = 6 or 11); see TestOptimizeTransmitDense
// for what more probes would do.
func TestOptimizeTransmitPaper(t *testing.T) {
	for _, n := range []uint64{1000, 1_000_000, 1 << 40} {
		for _, r := range paperRows {
			q := params.TransmitQuery{N: n, BitsPerElement: r.budget}
			q.WholeBitsPerElement = true
			q.MaxBitsPerElement = r.m
			q.MaxK = 6
			if r.budget == 16 {
				q.MaxK = 11
			}
			res := mustTransmit(t, q)
			if r.raw {
				checkShape(t, "uncompressed", res.Uncompressed, r)
				if res.Best.K != r.k || res.Best.M != res.Uncompressed.M {
					t.Errorf("budget %g, cap %g: best %+v", r.budget, r.m, res.Best)
				}
				continue
			}
			checkShape(t, "best", res.Best, r)
			if res.Best.FalsePositive >= res.Uncompressed.FalsePositive {
				t.Errorf("budget %g, cap %g: compressed %g does not beat standard %g", r.budget, r.m, res.Best.FalsePositive, res.Uncompressed.FalsePositive)
			}
			// The paper's uncompressed row is the same without a cap.
			raw := paperRows[0]
			if r.budget == 16 {
				raw = paperRows[3]
			}
			checkShape(t, "uncompressed", res.Uncompressed, raw)
			// A realistic coder, 0.5% over the entropy, changes nothing here.
			q.Overhead = 0.005
			if res2 := mustTransmit(t, q); res2.Best.M != res.Best.M || res2.Best.K != res.Best.K {
				t.Errorf("overhead 0.005 moves the optimum to %+v", res2.Best)
			}
		}
	}
}

// TestOptimizeTransmitPerK checks the per-k rows of Tables 1 and 2: for
// each k, the largest whole m/n whose compressed size fits the budget. The
// paper's k = 2 row for budget 8 and k = 4 row for budget 16 are exactly
// that; for k = 1 (budget 8) and k = 3 (budget 16) it stopped short, at
// m/n = 92 and 48, while 96 and 49 still fit.
func TestOptimizeTransmitPerK(t *testing.T) {
	for _, c := range []struct {
		budget float64
		k      int
		m      float64
		z, f   string
	}{
		{8, 2, 14, "7.923", "0.0177"},
		{8, 1, 96, "7.986", "0.0104"},
		{8, 3, 9, "7.741", "0.0228"},
		{16, 4, 28, "15.846", "3.14e-4"},
		{16, 3, 49, "15.926", "2.09e-4"},
		{16, 11, 16, "15.9996", "4.59e-4"},
	} {
		q := params.TransmitQuery{N: 10_000, BitsPerElement: c.budget}
		q.WholeBitsPerElement = true
		res := mustTransmit(t, q)
		if len(res.PerK) != params.MaxK {
			t.Fatalf("budget %g: %d rows", c.budget, len(res.PerK))
		}
		row := res.PerK[c.k-1]
		if row.K != c.k || row.BitsPerElement != c.m || !atPrecision(row.TransmitPerElement, c.z) || !atPrecision(row.FalsePositive, c.f) {
			t.Errorf("budget %g, k = %d: m/n %g z/n %.5g f %.4g; want %g %s %s", c.budget, c.k, row.BitsPerElement, row.TransmitPerElement, row.FalsePositive, c.m, c.z, c.f)
		}
		// One more bit per element does not fit.
		if z, _ := params.TransmitFor(c.m+1, c.k); z <= c.budget {
			t.Errorf("budget %g, k = %d: m/n = %g also fits (%g)", c.budget, c.k, c.m+1, z)
		}
	}
	// With the paper's caps, k = 1 takes 92 and k = 3 takes 48.
	q := params.TransmitQuery{N: 10_000, BitsPerElement: 8}
	q.WholeBitsPerElement, q.MaxBitsPerElement = true, 92
	if row := mustTransmit(t, q).PerK[0]; row.BitsPerElement != 92 {
		t.Errorf("cap 92: k = 1 row %+v", row)
	}
	q.BitsPerElement, q.MaxBitsPerElement = 16, 48
	if row := mustTransmit(t, q).PerK[2]; row.BitsPerElement != 48 || !atPrecision(row.TransmitPerElement, "15.829") {
		t.Errorf("cap 48: k = 3 row %+v", row)
	}
}

// TestOptimizeTransmitDense: the rate falls on both sides of p0 = 1/2
// (IdealCompressed). With the array capped at 28 bits per element and
// budget 16, many probes over a dense array (k = 49, m/n = 26, p0 = 0.152)
// edge out the paper's k = 4 at m/n = 28: 3.12e-4 against 3.14e-4.
func TestOptimizeTransmitDense(t *testing.T) {
	q := params.TransmitQuery{N: 10_000, BitsPerElement: 16}
	q.WholeBitsPerElement, q.MaxBitsPerElement = true, 28
	b := mustTransmit(t, q).Best
	if b.K != 49 || b.BitsPerElement != 26 || !atPrecision(b.FalsePositive, "3.12e-4") || !atPrecision(b.P0, "0.152") {
		t.Errorf("best %+v", b)
	}
}

// TestOptimizeTransmitBeatsStandard: compression helps at every budget once
// the array may grow, and the uncompressed optimum's k is a poor choice
// with compression.
func TestOptimizeTransmitBeatsStandard(t *testing.T) {
	for _, exact := range []bool{false, true} {
		for budget := 2.0; budget <= 24; budget++ {
			q := params.TransmitQuery{N: 5000, BitsPerElement: budget}
			q.Exact, q.Overhead = exact, 0.005
			res := mustTransmit(t, q)
			std := res.Uncompressed
			if std.Compressed || std.TransmitBits != float64(std.M) || std.TransmitBits > budget*5000 {
				t.Errorf("budget %g: uncompressed %+v", budget, std)
			}
			if want := params.OptimalK(std.M, 5000); exact && std.K != want || math.Abs(float64(std.K-want)) > 1 {
				t.Errorf("budget %g, exact %v: standard k %d, OptimalK %d", budget, exact, std.K, want)
			}
			if res.Best.FalsePositive >= std.FalsePositive {
				t.Errorf("budget %g: best %+v vs standard %+v", budget, res.Best, std)
			}
			// Also with fewer probes than the standard filter.
			q.MaxK = std.K
			if few := mustTransmit(t, q).Best; few.FalsePositive >= std.FalsePositive || (std.K > 1 && few.K >= std.K) {
				t.Errorf("budget %g, MaxK %d: best %+v vs standard %+v", budget, std.K, few, std)
			}
			if res.Best.TransmitBits > budget*5000 || !res.Best.Compressed {
				t.Errorf("budget %g: best %+v over budget or raw", budget, res.Best)
			}
		}
	}
}

// TestCompressedLimits checks the limits of section 3: f is worst at p0 =
// 1/2, where it is 0.6185^(z/n), and tends to 2^(−z/n) as p0 tends to 0 or
// 1, a transmission ln 2 times the standard filter's at equal rate.
func TestCompressedLimits(t *testing.T) {
	const z = 10.0
	m, k, f := params.IdealCompressed(z, 0.5)
	if base := math.Pow(f, 1/z); m != z || relErr(k, math.Ln2*z) > 1e-12 || !atPrecision(base, "0.6185") || relErr(base, math.Exp(-math.Ln2*math.Ln2)) > 1e-12 {
		t.Errorf("IdealCompressed(%g, 0.5) = %g, %g, %g (base %g)", z, m, k, f, math.Pow(f, 1/z))
	}
	prev := 0.0
	for p0 := 0.01; p0 <= 0.5; p0 += 0.01 {
		_, _, f := params.IdealCompressed(z, p0)
		_, _, g := params.IdealCompressed(z, 1-p0)
		if relErr(f, g) > 1e-9 || f <= prev {
			t.Errorf("p0 = %g: f %g, mirror %g, previous %g", p0, f, g, prev)
		}
		prev = f
	}
	// The exponent log2(1/f)/(z/n) tends to 1, like 1 − 1/ln(1/ε).
	for _, c := range []struct{ p0, tol float64 }{{1 - 1e-9, 0.05}, {1e-300, 0.0015}} {
		_, _, f := params.IdealCompressed(z, c.p0)
		if e := -math.Log2(f) / z; e >= 1 || 1-e > c.tol {
			t.Errorf("p0 = %g: exponent %g", c.p0, e)
		}
	}
	if _, _, f := params.IdealCompressed(z, 1); f != math.Exp2(-z) {
		t.Errorf("limit at p0 = 1: %g", f)
	}
	// Savings at equal rate: the ratio of the exponents.
	_, _, worst := params.IdealCompressed(1, 0.5)
	_, _, best := params.IdealCompressed(1, 1e-300)
	if r := math.Log(worst) / math.Log(best); math.Abs(r-math.Ln2) > 0.002 {
		t.Errorf("transmission ratio at equal rate %g, want ln 2", r)
	}
	if m, _, _ := params.IdealCompressed(-1, 0.3); !math.IsNaN(m) {
		t.Error("negative budget accepted")
	}
	// The optimiser follows: with no cap it picks k = 1 and a huge array,
	// and its rate e·2^(−z/n) beats 0.6185^(z/n) more and more.
	prevExp := math.Ln2
	for _, budget := range []float64{8, 16, 24, 32} {
		res := mustTransmit(t, params.TransmitQuery{N: 1000, BitsPerElement: budget})
		b := res.Best
		if b.K != 1 || relErr(b.FalsePositive, math.E*math.Exp2(-budget)) > 0.1 {
			t.Errorf("budget %g: best %+v, want k = 1 and f near %g", budget, b, math.E*math.Exp2(-budget))
		}
		e := -math.Log2(b.FalsePositive) / budget
		if e <= prevExp || e >= 1 {
			t.Errorf("budget %g: exponent %g after %g", budget, e, prevExp)
		}
		prevExp = e
	}
}

// scanPerK is the brute-force answer to a TransmitQuery on small n: for
// each k, the largest m up to limit (in steps of unit) that fits.
func scanPerK(q params.TransmitQuery, z, deltaBound float64, limit, unit uint64, maxK int) map[int]uint64 {
	want := map[int]uint64{}
	n := float64(q.N)
	for k := 1; k <= maxK; k++ {
		for m := unit; m <= limit; m += unit {
			a := float64(k) * n / float64(m)
			if q.Exact {
				a = -float64(k) * n * math.Log1p(-1/float64(m))
			}
			p := math.Exp(-a)
			full := math.Min(float64(m), (1+q.Overhead)*float64(m)*params.Entropy(p))
			delta := 0.0
			if q.Churn > 0 {
				d := 2 * p * -math.Expm1(-q.Churn*a)
				delta = math.Min(float64(m), (1+q.Overhead)*float64(m)*params.Entropy(d))
			}
			if full <= z && delta <= deltaBound {
				want[k] = m
			}
		}
	}
	return want
}

// TestOptimizeTransmitScan compares the bisection with an exhaustive scan
// of every m, which would find any second feasible interval.
func TestOptimizeTransmitScan(t *testing.T) {
	for _, n := range []uint64{1, 7, 40} {
		for _, budget := range []float64{0.5, 1, 3, 8, 12.5} {
			for _, exact := range []bool{false, true} {
				for _, whole := range []bool{false, true} {
					for _, ov := range []float64{0, 0.005, 0.2} {
						for _, churn := range []float64{0, 0.05, 0.5} {
							q := params.TransmitQuery{N: n, BitsPerElement: budget}
							q.Exact, q.WholeBitsPerElement, q.Overhead, q.Churn, q.MaxK = exact, whole, ov, churn, 12
							q.MaxBits = 60 * n
							deltaBound := math.Inf(1)
							if churn > 0 {
								q.DeltaBitsPerElement = budget / 4
								deltaBound = q.DeltaBitsPerElement * float64(n)
							}
							unit := uint64(1)
							if whole {
								unit = n
							}
							want := scanPerK(q, budget*float64(n), deltaBound, q.MaxBits, unit, 12)
							res, err := params.OptimizeTransmit(q)
							if len(want) == 0 || budget*float64(n) < 1 {
								if !errors.Is(err, params.ErrInvalid) {
									t.Errorf("%+v: nothing fits but got %v, %+v", q, err, res.Best)
								}
								continue
							}
							if err != nil {
								t.Fatalf("%+v: %v", q, err)
							}
							got := map[int]uint64{}
							for _, s := range res.PerK {
								got[s.K] = s.M
								if s.TransmitBits > budget*float64(n) || s.DeltaBits > deltaBound {
									t.Errorf("%+v: row %+v over budget", q, s)
								}
								if s.FalsePositive < res.Best.FalsePositive {
									t.Errorf("%+v: row %+v beats best %+v", q, s, res.Best)
								}
							}
							if len(got) != len(want) {
								t.Errorf("%+v: rows for %d k, scan %d", q, len(got), len(want))
							}
							for k, m := range want {
								if got[k] != m {
									t.Errorf("%+v: k = %d: m %d, scan %d", q, k, got[k], m)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestSizeMonotone checks numerically what the source proves: for fixed k
// the full and the delta size rise with m, in both forms.
func TestSizeMonotone(t *testing.T) {
	const n = 50
	for k := 1; k <= 20; k++ {
		prevF, prevD := -1.0, -1.0
		for m := uint64(3); m <= 200_000; m += 1 + m/100 {
			full, _ := params.TransmitFor(float64(m)/n, k)
			d := params.DeltaBits(m, n, k, 0.02) / n
			if full <= prevF || d <= prevD {
				t.Fatalf("k = %d, m = %d: full %g after %g, delta %g after %g", k, m, full, prevF, d, prevD)
			}
			prevF, prevD = full, d
		}
	}
}

// sendBits is the transmitted size of m bits, k probes and n elements sent
// the cheaper way, computed directly.
func sendBits(m, n uint64, k int, exact bool, overhead float64) float64 {
	a := float64(k) * float64(n) / float64(m)
	if exact {
		a = -float64(k) * float64(n) * math.Log1p(-1/float64(m))
	}
	return math.Min(float64(m), (1+overhead)*float64(m)*params.Entropy(math.Exp(-a)))
}

// TestOptimizeTarget checks the dual against a scan and against the primal.
func TestOptimizeTarget(t *testing.T) {
	const n = 30
	for _, exact := range []bool{false, true} {
		for _, p := range []float64{0.2, 0.02, 1e-3} {
			q := params.TargetQuery{N: n, P: p}
			q.Exact, q.Overhead, q.MaxK, q.MaxBits = exact, 0.005, 10, 3000
			res, err := params.OptimizeTarget(q)
			if err != nil {
				t.Fatal(err)
			}
			rate := func(m uint64, k int) float64 {
				if exact {
					return params.ClassicExact(m, n, k)
				}
				return params.ApproxFalsePositive(m, n, k)
			}
			got := map[int]params.CompressedShape{}
			for _, s := range res.PerK {
				got[s.K] = s
			}
			minM := uint64(math.MaxUint64)
			bestZ := math.Inf(1)
			rows := 0
			for k := 1; k <= 10; k++ {
				for m := uint64(1); m <= 3000; m++ {
					if rate(m, k) <= p {
						rows++
						z := sendBits(m, n, k, exact, 0.005)
						if s := got[k]; s.M != m || relErr(s.TransmitBits, z) > 1e-12 || s.FalsePositive > p {
							t.Errorf("exact %v p %g k %d: %+v, scan m %d z %g", exact, p, k, s, m, z)
						}
						minM = min(minM, m)
						bestZ = min(bestZ, z)
						break
					}
				}
			}
			if rows != len(res.PerK) {
				t.Errorf("exact %v p %g: %d rows, scan %d", exact, p, len(res.PerK), rows)
			}
			u := res.Uncompressed
			if u.M != minM || u.Compressed || u.TransmitBits != float64(u.M) || u.FalsePositive > p {
				t.Errorf("p %g: uncompressed %+v, scan m %d", p, u, minM)
			}
			if res.Best.FalsePositive > p || res.Best.TransmitBits >= float64(u.M) || relErr(res.Best.TransmitBits, bestZ) > 1e-12 {
				t.Errorf("p %g: best %+v vs standard %d bits, scan %g", p, res.Best, u.M, bestZ)
			}
			// Primal: the best's own transmission buys at least its rate.
			pq := params.TransmitQuery{N: n, TotalBits: uint64(math.Ceil(res.Best.TransmitBits))}
			pq.TransmitOptions = q.TransmitOptions
			if back := mustTransmit(t, pq); back.Best.FalsePositive > res.Best.FalsePositive {
				t.Errorf("p %g: %g bits buy only %g", p, math.Ceil(res.Best.TransmitBits), back.Best.FalsePositive)
			}
		}
	}
}

// TestOptimizeTargetPaper keeps the standard 8-bit filter's rate, 0.0216,
// and lets the array grow to 16 bits per element (the paper's Tables 4
// and 5 ask the same question): fewer hash functions send fewer bits.
func TestOptimizeTargetPaper(t *testing.T) {
	q := params.TargetQuery{N: 1000, P: 0.0216}
	q.WholeBitsPerElement, q.MaxBitsPerElement, q.MaxK = true, 16, 6
	res, err := params.OptimizeTarget(q)
	if err != nil {
		t.Fatal(err)
	}
	u, b := res.Uncompressed, res.Best
	if u.BitsPerElement != 8 || u.K != 6 || u.TransmitPerElement != 8 {
		t.Errorf("standard %+v", u)
	}
	// k = 2 reaches 0.0216 at m/n = 13 (rate 0.0203), sent in 7.683 bits.
	if b.K != 2 || b.BitsPerElement != 13 || !atPrecision(b.TransmitPerElement, "7.683") || !atPrecision(b.FalsePositive, "0.0203") {
		t.Errorf("best %+v", b)
	}
	// Without the limit on k, the dense side wins: 37 probes over the full
	// 16 bits per element (p0 = 0.099) send 7.454 bits per element.
	q.MaxK = 0
	res, err = params.OptimizeTarget(q)
	if b := res.Best; err != nil || b.K != 37 || b.BitsPerElement != 16 || !atPrecision(b.TransmitPerElement, "7.454") {
		t.Errorf("best %+v, %v", b, err)
	}
}

func TestDeltaBits(t *testing.T) {
	const n = 100_000
	m := uint64(8 * n)
	full, _ := params.TransmitFor(8, 6)
	d := params.DeltaBits(m, n, 6, 0.01) / n
	// q = 2·e^(−0.75)·(1 − e^(−0.0075)) ≈ 0.00706, H(q) ≈ 0.0607.
	if !atPrecision(d, "0.485") || d > full/10 {
		t.Errorf("delta at c = 0.01: %g bits per element, full %g", d, full)
	}
	for _, k := range []int{1, 2, 6} {
		for _, bpe := range []uint64{4, 8, 14, 92} {
			m := bpe * n
			prev := 0.0
			for c := 0.001; c <= 1; c *= 1.5 {
				d := params.DeltaBits(m, n, k, c)
				if d <= prev || d > float64(m) {
					t.Errorf("m/n %d k %d c %g: delta %g after %g", bpe, k, c, d, prev)
				}
				prev = d
				// Full churn costs at most H(1/2) per bit; no delta beats
				// the information in the changes, about 2·c·n·k bits
				// changed of m, for small c.
				if c < 0.01 {
					a := float64(k) / float64(bpe)
					q := 2 * math.Exp(-a) * -math.Expm1(-c*a)
					if relErr(d, float64(m)*params.Entropy(q)) > 1e-12 {
						t.Errorf("delta %g, formula %g", d, float64(m)*params.Entropy(q))
					}
				}
			}
			// MaxChurn inverts DeltaBits.
			for _, frac := range []float64{0.001, 0.05, 0.3} {
				budget := frac * float64(m)
				c := params.MaxChurn(m, n, k, budget)
				if c == 1 {
					if params.DeltaBits(m, n, k, 1) > budget {
						t.Errorf("MaxChurn = 1 but full churn costs %g > %g", params.DeltaBits(m, n, k, 1), budget)
					}
					continue
				}
				if params.DeltaBits(m, n, k, c) > budget || params.DeltaBits(m, n, k, math.Nextafter(c, 2)) <= budget {
					t.Errorf("m/n %d k %d budget %g: MaxChurn %g not the boundary", bpe, k, budget, c)
				}
			}
		}
	}
	for _, c := range []struct {
		m, n uint64
		k    int
		c    float64
	}{{0, 5, 1, 0.1}, {5, 0, 1, 0.1}, {5, 5, 0, 0.1}, {5, 5, 1, 0}, {5, 5, 1, -1}} {
		if d := params.DeltaBits(c.m, c.n, c.k, c.c); d != 0 {
			t.Errorf("DeltaBits%+v = %g", c, d)
		}
	}
	if params.DeltaBits(800, 100, 6, 7) != params.DeltaBits(800, 100, 6, 1) {
		t.Error("c is not clamped to 1")
	}
	if !math.IsNaN(params.DeltaBits(8, 1, 1, math.NaN())) || !math.IsNaN(params.MaxChurn(8, 1, 1, math.NaN())) {
		t.Error("NaN not propagated")
	}
	if params.MaxChurn(800, 100, 6, 0) != 0 || params.MaxChurn(800, 100, 6, 1e9) != 1 {
		t.Error("MaxChurn edge cases")
	}
}

// TestOptimizeTransmitDelta: a delta bound shrinks the array, and each
// reported delta matches DeltaBits with the overhead.
func TestOptimizeTransmitDelta(t *testing.T) {
	const n = 10_000
	q := params.TransmitQuery{N: n, BitsPerElement: 8}
	q.WholeBitsPerElement, q.MaxBitsPerElement, q.Churn, q.Overhead = true, 92, 0.01, 0.005
	free := mustTransmit(t, q)
	for _, s := range free.PerK {
		want := math.Min(float64(s.M), 1.005*params.DeltaBits(s.M, n, s.K, 0.01))
		if relErr(s.DeltaBits, want) > 1e-12 {
			t.Errorf("k = %d: delta %g, want %g", s.K, s.DeltaBits, want)
		}
	}
	// Bound the delta at 0.2 bits per element: k = 1 at 92 bits per element
	// needs 0.27 (its delta bits are sparse, but there are many of them).
	q.DeltaBitsPerElement = 0.2
	bound := mustTransmit(t, q)
	if bound.Best.DeltaBits > 0.2*n || bound.Best.FalsePositive <= free.Best.FalsePositive {
		t.Errorf("bounded best %+v, free best %+v", bound.Best, free.Best)
	}
	for i, s := range bound.PerK {
		if s.M > free.PerK[i].M || s.DeltaBits > 0.2*n {
			t.Errorf("k = %d: bounded %+v, free %+v", s.K, s, free.PerK[i])
		}
	}
	if free.Best.DeltaBits <= 0.2*n {
		t.Errorf("free best's delta %g fits the bound: test is vacuous", free.Best.DeltaBits)
	}
}

func TestOptimizeErrors(t *testing.T) {
	base := func() params.TransmitQuery { return params.TransmitQuery{N: 100, BitsPerElement: 8} }
	bad := []params.TransmitQuery{
		{N: 0, BitsPerElement: 8},
		{N: 100},
		{N: 100, BitsPerElement: 8, TotalBits: 800},
		{N: 100, BitsPerElement: -1},
		{N: 100, BitsPerElement: math.NaN()},
		{N: 100, BitsPerElement: math.Inf(1)},
		{N: 100, BitsPerElement: 1e-9}, // below one bit
	}
	for _, edit := range []func(*params.TransmitQuery){
		func(q *params.TransmitQuery) { q.MaxK = -1 },
		func(q *params.TransmitQuery) { q.MaxK = params.MaxK + 1 },
		func(q *params.TransmitQuery) { q.Overhead = -0.1 },
		func(q *params.TransmitQuery) { q.Overhead = math.NaN() },
		func(q *params.TransmitQuery) { q.MaxBitsPerElement = math.Inf(1) },
		func(q *params.TransmitQuery) { q.MaxBitsPerElement = 0.5; q.WholeBitsPerElement = true },
		func(q *params.TransmitQuery) { q.MaxBits = 50; q.WholeBitsPerElement = true },
		func(q *params.TransmitQuery) { q.Churn = 1.5 },
		func(q *params.TransmitQuery) { q.Churn = math.NaN() },
		func(q *params.TransmitQuery) { q.DeltaBitsPerElement = 1 },
		func(q *params.TransmitQuery) { q.Churn, q.DeltaBitsPerElement, q.DeltaTotalBits = 0.1, 1, 100 },
		func(q *params.TransmitQuery) { q.Churn, q.DeltaBitsPerElement = 0.1, -1 },
	} {
		q := base()
		edit(&q)
		bad = append(bad, q)
	}
	for _, q := range bad {
		_, err := params.OptimizeTransmit(q)
		if !errors.Is(err, params.ErrInvalid) || !strings.HasPrefix(err.Error(), "params: ") {
			t.Errorf("OptimizeTransmit(%+v) = %v", q, err)
		}
	}
	for _, q := range []params.TargetQuery{
		{N: 100, P: 0}, {N: 100, P: 1}, {N: 100, P: math.NaN()}, {N: 0, P: 0.01},
		{N: 100, P: 1e-6, TransmitOptions: params.TransmitOptions{MaxBitsPerElement: 4}},
		{N: 100, P: 1e-2, TransmitOptions: params.TransmitOptions{Churn: 0.1, DeltaTotalBits: 1}},
	} {
		_, err := params.OptimizeTarget(q)
		if !errors.Is(err, params.ErrInvalid) || !strings.HasPrefix(err.Error(), "params: ") {
			t.Errorf("OptimizeTarget(%+v) = %v", q, err)
		}
	}
	// A cap below one bit per element is fine without WholeBitsPerElement.
	q := base()
	q.MaxBitsPerElement = 0.5
	if res, err := params.OptimizeTransmit(q); err != nil || res.Best.M != 50 {
		t.Errorf("cap of 50 bits: %+v, %v", res.Best, err)
	}
}

// TestCompressedShapeLarge: huge n and budgets stay finite and consistent.
func TestCompressedShapeLarge(t *testing.T) {
	q := params.TransmitQuery{N: 1 << 40, BitsPerElement: 40}
	res := mustTransmit(t, q)
	b := res.Best
	if b.M == 0 || b.M > 1<<62 || math.IsNaN(b.FalsePositive) || b.TransmitBits > 40*(1<<40) {
		t.Errorf("n = 2^40, 40 bits per element: %+v", b)
	}
	if s := b.Shape(); s.Layout != params.Classic || s.M != b.M || s.K != b.K || s.Validate() != nil {
		t.Errorf("Shape() = %v", s)
	}
	// The per-element answers do not depend on n in the approximate model.
	q1 := params.TransmitQuery{N: 1000, BitsPerElement: 12}
	q2 := params.TransmitQuery{N: 1 << 36, BitsPerElement: 12}
	q1.WholeBitsPerElement, q2.WholeBitsPerElement = true, true
	q1.MaxBitsPerElement, q2.MaxBitsPerElement = 64, 64
	r1, r2 := mustTransmit(t, q1), mustTransmit(t, q2)
	for i := range r1.PerK {
		if r1.PerK[i].BitsPerElement != r2.PerK[i].BitsPerElement || relErr(r1.PerK[i].FalsePositive, r2.PerK[i].FalsePositive) > 1e-12 {
			t.Errorf("k = %d: %+v vs %+v", i+1, r1.PerK[i], r2.PerK[i])
		}
	}
}
