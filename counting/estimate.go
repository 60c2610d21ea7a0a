package counting

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
// view.
func (f *Filter) SetBits() uint64 { return f.view.SetBits() }

// FillRatio returns the fraction of non-zero counters.
func (f *Filter) FillRatio() float64 { return f.view.FillRatio() }

// FalsePositiveRate returns the probability that a key never added is
// reported present, computed from the bit view as it is now
// (bloom.Filter.FalsePositiveRate).
func (f *Filter) FalsePositiveRate() float64 { return f.view.FalsePositiveRate() }

// EstimateDistinct estimates the number of distinct keys present from the
// bit view (bloom.Filter.EstimateCount, after Swamidass and Baldi 2007).
// Len counts duplicates; this does not.
func (f *Filter) EstimateDistinct() float64 { return f.view.EstimateCount() }
