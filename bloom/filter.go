// Package bloom implements Bloom filters (Bloom, "Space/time trade-offs in
// hash coding with allowable errors", CACM 1970) in four layouts, with set
// algebra, estimates, batch and concurrent forms, and the bloomcast wire
// format.
//
// Layouts (see [params.Layout]):
//
//   - Classic: k probes anywhere in the m-bit array.
//   - Partitioned: k slices of m/k bits, one probe in each.
//   - Blocked: one 512-bit block (a cache line) per key, all k probes inside
//     it, so a query costs one memory miss (Putze, Sanders and Singler,
//     "Cache-, hash- and space-efficient Bloom filters", 2007).
//   - Paged: the "external memory" filter of the seed survey: a first hash
//     picks a block of BlockBits bits (a 4 KiB page by default), the k probes
//     stay inside it.
//
// # Which type do I want?
//
//   - A set of keys known in advance, or growing to a known bound: Filter
//     (New), or Concurrent for adds from many goroutines.
//   - Keys that must also be removed: counting.Filter (a counter per
//     position); counting.DeletionFilter when a removed key may stay
//     removed for good at a fraction of the memory.
//   - No bound known in advance: scalable.Filter, which adds layers as it
//     fills and keeps the rate below its target.
//   - The smallest set for a rate, static once built: fpset (sorted or
//     Golomb–Rice coded fingerprints).
//   - A value per key rather than membership: bloomier (a Bloomier
//     filter) or mht (multilevel hash tables).
//   - A filter another program reads or wrote: formats/guava,
//     formats/bitsandblooms, formats/parquet, formats/squid; package
//     anyfile reads any of them.
//
// Every one adds with Add and answers membership with Contains (the
// foreign formats keep their own names, Test, Check, Insert, as
// aliases). New's defaults are the bloomcast command's (1% without P)
// except the layout, which New's doc explains.
//
// Keys are hashed once to a [hashing.Hash128]; every operation also has a
// ...Hash form that takes the hash, so a caller can hash once and probe many
// filters that share a seed. Those forms allocate nothing.
//
// A Filter is not safe for concurrent mutation; [Concurrent] is.
//
// A filter sized by Config.N and Config.P (the optimal k, about half its
// bits set) is as dense as a random array and does not compress. A filter
// that is sent, as a digest, should be shaped for transmission: a larger,
// sparser array with fewer hash functions, from params.OptimizeTarget or
// params.OptimizeTransmit, given as Config.M and Config.K; package digest
// then codes it in about m·H(p) bits. docs/LIBRARY.md ("A filter whose
// digest compresses") measures the difference.
//
// On amd64 CPUs with AVX-512 the blocked layout's queries test eight probes
// per instruction (assembly, blockprobe_amd64.s); the batch operations
// prefetch the lines of the next group of keys while they answer the
// current one. Build with the purego tag for the pure-Go forms, which give
// the same answers.
package bloom

//go:generate go run ../internal/xxh3asm/genheader

