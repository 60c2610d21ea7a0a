package mht

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/bloomcast/bloomcast/hashing"
)

// Interp is the interpolation-search summary of Kirsch and Mitzenmacher
// (section III): for each item a b-bit hash, stored with the item's type
// in one 64-bit word (hash in the high b bits, type − 1 in the low bits),
// the words kept sorted. Hashes are uniform, so interpolation search finds
// one in O(log log n) probes on average (Gonnet and Baeza-Yates, Handbook
// of Algorithms and Data Structures, 1991); this implementation falls back
// to bisection after a few interpolation steps, which bounds the worst
// case at O(log n). Two items with one hash cannot both be recorded: Add
// refuses the second with [ErrCollision] (a construction failure, the
// birthday bound n(n−1)/2^(b+1)). An absent item is a false positive with
// probability about n/2^b; types are otherwise exact, and Remove takes an
// item out. The summary takes n·(b + ⌈log2 d⌉) bits; with b = 64 − ⌈log2
// d⌉ (the default) an entry is one word, as in the paper.
//
// The zero Interp is a summary of no levels: Type answers 0 (absent), Add
// and Remove return ErrConfig and the encoders return an error wrapping
// ErrConfig; make one with NewInterp.
type Interp struct {
	d     int
	b     int // hash bits
	tb    uint
	words []uint64
}

// InterpConfig describes an interpolation-search summary.
// The zero InterpConfig is not valid: NewInterp reports ErrConfig, as Levels
// is 0.
type InterpConfig struct {
	// Levels is d, 1..MaxLevels.
	Levels int
	// HashBits is b, 8..64 − ⌈log2 d⌉; 0 means 64 − ⌈log2 d⌉.
	HashBits int
	// Capacity is the number of items to allocate room for (optional),
	// at most MaxBuckets, the most items a Table holds.
	Capacity int
}

// NewInterp returns an empty interpolation-search summary.
func NewInterp(c InterpConfig) (*Interp, error) {
	if c.Levels < 1 || c.Levels > MaxLevels {
		return nil, fmt.Errorf("%w: Levels = %d outside [1, %d]", ErrConfig, c.Levels, MaxLevels)
	}
	tb := bits.Len(uint(c.Levels - 1))
	b := c.HashBits
	if b == 0 {
		b = 64 - tb
	}
	if b < 8 || b > 64-tb {
		return nil, fmt.Errorf("%w: HashBits = %d outside [8, %d]", ErrConfig, b, 64-tb)
	}
	if c.Capacity < 0 || uint64(c.Capacity) > MaxBuckets {
		return nil, fmt.Errorf("%w: Capacity = %d outside [0, %d]", ErrConfig, c.Capacity, uint64(MaxBuckets))
	}
	return &Interp{d: c.Levels, b: b, tb: uint(tb), words: make([]uint64, 0, c.Capacity)}, nil
}

// Kind returns KindInterp.
func (s *Interp) Kind() Kind { return KindInterp }

// Levels returns d.
func (s *Interp) Levels() int { return s.d }

// HashBits returns b.
func (s *Interp) HashBits() int { return s.b }

// CanRemove returns true.
func (s *Interp) CanRemove() bool { return true }

// Count returns the number of items.
func (s *Interp) Count() uint64 { return uint64(len(s.words)) }

// Bits returns n·(b + ⌈log2 d⌉).
func (s *Interp) Bits() uint64 { return uint64(len(s.words)) * uint64(s.b+int(s.tb)) }

// bitsFor is Bits for a summary holding n items.
func (s *Interp) bitsFor(n uint64) uint64 { return uint64(float64(n) * float64(s.b+int(s.tb))) }

// Clear empties the summary.
func (s *Interp) Clear() { s.words = s.words[:0] }

// fingerprint returns h's b-bit hash in the high bits of a word.
func (s *Interp) fingerprint(h hashing.Hash128) uint64 {
	x := salted(h, saltInterp).Hi
	return x >> (64 - s.b) << (64 - s.b)
}

// hashMask keeps the hash bits of an entry.
func (s *Interp) hashMask() uint64 { return ^uint64(0) >> (64 - s.b) << (64 - s.b) }

// search returns the index of the first entry whose hash is ≥ x's.
func (s *Interp) search(x uint64) int {
	w := s.words
	mask := s.hashMask()
	lo, hi := 0, len(w) // the answer is in [lo, hi]
	for step := 0; step < 4 && hi-lo > 8; step++ {
		a, z := w[lo]&mask, w[hi-1]&mask
		if x <= a {
			return lo
		}
		if x > z {
			return hi
		}
		// Interpolate: lo + (x−a)/(z−a)·(hi−1−lo), in 128-bit arithmetic.
		ph, pl := bits.Mul64(x-a, uint64(hi-1-lo))
		q, _ := bits.Div64(ph, pl, z-a) // ph < z−a because x−a < z−a
		i := lo + int(q)
		if w[i]&mask < x {
			lo = i + 1
		} else {
			if i == lo || w[i-1]&mask < x {
				return i
			}
			hi = i
		}
	}
	for lo < hi {
		i := int(uint(lo+hi) >> 1)
		if w[i]&mask < x {
			lo = i + 1
		} else {
			hi = i
		}
	}
	return lo
}

// Add records h with its type; a stored hash equal to h's is refused with
// ErrCollision.
func (s *Interp) Add(h hashing.Hash128, typ int) error {
	if err := checkType(typ, s.d); err != nil {
		return err
	}
	x := s.fingerprint(h)
	i := s.search(x)
	if i < len(s.words) && s.words[i]&s.hashMask() == x {
		return fmt.Errorf("%w (%d-bit hashes)", ErrCollision, s.b)
	}
	s.words = slices.Insert(s.words, i, x|uint64(typ-1))
	return nil
}

// Remove takes out h's entry if it has type typ.
func (s *Interp) Remove(h hashing.Hash128, typ int) error {
	if err := checkType(typ, s.d); err != nil {
		return err
	}
	x := s.fingerprint(h) | uint64(typ-1)
	if i := s.search(x &^ (1<<s.tb - 1)); i < len(s.words) && s.words[i] == x {
		s.words = slices.Delete(s.words, i, i+1)
	}
	return nil
}

// Type returns h's recorded type, 0 if its hash is not stored.
func (s *Interp) Type(h hashing.Hash128) int {
	x := s.fingerprint(h)
	if i := s.search(x); i < len(s.words) && s.words[i]&s.hashMask() == x {
		return int(s.words[i]&(1<<s.tb-1)) + 1
	}
	return 0
}
