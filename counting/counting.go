// Package counting implements counting Bloom filters (Fan, Cao, Almeida and
// Broder, "Summary cache: a scalable wide-area web cache sharing protocol",
// IEEE/ACM ToN 2000) and their spectral queries (Cohen and Matias,
// "Spectral Bloom filters", SIGMOD 2003), with a plain bit view that tracks
// its own changes.
//
// A [Filter] keeps one small saturating counter per bit position of a
// [bloom] layout (Classic, Partitioned, Blocked or Paged): 4-bit counters by
// default, packed sixteen to a 64-bit word, or 8 or 16 bits. Adding a key
// increments its k counters, removing it decrements them, so keys can leave
// the set. The counter of a key's probe is indexed by exactly the bit
// position [bloom.Filter.Positions] gives, so counters and bits can never
// disagree on placement.
//
// Beside the counters the filter keeps the plain bit array up to date: bit b
// is set exactly when counter b is non-zero (it turns on when the counter goes
// 0→1 and off at 1→0, as the Summary Cache proxies do). [Filter.BitView]
// exposes it, without a copy, as a read-only [bloom.Filter] that peers can
// query, encode and compare; [Filter.Mark] and [Filter.ChangedWords] report
// which of its bits changed since a mark, at a cost proportional to the
// changes, so a cache can publish a full digest or only the delta.
//
// Count answers num_occurs by minimum selection, the smallest of the key's
// counters, which is never below the key's multiplicity (unless the counters
// saturated) and is exact whenever some counter of the key is touched by no
// other key, which is as likely as the key not being a false positive of
// the others. With Config.MinimalIncrease an insertion raises only the
// counters equal to the current minimum (Cohen and Matias's minimal
// increase), which gives smaller errors but makes removal impossible.
//
// Counters saturate: one that would pass its maximum stays there and is
// never decremented again, so a saturated filter loses precision but never
// reports a false negative. Fan et al. bound the chance that any counter
// reaches i by m·(e·ln2/i)^i for a filter sized at its optimum
// ([OverflowBoundOptimal]): about 1.37e−15·m for i = 16, the first
// value 4-bit counters cannot hold. [SizeCounters] sizes the counters for
// a load: the expected largest count ([ExpectedMaxCount]) and, for each
// width, the overflow bounds as base-10 logarithms that never underflow.
//
// [DeletionFilter] is the other way to delete, from Tony Finch's notes on
// Bloom filters: a pair of plain Bloom filters, cheaper, with false
// negatives.
//
// The Blocked layout is the fast one: an add or a removal touches one
// 256-byte run of 4-bit counters and one cache line of bits, and a query
// reads the bit view's line only. In the Classic layout each of the k
// probes costs a counter line and a bit line.
//
// A filter built with Config.NoBitView keeps the counters only: it has no
// bit view, so it costs one bit less per counter (4 bits per position
// instead of 5 with 4-bit counters) and one memory line less per probe of
// Add and Remove, and it answers Contains from the counters (a probe is
// present when its counter is non-zero). It is for callers that need
// membership, counts and removal but publish no digests: [Filter.BitView]
// returns nil and the change tracking reports [ErrNoBitView].
//
// A Filter is not safe for concurrent use while it is being modified.
package counting

//go:generate go run ../internal/xxh3asm/genheader

import (
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/hugepage"
	"github.com/bloomcast/bloomcast/internal/xxh3asm"
	"github.com/bloomcast/bloomcast/params"
)

// Errors. Functions wrap them with details; test with errors.Is.
var (
	ErrConfig       = errors.New("counting: invalid configuration")
	ErrNotPresent   = errors.New("counting: key not present")
	ErrNoRemoval    = errors.New("counting: minimal-increase filters cannot remove keys")
	ErrIncompatible = errors.New("counting: incompatible filters")
	// ErrZero is returned by the methods of a zero Filter, and for a nil
	// *Filter argument, that return an error.
	ErrZero      = errors.New("counting: zero or nil Filter; use New")
	ErrNotSubset = errors.New("counting: not a sub-multiset")
	ErrNoMark    = errors.New("counting: no mark set")
	ErrCorrupt   = errors.New("counting: corrupt encoding")
	// ErrNoBitView is returned by the change tracking (ChangedWords,
	// ChangedBits) of a filter built with Config.NoBitView.
	ErrNoBitView = errors.New("counting: filter has no bit view (Config.NoBitView)")
)

