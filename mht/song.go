package mht

import (
	"fmt"

	"github.com/bloomcast/bloomcast/hashing"
)

// Song is the summary of Song, Dharmapurikar, Turner and Lockwood ("Fast
// hash table lookup using extended Bloom filter: an aid to network
// processing", SIGCOMM 2005), kept for comparison as Kirsch and
// Mitzenmacher do: a c-bit counter for every bucket of the table, in fast
// memory. Each item adds 1 to the counters of its d buckets (one per
// sub-table; the table's own hashes); a lookup answers "absent" when one
// of them is 0 and otherwise names the sub-table whose counter is
// smallest, ties going to the first. Song et al. keep each item in that
// bucket and move items to keep it so: that is [FHT], which holds a Song
// summary. The multilevel [Table] places an item in the first empty
// bucket instead, so attached to one the rule often names the wrong
// sub-table (about 16% of stored keys with [DefaultPlan]'s sizes).
// Counters saturate and stick, so Remove never loses an item.
//
// The zero Song has no counters: Type answers 0 (absent), Bits 0, Add and
// Remove return ErrConfig and the encoders an error wrapping ErrConfig; make
// one with NewSong.
type Song struct {
	sizes []uint64
	off   []uint64 // first counter of each sub-table
	c     counters
	bits  int
	n     uint64
}

// SongConfig describes a Song summary.
// The zero SongConfig is not valid: NewSong reports ErrConfig, as it gives
// no sub-table.
type SongConfig struct {
	// Sizes are the table's sub-table sizes ([Table.Sizes]).
	Sizes []uint64
	// CounterBits is c, 1..MaxCounterBits (Song et al. use 4).
	CounterBits int
}

// NewSong returns an empty Song summary.
func NewSong(c SongConfig) (*Song, error) {
	if err := checkSizes(c.Sizes); err != nil {
		return nil, err
	}
	if c.CounterBits < 1 || c.CounterBits > MaxCounterBits {
		return nil, fmt.Errorf("%w: CounterBits = %d outside [1, %d]", ErrConfig, c.CounterBits, MaxCounterBits)
	}
	s := &Song{sizes: append([]uint64(nil), c.Sizes...), bits: c.CounterBits}
	total := s.layout()
	s.c = newCounters(total, c.CounterBits)
	return s, nil
}

// layout sets the offsets and returns the number of counters.
func (s *Song) layout() uint64 {
	s.off = make([]uint64, len(s.sizes))
	total := uint64(0)
	for i, m := range s.sizes {
		s.off[i] = total
		total += m
	}
	return total
}

// Kind returns KindSong.
func (s *Song) Kind() Kind { return KindSong }

// Levels returns d.
func (s *Song) Levels() int { return len(s.sizes) }

// CanRemove returns true.
func (s *Song) CanRemove() bool { return true }

// Count returns the number of items.
func (s *Song) Count() uint64 { return s.n }

// Bits returns c times the number of buckets (0 for a zero Song).
func (s *Song) Bits() uint64 {
	if len(s.sizes) == 0 {
		return 0
	}
	return s.c.a.Width() * (s.off[len(s.off)-1] + s.sizes[len(s.sizes)-1])
}

// Clear zeroes the counters.
func (s *Song) Clear() {
	clear(s.c.a.Words())
	s.n = 0
}

// Add counts h in each of its buckets.
func (s *Song) Add(h hashing.Hash128, typ int) error {
	if err := checkType(typ, len(s.sizes)); err != nil {
		return err
	}
	p := hashing.NewProbes(h)
	for i, m := range s.sizes {
		s.c.inc(s.off[i] + hashing.Reduce(p.Next(), m))
	}
	s.n++
	return nil
}

// Remove uncounts h.
func (s *Song) Remove(h hashing.Hash128, typ int) error {
	if err := checkType(typ, len(s.sizes)); err != nil {
		return err
	}
	p := hashing.NewProbes(h)
	for i, m := range s.sizes {
		s.c.dec(s.off[i] + hashing.Reduce(p.Next(), m))
	}
	s.n--
	return nil
}

// Type names the sub-table of least count, 0 if a counter is 0.
func (s *Song) Type(h hashing.Hash128) int {
	typ, _ := s.least(h)
	return typ
}

// least returns the sub-table (1..d) whose counter for h is smallest, ties
// going to the first (the lowest bucket in table order), and that
// counter's index; typ is 0 when a counter is 0.
func (s *Song) least(h hashing.Hash128) (typ int, at uint64) {
	p := hashing.NewProbes(h)
	best := ^uint64(0)
	for i, m := range s.sizes {
		j := s.off[i] + hashing.Reduce(p.Next(), m)
		v := s.c.a.Get(j)
		if v == 0 {
			return 0, 0
		}
		if v < best {
			best, typ, at = v, i+1, j
		}
	}
	return typ, at
}

// clone returns a copy of s.
func (s *Song) clone() *Song {
	c := *s
	c.sizes = append([]uint64(nil), s.sizes...)
	c.off = append([]uint64(nil), s.off...)
	c.c = counters{packedOver(append([]uint64(nil), s.c.a.Words()...), s.bits)}
	return &c
}
