package counting

import (
	"math/bits"

	"github.com/bloomcast/bloomcast/bloom"
)

// Histogram returns how many counters hold each value: h[v] counters are
// at v, for v from 0 to Max (h[Max] is Saturated). It reads every counter
// once; for 16-bit counters the slice has 65536 entries.
func (f *Filter) Histogram() []uint64 {
	h := make([]uint64, f.max+1)
	per := uint64(64) >> f.wShift
	zeroWords := uint64(0)
	for _, w := range f.counters {
		if w == 0 {
			zeroWords++
			continue
		}
		for sh := uint(0); sh < 64; sh += f.width {
			h[w>>sh&f.max]++
		}
	}
	h[0] += zeroWords * per
	h[0] -= uint64(len(f.counters))*per - f.m // the padding past m
	return h
}

// SetBits returns the number of non-zero counters, the bits set in the
// view. Without a bit view it counts them in the counters.
func (f *Filter) SetBits() uint64 {
	if f.view != nil {
		return f.view.SetBits()
	}
	n := 0
	for _, w := range f.counters {
		if w != 0 {
			n += bits.OnesCount64(nonZero(w, f.width))
		}
	}
	return uint64(n)
}

// FillRatio returns the fraction of non-zero counters.
func (f *Filter) FillRatio() float64 { return float64(f.SetBits()) / float64(f.m) }

// FalsePositiveRate returns the probability that a key never added is
// reported present, computed from the bit view as it is now
// (bloom.Filter.FalsePositiveRate). Without a bit view it is computed
// from a projection of the counters made for the call (m/8 bytes, one
// pass over the counters).
func (f *Filter) FalsePositiveRate() float64 { return f.bitFilter().FalsePositiveRate() }

// EstimateDistinct estimates the number of distinct keys present from the
// bit view (bloom.Filter.EstimateCount, after Swamidass and Baldi 2007).
// Len counts duplicates; this does not. Without a bit view it works on a
// projection of the counters made for the call, as FalsePositiveRate
// does.
func (f *Filter) EstimateDistinct() float64 { return f.bitFilter().EstimateCount() }

// bitFilter returns the bit view, or without one a read-only bloom.Filter
// over a fresh projection of the counters.
func (f *Filter) bitFilter() *bloom.Filter {
	if f.view != nil {
		return f.view
	}
	words := make([]uint64, (f.m+63)/64)
	f.project(words)
	v, err := bloom.NewView(f.Shape(), f.Seed(), f.Scheme(), words)
	if err != nil {
		panic("counting: projecting the counters: " + err.Error()) // the shape was validated by New
	}
	return v
}
