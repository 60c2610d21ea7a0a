package mht

import (
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"slices"

	"github.com/bloomcast/bloomcast/hashing"
)

// Limits.
const (
	// MaxLevels is the largest number of sub-tables, d.
	MaxLevels = 16
	// MaxBuckets bounds a table's total buckets (2^32).
	MaxBuckets = 1 << 32
)

// Errors. Functions wrap them with details; test with errors.Is.
var (
	ErrConfig    = errors.New("mht: invalid configuration")
	ErrCrisis    = errors.New("mht: crisis: every bucket for the key is full")
	ErrCollision = errors.New("mht: summary construction failed: two items share a hash")
	ErrSummary   = errors.New("mht: summary does not fit the table")
	ErrNoDelete  = errors.New("mht: the summary cannot delete (use a counting summary or Config.LazyDelete)")
	ErrCorrupt   = errors.New("mht: corrupt encoding")
)

// Config describes a table: either Sizes, or Levels sub-tables of First,
// First·Ratio, First·Ratio², … buckets.
// The zero Config is not valid: New reports ErrConfig, as it gives neither
// Sizes nor Levels and First.
type Config struct {
	// Sizes are the sub-table sizes m_1..m_d, each ≥ 1. When set, First,
	// Ratio and Levels must be zero.
	Sizes []uint64
	// First is m_1, Ratio (in (0, 1], default 1/2) the ratio of
	// successive sizes, Levels the number of sub-tables d.
	First  uint64
	Ratio  float64
	Levels int
	// Seed is the hashing seed of Hash and HashString.
	Seed uint64
	// LazyDelete > 0 makes deletion lazy: a deleted item's bucket is
	// marked, not emptied, and the table and its summary are rebuilt once
	// LazyDelete items are marked.
	LazyDelete int
}

func (c Config) sizes() ([]uint64, error) {
	s := c.Sizes
	if len(s) == 0 {
		r := c.Ratio
		if r == 0 {
			r = 0.5
		}
		var err error
		if s, err = GeometricSizes(c.First, r, c.Levels); err != nil {
			return nil, err
		}
	} else if c.First != 0 || c.Ratio != 0 || c.Levels != 0 {
		return nil, fmt.Errorf("%w: give Sizes or First, Ratio and Levels, not both", ErrConfig)
	}
	if err := checkSizes(s); err != nil {
		return nil, err
	}
	if c.LazyDelete < 0 {
		return nil, fmt.Errorf("%w: LazyDelete = %d is negative", ErrConfig, c.LazyDelete)
	}
	return append([]uint64(nil), s...), nil
}

func checkSizes(s []uint64) error {
	if len(s) < 1 || len(s) > MaxLevels {
		return fmt.Errorf("%w: %d sub-tables, want 1 to %d", ErrConfig, len(s), MaxLevels)
	}
	total := uint64(0)
	for i, m := range s {
		if m < 1 || m > MaxBuckets {
			return fmt.Errorf("%w: sub-table %d has %d buckets", ErrConfig, i+1, m)
		}
		total += m
	}
	if total > MaxBuckets {
		return fmt.Errorf("%w: %d buckets in all, above %d", ErrConfig, total, uint64(MaxBuckets))
	}
	return nil
}

// item is one bucket's content.
type item struct {
	key hashing.Hash128
	val uint64
}

// level is one sub-table.
type level struct {
	m     uint64
	used  []uint64 // a bit per bucket: holds an item (live or lazily deleted)
	gone  []uint64 // a bit per bucket: lazily deleted
	items []item
	count uint64 // buckets used
}

func newLevel(m uint64) level {
	w := (m + 63) / 64
	return level{m: m, used: make([]uint64, w), gone: make([]uint64, w), items: make([]item, m)}
}

func (l *level) isUsed(b uint64) bool { return l.used[b>>6]&(1<<(b&63)) != 0 }
func (l *level) isGone(b uint64) bool { return l.gone[b>>6]&(1<<(b&63)) != 0 }

// live reports whether bucket b holds key h, not deleted.
func (l *level) live(b uint64, h hashing.Hash128) bool {
	return l.isUsed(b) && !l.isGone(b) && l.items[b].key == h
}

// Table is a multilevel hash table with an optional summary.
//
// The zero Table has no sub-tables: lookups miss, Delete finds nothing,
// Insert returns ErrCrisis and the encoders return an error wrapping
// ErrConfig; make one with New or a decoder.
type Table struct {
	levels  []level
	seed    uint64
	lazy    int
	deleted int // items lazily deleted
	count   int // live items
	summary Summary
	stats   Stats
}

