// Package bloomier implements Bloomier filters (Chazelle, Kilian,
// Rubinfeld and Tal, "The Bloomier filter: an efficient data structure for
// static support lookup tables", SODA 2004): a static function from a set
// of keys to r-bit values. Get returns the stored value for a key of the
// set; for any other key it returns an arbitrary value, unless a check of
// c bits (a fingerprint of the key) tells it the key is absent, which it
// does for all but a fraction 2^−c of absent keys.
//
// Each key x has three cells, one in each of three consecutive segments of
// a table, and the table is filled so that the XOR of x's three cells
// spells x's check and value. Construction peels the 3-uniform hypergraph
// whose vertices are cells and whose edges are keys (Molloy, "Cores in
// random hypergraphs and Boolean formulas", Random Structures and
// Algorithms 27(1), 2005; Botelho, Pagh and Ziviani, "Simple and
// space-efficient minimal perfect hash functions", WADS 2007): repeatedly
// take a cell that only one remaining key uses, make it that key's own
// cell and remove the key; then, in reverse order, set each key's own cell
// so that its XOR comes out right. The table has about 1.23n cells spread
// over three segments, as in the xor filter (Graf and Lemire, "Xor
// filters: faster and smaller than Bloom and cuckoo filters", JEA 2020),
// or, for larger n, about 1.13n over many overlapping segments, as in the
// binary fuse filter (Graf and Lemire, "Binary fuse filters: fast and
// smaller than xor filters", JEA 2022; the spatial coupling of Dietzfelbinger
// and Walzer, "Dense peelable random uniform hypergraphs", ESA 2019): each
// key picks a window of three consecutive segments. The construction picks
// whichever is smaller. If peeling fails (the hypergraph has a 2-core) it
// retries with a new salt, at most Config.MaxAttempts times, and then
// returns [ErrBuild].
//
// A static filter stores check and value together, r + c bits per cell:
// about 1.13–1.23·n·(r + c) bits. An updatable filter (Config.Updatable)
// follows the mutable construction of Chazelle et al.: one table holds,
// XOR-coded, the check and which of the three cells is the key's own
// (2 bits), and a second table holds each key's value directly in its own
// cell, where Update can change it in place without disturbing any other
// key. It costs 2 bits per cell more; the index value 3 is never stored,
// so an absent key also fails with probability 1/4 on the index, and the
// false-positive rate is (3/4)·2^−c.
//
// Keys are hashed once to a [hashing.Hash128] with the filter's seed; Get
// and Update have ...Hash forms that allocate nothing. Filters travel in
// the bloomcast frame as structure type 4 (docs/FORMAT.md).
package bloomier

import (
	"errors"
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/hashing"
)

// Limits.
const (
	// MaxKeys is the largest key set Build accepts (2^31).
	MaxKeys = 1 << 31
	// MaxCells bounds the table a decoder accepts (2^33 cells).
	MaxCells = 1 << 33
	// DefaultAttempts is the number of salts Build tries when
	// Config.MaxAttempts is 0.
	DefaultAttempts = 32
)

// Errors. Functions wrap them with details; test with errors.Is.
var (
	ErrConfig   = errors.New("bloomier: invalid configuration")
	ErrValue    = errors.New("bloomier: value does not fit")
	ErrConflict = errors.New("bloomier: key given twice with different values")
	ErrBuild    = errors.New("bloomier: construction failed")
	ErrStatic   = errors.New("bloomier: filter is not updatable")
	ErrAbsent   = errors.New("bloomier: key is not in the filter")
	ErrCorrupt  = errors.New("bloomier: corrupt encoding")
)

// ConflictError names the two entries (indexes into the keys given to
// Build) that have the same key and different values. It wraps
// [ErrConflict].
// The zero value names entries 0 and 0; Build returns one with both set.
type ConflictError struct {
	First, Second int
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%v: entries %d and %d", ErrConflict, e.First, e.Second)
}

func (e *ConflictError) Unwrap() error { return ErrConflict }

