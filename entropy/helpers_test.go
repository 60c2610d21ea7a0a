package entropy

import (
	"math"
	"math/rand/v2"
)

// randomBits returns ⌈m/64⌉ words whose first m bits are 1 with
// probability p, independently; the bits past m are random garbage, which
// encoders must ignore.
func randomBits(r *rand.Rand, m uint64, p float64) []uint64 {
	w := make([]uint64, wordsFor(m))
	thr := uint64(p * (1 << 53))
	for i := range m {
		if r.Uint64()>>11 < thr {
			w[i/64] |= 1 << (i % 64)
		}
	}
	if len(w) > 0 {
		w[len(w)-1] |= r.Uint64() &^ tailMask(m)
	}
	return w
}

// masked returns a copy of the first m bits of w with the rest zero.
func masked(w []uint64, m uint64) []uint64 {
	out := append([]uint64(nil), w[:wordsFor(m)]...)
	if len(out) > 0 {
		out[len(out)-1] &= tailMask(m)
	}
	return out
}

// poissonCounters returns n counters of width bits with Poisson(mean)
// values, saturated at the maximum; bits past n·width are garbage.
func poissonCounters(r *rand.Rand, n uint64, width uint, mean float64) []uint64 {
	nbits := n * uint64(width)
	w := make([]uint64, wordsFor(nbits))
	max := uint64(1)<<width - 1
	l := math.Exp(-mean)
	for i := range n {
		k, prod := uint64(0), r.Float64()
		for prod > l {
			k++
			prod *= r.Float64()
		}
		k = min(k, max)
		b := i * uint64(width)
		w[b/64] |= k << (b % 64)
	}
	if len(w) > 0 {
		w[len(w)-1] |= r.Uint64() &^ tailMask(nbits)
	}
	return w
}

// order0Bytes is n times the empirical order-0 entropy of the counters,
// in bytes.
func order0Bytes(w []uint64, n uint64, width uint) float64 {
	var count [256]uint64
	histogram(&count, w, n, width)
	var h float64
	for _, c := range count {
		if c > 0 {
			q := float64(c) / float64(n)
			h -= float64(c) * math.Log2(q)
		}
	}
	return h / 8
}
