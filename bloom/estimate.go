package bloom

import (
	"math"

	"github.com/bloomcast/bloomcast/params"
)

// SetBits returns the number of bits set.
func (f *Filter) SetBits() uint64 { return onesInRange(f.words, 0, f.m) }

// FillRatio returns the fraction of bits set.
func (f *Filter) FillRatio() float64 { return float64(f.SetBits()) / float64(f.m) }

// FalsePositiveRate returns the probability that a key never added is
// reported present, computed from the bits as they are (not from the count):
// fill^k for Classic, the product of the slices' fills for Partitioned, and
// the mean over blocks of the block's fill^k for Blocked and Paged.
func (f *Filter) FalsePositiveRate() float64 {
	switch f.layout {
	case Classic:
		return params.FalsePositiveFromFill(f.FillRatio(), f.k)
	case Partitioned:
		p := 1.0
		for i := uint64(0); i < uint64(f.k); i++ {
			p *= float64(onesInRange(f.words, i*f.span, (i+1)*f.span)) / float64(f.span)
		}
		return p
	}
	sum := 0.0
	for b := uint64(0); b < f.span; b++ {
		fill := float64(onesInRange(f.words, b*f.blockBits, (b+1)*f.blockBits)) / float64(f.blockBits)
		sum += math.Pow(fill, float64(f.k))
	}
	return sum / float64(f.span)
}

// EstimateCount estimates the number of distinct keys added from the bits
// (Swamidass and Baldi, "Mathematical correction for fingerprint similarity
// measures to improve chemical retrieval", 2007): with x of r bits set by
// probes each hitting one of r bits, n ≈ ln(1 − x/r) / (probes·ln(1 − 1/r)).
// It is applied per slice (Partitioned) or per block (Blocked, Paged) and
// summed, since their probes fall in one range each. A full range counts as
// r − ½ bits set, so a saturated filter gives a finite lower bound.
func (f *Filter) EstimateCount() float64 {
	switch f.layout {
	case Classic:
		return estimateIn(f.m, f.SetBits(), float64(f.k))
	case Partitioned:
		sum := 0.0
		for i := uint64(0); i < uint64(f.k); i++ {
			sum += estimateIn(f.span, onesInRange(f.words, i*f.span, (i+1)*f.span), 1)
		}
		return sum / float64(f.k)
	}
	// One estimate per possible block fill, reused across blocks.
	memo := make(map[uint64]float64)
	sum := 0.0
	for b := uint64(0); b < f.span; b++ {
		x := onesInRange(f.words, b*f.blockBits, (b+1)*f.blockBits)
		e, ok := memo[x]
		if !ok {
			e = estimateIn(f.blockBits, x, float64(f.k))
			memo[x] = e
		}
		sum += e
	}
	return sum
}

// Saturated reports whether some range the probes of a key fall in (the
// whole filter for Classic, a slice for Partitioned, a block for Blocked
// and Paged) has every bit set. Such a range no longer tells how many keys
// it holds, so EstimateCount is then only a lower bound; a filter sized
// for its keys is nowhere near this.
func (f *Filter) Saturated() bool {
	var r, n uint64
	switch f.layout {
	case Classic:
		return f.m > 0 && f.SetBits() == f.m
	case Partitioned:
		r, n = f.span, uint64(f.k)
	default:
		r, n = f.blockBits, f.span
	}
	for i := uint64(0); i < n; i++ {
		if onesInRange(f.words, i*r, (i+1)*r) == r {
			return true
		}
	}
	return false
}

// estimateIn inverts the expected fill of r bits after n keys of the given
// number of probes each: x = r·(1 − (1 − 1/r)^(probes·n)).
func estimateIn(r, x uint64, probes float64) float64 {
	if x == 0 {
		return 0
	}
	fx := float64(x)
	if x >= r {
		fx = float64(r) - 0.5
	}
	if r == 1 {
		return math.Log(1-fx) / (probes * math.Log(0.5)) // r = 1: treat as half a bit
	}
	return math.Log1p(-fx/float64(r)) / (probes * math.Log1p(-1/float64(r)))
}
