package bitsandblooms

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

var (
	// ErrIncompatible reports two filters that do not combine: another m
	// or k.
	ErrIncompatible = errors.New("bitsandblooms: incompatible filters")
	// ErrFold reports a filter that cannot be halved: an odd m.
	ErrFold = errors.New("bitsandblooms: the filter cannot be halved")
)

// NewWithEstimates returns an empty filter sized as bloom/v3's
// NewWithEstimates(n, fp) sizes it (its EstimateParameters):
// m = ceil(-n ln(fp) / (ln 2)^2) and k = ceil(ln 2 · m/n), the textbook
// optimum rounded up, evaluated in the same floating-point steps so that
// both give the same m and k. n must be at least 1 and fp in (0, 1).
func NewWithEstimates(n uint64, fp float64) (*Filter, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: n=0 keys, want at least 1", ErrConfig)
	}
	if !(fp > 0 && fp < 1) {
		return nil, fmt.Errorf("%w: false-positive rate %v, want in (0, 1)", ErrConfig, fp)
	}
	m := math.Ceil(-1 * float64(n) * math.Log(fp) / math.Pow(math.Log(2), 2))
	if m > MaxBits {
		return nil, fmt.Errorf("%w: %d keys at rate %v need %.0f bits, more than %d", ErrConfig, n, fp, m, uint64(MaxBits))
	}
	k := math.Ceil(math.Log(2) * m / float64(n))
	return New(uint64(m), uint64(k))
}

// compatible checks that g has f's m and k, as bloom/v3's Merge does.
func (f *Filter) compatible(g *Filter) error {
	switch {
	case g == nil:
		return fmt.Errorf("%w: no filter", ErrIncompatible)
	case f.m != g.m:
		return fmt.Errorf("%w: m=%d and m=%d bits", ErrIncompatible, f.m, g.m)
	case f.k != g.k:
		return fmt.Errorf("%w: k=%d and k=%d", ErrIncompatible, f.k, g.k)
	}
	return nil
}

// grow gives f's bitset g's length (an m=1 filter's bitset starts
// empty).
func (f *Filter) grow(length uint64) {
	if length > f.length {
		f.length = length
		for uint64(len(f.words)) < (length+63)/64 {
			f.words = append(f.words, 0)
		}
	}
}

// Union makes f the union of f and g, as bloom/v3's Merge does: the bits
// are ORed, so a key added to either is in f. The two must have the same
// m and k (ErrIncompatible).
func (f *Filter) Union(g *Filter) error {
	if err := f.compatible(g); err != nil {
		return err
	}
	f.grow(g.length)
	for i, w := range g.words {
		f.words[i] |= w
	}
	return nil
}

// Intersect makes f the intersection of f and g: the bits are ANDed, so
// a key added to both stays in f. The two must have the same m and k.
func (f *Filter) Intersect(g *Filter) error {
	if err := f.compatible(g); err != nil {
		return err
	}
	for i := range f.words {
		if i < len(g.words) {
			f.words[i] &= g.words[i]
		} else {
			f.words[i] = 0
		}
	}
	return nil
}

// Folds returns how many times Fold can halve f: the number of times m
// halves to a whole number.
func (f *Filter) Folds() int {
	if f.m == 0 {
		return 0
	}
	return bits.TrailingZeros64(f.m)
}

// Fold halves f. bloom/v3 takes every location modulo m, and
// (x mod 2b) mod b = x mod b, so ORing bit b+m/2 into bit b for every
// b < m/2 gives exactly the filter bloom.New(m/2, k) makes from the same
// keys. The false-positive rate rises to that of the smaller filter. A
// filter with an odd m cannot be halved (ErrFold).
func (f *Filter) Fold() error {
	if f.m == 0 || f.m%2 != 0 {
		return fmt.Errorf("%w: m=%d bits is odd", ErrFold, f.m)
	}
	half := f.m / 2
	nw := (half + 63) / 64
	for i := range nw {
		f.words[i] |= f.bitsAt(half + 64*i)
	}
	f.words = f.words[:nw:nw]
	if r := half % 64; r != 0 {
		f.words[nw-1] &= 1<<r - 1
	}
	f.m, f.length = half, half
	return nil
}

// bitsAt returns the 64 bits of f's bitset from bit off on (zeros past
// its end).
func (f *Filter) bitsAt(off uint64) uint64 {
	i, s := off/64, off%64
	var w uint64
	if i < uint64(len(f.words)) {
		w = f.words[i] >> s
	}
	if s != 0 && i+1 < uint64(len(f.words)) {
		w |= f.words[i+1] << (64 - s)
	}
	return w
}