// New returns an empty table.
func New(c Config) (*Table, error) {
	s, err := c.sizes()
	if err != nil {
		return nil, err
	}
	t := &Table{seed: c.Seed, lazy: c.LazyDelete}
	for _, m := range s {
		t.levels = append(t.levels, newLevel(m))
	}
	return t, nil
}

// MustNew is New for configurations known to be valid; it panics on error.
func MustNew(c Config) *Table {
	t, err := New(c)
	if err != nil {
		panic(err)
	}
	return t
}

// Hash returns the hash of key with the table's seed.
func (t *Table) Hash(key []byte) hashing.Hash128 { return hashing.SumSeed(key, t.seed) }

// HashString returns the hash of key with the table's seed.
func (t *Table) HashString(key string) hashing.Hash128 { return hashing.SumStringSeed(key, t.seed) }

// Seed returns the hashing seed.
func (t *Table) Seed() uint64 { return t.seed }

// Levels returns d, the number of sub-tables.
func (t *Table) Levels() int { return len(t.levels) }

// Sizes returns the sub-table sizes.
func (t *Table) Sizes() []uint64 {
	s := make([]uint64, len(t.levels))
	for i := range t.levels {
		s[i] = t.levels[i].m
	}
	return s
}

// Buckets returns the total number of buckets.
func (t *Table) Buckets() uint64 {
	n := uint64(0)
	for i := range t.levels {
		n += t.levels[i].m
	}
	return n
}

// Len returns the number of items (not counting lazily deleted ones).
func (t *Table) Len() int { return t.count }

// Deleted returns the number of lazily deleted items awaiting a rebuild.
func (t *Table) Deleted() int { return t.deleted }

// Occupancy returns the number of buckets in use in each sub-table,
// lazily deleted items included.
func (t *Table) Occupancy() []uint64 {
	o := make([]uint64, len(t.levels))
	for i := range t.levels {
		o[i] = t.levels[i].count
	}
	return o
}

// Summary returns the table's summary, or nil.
func (t *Table) Summary() Summary { return t.summary }

// find probes every sub-table for h and returns the (0-based) sub-table
// and bucket holding it, with gone telling a lazily deleted item; i is −1
// when h is not there.
func (t *Table) find(h hashing.Hash128) (i int, b uint64, gone bool) {
	p := hashing.NewProbes(h)
	for i := range t.levels {
		l := &t.levels[i]
		b := hashing.Reduce(p.Next(), l.m)
		if l.isUsed(b) && l.items[b].key == h {
			return i, b, l.isGone(b)
		}
	}
	return -1, 0, false
}

// Insert stores value under the key whose hash is h. An existing key gets
// the new value in place (a lazily deleted one comes back). Otherwise the
// item goes to the first sub-table whose bucket is empty; when none is,
// Insert returns an error wrapping [ErrCrisis] and changes nothing. When
// the summary refuses the item (interpolation search's [ErrCollision]),
// the item is taken out again and the error returned.
func (t *Table) Insert(h hashing.Hash128, value uint64) error {
	if i, b, gone := t.find(h); i >= 0 {
		l := &t.levels[i]
		l.items[b].val = value
		if gone {
			l.gone[b>>6] &^= 1 << (b & 63)
			t.deleted--
			t.count++
		}
		return nil
	}
	p := hashing.NewProbes(h)
	for i := range t.levels {
		l := &t.levels[i]
		b := hashing.Reduce(p.Next(), l.m)
		if l.isUsed(b) {
			continue
		}
		if t.summary != nil {
			if err := t.summary.Add(h, i+1); err != nil {
				return err
			}
		}
		l.used[b>>6] |= 1 << (b & 63)
		l.items[b] = item{key: h, val: value}
		l.count++
		t.count++
		return nil
	}
	return fmt.Errorf("%w (%d sub-tables)", ErrCrisis, len(t.levels))
}

// InsertString stores value under key.
func (t *Table) InsertString(key string, value uint64) error {
	return t.Insert(t.HashString(key), value)
}

