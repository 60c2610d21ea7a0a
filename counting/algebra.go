package counting

import (
	"fmt"
	"slices"
)

// Compatible returns nil if g can be combined with f (Merge, Subtract):
// the same shape, hashing scheme and seed (as bloom.Filter.Compatible
// checks), counter width and insertion mode. The error says which differs.
// Whether the filters keep a bit view does not matter.
func (f *Filter) Compatible(g *Filter) error {
	switch {
	case g == nil || f.counters == nil || g.counters == nil:
		return ErrZero
	case f.Shape() != g.Shape():
		return fmt.Errorf("%w: %v vs %v", ErrIncompatible, f.Shape(), g.Shape())
	case f.Scheme().ID() != g.Scheme().ID():
		return fmt.Errorf("%w: hashing scheme %d vs %d", ErrIncompatible, f.Scheme().ID(), g.Scheme().ID())
	case f.Seed() != g.Seed():
		return fmt.Errorf("%w: seed %#x vs %#x", ErrIncompatible, f.Seed(), g.Seed())
	case f.width != g.width:
		return fmt.Errorf("%w: %d-bit vs %d-bit counters", ErrIncompatible, f.width, g.width)
	case f.minInc != g.minInc:
		return fmt.Errorf("%w: minimal increase %t vs %t", ErrIncompatible, f.minInc, g.minInc)
	}
	return nil
}

// Merge adds g's counters to f's, saturating at Max: f then holds the
// multiset sum of both, as if every key added to g had been added to f.
// Minimum selection stays an upper bound for minimal-increase filters too,
// since the minimum of sums is at least the sum of minimums.
func (f *Filter) Merge(g *Filter) error {
	if err := f.Compatible(g); err != nil {
		return err
	}
	per := uint64(64) >> f.wShift
	for i, gw := range g.counters {
		if gw == 0 {
			continue
		}
		base := uint64(i) * per
		for j := range per {
			if c := gw >> (j << f.wShift) & f.max; c != 0 {
				f.addTo(base+j, c)
			}
		}
	}
	f.count += g.count
	return nil
}

// addTo adds d > 0 to counter b, saturating, and keeps the bit and the
// saturation count right.
func (f *Filter) addTo(b, d uint64) {
	w, sh := f.locate(b)
	c := f.counters[w] >> sh & f.max
	if c == f.max {
		return
	}
	s := min(c+d, f.max)
	if s == f.max {
		f.sat++
	}
	if c == 0 {
		f.setBit(b)
	}
	f.counters[w] += (s - c) << sh
}

// Subtract removes g's keys from f: every counter of f goes down by g's,
// as if each key added to g were removed from f. g must be a sub-multiset
// of f as far as the counters show: no counter of g above f's (except
// where f's is saturated, which stays), and no saturated counter of g
// where f's is not. Otherwise Subtract changes nothing and returns an
// error wrapping ErrNotSubset. Minimal-increase filters return
// ErrNoRemoval.
func (f *Filter) Subtract(g *Filter) error {
	if err := f.Compatible(g); err != nil {
		return err
	}
	if f.minInc {
		return ErrNoRemoval
	}
	if b, ok := f.covers(g); !ok {
		return fmt.Errorf("%w: counter %d is %d, below %d", ErrNotSubset, b, f.get(b), g.get(b))
	}
	per := uint64(64) >> f.wShift
	for i, gw := range g.counters {
		if gw == 0 {
			continue
		}
		base := uint64(i) * per
		for j := range per {
			b := base + j
			w, sh := f.locate(b)
			c, d := f.counters[w]>>sh&f.max, gw>>(j<<f.wShift)&f.max
			if d == 0 || c == f.max {
				continue
			}
			f.counters[w] -= d << sh
			if c == d {
				f.clearBit(b)
			}
		}
	}
	f.count -= min(f.count, g.count)
	return nil
}

// covers reports whether every counter of g can be taken from f's, and if
// not, the first counter that cannot.
func (f *Filter) covers(g *Filter) (uint64, bool) {
	per := uint64(64) >> f.wShift
	for i, gw := range g.counters {
		if gw == 0 {
			continue
		}
		base := uint64(i) * per
		for j := range per {
			c, d := f.get(base+j), gw>>(j<<f.wShift)&f.max
			if c != f.max && (d > c || d == f.max) {
				return base + j, false
			}
		}
	}
	return 0, true
}

// Clone returns an independent copy, with a bit view if f has one. Change
// tracking is not copied: the clone starts unmarked.
func (f *Filter) Clone() *Filter {
	g, err := newFilter(f.Shape(), f.width, f.minInc, f.view != nil, f.Seed(), f.Scheme())
	if err != nil {
		return &Filter{} // f is a zero Filter: its clone is one too
	}
	copy(g.counters, f.counters)
	copy(g.bits, f.bits)
	g.count, g.sat = f.count, f.sat
	return g
}

// Equal reports whether g has the same configuration and counters as f.
// Len, change tracking and whether the filters keep a bit view are not
// compared.
func (f *Filter) Equal(g *Filter) bool {
	return f.Compatible(g) == nil && slices.Equal(f.counters, g.counters)
}

// Clear removes every key. The change tracker sees every bit that goes
// off.
func (f *Filter) Clear() {
	clear(f.counters)
	for i, w := range f.bits {
		if w == 0 {
			continue
		}
		if f.track.state == trackList {
			f.track.note(uint64(i), f.bits)
		}
		f.bits[i] = 0
	}
	f.count, f.sat = 0, 0
}