import (
	"errors"
	"fmt"
	"github.com/bloomcast/bloomcast/internal/hugepage"
	"math"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// Layout says how a filter places a key's probes.
// The zero value is no layout; a zero Config.Layout means Classic.
type Layout = params.Layout

// The layouts.
const (
	Classic     = params.Classic
	Partitioned = params.Partitioned
	Blocked     = params.Blocked
	Paged       = params.Paged
)

// MaxBits is the largest filter this package builds or decodes (2^40 bits,
// 128 GiB).
const MaxBits = 1 << 40

// MaxPageBits is the largest page of the Paged layout that New accepts:
// 2^24 bits, a 2 MiB huge page. The layout's point is one page per key;
// a page larger than the TLB's largest covers nothing more, and since a
// filter has at least one page, a larger page would make even a filter of
// ten keys allocate it whole (BlockBits = 2^40 asked for 128 GiB).
const MaxPageBits = 1 << 24

// Errors. Functions wrap them with details; test with errors.Is.
var (
	ErrConfig       = errors.New("bloom: invalid configuration")
	ErrIncompatible = errors.New("bloom: incompatible filters")
	ErrFold         = errors.New("bloom: cannot fold")
	ErrCorrupt      = errors.New("bloom: corrupt encoding")
	// ErrZero is returned by the methods of a zero Filter, and for a nil
	// *Filter argument, that return an error.
	ErrZero = errors.New("bloom: zero or nil Filter; use New")
)

// Config describes a filter. Give either N and P (the filter is sized for
// at most N keys at false-positive rate P, k chosen by params.Size), or M
// (and optionally K; with K zero it is chosen for N keys, or for M/10 keys
// if N is zero as well). Giving both M and P is an error: a fixed size
// cannot promise a rate. So is K without M, which N and P would override.
//
// The zero Config is not valid (New returns ErrConfig): it gives neither
// N and P nor M.
type Config struct {
	Layout Layout  // zero means Classic (New says why)
	N      uint64  // expected number of keys
	P      float64 // target false-positive rate, in (0, 1); zero with N means DefaultP
	M      uint64  // bits; rounded up to the layout's granularity
	K      int     // probes per key, 1..params.MaxK
	// BlockBits is the page size of the Paged layout in bits, a multiple
	// of 64 and at most MaxPageBits; zero means params.DefaultPageBits
	// (4 KiB). Other layouts ignore it.
	BlockBits uint64
	// Seed is the hashing seed, recorded in the encoding. A secret seed
	// keeps adversaries from crafting keys that collide.
	Seed uint64
	// Scheme derives hashes and probes; nil means hashing.Default, which
	// the filter runs inline.
	Scheme hashing.Scheme
	// Folds is how many times the filter must be able to halve (Fold,
	// FoldTo): M is rounded up so that the layout's range (bits, bits per
	// slice, or blocks) is a multiple of 2^Folds. Zero leaves M as sized,
	// which may not halve even once (an odd number of blocks). A sender
	// that builds large and folds to fit a message sets it; DefaultFolds
	// is what bloomcast build uses. It costs at most 2^Folds − 1 units of
	// the range (blocks, for Blocked and Paged), so with DefaultFolds at
	// most 1% more bits for filters of 1500 units or more.
	Folds int
}

// DefaultP is the false-positive rate a Config with N and no P or M is
// sized for: 1%, the rate "bloomcast build" targets without -p.
const DefaultP = 0.01

// DefaultFolds is the folding headroom bloomcast build gives every filter
// unless told otherwise (Config.Folds): the filter can be folded to 1/16
// of its size.
const DefaultFolds = 4

// Filter is a Bloom filter. It has the methods of its [Geometry]: Shape,
// M, K, Layout, BlockBits, Seed, Scheme, Hash, HashString, Positions,
// ProbeRange and Inline (stable API; Geometry says why).
//
// The zero Filter is not usable: make one with New, NewView or a decoder.
// On a zero Filter the methods that return an error return ErrZero; the
// per-key methods (Add, Contains and their forms), which have no error to
// return, panic with "bloom: zero Geometry or Filter; use NewGeometry or
// New", at no cost on their paths for a filter made by New; the
// accessors and estimates return zeros.
//
// Queries (Contains and its forms, the estimates, Equal, Clone and the
// encoders) are safe for concurrent use while nothing modifies the
// filter; Add, TestAndAdd, Union, Fold and the other changes are not
// ([Concurrent] takes adds from many goroutines).
type Filter struct {
	geometry // where keys fall; promotes Shape, M, K, Layout, Hash, Positions, ...
	words    []uint64
	readOnly bool // a view over words owned by someone else (NewView)
	count    uint64
	// estimated: count is an estimate from the bits (after Union,
	// Intersect, Snapshot), not a tally; the encoding carries it.
	estimated bool
}

// New returns an empty filter for c. Its defaults are the command's but
// one: a Config with N and no P is sized for 1% (DefaultP), as "bloomcast
// build" is, but the zero Layout is Classic where the command builds
// Blocked; name Layout: Blocked for the command's filter. Why:
//
// The zero Config.Layout means Classic, and stays so: the classic layout
// is the smallest filter for a rate, the one the literature's formulas
// (params) describe, and the bit array Squid's Cache Digests and other
// implementations exchange, so a Config that names no layout builds what
// a reader of the paper or a Squid peer expects. The bloomcast command
// builds Blocked unless told otherwise, because its filters serve
// queries: the blocked layout reads one cache line per key and is 1.2–2.8
// times as fast as the classic one for 3–9% more memory
// (docs/BENCHMARKS.md, "Choosing a layout"). Name the layout to choose.
//
// On Linux an array of 4 MiB or more is allocated on transparent huge pages
// where the system grants them (internal/hugepage): out-of-cache queries then
// miss the TLB less often, and the kernel may commit the whole array when
// it is made rather than as it fills.
func New(c Config) (*Filter, error) {
	shape, err := c.shape()
	if err != nil {
		return nil, err
	}
	return newFilter(shape, c.Seed, c.Scheme), nil
}

// MustNew is New for configurations known to be valid; it panics on error.
func MustNew(c Config) *Filter {
	f, err := New(c)
	if err != nil {
		panic(err)
	}
	return f
}

// Shape returns the shape New builds for c (layout, bits after rounding,
// probes, block size), or New's error, without allocating the bit array.
// A structure that keeps a filter's bits elsewhere (a shared filter in a
// key-value store, say) sizes itself with it, so that its array is
// bit-for-bit the one a Filter of the same Config holds.
func (c Config) Shape() (params.Shape, error) { return c.shape() }

func (c Config) shape() (params.Shape, error) {
	layout := c.Layout
	if layout == 0 {
		layout = Classic
	}
	if !layout.Valid() {
		return params.Shape{}, fmt.Errorf("%w: unknown layout %d", ErrConfig, layout)
	}
	block := c.BlockBits
	switch layout {
	case Blocked:
		block = params.BlockedBits
	case Paged:
		if block == 0 {
			block = params.DefaultPageBits
		}
		if block > MaxPageBits {
			return params.Shape{}, fmt.Errorf("%w: BlockBits = %d exceeds MaxPageBits = %d", ErrConfig, block, MaxPageBits)
		}
	default:
		block = 0
	}
	if c.M != 0 && c.P != 0 {
		return params.Shape{}, fmt.Errorf("%w: give either N and P, or M (and K); M = %d with P = %g", ErrConfig, c.M, c.P)
	}
	if c.M == 0 {
		// K without M would be ignored: N and P choose k.
		if c.K != 0 {
			return params.Shape{}, fmt.Errorf("%w: give either N and P, or M and K; K = %d without M", ErrConfig, c.K)
		}
		p := c.P
		if p == 0 {
			p = DefaultP
		}
		if c.N == 0 || !(p > 0 && p < 1) {
			return params.Shape{}, fmt.Errorf("%w: give N ≥ 1 and 0 < P < 1, or M", ErrConfig)
		}
		s, err := params.Size(layout, c.N, p, block)
		if err != nil {
			return s, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		return foldable(s, c.Folds)
	}
	s := params.Shape{Layout: layout, M: c.M, K: c.K, BlockBits: block}
	if s.K == 0 {
		n := c.N
		if n == 0 {
			n = max(1, c.M/10)
		}
		s.K = params.BestK(roundUp(s, 1), n)
	}
	s = roundUp(s, s.K)
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return foldable(s, c.Folds)
}

// foldable rounds s.M up so that the range Fold halves is a multiple of
// 2^folds.
func foldable(s params.Shape, folds int) (params.Shape, error) {
	if folds < 0 || folds > 32 {
		return s, fmt.Errorf("%w: Folds = %d outside 0..32", ErrConfig, folds)
	}
	unit := uint64(1) << folds // in units of the range
	switch s.Layout {
	case Partitioned:
		unit *= uint64(s.K)
	case Blocked, Paged:
		unit *= s.BlockBits
	}
	if r := s.M % unit; r != 0 {
		s.M += unit - r
	}
	return s, checkMax(s)
}

// roundUp rounds s.M up to the layout's granularity for k probes.
func roundUp(s params.Shape, k int) params.Shape {
	unit := uint64(1)
	switch s.Layout {
	case Partitioned:
		unit = uint64(max(k, 1))
	case Blocked, Paged:
		unit = max(s.BlockBits, 1)
	}
	if s.M%unit != 0 && s.M < MaxBits {
		s.M += unit - s.M%unit
	}
	return s
}

func checkMax(s params.Shape) error {
	if s.M > MaxBits {
		return fmt.Errorf("%w: %d bits exceeds the maximum of %d", ErrConfig, s.M, uint64(MaxBits))
	}
	return nil
}

// newFilter allocates a filter for a validated shape. Arrays above 32 KiB
// come from the Go heap page-aligned, so blocks of the Blocked layout are
// cache-line aligned where it matters, without unsafe.
func newFilter(s params.Shape, seed uint64, scheme hashing.Scheme) *Filter {
	return newFilterOver(s, seed, scheme, newWords(s.M))
}

// newWords allocates a zeroed bit array of m bits, on huge pages where the
// system grants them (package hugepage).
func newWords(m uint64) []uint64 { return hugepage.Words((m + 63) / 64) }

// newFilterOver makes a filter whose bit array is words.
func newFilterOver(s params.Shape, seed uint64, scheme hashing.Scheme, words []uint64) *Filter {
	return &Filter{geometry: newGeometry(s, seed, scheme), words: words}
}

// Count returns the recorded count, which the encoding carries and the
// predicted rate uses. Add and its forms count every call (duplicates
// included); a writer that knows the distinct keys records them with
// SetCount (bloomcast build does). After Union or Intersect, and in a
// Concurrent's Snapshot, it is the estimate from the bits (EstimateCount,
// rounded), and CountEstimated reports true; Fold keeps it, since the
// folded filter holds the same keys.
func (f *Filter) Count() uint64 { return f.count }

// CountEstimated reports whether Count is an estimate from the bits
// (Swamidass–Baldi, see EstimateCount) rather than a tally of keys added.
// When Saturated is also true, the estimate is only a lower bound.
func (f *Filter) CountEstimated() bool { return f.estimated }

// SetCount sets the recorded count, a tally (CountEstimated is then
// false), which the encoding carries and the estimates use. It is
// metadata, so it may be set on a read-only view (a counting filter's
// published bit view records the keys it holds).
func (f *Filter) SetCount(n uint64) { f.count, f.estimated = n, false }

// SetCountFromBits sets the recorded count to the estimate from the bits
// (EstimateCount, rounded) and marks it so (CountEstimated), for a writer
// that did not tally distinct keys. Like SetCount, it may be used on a
// read-only view.
func (f *Filter) SetCountFromBits() {
	f.count, f.estimated = uint64(math.Round(f.EstimateCount())), true
}

// SizeBytes returns the size of the bit array in bytes.
func (f *Filter) SizeBytes() int { return len(f.words) * 8 }

// Words returns the bit array, bit b at Words()[b/64] >> (b%64) & 1. It
// aliases the filter: callers must not modify it.
func (f *Filter) Words() []uint64 { return f.words }

// Clear removes every key.
func (f *Filter) Clear() {
	f.mustWrite("Clear")
	clear(f.words)
	f.count, f.estimated = 0, false
}

// Clone returns an independent copy: it shares no memory with f, so no
// change to one (or to what its methods return) changes the other. The
// clone of a read-only view is writable.
func (f *Filter) Clone() *Filter {
	g := *f
	g.words = newWords(f.m)
	copy(g.words, f.words)
	g.readOnly = false
	g.ownKeyed()
	return &g
}

// Equal reports whether g has the same geometry, hashing and bits as f.
// Counts are not compared. A nil or zero filter equals none.
func (f *Filter) Equal(g *Filter) bool {
	if f.Compatible(g) != nil {
		return false
	}
	for i, w := range f.words {
		if g.words[i] != w {
			return false
		}
	}
	return true
}

// Compatible returns nil if g can be combined with f (Union, Intersect):
// same layout, size, probes, block size, scheme and seed. The error says
// which differs; it is ErrZero if either is nil or a zero Filter.
func (f *Filter) Compatible(g *Filter) error {
	switch {
	case g == nil || f.scheme == nil || g.scheme == nil:
		return ErrZero
	case f.layout != g.layout:
		return fmt.Errorf("%w: layout %s vs %s", ErrIncompatible, f.layout, g.layout)
	case f.m != g.m:
		return fmt.Errorf("%w: %d vs %d bits", ErrIncompatible, f.m, g.m)
	case f.k != g.k:
		return fmt.Errorf("%w: k = %d vs %d", ErrIncompatible, f.k, g.k)
	case f.blockBits != g.blockBits:
		return fmt.Errorf("%w: block of %d vs %d bits", ErrIncompatible, f.blockBits, g.blockBits)
	case f.scheme.ID() != g.scheme.ID():
		return fmt.Errorf("%w: hashing scheme %d vs %d", ErrIncompatible, f.scheme.ID(), g.scheme.ID())
	case f.seed != g.seed:
		return fmt.Errorf("%w: seed %#x vs %#x", ErrIncompatible, f.seed, g.seed)
	}
	return nil
}

// String summarises the filter.
func (f *Filter) String() string {
	return fmt.Sprintf("bloom.Filter{%s, m=%d, k=%d, count=%d}", f.layout, f.m, f.k, f.count)
}
