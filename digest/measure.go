package digest

import (
	"math"

	"github.com/bloomcast/bloomcast/entropy"
)

// EntropyBits returns the yardstick for d's payload: the bits that no
// coder of independent symbols beats on average. For a Bloom filter it is
// m·H(p̂), p̂ the fraction of bits set (Mitzenmacher's "about m·H(p)");
// for a counting filter, n·H₀ with H₀ the empirical order-0 entropy of its
// n counter values; for a scalable filter, the sum of its layers' m·H(p̂).
// 0 for an empty Digest.
func (d *Digest) EntropyBits() float64 {
	switch {
	case d.Bloom != nil:
		f := d.Bloom
		return float64(f.M()) * entropy.Entropy(f.FillRatio())
	case d.Counting != nil:
		return orderZeroBits(d.Counting.Histogram())
	case d.Scalable != nil:
		var bits float64
		for i := range d.Scalable.Layers() {
			l := d.Scalable.Layer(i)
			bits += float64(l.M()) * entropy.Entropy(l.FillRatio())
		}
		return bits
	}
	return 0
}

// orderZeroBits is n·H₀ of a histogram of n values.
func orderZeroBits(hist []uint64) float64 {
	var n float64
	for _, c := range hist {
		n += float64(c)
	}
	var bits float64
	for _, c := range hist {
		if c != 0 {
			bits -= float64(c) * math.Log2(float64(c)/n)
		}
	}
	return bits
}