// ValueError names the entry (an index into the values given to Build)
// whose value is wider than Config.ValueBits: the entry with the largest
// value, the first of them if it repeats. It wraps ErrValue. The zero
// ValueError names entry 0, of value 0, and widths 0.
type ValueError struct {
	Index int
	Value uint64
	// Bits is the value's width, more than ValueBits.
	Bits, ValueBits int
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("%v: value %d of entry %d has %d bits, more than %d", ErrValue, e.Value, e.Index, e.Bits, e.ValueBits)
}

func (e *ValueError) Unwrap() error { return ErrValue }

// Config describes a filter.
// The zero Config builds a static filter whose values are as wide as the
// widest value given and which has no check (every absent key gets an
// arbitrary value), with seed 0.
type Config struct {
	// ValueBits is r, the width of the values, 1..64. Zero means the
	// width of the widest value given to Build (at least 1 bit).
	ValueBits int
	// CheckBits is c, the width of the check: an absent key is reported
	// present with probability 2^−c ((3/4)·2^−c if Updatable). 0..64−r
	// for a static filter, 0..62 for an updatable one.
	CheckBits int
	// Updatable keeps values in a table of their own so that Update can
	// change them in place, at 2 bits per cell more.
	Updatable bool
	// Seed is the hashing seed, recorded in the encoding.
	Seed uint64
	// MaxAttempts bounds the salts construction tries before it gives up;
	// 0 means DefaultAttempts.
	MaxAttempts int
}

func (c Config) validate() error {
	switch {
	case c.ValueBits < 1 || c.ValueBits > 64:
		return fmt.Errorf("%w: ValueBits = %d outside [1, 64]", ErrConfig, c.ValueBits)
	case c.CheckBits < 0:
		return fmt.Errorf("%w: CheckBits = %d is negative", ErrConfig, c.CheckBits)
	case c.Updatable && c.CheckBits > 62:
		return fmt.Errorf("%w: CheckBits = %d above 62 for an updatable filter", ErrConfig, c.CheckBits)
	case !c.Updatable && c.CheckBits > 64-c.ValueBits:
		// Compared as 64 − ValueBits and summed as uint: the int sum
		// overflows for a huge CheckBits.
		return fmt.Errorf("%w: ValueBits + CheckBits = %d above 64 for a static filter (an updatable one takes up to 64 + 62)", ErrConfig, uint(c.ValueBits)+uint(c.CheckBits))
	case c.MaxAttempts < 0:
		return fmt.Errorf("%w: MaxAttempts = %d is negative", ErrConfig, c.MaxAttempts)
	}
	return nil
}

// Filter is a Bloomier filter. Get is safe for concurrent use; Update is
// not safe concurrently with anything else.
//
// The zero Filter holds no keys: Get reports false, Update returns ErrStatic
// and the encoders return an error wrapping ErrConfig; make one with Build
// or a decoder.
type Filter struct {
	r, c      int  // value and check bits
	updatable bool // values in vals, index and check in cells
	seed      uint64
	salt      uint64 // the construction attempt's salt
	n         uint64 // keys
	segLen    uint64
	segCount  uint64 // windows; the table has segCount+2 segments
	cells     packed // static: check<<r | value; updatable: check<<2 | own index
	vals      packed // updatable: the value of the key whose own cell this is
}

// layout returns the segment length and the number of windows for n keys:
// the xor filter's three segments of (1.23n + 32)/3 cells, or the binary
// fuse filter's segments of 2^⌊ln n/ln 3.33 + 2.25⌋ cells (at most 2^18)
// and about max(1.125, 0.875 + 0.25·ln 10^6/ln n)·n cells in all (Graf and
// Lemire 2022, whose parameters keep peeling failures rare), whichever
// has fewer cells.
func layout(n uint64) (segLen, segCount uint64) {
	segLen, segCount = (n*123/100+32+2)/3, 1
	if n < 2 {
		return segLen, segCount
	}
	ln := math.Log(float64(n))
	l := uint64(1) << min(18, int(ln/math.Log(3.33)+2.25))
	size := uint64(math.Ceil(float64(n) * max(1.125, 0.875+0.25*math.Log(1e6)/ln)))
	s := max(1, (size+l-1)/l-2)
	if (s+2)*l < 3*segLen {
		return l, s
	}
	return segLen, segCount
}

