package params

import "math"

// EstimateCount estimates how many distinct keys a classic filter of m bits
// and k probes holds from the number x of its bits that are set:
// n ≈ −(m/k)·ln(1 − x/m) (Swamidass and Baldi 2007), the inverse of the
// expected fill 1 − e^(−k·n/m). ln(1 − x/m) is computed with Log1p, so the
// estimate stays accurate when x is a handful of bits in a huge filter.
//
// A full filter (x ≥ m) carries no upper bound on n; the estimate for
// x = m − 0.5 is returned instead, a finite lower bound. It returns 0 for
// x = 0, m = 0 or k < 1.
func EstimateCount(m, x uint64, k int) float64 {
	if x == 0 || m == 0 || k < 1 {
		return 0
	}
	xf, mf := float64(x), float64(m)
	if x >= m {
		xf = mf - 0.5
	}
	return -mf / float64(k) * math.Log1p(-xf/mf)
}

// FalsePositiveFromFill returns fill^k, the probability that a classic
// filter whose bits are set in proportion fill answers "maybe" for a random
// absent key: each of the k independent probes must hit a set bit. Measured
// from a real filter, it replaces the model's expectation with what the
// filter actually became (Bloom 1970; Fan et al. 2000). fill is clamped to
// [0, 1].
func FalsePositiveFromFill(fill float64, k int) float64 {
	return math.Pow(math.Max(0, math.Min(1, fill)), float64(k))
}
