package params

import "math"

// log1mExp returns ln(1 − e^z) for z ≤ 0 without cancellation: Expm1 when
// e^z is near 1, Log1p when it is near 0 (Mächler, "Accurately computing
// log(1 − exp(−|a|))", 2012, who shows ln 2 is the right switch point).
func log1mExp(z float64) float64 {
	if z > -math.Ln2 {
		return math.Log(-math.Expm1(z))
	}
	return math.Log1p(-math.Exp(z))
}

// powK returns (1 − e^z)^k for z ≤ 0, the chance that k probes all find a
// set bit when each bit is still 0 with probability e^z.
func powK(z float64, k int) float64 {
	return math.Exp(float64(k) * log1mExp(z))
}

// ApproxFalsePositive returns (1 − e^(−k·n/m))^k, the approximation of the
// classic rate used by Fan, Cao, Almeida and Broder (2000) for their Tables
// 3–5; it is within a factor 1 + O(k²·n/m²) of [ClassicExact]. It returns 0
// for n = 0 and 1 for m = 0 or k < 1 (a filter that probes nothing accepts
// every key).
func ApproxFalsePositive(m, n uint64, k int) float64 {
	if n == 0 {
		return 0
	}
	if m == 0 || k < 1 {
		return 1
	}
	return powK(-float64(k)*float64(n)/float64(m), k)
}

// ClassicExact returns the classic rate (1 − (1 − 1/m)^(k·n))^k of Bloom
// (1970), as derived by Fan et al. (2000): each of the k·n probes misses a
// given bit with probability 1 − 1/m. It returns 0 for n = 0 and 1 for
// m = 0 or k < 1.
//
// "Exact" refers to keeping (1 − 1/m)^(k·n) rather than e^(−k·n/m). The
// formula still treats the k probed bits as independent, which Bose et al.
// ("On the false-positive rate of Bloom filters", IPL 108(4), 2008) show
// understates the true rate by a relative O(k²/m): nothing for a whole
// filter, but visible for the small blocks of [BlockedFalsePositive].
func ClassicExact(m, n uint64, k int) float64 {
	if n == 0 {
		return 0
	}
	if m == 0 || k < 1 {
		return 1
	}
	return powK(float64(k)*float64(n)*math.Log1p(-1/float64(m)), k)
}

// PartitionedExact returns the rate (1 − (1 − 1/s)^n)^k of a filter split
// into k slices of s = m/k bits with one probe per slice (Kirsch–Mitzenmacher
// 2006). Each slice sees n probes instead of k·n over k times the space, so
// it is slightly worse than [ClassicExact]. It returns 0 for n = 0 and 1
// for m < k or k < 1.
func PartitionedExact(m, n uint64, k int) float64 {
	if n == 0 {
		return 0
	}
	if k < 1 || m < uint64(k) {
		return 1
	}
	s := float64(m) / float64(k)
	return powK(float64(n)*math.Log1p(-1/s), k)
}

// OptimalK returns the integer k in [1, MaxK] that minimises
// [ClassicExact](m, n, k). Writing that rate as (1 − e^(−k·a))^k with
// a = −n·ln(1 − 1/m) ≈ n/m, its real minimum is at k = ln2/a ≈ ln2·m/n
// (Fan et al. 2000) and it is unimodal in k, so comparing the floor and
// the ceiling of ln2/a suffices. Ties go to the smaller k, which costs
// fewer probes. It returns 1 for m = 0 or n = 0.
func OptimalK(m, n uint64) int {
	if m == 0 || n == 0 {
		return 1
	}
	best := math.Ln2 / (-float64(n) * math.Log1p(-1/float64(m)))
	lo := clampK(math.Floor(best))
	hi := clampK(math.Ceil(best))
	if ClassicExact(m, n, hi) < ClassicExact(m, n, lo) {
		return hi
	}
	return lo
}

// clampK bounds an integral real k to [1, MaxK] and converts it.
func clampK(k float64) int {
	return int(math.Max(1, math.Min(MaxK, k)))
}

// MinimumBits returns n·log2(1/p), the information-theoretic minimum number
// of bits of any structure that answers membership for n keys with
// false-positive rate p (Carter, Floyd, Gill, Markowsky and Wegman, "Exact
// and approximate membership testers", STOC 1978). Bloom filters need about
// 1.44 times this ([ClassicBits]).
func MinimumBits(n uint64, p float64) float64 {
	return -float64(n) * math.Log2(p)
}

// ClassicBits returns −n·ln p/(ln 2)², the textbook size of a classic filter
// with the real optimum k = log2(1/p): from f = 0.6185^(m/n) (Fan et al.
// 2000). Use [Size] for an exact, integer answer.
func ClassicBits(n uint64, p float64) float64 {
	return -float64(n) * math.Log(p) / (math.Ln2 * math.Ln2)
}