// windowOf returns the window of h: the first of its three segments.
func (f *Filter) windowOf(h hashing.Hash128) uint64 {
	p := hashing.NewProbes(hashing.Hash128{Lo: h.Lo ^ f.salt, Hi: h.Hi})
	return hashing.Reduce(p.Next(), f.segCount)
}

// cellsOf returns h's three cells, one in each segment of its window: the
// first four values of the probe sequence (hashing.Probes) of h with the
// salt XORed into its low half, reduced by multiply-shift.
func (f *Filter) cellsOf(h hashing.Hash128) (c0, c1, c2 uint64) {
	p := hashing.NewProbes(hashing.Hash128{Lo: h.Lo ^ f.salt, Hi: h.Hi})
	base := hashing.Reduce(p.Next(), f.segCount) * f.segLen
	c0 = base + hashing.Reduce(p.Next(), f.segLen)
	c1 = base + f.segLen + hashing.Reduce(p.Next(), f.segLen)
	c2 = base + 2*f.segLen + hashing.Reduce(p.Next(), f.segLen)
	return c0, c1, c2
}

// fingerprint returns the 64-bit fingerprint h's check comes from:
// Finalize(Hi XOR salt).
func (f *Filter) fingerprint(h hashing.Hash128) uint64 { return hashing.Finalize(h.Hi ^ f.salt) }

// check returns the c-bit check of a fingerprint: its top c bits.
func (f *Filter) check(fp uint64) uint64 {
	if f.c == 0 {
		return 0
	}
	return fp >> (64 - f.c)
}

// Hash returns the hash of key under the filter's seed.
func (f *Filter) Hash(key []byte) hashing.Hash128 { return hashing.SumSeed(key, f.seed) }

// HashString is Hash for a string key.
func (f *Filter) HashString(key string) hashing.Hash128 { return hashing.SumStringSeed(key, f.seed) }

// Get returns key's value and true, or false if the check shows that key
// is not in the set. For a key outside the set that passes the check
// (probability FalsePositiveRate), the value is arbitrary.
func (f *Filter) Get(key []byte) (uint64, bool) { return f.GetHash(f.Hash(key)) }

// GetString is Get for a string key.
func (f *Filter) GetString(key string) (uint64, bool) { return f.GetHash(f.HashString(key)) }

// GetHash is Get for a hashed key. It allocates nothing.
func (f *Filter) GetHash(h hashing.Hash128) (uint64, bool) {
	if f.segLen == 0 { // the zero Filter: no cells, no keys
		return 0, false
	}
	c0, c1, c2 := f.cellsOf(h)
	fp := f.fingerprint(h)
	x := f.cells.Get(c0) ^ f.cells.Get(c1) ^ f.cells.Get(c2)
	if !f.updatable {
		return x & (^uint64(0) >> (64 - f.r)), x>>f.r == f.check(fp)
	}
	own, ok := f.own(x, fp, c0, c1, c2)
	if !ok {
		return 0, false
	}
	return f.vals.Get(own), true
}

// own decodes an updatable filter's XOR of index cells: the key's own
// cell, and false if the index is 3 or the check fails.
func (f *Filter) own(x, fp, c0, c1, c2 uint64) (uint64, bool) {
	if x>>2 != f.check(fp) {
		return 0, false
	}
	switch x & 3 {
	case 0:
		return c0, true
	case 1:
		return c1, true
	case 2:
		return c2, true
	}
	return 0, false
}

// Update sets key's value in place. key must be in the set the filter was
// built from: Update returns an error wrapping ErrAbsent if the check
// shows it is not, but an absent key that passes the check (probability
// FalsePositiveRate) overwrites the value of some key of the set. It
// returns ErrStatic for a filter built without Config.Updatable and
// ErrValue for a value of more than ValueBits bits.
func (f *Filter) Update(key []byte, value uint64) error { return f.UpdateHash(f.Hash(key), value) }