// DefaultWidth is the counter width used when Config.Width is 0: Fan et
// al.'s 4 bits, enough for any filter sized near its optimum.
const DefaultWidth = 4

// Config describes a counting filter. The shape (Layout, N, P, M, K,
// BlockBits) is chosen exactly as [bloom.Config] chooses it, so the bit
// view has the shape a bloom.Filter of the same configuration would have
// (M with P is an error here too, as is K without M). The zero Config is
// not valid.
type Config struct {
	Layout bloom.Layout // zero means Classic
	N      uint64       // expected number of distinct keys
	P      float64      // target false-positive rate, in (0, 1); zero with N means bloom.DefaultP
	M      uint64       // counters (= bits of the view); rounded up to the layout's granularity
	K      int          // probes per key, 1..params.MaxK
	// BlockBits is the page size of the Paged layout, a multiple of 64 and
	// at most bloom.MaxPageBits; zero means params.DefaultPageBits. Other
	// layouts ignore it.
	BlockBits uint64
	// Width is the counter size in bits: 4, 8 or 16; zero means 4.
	Width int
	// MinimalIncrease makes Add raise only the counters equal to the key's
	// current minimum (Cohen and Matias 2003): Count errs less, and
	// Remove is refused.
	MinimalIncrease bool
	// Seed is the hashing seed, recorded in the encoding.
	Seed uint64
	// Scheme derives hashes and probes; nil means hashing.Default. A
	// Squid-format digest can be kept incrementally with Squid's scheme.
	Scheme hashing.Scheme
	// NoBitView builds a counters-only filter: no plain bit view is kept
	// beside the counters. It is for callers that need membership, Count
	// and removal and do not publish digests of the filter. It saves one
	// bit per counter (a fifth of the memory with 4-bit counters: 4 bits
	// per position instead of 5) and one memory line per probe of Add and
	// Remove. Contains then reads the counters (a probe is present when
	// its counter is non-zero): in the Classic layout as many lines as
	// reading bits, but of an array Width times larger, so less often in
	// cache; in the Blocked layout up to four lines of one 256-byte run
	// (4-bit counters) instead of one line of bits. A filter that is
	// queried far more than it is changed, and fits in cache with its
	// view, may be faster with the view.
	//
	// Such a filter answers every query as one with a bit view does, and
	// its set algebra, Clone, Equal, estimates and encoding work the same,
	// but [Filter.BitView] returns nil, [Filter.Mark] does nothing and
	// [Filter.ChangedWords] and [Filter.ChangedBits] return ErrNoBitView.
	// The mode is a memory choice, not part of the filter's value: the
	// encoding is the same, Equal and Compatible ignore it, and decoding
	// always gives a filter with a bit view (to drop it again, Merge the
	// decoded filter into an empty counters-only one).
	NoBitView bool
}

// Filter is a counting Bloom filter with a live bit view (unless built
// with Config.NoBitView).
//
// The zero Filter is not usable: make one with New or a decoder. On a
// zero Filter the methods that return an error return ErrZero, Clone
// returns another zero Filter, and the per-key methods (Add, Contains,
// Count, Remove and their forms), which have no error to return, panic
// with a message naming the fix, at no cost on their paths for a filter
// made by New.
//
// Queries (Contains, Count and their forms, the estimates, Equal, Clone
// and the encoders) are safe for concurrent use while nothing modifies
// the filter; Add, Remove, Merge and the other changes are not.
type Filter struct {
	counters []uint64       // packed counters, counter b at bits [b·width, b·width+width)
	bits     []uint64       // the view's words: bit b set iff counter b > 0; nil without a view
	view     *bloom.Filter  // read-only view over bits; nil without a view
	geo      bloom.Geometry // shape and hashing: where a key's counters are
	m        uint64
	width    uint   // bits per counter: 4, 8 or 16
	wShift   uint   // log2(width)
	perShift uint   // log2(counters per word)
	perMask  uint64 // counters per word − 1
	max      uint64 // the largest counter value, 2^width − 1; sticky
	minInc   bool
	inline   bool // the scheme's probes are hashing.XXH3's, which run inline (hashing.InlineProbes)
	pairKeys bool // the key methods run classicPair4 (see Contains)
	// blockKeys, when not nil, is geo's keyed secret, and the key methods
	// run blockCountersKey with it (see Contains).
	blockKeys *xxh3asm.Keyed
	// blockKeys64 is blockKeys for blockCountersKey64, under scheme
	// XXH3x64. At most one of the two is set.
	blockKeys64 *xxh3asm.Keyed
	count       uint64 // keys added minus keys removed
	sat         uint64 // counters at max
	track       tracker
}

