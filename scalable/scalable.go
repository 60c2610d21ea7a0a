// Package scalable implements scalable Bloom filters (Almeida, Baquero,
// Preguiça and Hutchison, "Scalable Bloom Filters", Information
// Processing Letters 101(6), 2007): a stack of Bloom filters, the layers,
// for a set whose size is not known in advance. Keys go into the newest
// layer; when it holds as many keys as it was sized for, a new layer is
// added whose capacity is s times as large (the expansion, 2 by default,
// as RedisBloom's EXPANSION) and whose false-positive target is r times
// as small (the tightening ratio, 0.5 by default). Layer i (from 0) is
// sized for capacity n0·s^i at rate P0·r^i with P0 = P·(1 − r), so the
// compound false-positive rate, at most the sum of the layers' rates, is
// below P0/(1 − r) = P however many layers there are: the paper's
// geometric series.
//
// Every layer is a [bloom.Filter], blocked unless the Config names
// another layout, with one hashing scheme and seed: a key is hashed once
// and its hash probes every layer (the ...Hash methods take it). A key is
// added only if no layer already reports it (as the paper and RedisBloom
// do), so a layer's count is the keys it took.
//
// A non-scaling filter (Config.NonScaling, RedisBloom's NONSCALING) has
// one layer and refuses keys with ErrFull once it holds its capacity.
//
// The encoding is its own frame type in package envelope (type 11,
// docs/FORMAT.md): the configuration, then each layer as a Bloom filter
// frame. Package digest sends it with every layer coded on its own, and
// a delta between two versions carries only the layers that changed,
// which for a filter that only grew is the newest.
package scalable