// UpdateString is Update for a string key.
func (f *Filter) UpdateString(key string, value uint64) error {
	return f.UpdateHash(f.HashString(key), value)
}

// UpdateHash is Update for a hashed key. It allocates nothing when it
// succeeds.
func (f *Filter) UpdateHash(h hashing.Hash128, value uint64) error {
	if !f.updatable {
		return ErrStatic
	}
	if value>>(f.r-1)>>1 != 0 {
		return fmt.Errorf("%w: %d has more than %d bits", ErrValue, value, f.r)
	}
	c0, c1, c2 := f.cellsOf(h)
	fp := f.fingerprint(h)
	own, ok := f.own(f.cells.Get(c0)^f.cells.Get(c1)^f.cells.Get(c2), fp, c0, c1, c2)
	if !ok {
		return ErrAbsent
	}
	f.vals.Set(own, value)
	return nil
}

// UpdateHashes is UpdateHash for several hashed keys, all or nothing:
// unless every value fits in ValueBits bits and the check shows every key
// in the set, it changes nothing. It returns the indexes of the keys the
// check shows absent, with an error wrapping ErrAbsent; ErrStatic for a
// filter built without Config.Updatable; ErrValue naming the first value
// too wide; and ErrConfig when hs and values differ in length. Later
// entries win over earlier ones for the same key.
func (f *Filter) UpdateHashes(hs []hashing.Hash128, values []uint64) (absent []int, err error) {
	switch {
	case !f.updatable:
		return nil, ErrStatic
	case len(hs) != len(values):
		return nil, fmt.Errorf("%w: %d keys and %d values", ErrConfig, len(hs), len(values))
	}
	for i, v := range values {
		if v>>(f.r-1)>>1 != 0 {
			return nil, fmt.Errorf("%w: entry %d: %d has more than %d bits", ErrValue, i, v, f.r)
		}
	}
	for i, h := range hs {
		c0, c1, c2 := f.cellsOf(h)
		if _, ok := f.own(f.cells.Get(c0)^f.cells.Get(c1)^f.cells.Get(c2), f.fingerprint(h), c0, c1, c2); !ok {
			absent = append(absent, i)
		}
	}
	if len(absent) > 0 {
		return absent, fmt.Errorf("%w: %d of %d keys", ErrAbsent, len(absent), len(hs))
	}
	for i, h := range hs {
		if err := f.UpdateHash(h, values[i]); err != nil {
			return nil, err // not reached: every key and value was checked
		}
	}
	return nil, nil
}

// Len returns the number of keys the filter was built from.
func (f *Filter) Len() uint64 { return f.n }

// Cells returns the number of cells of the table.
func (f *Filter) Cells() uint64 { return (f.segCount + 2) * f.segLen }

// ValueBits returns r.
func (f *Filter) ValueBits() int { return f.r }

// CheckBits returns c.
func (f *Filter) CheckBits() int { return f.c }

// Updatable reports whether values can be changed in place.
func (f *Filter) Updatable() bool { return f.updatable }

// Seed returns the hashing seed.
func (f *Filter) Seed() uint64 { return f.seed }

// CellBits returns the bits per cell: r + c, or r + c + 2 if updatable.
func (f *Filter) CellBits() int {
	if f.updatable {
		return f.r + f.c + 2
	}
	return f.r + f.c
}

// SizeBits returns the size of the tables in bits, Cells·CellBits.
func (f *Filter) SizeBits() uint64 { return f.Cells() * uint64(f.CellBits()) }

// BitsPerKey returns SizeBits/Len (+Inf for an empty filter).
func (f *Filter) BitsPerKey() float64 { return float64(f.SizeBits()) / float64(f.n) }

// FalsePositiveRate returns the probability that Get reports a key
// outside the set as present: 2^−c, or (3/4)·2^−c if updatable.
func (f *Filter) FalsePositiveRate() float64 {
	p := math.Ldexp(1, -f.c)
	if f.updatable {
		p *= 0.75
	}
	return p
}
