package digest

import (
	"math"

	"github.com/bloomcast/bloomcast/entropy"
)

// EntropyBits returns the yardstick for d's payload: the bits that no
// coder of independent symbols beats on average. For a Bloom filter it is
// m·H(p̂), p̂ the fraction of bits set (Mitzenmacher's "about m·H(p)");
// for a counting filter, n·H₀ with H₀ the empirical order-0 entropy of its
// n counter values. 0 for an empty Digest.
func (d *Digest) EntropyBits() float64 {
	switch {
	case d.Bloom != nil:
		f := d.Bloom
		return float64(f.M()) * entropy.Entropy(f.FillRatio())
	case d.Counting != nil:
		return orderZeroBits(d.Counting.Histogram())
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
