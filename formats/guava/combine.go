package guava

import (
	"errors"
	"fmt"
	"math/bits"
)

var (
	// ErrIncompatible reports two filters that do not combine: another
	// strategy, number of hash functions or size.
	ErrIncompatible = errors.New("guava: incompatible filters")
	// ErrFold reports a filter that cannot be halved: an odd number of
	// words.
	ErrFold = errors.New("guava: the filter cannot be halved")
)

// compatible checks that g has f's strategy, k and size, as Guava's
// BloomFilter.isCompatible does (the funnel, which the stream does not
// record, is the caller's to match).
func (f *Filter) compatible(g *Filter) error {
	switch {
	case g == nil || len(g.words) == 0 || len(f.words) == 0:
		return fmt.Errorf("%w: a filter without bits", ErrIncompatible)
	case f.strategy != g.strategy:
		return fmt.Errorf("%w: strategy %v and %v", ErrIncompatible, f.strategy, g.strategy)
	case f.k != g.k:
		return fmt.Errorf("%w: %d and %d hash functions", ErrIncompatible, f.k, g.k)
	case len(f.words) != len(g.words):
		return fmt.Errorf("%w: %d and %d bits", ErrIncompatible, f.Bits(), g.Bits())
	}
	return nil
}

// Union makes f the union of f and g, as Guava's BloomFilter.putAll
// does: the bits are ORed, so a key put into either is in f. The two must
// have the same strategy, k and size (ErrIncompatible), and their keys
// must have gone through the same funnel.
func (f *Filter) Union(g *Filter) error {
	if err := f.compatible(g); err != nil {
		return err
	}
	for i, w := range g.words {
		f.words[i] |= w
	}
	return nil
}

// Intersect makes f the intersection of f and g: the bits are ANDed, so a
// key put into both stays in f (and its false-positive rate is at most
// either's). The two must be compatible as for Union.
func (f *Filter) Intersect(g *Filter) error {
	if err := f.compatible(g); err != nil {
		return err
	}
	for i, w := range g.words {
		f.words[i] &= w
	}
	return nil
}

// Folds returns how many times Fold can halve f: the number of times its
// word count halves to a whole number.
func (f *Filter) Folds() int {
	if len(f.words) == 0 {
		return 0
	}
	return bits.TrailingZeros(uint(len(f.words)))
}

// Fold halves f. Both strategies take a probe modulo the number of bits
// (Guava's LockFreeBitArray.bitSize), and (x mod 2b) mod b = x mod b, so
// ORing the upper half of the words into the lower half gives exactly the
// filter of half the bits that the same keys make: Guava reads it and
// answers for every key as that filter would. The false-positive rate
// rises to that of the smaller filter. A filter with an odd number of
// words cannot be halved (ErrFold).
func (f *Filter) Fold() error {
	n := len(f.words)
	if n == 0 || n%2 != 0 {
		return fmt.Errorf("%w: %d words", ErrFold, n)
	}
	half := n / 2
	for i := range half {
		f.words[i] |= f.words[half+i]
	}
	f.words = f.words[:half:half]
	return nil
}
