package mht

import (
	"fmt"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// MBF is the multiple-Bloom-filter summary of Kirsch and Mitzenmacher
// (section IV-B): Bloom filters B_1..B_d, B_i holding the items of type ≥ i
// (B_1 every item), with its own size m_i and k_i hash functions. A lookup
// asks B_1, then B_2, …, and returns the last filter passed before the
// first that fails (0 if B_1 fails). An absent item is a false positive
// with B_1's rate; an item of type j is mistyped only if it is a false
// positive of B_{j+1}, which holds the few items of later sub-tables: the
// skew of the table lets the later filters be small while their rates are
// tiny, and false positives and type failures are tuned separately
// ([Occupancy.MBFSizes] sizes them). The counting version
// replaces each filter by a counting Bloom filter of c-bit counters (Fan,
// Cao, Almeida and Broder, "Summary cache", 2000) so that Remove works.
//
// The zero MBF has no filters: Type answers 0 (absent), Add returns
// ErrConfig, Remove ErrNoDelete and the encoders an error wrapping
// ErrConfig; make one with NewMBF.
type MBF struct {
	m     []uint64
	k     []int
	f     []packedArray // bits, or c-bit counters
	count bool
	n     uint64
}

// MBFConfig describes a multiple-Bloom-filter summary.
// The zero MBFConfig is not valid: NewMBF reports ErrConfig, as it gives no
// filter.
type MBFConfig struct {
	// Bits are m_1..m_d, the sizes of the filters (bits, or counters),
	// each 1..MaxCells; len(Bits) is d.
	Bits []uint64
	// K are k_1..k_d, each 1..params.MaxK.
	K []int
	// CounterBits > 0 makes the filters counting filters with counters of
	// that many bits (1..MaxCounterBits).
	CounterBits int
}

// NewMBF returns an empty multiple-Bloom-filter summary.
func NewMBF(c MBFConfig) (*MBF, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	s := &MBF{m: append([]uint64(nil), c.Bits...), k: append([]int(nil), c.K...), count: c.CounterBits > 0}
	for _, m := range c.Bits {
		s.f = append(s.f, newPacked(m, max(1, c.CounterBits)))
	}
	return s, nil
}

func (c MBFConfig) validate() error {
	d := len(c.Bits)
	switch {
	case d < 1 || d > MaxLevels:
		return fmt.Errorf("%w: %d filters, want 1 to %d", ErrConfig, d, MaxLevels)
	case len(c.K) != d:
		return fmt.Errorf("%w: %d filters and %d values of K", ErrConfig, d, len(c.K))
	case c.CounterBits < 0 || c.CounterBits > MaxCounterBits:
		return fmt.Errorf("%w: CounterBits = %d outside [0, %d]", ErrConfig, c.CounterBits, MaxCounterBits)
	}
	for i := range d {
		if c.Bits[i] < 1 || c.Bits[i] > MaxCells || c.K[i] < 1 || c.K[i] > params.MaxK {
			return fmt.Errorf("%w: filter %d has %d bits and k = %d", ErrConfig, i+1, c.Bits[i], c.K[i])
		}
	}
	return nil
}

// Kind returns KindMBF or KindCountingMBF.
func (s *MBF) Kind() Kind {
	if s.count {
		return KindCountingMBF
	}
	return KindMBF
}

// Levels returns d.
func (s *MBF) Levels() int { return len(s.m) }

// Sizes returns m_1..m_d.
func (s *MBF) Sizes() []uint64 { return append([]uint64(nil), s.m...) }

// Ks returns k_1..k_d.
func (s *MBF) Ks() []int { return append([]int(nil), s.k...) }

// CanRemove reports whether the filters count.
func (s *MBF) CanRemove() bool { return s.count }

// Count returns the number of items.
func (s *MBF) Count() uint64 { return s.n }

// Bits returns Σ m_i (times c when counting).
func (s *MBF) Bits() uint64 {
	t := uint64(0)
	for i, m := range s.m {
		t += m * s.f[i].Width()
	}
	return t
}

// Clear empties every filter.
func (s *MBF) Clear() {
	for i := range s.f {
		clear(s.f[i].Words())
	}
	s.n = 0
}

// Add puts h in B_1..B_typ.
func (s *MBF) Add(h hashing.Hash128, typ int) error {
	if err := checkType(typ, len(s.m)); err != nil {
		return err
	}
	for i := range typ {
		p := hashing.NewProbes(salted(h, saltMBF+uint64(i)))
		f := &s.f[i]
		for range s.k[i] {
			b := hashing.Reduce(p.Next(), s.m[i])
			if s.count {
				c := counters{*f}
				c.inc(b)
			} else {
				f.Words()[b>>6] |= 1 << (b & 63)
			}
		}
	}
	s.n++
	return nil
}

// Remove takes h out of B_1..B_typ; plain filters return ErrNoDelete.
func (s *MBF) Remove(h hashing.Hash128, typ int) error {
	if !s.count {
		return ErrNoDelete
	}
	if err := checkType(typ, len(s.m)); err != nil {
		return err
	}
	for i := range typ {
		p := hashing.NewProbes(salted(h, saltMBF+uint64(i)))
		c := counters{s.f[i]}
		for range s.k[i] {
			c.dec(hashing.Reduce(p.Next(), s.m[i]))
		}
	}
	s.n--
	return nil
}

// Type returns the last filter h passes, in order, before one it fails.
func (s *MBF) Type(h hashing.Hash128) int {
	for i := range s.m {
		if !s.has(i, h) {
			return i
		}
	}
	return len(s.m)
}

func (s *MBF) has(i int, h hashing.Hash128) bool {
	p := hashing.NewProbes(salted(h, saltMBF+uint64(i)))
	f := &s.f[i]
	m := s.m[i]
	if s.count {
		for range s.k[i] {
			if f.Get(hashing.Reduce(p.Next(), m)) == 0 {
				return false
			}
		}
		return true
	}
	w := f.Words()
	for range s.k[i] {
		b := hashing.Reduce(p.Next(), m)
		if w[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}
