package sim

import (
	"fmt"

	"github.com/bloomcast/bloomcast/params"
)

// LoopModel is the exact false-alarm model of in-packet loop detection:
// a packet carries an m-bit filter; every router it passes first checks
// whether all k bits of its mask (k distinct bits, as good as uniformly
// chosen) are already set, which means "probably looped", and if not ORs
// them in.
//
// The zero value models no path: PathFalseAlarm(r) needs 1 ≤ r ≤
// len(Survival), and it has no such r; make one with NewLoopModel.
type LoopModel struct {
	// PerCheck[h] is the probability that the check at a router the packet
	// has not visited, with h masks already in the filter, raises a false
	// alarm, given that the h − 1 checks before it did not. PerCheck[0] is
	// 0: the first router sees an empty filter.
	PerCheck []float64
	// Survival[h] is the probability that a loop-free packet passes the
	// checks with 1..h masks in the filter without a false alarm, so that
	// it reaches its (h+1)-th router; Survival[0] = 1.
	Survival []float64
}

// PathFalseAlarm returns the probability that a loop-free packet crossing
// routers routers is stopped by a false alarm: 1 − Survival[routers−1].
func (lm LoopModel) PathFalseAlarm(routers int) float64 {
	return 1 - lm.Survival[routers-1]
}

// NewLoopModel computes the model for m-bit filters, k-bit masks and
// paths of up to routers routers.
//
// The classic Bloom-filter rate (1 − e^(−k·h/m))^k, which params gives, is
// an approximation here in three ways. It lets the h·k bits fall
// independently, some on the same place, while each mask sets k distinct
// bits: the filter fills faster than it says, and late alarms are
// likelier. It draws a new mask's k bits with replacement, (X/m)^k with X
// bits set, while distinct bits all fall among the set ones with the
// smaller probability C(X, k)/C(m, k), by a factor near e^(−k²/2X) while
// the filter is sparse (Bose et al., "On the false-positive rate of Bloom
// filters", IPL 2008, make the point for filters in general): early alarms
// are rarer. And it forgets that a packet still travelling has, by
// passing its earlier checks, a filter a little emptier than average.
// With m in the tens or hundreds of bits this matters (64 bits, 16
// routers: 48% of loop-free packets dropped by the classic estimate, 50.5%
// by this model and by simulation), so the model follows the exact
// distribution of X: a new mask overlaps the X set bits in j bits with the
// hypergeometric probability C(X, j)·C(m−X, k−j)/C(m, k); j = k is an
// alarm, and otherwise X grows by k − j.
func NewLoopModel(m, k, routers int) (LoopModel, error) {
	if err := checkLoopShape(m, k, routers); err != nil {
		return LoopModel{}, err
	}
	lm := LoopModel{PerCheck: make([]float64, routers), Survival: make([]float64, routers)}
	lm.Survival[0] = 1
	dist := make([]float64, m+1) // surviving probability mass by set bits
	dist[k] = 1                  // after the first router
	next := make([]float64, m+1)
	pmf := make([]float64, k+1)
	for h := 1; h < routers; h++ {
		clear(next)
		alarm, alive := 0.0, 0.0
		for x, p := range dist {
			if p == 0 {
				continue
			}
			alive += p
			lo, hi := hypergeometric(pmf, m, x, k)
			for j := lo; j <= hi; j++ {
				if j == k {
					alarm += p * pmf[j]
				} else {
					next[x+k-j] += p * pmf[j]
				}
			}
		}
		lm.PerCheck[h] = alarm / alive
		lm.Survival[h] = alive - alarm
		dist, next = next, dist
	}
	return lm, nil
}

// hypergeometric sets pmf[j], for j from lo to hi, to the probability that
// k bits chosen uniformly without replacement among m include exactly j of
// x given ones. It multiplies ratios below 1 instead of taking logarithms
// of factorials, which keeps the result to a few units of the last place.
func hypergeometric(pmf []float64, m, x, k int) (lo, hi int) {
	lo, hi = max(0, k-(m-x)), min(k, x)
	// P(lo) = C(k, lo)·x(x−1)…(x−lo+1)·(m−x)…(m−x−k+lo+1) / m(m−1)…(m−k+1).
	p := 1.0
	for i := range lo {
		p *= float64(x-i) / float64(m-i) * float64(k-i) / float64(lo-i)
	}
	for i := range k - lo {
		p *= float64(m-x-i) / float64(m-lo-i)
	}
	pmf[lo] = p
	for j := lo; j < hi; j++ {
		p *= float64(x-j) / float64(j+1) * float64(k-j) / float64(m-x-k+j+1)
		pmf[j+1] = p
	}
	return lo, hi
}

// Limits of the in-packet filter.
const (
	// MaxLoopBits bounds the carried filter: 1024 bits, 128 header bytes.
	MaxLoopBits = 1024
	// MaxLoopRouters bounds a path's length.
	MaxLoopRouters = 255
)

func checkLoopShape(m, k, routers int) error {
	switch {
	case m < 8 || m > MaxLoopBits || m%8 != 0:
		return fmt.Errorf("sim: %d filter bits, want a multiple of 8 from 8 to %d", m, MaxLoopBits)
	case k < 1 || k > maxMaskBits(m):
		return fmt.Errorf("sim: %d bits per mask, want 1 to %d for a %d-bit filter", k, maxMaskBits(m), m)
	case routers < 2 || routers > MaxLoopRouters:
		return fmt.Errorf("sim: %d routers per path, want 2 to %d", routers, MaxLoopRouters)
	}
	return nil
}

// maxMaskBits bounds k: half the filter (a heavier mask only makes alarms
// likelier) and params.MaxK, the most probes a Bloom filter here uses.
func maxMaskBits(m int) int { return min(m/2, params.MaxK) }

// BestLoopK returns the mask weight k that minimises the probability that
// a loop-free packet crossing routers routers raises a false alarm with an
// m-bit filter. It walks from params.OptimalK(m, routers), the k that
// suits a Bloom filter of routers elements, towards fewer false alarms,
// assuming (as the tests check) that the rate has a single minimum in k.
// The answer is that k or one more: the last check sees only routers − 1
// masks, and the earlier checks, with emptier filters, favour more bits.
func BestLoopK(m, routers int) (int, error) {
	rate := func(k int) (float64, error) {
		lm, err := NewLoopModel(m, k, routers)
		return lm.PathFalseAlarm(routers), err
	}
	if err := checkLoopShape(m, 1, routers); err != nil {
		return 0, err
	}
	k := min(params.OptimalK(uint64(m), uint64(routers)), maxMaskBits(m))
	best, err := rate(k)
	if err != nil {
		return 0, err
	}
	for _, step := range []int{1, -1} {
		for c := k + step; c >= 1 && c <= maxMaskBits(m); c += step {
			r, err := rate(c)
			if err != nil {
				return 0, err
			}
			// Rates within a relative 1e-12 tie, and the smaller k, which
			// sets fewer bits, wins a tie.
			if better := r < best*(1-1e-12) || (step < 0 && r <= best*(1+1e-12)); !better {
				break
			}
			k, best = c, r
		}
	}
	return k, nil
}