// New returns an empty counting filter for c.
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
	width := c.Width
	if width == 0 {
		width = DefaultWidth
	}
	if width != 4 && width != 8 && width != 16 {
		return nil, fmt.Errorf("%w: counter width %d (want 4, 8 or 16)", ErrConfig, width)
	}
	return newFilter(shape, uint(width), c.MinimalIncrease, !c.NoBitView, c.Seed, c.Scheme)
}

// MustNew is New for configurations known to be valid; it panics on error.
func MustNew(c Config) *Filter {
	f, err := New(c)
	if err != nil {
		panic(err)
	}
	return f
}

// newFilter allocates a filter for a validated shape and width, with a bit
// view if withView.
func newFilter(s params.Shape, width uint, minInc, withView bool, seed uint64, scheme hashing.Scheme) (*Filter, error) {
	return newFilterOver(s, width, minInc, withView, seed, scheme, hugepage.Words((s.M*uint64(width)+63)/64))
}

// newFilterOver makes a filter whose packed counters are counters
// (⌈m·width/64⌉ words) and, if withView, allocates its bit view.
func newFilterOver(s params.Shape, width uint, minInc, withView bool, seed uint64, scheme hashing.Scheme, counters []uint64) (*Filter, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := checkMax(s); err != nil {
		return nil, err
	}
	var bits []uint64
	var view *bloom.Filter
	if withView {
		bits = hugepage.Words((s.M + 63) / 64)
		var err error
		if view, err = bloom.NewView(s, seed, scheme, bits); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	wShift := uint(2)
	for 1<<wShift != width {
		wShift++
	}
	geo, err := bloom.NewGeometry(s, seed, scheme)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	keys, keys64 := blockKeys(geo, width, view == nil)
	return &Filter{
		counters:    counters,
		bits:        bits,
		view:        view,
		geo:         geo,
		m:           s.M,
		width:       width,
		wShift:      wShift,
		perShift:    6 - wShift,
		perMask:     64/uint64(width) - 1,
		max:         1<<width - 1,
		minInc:      minInc,
		inline:      hashing.InlineProbes(geo.Scheme().ID()),
		pairKeys:    view == nil && width == 4 && s.Layout == bloom.Classic && geo.Inline(),
		blockKeys:   keys,
		blockKeys64: keys64,
	}, nil
}

// blockKeys returns the keyed secret for blockCountersKey (keys) or for
// blockCountersKey64 (keys64) when a filter of geometry g, with counters
// of the given width and no bit view, runs one: 4-bit counters in the
// blocked layout with AVX-512, as the routines need, under the default
// scheme (keys) or scheme XXH3x64 (keys64); under any other scheme
// neither. Each filter (and each clone) builds its own table from the
// seed (17 words), so that no two filters share one and no exported
// method hands one out.
func blockKeys(g bloom.Geometry, width uint, noView bool) (keys, keys64 *xxh3asm.Keyed) {
	if !hasAVX512 || !noView || width != 4 || g.Layout() != bloom.Blocked {
		return nil, nil
	}
	switch {
	case g.Inline():
		t := xxh3asm.NewKeyed(g.Seed())
		return &t, nil
	case g.Scheme().ID() == hashing.XXH3x64:
		t := xxh3asm.NewKeyed(g.Seed())
		return nil, &t
	}
	return nil, nil
}

// shape sizes the filter as bloom.Config does: (N, P) through params.Size,
// or M (rounded to the layout's granularity) with K given or chosen.
func (c Config) shape() (params.Shape, error) {
	layout := c.Layout
	if layout == 0 {
		layout = bloom.Classic
	}
	if !layout.Valid() {
		return params.Shape{}, fmt.Errorf("%w: unknown layout %d", ErrConfig, layout)
	}
	block := blockBits(layout, c.BlockBits)
	if block > bloom.MaxPageBits {
		return params.Shape{}, fmt.Errorf("%w: BlockBits = %d exceeds bloom.MaxPageBits = %d", ErrConfig, block, bloom.MaxPageBits)
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
			p = bloom.DefaultP
		}
		if c.N == 0 || !(p > 0 && p < 1) {
			return params.Shape{}, fmt.Errorf("%w: give N ≥ 1 and 0 < P < 1, or M", ErrConfig)
		}
		s, err := params.Size(layout, c.N, p, block)
		if err != nil {
			return s, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		return s, checkMax(s)
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
	return s, checkMax(s)
}

// blockBits is the block size a layout uses, given the configured one.
func blockBits(l bloom.Layout, configured uint64) uint64 {
	switch l {
	case bloom.Blocked:
		return params.BlockedBits
	case bloom.Paged:
		if configured == 0 {
			return params.DefaultPageBits
		}
		return configured
	}
	return 0
}

// roundUp rounds s.M up to the layout's granularity for k probes.
func roundUp(s params.Shape, k int) params.Shape {
	unit := uint64(1)
	switch s.Layout {
	case bloom.Partitioned:
		unit = uint64(max(k, 1))
	case bloom.Blocked, bloom.Paged:
		unit = max(s.BlockBits, 1)
	}
	if s.M%unit != 0 && s.M < bloom.MaxBits {
		s.M += unit - s.M%unit
	}
	return s
}

func checkMax(s params.Shape) error {
	if s.M > bloom.MaxBits {
		return fmt.Errorf("%w: %d counters exceeds the maximum of %d", ErrConfig, s.M, uint64(bloom.MaxBits))
	}
	return nil
}

// BitView returns the filter's bit projection as a read-only bloom.Filter
// over the filter's own words: no copy, always current. Bit b is set
// exactly when counter b is non-zero, so the view answers Contains as the
// counting filter does. Its Count is 0; use Len. Clone it for a snapshot
// that later changes do not affect.
//
// A filter built with Config.NoBitView has no view: BitView returns nil.
// Callers that publish or compare views (a cache's digests) must build
// their filters with a view.
func (f *Filter) BitView() *bloom.Filter { return f.view }

// Shape returns the geometry of the filter (and of its bit view).
func (f *Filter) Shape() params.Shape { return f.geo.Shape() }

// M returns the number of counters, which is the number of bits of the view.
func (f *Filter) M() uint64 { return f.m }

// K returns the number of probes per key.
func (f *Filter) K() int { return f.geo.K() }

// Layout returns the layout.
func (f *Filter) Layout() bloom.Layout { return f.geo.Layout() }

// Width returns the counter width in bits (4, 8 or 16).
func (f *Filter) Width() int { return int(f.width) }

// Max returns the largest value a counter holds, 2^Width − 1. A counter at
// Max is saturated: it stays there.
func (f *Filter) Max() uint64 { return f.max }

// MinimalIncrease reports whether Add raises only the minimum counters.
func (f *Filter) MinimalIncrease() bool { return f.minInc }

// Seed returns the hashing seed.
func (f *Filter) Seed() uint64 { return f.geo.Seed() }

// Scheme returns the hashing scheme.
func (f *Filter) Scheme() hashing.Scheme { return f.geo.Scheme() }

// Len returns the number of keys added minus the number removed, counting
// duplicates (a refused removal does not count).
func (f *Filter) Len() uint64 { return f.count }

// Saturated returns how many counters are saturated: at Max, where they
// stay. A saturated counter never decreases, which keeps the filter free of
// false negatives at the price of precision; a few saturations in a filter
// sized for its load are far outside what [OverflowBound] predicts and
// mean the filter is overloaded.
func (f *Filter) Saturated() uint64 { return f.sat }

// SizeBytes returns the memory of the counters and the bit view in bytes
// (the change tracker, when marking, adds at most as much as the view).
// Without a bit view (Config.NoBitView) it is the counters alone.
func (f *Filter) SizeBytes() int { return 8 * (len(f.counters) + len(f.bits)) }

// Hash returns key's hash under the filter's scheme and seed, for the
// ...Hash methods of this filter, of compatible ones and of its bit view.
func (f *Filter) Hash(key []byte) hashing.Hash128 { return f.geo.Hash(key) }

// HashString is Hash for a string key.
func (f *Filter) HashString(key string) hashing.Hash128 { return f.geo.HashString(key) }

// String summarises the filter.
func (f *Filter) String() string {
	mode := ""
	if f.minInc {
		mode = ", minimal increase"
	}
	if f.view == nil {
		mode += ", no bit view"
	}
	return fmt.Sprintf("counting.Filter{%s, m=%d, k=%d, width=%d%s, len=%d, saturated=%d}",
		f.Layout(), f.m, f.K(), f.width, mode, f.count, f.sat)
}

// Counters returns the packed counters (width bits each, little-endian
// within each word, as docs/FORMAT.md lays them out) without copying. The
// caller must not modify them: the bit view and the saturation count are
// derived from them.
func (f *Filter) Counters() []uint64 { return f.counters }
