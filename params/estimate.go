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
