package params

import (
	"math"
	"sync"
)

// BlockedFalsePositive returns the rate of a filter of m bits cut into
// blocks of b bits, each key probing k bits of one random block (the
// Blocked and Paged layouts). Following Putze, Sanders and Singler (2007),
// the number j of keys in the queried block is Poisson with mean
// λ = n·b/m; a query then finds its k bits set with probability
// E[(X_j/b)^k], X_j the number of distinct bits that the j·k probes of
// those keys set among b (Bose et al., "On the false-positive rate of
// Bloom filters", IPL 108(4), 2008):
//
//	f = Σ_j Pois(j; λ) · E[(X_j/b)^k].
//
// Putze et al. use the classic block term (1 − (1 − 1/b)^(k·j))^k instead,
// the k-th power of the expected fill. By Jensen's inequality that is low,
// by about k(k−1)/2 times the squared coefficient of variation of X_j,
// O(k²/b): measured against the exact rate, 0.8% for 512-bit blocks at 8
// bits per key (k = 6), 2.9% at 16 (k = 11), 2.5–19% for 64-bit blocks and
// 0.05–0.7% for 4096-bit pages between 6 and 20 bits per key, so filters
// sized with it measured that much above their target.
//
// The block term comes from one of two sources:
//
//   - For b ≤ 4096, a table of exact values, computed once per (b, k) by
//     tracking the distribution of X probe by probe over a window of some
//     30 standard deviations: 0.1 ms for 64-bit blocks, up to 1 ms for 512
//     bits, 0.1–2 ms for 4096 bits at k ≤ 20 and up to 12 ms at k = 64.
//     Tables live in a small cache shared by all callers, safe for
//     concurrent use and bounded to 256 (b, k) pairs. A table ends once the
//     series below has agreed with it to 1e−12 for several j in a row.
//   - Beyond the table, and for larger blocks, an expansion of E[(X/b)^k]
//     about the mean fill in the exact second, third and fourth central
//     moments of X, continued to higher orders through the cumulants they
//     give. It is exact for k ≤ 4; at 4160 bits and k = 64 it is within
//     1e−9 of the exact term for fills from 0.5 up, 4e−7 at fill 0.2 and
//     3e−5 at 0.05, at k = 20 within 1e−12, 1e−9 and 6e−8, and its error
//     falls about 16-fold each time b doubles.
//
// A second-order (delta-method) correction with the exact variance alone,
// μ^k·[1 + k(k−1)/2·Var(X/b)/μ²], would be cheaper to set up but is still
// 3e−4 low for 512-bit blocks at k = 11 and 4% for 64-bit blocks at
// k = 14, where the expansion itself converges slowly; hence the tables
// for small blocks, whose cost sizing pays once per k it tries.
//
// The Poisson block load remains an approximation: a filter of m/b blocks
// has Binomial(n, b/m) keys per block. The Binomial is smaller than the
// Poisson in the convex order, so the model errs high wherever the block
// term is convex in j over the bulk of the load distribution, which holds
// while the fill stays below 1 − 1/k, as it does for every k ≥ 2 near the
// optimum. The excess is O(1/blocks): up to 0.05% in the tests, for 4096
// blocks of 64 to 4096 bits or 1024 blocks of 512.
//
// The sum runs outwards from the mode and stops when the omitted terms are
// provably below 1e−16 of the total on each side. It returns 0 for n = 0
// and NaN when b = 0, m = 0 or k < 1. Once a table is cached a call costs
// about 1 µs for 512-bit blocks; the series costs some 15 µs per call for
// large pages, two to three times the classic block term's.
func BlockedFalsePositive(m, n, b uint64, k int) float64 {
	if n == 0 {
		return 0
	}
	if m == 0 || b == 0 || k < 1 {
		return math.NaN()
	}
	lambda := float64(n) * float64(b) / float64(m)
	bm := blockModelFor(b, k)
	if lambda > strideMinLambda && lambda-strideMargin*math.Sqrt(lambda) > float64(len(bm.table)) {
		return mixtureStride(lambda, bm)
	}
	return mixtureDirect(lambda, bm)
}

// mixtureTol bounds each omitted tail relative to the running sum; the two
// tails together stay below the 1e−15 the package promises.
const mixtureTol = 1e-16