import (
	"errors"
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// Defaults of the Config fields left zero.
const (
	DefaultExpansion  = 2   // s: each layer holds twice the keys of the one before
	DefaultTightening = 0.5 // r: each layer's target rate is half the one before
)

// MaxLayers bounds the layers of a filter: growth beyond it, and frames
// with more, are refused. With the default expansion 40 layers hold 2^40
// times the first layer's capacity.
const MaxLayers = 40

// MaxCapacity bounds a layer's capacity in keys.
const MaxCapacity = 1 << 40

// Errors. Functions wrap them with details; test with errors.Is.
var (
	ErrConfig = errors.New("scalable: invalid configuration")
	// ErrFull: a non-scaling filter holds its capacity, or a scaling one
	// cannot add a layer (MaxLayers, MaxCapacity or bloom.MaxBits).
	ErrFull         = errors.New("scalable: filter is full")
	ErrIncompatible = errors.New("scalable: incompatible filters")
	ErrCorrupt      = errors.New("scalable: corrupt encoding")
	// ErrZero is returned by the methods of a zero Filter, and for a nil
	// *Filter argument, that return an error.
	ErrZero = errors.New("scalable: zero or nil Filter; use New")
)

// Config describes a scalable filter. Capacity and P are required; the
// other fields have defaults.
//
// The zero Config is not valid (New returns ErrConfig): it has neither a
// capacity nor a rate.
type Config struct {
	// Capacity is n0, the keys the first layer holds before a second is
	// added (the only one, when NonScaling).
	Capacity uint64
	// P is the target compound false-positive rate, in (0, 1).
	P float64
	// Expansion is s, how many times the keys of the layer before a new
	// layer holds: 1 or more; zero means DefaultExpansion.
	Expansion uint32
	// Tightening is r, the ratio of a layer's target rate to the one
	// before, in (0, 1); zero means DefaultTightening. Closer to 1, the
	// first layers are smaller and the later ones larger (the paper
	// recommends 0.8–0.9 for fast growth).
	Tightening float64
	// Layout is the layers' layout; zero means bloom.Blocked.
	Layout bloom.Layout
	// BlockBits is the page size of the Paged layout (bloom.Config).
	BlockBits uint64
	// Seed and Scheme are the hashing of every layer (bloom.Config).
	Seed   uint64
	Scheme hashing.Scheme
	// NonScaling keeps the filter at one layer: Add refuses new keys
	// with ErrFull once it holds Capacity.
	NonScaling bool
}

// normalize fills the defaults and validates c.
func (c Config) normalize() (Config, error) {
	if c.Expansion == 0 {
		c.Expansion = DefaultExpansion
	}
	if c.Tightening == 0 {
		c.Tightening = DefaultTightening
	}
	if c.Layout == 0 {
		c.Layout = bloom.Blocked
	}
	switch {
	case c.Capacity == 0 || c.Capacity > MaxCapacity:
		return c, fmt.Errorf("%w: Capacity = %d, want 1 to %d", ErrConfig, c.Capacity, uint64(MaxCapacity))
	case !(c.P > 0 && c.P < 1):
		return c, fmt.Errorf("%w: P = %g, want 0 < P < 1", ErrConfig, c.P)
	case !(c.Tightening > 0 && c.Tightening < 1):
		return c, fmt.Errorf("%w: Tightening = %g, want 0 < r < 1", ErrConfig, c.Tightening)
	case !c.Layout.Valid():
		return c, fmt.Errorf("%w: unknown layout %d", ErrConfig, c.Layout)
	}
	if c.Layout == bloom.Blocked {
		c.BlockBits = params.BlockedBits
	} else if c.Layout != bloom.Paged {
		c.BlockBits = 0
	} else if c.BlockBits == 0 {
		c.BlockBits = params.DefaultPageBits
	}
	if c.Scheme == nil {
		c.Scheme = hashing.Default
	}
	return c, nil
}

// LayerCapacity returns the capacity of layer i, n0·s^i, and false if it
// exceeds MaxCapacity.
func (c Config) LayerCapacity(i int) (uint64, bool) {
	n := c.Capacity
	s := uint64(max(c.Expansion, 1))
	if c.Expansion == 0 {
		s = DefaultExpansion
	}
	for range i {
		if n > MaxCapacity/s {
			return 0, false
		}
		n *= s
	}
	return n, n <= MaxCapacity
}

// LayerRate returns the target rate of layer i, P·(1 − r)·r^i.
func (c Config) LayerRate(i int) float64 {
	r := c.Tightening
	if r == 0 {
		r = DefaultTightening
	}
	return c.P * (1 - r) * math.Pow(r, float64(i))
}

// Filter is a scalable Bloom filter. It is not safe for concurrent use;
// [Concurrent] is.
//
// The zero Filter is not usable: make one with New or a decoder. Its
// per-key methods panic with "scalable: zero Filter; use New", the
// methods that return an error return ErrZero, the accessors return zeros.
type Filter struct {
	cfg    Config
	layers []*bloom.Filter
	caps   []uint64 // capacity of each layer
	last   *bloom.Filter
}

const errZeroFilter = "scalable: zero Filter; use New"

// New returns an empty scalable filter with one layer.
func New(c Config) (*Filter, error) {
	c, err := c.normalize()
	if err != nil {
		return nil, err
	}
	f := &Filter{cfg: c}
	// The first layer that cannot be made is the configuration's fault:
	// ErrConfig, not the ErrFull of a later layer.
	if err := f.addLayer(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return f, nil
}

// MustNew is New for configurations known to be valid; it panics on error.
func MustNew(c Config) *Filter {
	f, err := New(c)
	if err != nil {
		panic(err)
	}
	return f
}

// layerConfig is the bloom.Config of layer i.
func (c Config) layerConfig(i int) (bloom.Config, error) {
	n, ok := c.LayerCapacity(i)
	if !ok {
		return bloom.Config{}, fmt.Errorf("layer %d's capacity exceeds %d keys", i, uint64(MaxCapacity))
	}
	return bloom.Config{Layout: c.Layout, N: n, P: c.LayerRate(i), BlockBits: c.BlockBits, Seed: c.Seed, Scheme: c.Scheme}, nil
}

// grow adds a layer to a filter that holds its last layer's capacity.
func (f *Filter) grow() error {
	if len(f.layers) >= MaxLayers {
		return fmt.Errorf("%w: %d layers, the most a filter has", ErrFull, MaxLayers)
	}
	if err := f.addLayer(); err != nil {
		return fmt.Errorf("%w: %w", ErrFull, err)
	}
	return nil
}

// addLayer appends layer len(f.layers).
func (f *Filter) addLayer() error {
	i := len(f.layers)
	bc, err := f.cfg.layerConfig(i)
	if err != nil {
		return err
	}
	l, err := bloom.New(bc)
	if err != nil {
		return fmt.Errorf("layer %d: %w", i, err)
	}
	f.layers = append(f.layers, l)
	f.caps = append(f.caps, bc.N)
	f.last = l
	return nil
}

// Config returns the filter's configuration, with the defaults filled in.
func (f *Filter) Config() Config { return f.cfg }

// Layers returns the number of layers.
func (f *Filter) Layers() int { return len(f.layers) }

// Layer returns layer i, oldest first, or nil if there is no layer i. It
// aliases the filter: callers must not modify it.
func (f *Filter) Layer(i int) *bloom.Filter {
	if i < 0 || i >= len(f.layers) {
		return nil
	}
	return f.layers[i]
}

// Capacity returns layer i's capacity: the keys it takes before the next
// layer is added; 0 if there is no layer i.
func (f *Filter) Capacity(i int) uint64 {
	if i < 0 || i >= len(f.caps) {
		return 0
	}
	return f.caps[i]
}

// Count returns the keys the layers took (keys already reported present
// are not added again, so duplicates are not counted). After a Union it
// includes the layers' estimated counts.
func (f *Filter) Count() uint64 {
	var n uint64
	for _, l := range f.layers {
		n += l.Count()
	}
	return n
}

// SizeBytes returns the size of the layers' bit arrays in bytes.
func (f *Filter) SizeBytes() int {
	n := 0
	for _, l := range f.layers {
		n += l.SizeBytes()
	}
	return n
}

// FalsePositiveRate returns the compound false-positive rate computed
// from the bits as they are: 1 − ∏(1 − p_i), p_i each layer's
// bloom.Filter.FalsePositiveRate. Zero for a zero Filter.
func (f *Filter) FalsePositiveRate() float64 {
	q := 1.0
	for _, l := range f.layers {
		q *= 1 - l.FalsePositiveRate()
	}
	return 1 - q
}

// PredictedRate returns the compound false-positive rate the layers'
// shapes predict for their counts (params.Shape.FalsePositive):
// 1 − ∏(1 − p_i). While no layer holds more than its capacity it is at
// most Config.P.
func (f *Filter) PredictedRate() float64 {
	q := 1.0
	for _, l := range f.layers {
		s := l.Shape()
		q *= 1 - s.FalsePositive(l.Count())
	}
	return 1 - q
}

// Hash returns key's hash under the layers' scheme and seed, for the
// ...Hash methods.
func (f *Filter) Hash(key []byte) hashing.Hash128 { return f.mustLast().Hash(key) }

// HashString is Hash for a string key.
func (f *Filter) HashString(key string) hashing.Hash128 { return f.mustLast().HashString(key) }

func (f *Filter) mustLast() *bloom.Filter {
	if f.last == nil {
		panic(errZeroFilter)
	}
	return f.last
}

// Contains reports whether key may be in the set.
func (f *Filter) Contains(key []byte) bool { return f.ContainsHash(f.Hash(key)) }

// ContainsString is Contains for a string key.
func (f *Filter) ContainsString(key string) bool { return f.ContainsHash(f.HashString(key)) }

// ContainsHash reports whether the key whose hash is h may be in the set.
// It asks the newest layer first: it is the largest, and holds the most
// keys. It allocates nothing.
func (f *Filter) ContainsHash(h hashing.Hash128) bool {
	f.mustLast()
	for i := len(f.layers) - 1; i >= 0; i-- {
		if f.layers[i].ContainsHash(h) {
			return true
		}
	}
	return false
}

// Add inserts key. It returns ErrFull, and adds nothing, when the filter
// cannot take the key: non-scaling and holding its capacity, or unable
// to add a layer.
func (f *Filter) Add(key []byte) error { return f.AddHash(f.Hash(key)) }

// AddString is Add for a string key.
func (f *Filter) AddString(key string) error { return f.AddHash(f.HashString(key)) }

// AddHash inserts the key whose hash is h.
func (f *Filter) AddHash(h hashing.Hash128) error {
	_, err := f.TestAndAddHash(h)
	return err
}

// TestAndAddHash reports whether the key whose hash is h was already
// reported present and, if not, adds it to the newest layer, adding a
// layer first if the newest holds its capacity. Only a new layer
// allocates.
func (f *Filter) TestAndAddHash(h hashing.Hash128) (bool, error) {
	if f.ContainsHash(h) {
		return true, nil
	}
	if err := f.room(); err != nil {
		return false, err
	}
	f.last.AddHash(h)
	return false, nil
}

// TestAndAdd is TestAndAddHash for a key.
func (f *Filter) TestAndAdd(key []byte) (bool, error) { return f.TestAndAddHash(f.Hash(key)) }

// room makes sure the newest layer can take a key.
func (f *Filter) room() error {
	if f.last.Count() < f.caps[len(f.caps)-1] {
		return nil
	}
	if f.cfg.NonScaling {
		return fmt.Errorf("%w: non-scaling, holding its capacity of %d keys", ErrFull, f.caps[0])
	}
	return f.grow()
}

// Clone returns an independent copy of f.
func (f *Filter) Clone() *Filter {
	g := &Filter{cfg: f.cfg, caps: append([]uint64(nil), f.caps...)}
	g.layers = make([]*bloom.Filter, len(f.layers))
	for i, l := range f.layers {
		g.layers[i] = l.Clone()
	}
	if n := len(g.layers); n > 0 {
		g.last = g.layers[n-1]
	}
	return g
}

// Equal reports whether g has the same configuration and layers, bit for
// bit, as f (counts are not compared, as bloom.Filter.Equal).
func (f *Filter) Equal(g *Filter) bool {
	if g == nil || f.Compatible(g) != nil || len(f.layers) != len(g.layers) {
		return false
	}
	for i, l := range f.layers {
		if !l.Equal(g.layers[i]) {
			return false
		}
	}
	return true
}

// String summarises the filter.
func (f *Filter) String() string {
	return fmt.Sprintf("scalable.Filter{%s, n0=%d, P=%g, s=%d, r=%g, layers=%d, count=%d}",
		f.cfg.Layout, f.cfg.Capacity, f.cfg.P, f.cfg.Expansion, f.cfg.Tightening, len(f.layers), f.Count())
}
