package mht

import (
	"fmt"
	"math/bits"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// SF is the single-filter summary of Kirsch and Mitzenmacher (section
// IV-A): m cells and k hash functions over all of them. Inserting an item
// of type j writes max(cell, j) into its k cells; a lookup returns the
// minimum of its k cells, 0 meaning absent. The answer is never below a
// stored item's type; it is above it (a type failure) when every one of
// its cells was also hit by an item of a later sub-table, and positive for
// an absent item when every one of its cells was hit at all — both
// Bloom-filter events ([Occupancy.SFBounds]). A plain SF cell
// takes ⌈log2(d+1)⌉ bits and cannot forget. The counting version keeps in
// each cell a c-bit counter per type; the cell's value is the largest type
// whose counter is nonzero, and Remove decrements.
//
// The zero SF has no cells: Type answers 0 (absent), Add returns ErrConfig,
// Remove ErrNoDelete and the encoders an error wrapping ErrConfig; make one
// with NewSF.
type SF struct {
	d, k  int
	m     uint64
	cells packedArray // plain: one type per cell; counting: d counters per cell
	count bool
	n     uint64
}

// SFConfig describes a single filter.
// The zero SFConfig is not valid: NewSF reports ErrConfig, as Levels is 0.
type SFConfig struct {
	// Levels is d, the number of sub-tables.
	Levels int
	// Cells is m, at least 1.
	Cells uint64
	// K is the number of hash functions, 1..params.MaxK.
	K int
	// CounterBits > 0 makes it the counting version with counters of that
	// many bits (1..MaxCounterBits).
	CounterBits int
}

// MaxCells bounds a single filter's cells and a multiple Bloom filter's
// bits per filter (2^36).
const MaxCells = 1 << 36

// NewSF returns an empty single filter.
func NewSF(c SFConfig) (*SF, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	f := &SF{d: c.Levels, k: c.K, m: c.Cells, count: c.CounterBits > 0}
	if f.count {
		f.cells = newPacked(c.Cells*uint64(c.Levels), c.CounterBits)
	} else {
		f.cells = newPacked(c.Cells, sfCellBits(c.Levels))
	}
	return f, nil
}

func (c SFConfig) check() error {
	switch {
	case c.Levels < 1 || c.Levels > MaxLevels:
		return fmt.Errorf("%w: Levels = %d outside [1, %d]", ErrConfig, c.Levels, MaxLevels)
	case c.Cells < 1 || c.Cells > MaxCells:
		return fmt.Errorf("%w: Cells = %d outside [1, 2^36]", ErrConfig, c.Cells)
	case c.K < 1 || c.K > params.MaxK:
		return fmt.Errorf("%w: K = %d outside [1, %d]", ErrConfig, c.K, params.MaxK)
	case c.CounterBits < 0 || c.CounterBits > MaxCounterBits:
		return fmt.Errorf("%w: CounterBits = %d outside [0, %d]", ErrConfig, c.CounterBits, MaxCounterBits)
	case c.CounterBits > 0 && c.Cells*uint64(c.Levels) > MaxCells:
		return fmt.Errorf("%w: %d cells of %d counters", ErrConfig, c.Cells, c.Levels)
	}
	return nil
}

// sfCellBits is ⌈log2(d+1)⌉, the width of a cell holding 0..d.
func sfCellBits(d int) int { return bits.Len(uint(d)) }

// Kind returns KindSF or KindCountingSF.
func (f *SF) Kind() Kind {
	if f.count {
		return KindCountingSF
	}
	return KindSF
}

// Levels returns d.
func (f *SF) Levels() int { return f.d }

// K returns the number of hash functions.
func (f *SF) K() int { return f.k }

// Cells returns m.
func (f *SF) Cells() uint64 { return f.m }

// CanRemove reports whether f is the counting version.
func (f *SF) CanRemove() bool { return f.count }

// Count returns the number of items.
func (f *SF) Count() uint64 { return f.n }

// Bits returns the size of the cells: m·⌈log2(d+1)⌉, or m·d·c counting.
func (f *SF) Bits() uint64 {
	n := f.m
	if f.count {
		n *= uint64(f.d)
	}
	return n * f.cells.Width()
}

// Clear empties the filter.
func (f *SF) Clear() {
	clear(f.cells.Words())
	f.n = 0
}

// Add writes max(cell, typ) into h's cells (counting: counts typ there).
func (f *SF) Add(h hashing.Hash128, typ int) error {
	if err := checkType(typ, f.d); err != nil {
		return err
	}
	p := hashing.NewProbes(salted(h, saltSF))
	for range f.k {
		c := hashing.Reduce(p.Next(), f.m)
		if f.count {
			ctr := counters{f.cells}
			ctr.inc(c*uint64(f.d) + uint64(typ-1))
		} else if uint64(typ) > f.cells.Get(c) {
			f.cells.Set(c, uint64(typ))
		}
	}
	f.n++
	return nil
}

// Remove uncounts h from its cells; a plain SF returns ErrNoDelete.
func (f *SF) Remove(h hashing.Hash128, typ int) error {
	if !f.count {
		return ErrNoDelete
	}
	if err := checkType(typ, f.d); err != nil {
		return err
	}
	p := hashing.NewProbes(salted(h, saltSF))
	ctr := counters{f.cells}
	for range f.k {
		c := hashing.Reduce(p.Next(), f.m)
		ctr.dec(c*uint64(f.d) + uint64(typ-1))
	}
	f.n--
	return nil
}

// Type returns the minimum of h's cells.
func (f *SF) Type(h hashing.Hash128) int {
	p := hashing.NewProbes(salted(h, saltSF))
	low := uint64(f.d)
	for range f.k {
		c := hashing.Reduce(p.Next(), f.m)
		v := uint64(0)
		if f.count {
			for j := uint64(f.d); j > 0; j-- {
				if f.cells.Get(c*uint64(f.d)+j-1) != 0 {
					v = j
					break
				}
			}
		} else {
			v = f.cells.Get(c)
		}
		if v < low {
			if v == 0 {
				return 0
			}
			low = v
		}
	}
	return int(low)
}