// strideMinLambda is where mixtureStride takes over from mixtureDirect when
// the bulk of the Poisson weights, λ ± strideMargin·√λ, lies beyond the
// exact table, so that every term needs the series of occupancySeries and
// costs as much as a stride term: 16√λ terms against some 50. At λ = 64
// the Gamma extension of the Poisson weights still integrates to 1 within
// e^(−64) ≈ 1e−28.
const strideMinLambda = 64

// strideMargin is how many standard deviations below λ the exact table
// must end for the stride rule, which evaluates the series at every point,
// to be used: the Poisson mass below λ − 12√λ is under e^(−72).
const strideMargin = 12

// resyncEvery is how many recurrence steps mixtureDirect takes before it
// recomputes a Poisson weight from scratch, capping accumulated rounding.
const resyncEvery = 32

// tailDone reports whether the terms after t can be dropped. The terms are
// log-concave in j (the Poisson weights are, and so is the block term,
// which the tests check), so the ratio of successive terms only shrinks
// moving away from the peak: once ρ = t/prev < 1, the rest is at most
// t·ρ/(1 − ρ) = t²/(prev − t).
func tailDone(t, prev, total float64) bool {
	if t != t { // NaN: give up rather than loop
		return true
	}
	return t < prev && t*t <= mixtureTol*total*(prev-t)
}

// mixtureDirect sums Pois(j; λ)·r_j over every integer j, outwards from the
// Poisson mode, the weights by recurrence.
func mixtureDirect(lambda float64, bm *blockModel) float64 {
	mode := math.Floor(lambda)
	j0 := int(mode)
	pMode := poissonPMF(mode, lambda)
	peak := pMode * bm.rate(j0)
	sum := peak
	p, prev := pMode, peak
	for j := j0 + 1; ; j++ {
		if (j-j0)%resyncEvery == 0 {
			p = poissonPMF(float64(j), lambda)
		} else {
			p *= lambda / float64(j)
		}
		t := p * bm.rate(j)
		sum += t
		if tailDone(t, prev, sum) || p == 0 {
			break
		}
		prev = t
	}
	p, prev = pMode, peak
	for j := j0 - 1; j >= 1; j-- { // r_0 = 0
		if (j0-j)%resyncEvery == 0 {
			p = poissonPMF(float64(j), lambda)
		} else {
			p *= float64(j+1) / lambda
		}
		t := p * bm.rate(j)
		sum += t
		// Below the mode both factors fall, so a zero term ends the tail.
		if tailDone(t, prev, sum) || t == 0 {
			break
		}
		prev = t
	}
	return sum
}

// mixtureStride evaluates the mixture for large λ as h·Σ_i F(λ + i·h),
// where F is the summand extended to real j, through the Gamma function
// for the Poisson weight and through occupancySeries for the block term,
// and h = √λ/3. F is analytic and close to a Gaussian of width σ = √λ, and
// the trapezoidal rule converges geometrically for such functions
// (Trefethen and Weideman, "The exponentially convergent trapezoidal
// rule", SIAM Review 56(3), 2014): by the Poisson summation formula, both
// the integer sum and the stride sum equal ∫F up to about
// exp(−2π²σ²/h²) = exp(−18π²) ≈ 1e−77 relative. (The Gamma extension of
// the Poisson weights integrates to 1 within about e^(−λ).) That keeps the
// cost near 50 terms for any λ, where summing every j would take about
// 16√λ.
func mixtureStride(lambda float64, bm *blockModel) float64 {
	h := math.Sqrt(lambda) / 3
	s := &bm.s
	kf := float64(bm.k)
	f := func(j float64) float64 {
		z := j * kf * s.c // ln u, u the chance that a bit is still 0
		u, mu := math.Exp(z), -math.Expm1(z)
		lnMu := math.Log(mu) // as log1mExp(z), from u and μ at hand
		if z <= -math.Ln2 {
			lnMu = math.Log1p(-u)
		}
		return math.Exp(poissonLogPMF(j, lambda)+kf*lnMu) * s.factor(j*kf, u, mu)
	}
	peak := f(lambda)
	sum := peak
	for _, step := range [2]float64{h, -h} {
		prev := peak
		for j := lambda + step; j > 0; j += step {
			t := f(j)
			sum += t
			if tailDone(t, prev, sum) || t == 0 {
				break
			}
			prev = t
		}
	}
	return h * sum
}

// exactMaxBits is the largest block for which blockModel tabulates the
// block term exactly. Up to it a table costs at most a few milliseconds,
// once per (b, k), and covers the small blocks where the series converges
// too slowly; above it the series alone is accurate (see
// BlockedFalsePositive) and a table would cost O(b^1.5) per k.
const exactMaxBits = 4096