// Delete removes the key whose hash is h and reports whether it was there.
// With lazy deletion the bucket is marked and, at the threshold, the
// table rebuilt; otherwise the item leaves its bucket and the summary,
// which must be able to delete ([ErrNoDelete]; nothing changes then).
func (t *Table) Delete(h hashing.Hash128) (bool, error) {
	i, b, gone := t.find(h)
	if i < 0 || gone {
		return false, nil
	}
	l := &t.levels[i]
	if t.lazy > 0 {
		l.gone[b>>6] |= 1 << (b & 63)
		t.deleted++
		t.count--
		if t.deleted >= t.lazy {
			return true, t.Rebuild()
		}
		return true, nil
	}
	if t.summary != nil {
		if err := t.summary.Remove(h, i+1); err != nil {
			return false, err
		}
	}
	l.used[b>>6] &^= 1 << (b & 63)
	l.items[b] = item{}
	l.count--
	t.count--
	return true, nil
}

// DeleteString removes key.
func (t *Table) DeleteString(key string) (bool, error) { return t.Delete(t.HashString(key)) }

// All iterates over the live items in order of sub-table and bucket.
func (t *Table) All() iter.Seq2[hashing.Hash128, uint64] {
	return func(yield func(hashing.Hash128, uint64) bool) {
		t.each(func(_ int, it item) bool { return yield(it.key, it.val) })
	}
}

// each calls f with the (1-based) type and item of every live item.
func (t *Table) each(f func(typ int, it item) bool) {
	for i := range t.levels {
		l := &t.levels[i]
		for w, word := range l.used {
			word &^= l.gone[w]
			for word != 0 {
				b := uint64(w)<<6 | uint64(bits.TrailingZeros64(word))
				word &= word - 1
				if !f(i+1, l.items[b]) {
					return
				}
			}
		}
	}
}

// SetSummary attaches s (nil detaches the summary): s is cleared and
// filled with the table's items. If s does not fit the table or refuses
// an item, the table keeps its previous summary and the error is returned
// (s is left cleared).
func (t *Table) SetSummary(s Summary) error {
	if s == nil {
		t.summary = nil
		return nil
	}
	if err := t.fits(s); err != nil {
		return err
	}
	s.Clear()
	var err error
	if in, ok := s.(*Interp); ok {
		err = t.fillInterp(in)
	} else {
		t.each(func(typ int, it item) bool {
			err = s.Add(it.key, typ)
			return err == nil
		})
	}
	if err != nil {
		s.Clear()
		return err
	}
	t.summary = s
	return nil
}

// fits checks that s has the table's number of levels (and, for Song's
// counters, its sizes).
func (t *Table) fits(s Summary) error {
	if s.Levels() != len(t.levels) {
		return fmt.Errorf("%w: summary of %d types for %d sub-tables", ErrSummary, s.Levels(), len(t.levels))
	}
	if sg, ok := s.(*Song); ok {
		for i, m := range sg.sizes {
			if m != t.levels[i].m {
				return fmt.Errorf("%w: Song counters sized for %v, table has %v", ErrSummary, sg.sizes, t.Sizes())
			}
		}
	}
	return nil
}

// Rebuild drops the lazily deleted items: it places the live items again
// in a fresh table, in order of sub-table and bucket (which cannot cause a
// crisis: no item moves to a later sub-table), and refills the summary.
// If the summary refuses an item, the table is left as it was, with its
// summary refilled; if the summary cannot even be refilled, it is
// detached (Summary returns nil) and the error says so.
func (t *Table) Rebuild() error {
	fresh := &Table{seed: t.seed, lazy: t.lazy}
	for i := range t.levels {
		fresh.levels = append(fresh.levels, newLevel(t.levels[i].m))
	}
	var err error
	t.each(func(_ int, it item) bool {
		err = fresh.Insert(it.key, it.val)
		return err == nil
	})
	if err != nil {
		return err
	}
	if t.summary != nil {
		if err := fresh.SetSummary(t.summary); err != nil {
			// The failed fill cleared the summary: refill it from the
			// unchanged table. If that fails too, a cleared summary
			// would hide the table's items, so it is detached.
			if rerr := t.SetSummary(t.summary); rerr != nil {
				t.summary = nil
				return errors.Join(err, fmt.Errorf("mht: summary detached: %w", rerr))
			}
			return err
		}
	}
	fresh.stats = t.stats
	*t = *fresh
	return nil
}

// fillInterp builds an interpolation-search summary in one sort instead
// of n sorted insertions.
func (t *Table) fillInterp(s *Interp) error {
	t.each(func(typ int, it item) bool {
		s.words = append(s.words, s.fingerprint(it.key)|uint64(typ-1))
		return true
	})
	slices.Sort(s.words)
	mask := s.hashMask()
	for i := 1; i < len(s.words); i++ {
		if s.words[i-1]&mask == s.words[i]&mask {
			return fmt.Errorf("%w (%d-bit hashes)", ErrCollision, s.b)
		}
	}
	return nil
}