// blockModel holds the block term r_j = E[(X_j/b)^k] of one block size and
// k, X_j the number of distinct bits set by j·k uniform probes into b bits.
type blockModel struct {
	k int
	// table[j] is r_j, exact, for j < len(table). It runs until the series
	// has agreed with it to 1e−12 for a while, and is empty above
	// exactMaxBits.
	table []float64
	// s gives r_j for larger j, and for real j in mixtureStride.
	s occupancySeries
}

// rate returns r_j.
func (bm *blockModel) rate(j int) float64 {
	if j < len(bm.table) {
		return bm.table[j]
	}
	r := bm.s.rate(float64(j) * float64(bm.k))
	if n := len(bm.table); n > 0 {
		r = max(r, bm.table[n-1]) // r_j rises with j; keep it so across the seam
	}
	return r
}

func newBlockModel(b uint64, k int) *blockModel {
	bm := &blockModel{k: k, s: newOccupancySeries(float64(b), k)}
	if b <= exactMaxBits {
		bm.table = exactRates(int(b), k, &bm.s)
	}
	return bm
}

// modelCacheSize bounds the number of (b, k) pairs whose blockModel is
// kept. A table holds at most maxTableLen values (32 KiB), in practice
// under 800, so the cache stays within a few megabytes. Sizing
// touches a handful of k for one or two block sizes; every k for three
// block sizes still fits.
const modelCacheSize = 256

type modelKey struct {
	b uint64
	k int
}

// modelEntry lets concurrent callers wait for one computation of a model.
type modelEntry struct {
	once sync.Once
	bm   *blockModel
}

var modelCache struct {
	sync.Mutex
	m map[modelKey]*modelEntry
}

// blockModelFor returns the blockModel of (b, k), computing it at most once
// while it stays in the cache. When the cache is full an arbitrary entry
// is dropped (Go randomises map iteration); callers holding it keep a
// valid model.
func blockModelFor(b uint64, k int) *blockModel {
	key := modelKey{b, k}
	modelCache.Lock()
	e := modelCache.m[key]
	if e == nil {
		if modelCache.m == nil {
			modelCache.m = make(map[modelKey]*modelEntry)
		}
		if len(modelCache.m) >= modelCacheSize {
			for old := range modelCache.m {
				delete(modelCache.m, old)
				break
			}
		}
		e = new(modelEntry)
		modelCache.m[key] = e
	}
	modelCache.Unlock()
	e.once.Do(func() { e.bm = newBlockModel(b, k) })
	return e.bm
}

// Limits and tolerances of exactRates.
const (
	// trimLow and trimHigh are the probabilities below which the lower and
	// upper tails of the distribution of X are dropped. The lower tail
	// weighs less in E[X^k] than the bulk; the upper tail can weigh up to
	// (1 + 17σ/E[X])^k times more, at most about 1e41 (b = 64, k = 64), so
	// it is cut much further out.
	trimLow  = 1e-30
	trimHigh = 1e-60
	// The table ends once the series has agreed with it to agreeTol for
	// agreeRun keys in a row, or after maxTableLen keys or maxFillProbes·b
	// probes, when a bit is still 0 with probability e^(−maxFillProbes).
	agreeTol      = 1e-12
	agreeRun      = 8
	maxTableLen   = 1 << 12
	maxFillProbes = 64
)

// exactRates tabulates r_j = E[(X_j/b)^k] for j = 0, 1, … by tracking the
// distribution of X probe by probe: a probe leaves X = x unchanged with
// probability x/b and raises it by one otherwise. Only the window of
// values of X with probability above trimLow (trimHigh above the bulk) is
// kept, some 30 standard deviations of X wide, so a probe costs O(√b).
// The table stops where occupancySeries has caught up (agreeTol).
func exactRates(b, k int, s *occupancySeries) []float64 {
	bf := float64(b)
	stay := make([]float64, b+1)  // x/b: the probe hits one of the x set bits
	enter := make([]float64, b+1) // (b − x + 1)/b: from x − 1 set bits to x
	pw := make([]float64, b+1)    // (x/b)^k
	for x := range stay {
		stay[x] = float64(x) / bf
		enter[x] = float64(b-x+1) / bf
		pw[x] = powi(stay[x], k)
	}
	dist := make([]float64, b+1)
	dist[0] = 1
	lo, hi := 0, 0 // dist is 0 outside [lo, hi]
	r := make([]float64, 1, 64)
	for j, run := 1, 0; j < maxTableLen && (j-1)*k < maxFillProbes*b; j++ {
		for range k {
			if lo == b {
				break // every bit set: further probes change nothing
			}
			if hi < b {
				hi++
			}
			for x := hi; x > lo; x-- {
				dist[x] = dist[x]*stay[x] + dist[x-1]*enter[x]
			}
			dist[lo] *= stay[lo]
			for lo < hi && dist[lo] < trimLow {
				dist[lo] = 0
				lo++
			}
			for hi > lo && dist[hi] < trimHigh {
				dist[hi] = 0
				hi--
			}
		}
		sum := 0.0
		for x := lo; x <= hi; x++ {
			sum += dist[x] * pw[x]
		}
		r = append(r, sum)
		if math.Abs(s.rate(float64(j*k))-sum) <= agreeTol*sum {
			if run++; run == agreeRun {
				break
			}
		} else {
			run = 0
		}
	}
	return r
}

// Orders of the polynomials in occupancySeries.
const (
	diffDegree = 24 // degree in a of ℓ_a = ln[(1 − a/b)/(1 − 1/b)^a]
	diffTerms  = 12 // terms of the power series in t of Δ³e and Δ⁴e
	// maxSeriesOrder bounds the order of the moments summed in factor.
	maxSeriesOrder = 48
)

// occupancySeries evaluates E[(X/b)^k], X the number of distinct bits set
// by t uniform probes into b bits, by its binomial expansion about
// μ = E[X]/b in the central moments of V = X/(b·μ) − 1:
//
//	E[(X/b)^k] = μ^k·Σ_r C(k, r)·E[V^r].
//
// The second to fourth moments are exact. Z = b − X, the number of bits
// still 0, is a sum of indicators with P(a given bits all 0) =
// (1 − a/b)^t = u^a·(1 + e_a), where u = (1 − 1/b)^t and
// e_a = (1 − a/b)^t/u^a − 1 measures how far the bits are from independent
// (e_0 = e_1 = 0). Expanding (Z − b·u)^r over the patterns of equal bits
// among r, each central moment is a binomial one plus finite differences
// of e_a, for example
//
//	Var Z = b·u·(1 − u) + b(b − 1)·u²·e_2,
//
// which is b(b−1)(1−2/b)^t + b(1−1/b)^t − b²(1−1/b)^(2t) without its
// cancellation. Δ³e and Δ⁴e cancel too, as e_a is nearly quadratic in a,
// so while t·|ℓ_4| is small they come from the power series of e_a in t,
// whose coefficients Δ^r[ℓ^q] are exact through Stirling numbers; beyond,
// directly. So the expansion is exact for k ≤ 4. Higher moments are those
// of the first four cumulants (κ_r = 0 for r ≥ 5), which are O(b^(1−r))
// as X is a sum of b weakly dependent indicators: the error of the fifth
// and later terms is O(k⁵/b⁴), and the sum stops when its terms vanish.
type occupancySeries struct {
	k             int
	b             float64
	c             float64 // ln(1 − 1/b): u = e^(c·t)
	ck2, ck3, ck4 float64 // C(k, r)
	ff2, ff3, ff4 float64 // (b)_r/b^r, falling factorials
	l2, l3, l4    float64 // ℓ_a = ln[(1 − a/b)/(1 − 1/b)^a]: e_a = e^(t·ℓ_a) − 1
	// Below smallT, Δ³e = Σ_q d3[q−1]·t^q with d3[q−1] = Δ³[ℓ^q]/q!, and
	// likewise Δ⁴e; smallT = 0 disables it.
	smallT float64
	d3, d4 [diffTerms]float64
}

func newOccupancySeries(b float64, k int) occupancySeries {
	s := occupancySeries{k: k, b: b, c: math.Log1p(-1 / b)}
	kf := float64(k)
	s.ck2 = kf * (kf - 1) / 2
	s.ck3 = s.ck2 * (kf - 2) / 3
	s.ck4 = s.ck3 * (kf - 3) / 4
	s.ff2 = 1 - 1/b
	s.ff3 = s.ff2 * (1 - 2/b)
	s.ff4 = s.ff3 * (1 - 3/b)
	s.l2, s.l3, s.l4 = logExcess(2, b), logExcess(3, b), logExcess(4, b)
	if b < 64 {
		return s // ℓ_a as a polynomial in a would converge too slowly
	}
	// While t·|ℓ_4| ≤ 0.05 the series in t converges to well below the
	// size of Δ⁴e after diffTerms terms.
	s.smallT = 0.05 / -s.l4
	// ℓ_a = Σ_{n≥2} (a − a^n)/(n·b^n): coefficients f[p] of a^p.
	var f [diffDegree + 1]float64
	bn := 1 / b
	for n := 2; n <= diffDegree; n++ {
		bn /= b
		f[n] = -bn / float64(n)
		f[1] += bn / float64(n)
	}
	// Δ^r[a^p] at a = 0 is Σ_i (−1)^(r−i)·C(r, i)·i^p (r!·S(p, r)), exact
	// in float64 for p ≤ 24.
	var diff3, diff4 [diffDegree + 1]float64
	for p := range diff3 {
		p2, p3, p4 := math.Pow(2, float64(p)), math.Pow(3, float64(p)), math.Pow(4, float64(p))
		diff3[p] = p3 - 3*p2 + 3
		diff4[p] = p4 - 4*p3 + 6*p2 - 4
		if p == 0 {
			diff3[p], diff4[p] = 0, 0 // Δ^r of a constant
		}
	}
	g := f // ℓ^q
	fact := 1.0
	for q := 1; q <= diffTerms; q++ {
		fact *= float64(q)
		var d3, d4 float64
		for p := diffDegree; p >= 1; p-- {
			d3 += g[p] * diff3[p]
			d4 += g[p] * diff4[p]
		}
		s.d3[q-1], s.d4[q-1] = d3/fact, d4/fact
		var next [diffDegree + 1]float64
		for i := 1; i <= diffDegree; i++ {
			for p := 1; i+p <= diffDegree; p++ {
				next[i+p] += g[i] * f[p]
			}
		}
		g = next
	}
	return s
}

// logExcess returns ℓ_a = ln[(1 − a/b)/(1 − 1/b)^a] ≤ 0, or −∞ when a ≥ b.
// 1 − (1 − a/b)/(1 − 1/b)^a = Σ_{i=2}^{a} C(a, i)·(−1/b)^i/(1 − 1/b)^a,
// which has no cancellation for b ≫ a.
func logExcess(a int, b float64) float64 {
	if float64(a) >= b {
		return math.Inf(-1)
	}
	num, binom, pw := 0.0, 1.0, 1.0
	for i := 1; i <= a; i++ {
		binom = binom * float64(a-i+1) / float64(i)
		pw *= -1 / b
		if i >= 2 {
			num += binom * pw
		}
	}
	return math.Log1p(-num / math.Exp(float64(a)*math.Log1p(-1/b)))
}

// diffs returns e_2 = Δ²e, Δ³e and Δ⁴e at 0 for t probes.
func (s *occupancySeries) diffs(t float64) (e2, d3, d4 float64) {
	e2 = math.Expm1(t * s.l2)
	if t <= s.smallT {
		for q := diffTerms - 1; q >= 0; q-- {
			d3 = d3*t + s.d3[q]
			d4 = d4*t + s.d4[q]
		}
		return e2, d3 * t, d4 * t
	}
	e3 := math.Expm1(t * s.l3)
	return e2, e3 - 3*e2, math.Expm1(t*s.l4) - 4*e3 + 6*e2
}

// rate returns E[(X/b)^k] for t probes.
func (s *occupancySeries) rate(t float64) float64 {
	if t <= 0 {
		return 0 // no bit set
	}
	z := t * s.c
	mu := -math.Expm1(z)
	return powi(mu, s.k) * s.factor(t, math.Exp(z), mu)
}

// factor returns E[(X/b)^k]/μ^k for t probes, given u = (1 − 1/b)^t and
// μ = 1 − u. It is at least 1 by Jensen's inequality, and clamped so.
func (s *occupancySeries) factor(t, u, mu float64) float64 {
	if s.k < 2 {
		return 1
	}
	e2, d3, d4 := s.diffs(t)
	b := s.b
	x := u / mu
	w := mu - u // 1 − 2u
	// E[V^r] = (−1)^r·E[(Z − b·u)^r]/(b·μ)^r, r = 2, 3, 4, summed over the
	// patterns of equal bits: {2}, {1,1}; {3}, {2,1}, {1,1,1}; {4}, {3,1},
	// {2,2}, {2,1,1}, {1,1,1,1}.
	x2 := x * x
	m2 := x/b + s.ff2*x2*e2
	if s.k == 2 {
		return max(1+m2, 1)
	}
	m3 := -(x*w/(b*b*mu) + 3*s.ff2*x2*w*e2/(b*mu) + s.ff3*x2*x*d3)
	cube := mu*mu*mu + u*u*u
	bmu := b * mu
	m4 := x*cube/(b*bmu*bmu) + 4*s.ff2*x2*cube*e2/(bmu*bmu) +
		3*s.ff2*(x2/(b*b)+x2*w*w*e2/(bmu*bmu)) +
		6*s.ff3*x2*x*(mu*e2+w*d3)/bmu + s.ff4*x2*x2*d4
	// Beyond the fourth, the moments of V = X/(bμ) − 1 are those of its
	// first four cumulants: m_n = Σ_i C(n−1, i−1)·κ_i·m_(n−i), i = 2, 3, 4.
	k2, k3, k4 := m2, m3, m4-3*m2*m2
	kf := float64(s.k)
	sum := 1 + s.ck2*m2 + s.ck3*m3 + s.ck4*m4
	ms := [4]float64{m4, m3, m2, 0} // m_(n−1), m_(n−2), m_(n−3), m_(n−4)
	ck, prev := s.ck4, s.ck4*m4
	for n := 5; n <= s.k && n <= maxSeriesOrder; n++ {
		nf := float64(n)
		mn := (nf-1)*k2*ms[1] + (nf-1)*(nf-2)/2*k3*ms[2] + (nf-1)*(nf-2)*(nf-3)/6*k4*ms[3]
		ck *= (kf - nf + 1) / nf
		term := ck * mn
		sum += term
		if math.Abs(term)+math.Abs(prev) <= 1e-17*sum {
			break
		}
		ms = [4]float64{mn, ms[0], ms[1], ms[2]}
		prev = term
	}
	return max(sum, 1)
}

// powi returns x^k by repeated squaring: about 2·log2(k) multiplications,
// accurate to a few ulps, much cheaper than math.Pow in the inner loop.
func powi(x float64, k int) float64 {
	r := 1.0
	for ; k > 0; k >>= 1 {
		if k&1 == 1 {
			r *= x
		}
		x *= x
	}
	return r
}

// poissonPMF returns λ^j·e^(−λ)/Γ(j+1).
func poissonPMF(j, lambda float64) float64 {
	return math.Exp(poissonLogPMF(j, lambda))
}

// poissonLogPMF returns ln(λ^j·e^(−λ)/Γ(j+1)) for real j ≥ 0 in the
// saddle-point form of Loader ("Fast and accurate computation of binomial
// probabilities", 2000): −bd0(j, λ) − stirlerr(j) − ½·ln(2πj). The naive
// j·ln λ − λ − lgamma(j+1) subtracts numbers of size λ·ln λ and would lose
// about 1e−11 relative accuracy at λ = 10⁴.
func poissonLogPMF(j, lambda float64) float64 {
	if j == 0 {
		return -lambda
	}
	return -bd0(j, lambda) - stirlerr(j) - 0.5*math.Log(2*math.Pi*j)
}

// bd0 returns j·ln(j/λ) + λ − j ≥ 0, the deviance term. Near j = λ it uses
// the series (j−λ)·v + 2j·Σ_{i≥1} v^(2i+1)/(2i+1) with v = (j−λ)/(j+λ),
// which follows from ln(j/λ) = 2·artanh(v) and has no cancellation.
func bd0(j, lambda float64) float64 {
	if math.Abs(j-lambda) >= 0.1*(j+lambda) {
		return j*math.Log(j/lambda) + lambda - j
	}
	v := (j - lambda) / (j + lambda)
	s := (j - lambda) * v
	e := 2 * j * v
	v2 := v * v
	for i := 3.0; ; i += 2 {
		e *= v2
		next := s + e/i
		if next == s {
			return s
		}
		s = next
	}
}

// stirlerr returns ln Γ(j+1) − [(j+½)·ln j − j + ½·ln 2π], the error of
// Stirling's formula. Above 15 the asymptotic series is accurate to about
// 1e−16 after five terms; below, the direct difference is small enough
// that its cancellation costs under 1e−14 absolute.
func stirlerr(j float64) float64 {
	if j > 15 {
		r := 1 / (j * j)
		return (1.0/12 - r*(1.0/360-r*(1.0/1260-r*(1.0/1680-r*(1.0/1188))))) / j
	}
	lg, _ := math.Lgamma(j + 1)
	return lg - (j+0.5)*math.Log(j) + j - 0.5*math.Log(2*math.Pi)
}
