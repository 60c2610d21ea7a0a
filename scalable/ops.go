package scalable

import (
	"fmt"
	"sync"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
)

// Compatible returns nil if g was built with the same configuration as f
// (capacity, rate, expansion, tightening, layout, block size, scheme,
// seed, scaling), so that Union can combine them layer by layer; the
// error says what differs. It is ErrZero if either is nil or zero.
func (f *Filter) Compatible(g *Filter) error {
	if g == nil || f.last == nil || g.last == nil {
		return ErrZero
	}
	a, b := f.cfg, g.cfg
	switch {
	case a.Capacity != b.Capacity:
		return fmt.Errorf("%w: capacity %d vs %d", ErrIncompatible, a.Capacity, b.Capacity)
	case a.P != b.P:
		return fmt.Errorf("%w: rate %g vs %g", ErrIncompatible, a.P, b.P)
	case a.Expansion != b.Expansion:
		return fmt.Errorf("%w: expansion %d vs %d", ErrIncompatible, a.Expansion, b.Expansion)
	case a.Tightening != b.Tightening:
		return fmt.Errorf("%w: tightening %g vs %g", ErrIncompatible, a.Tightening, b.Tightening)
	case a.NonScaling != b.NonScaling:
		return fmt.Errorf("%w: one is non-scaling", ErrIncompatible)
	}
	// Layout, block size, scheme and seed: the first layers say it all,
	// and their shapes must agree for the layers to be ORed.
	if err := f.layers[0].Compatible(g.layers[0]); err != nil {
		return fmt.Errorf("%w: first layer: %w", ErrIncompatible, err)
	}
	return nil
}

// Union makes f the union of f and g, two filters built with the same
// configuration (Compatible): every key of either is reported present.
// Layer i of the result is the OR of the two layers i (with the count
// estimated from its bits); when g has more layers than f, f takes copies
// of g's newer ones, and when it has fewer, f's newer layers stay as they
// are. A layer of the union may hold more keys than its capacity (the two
// filters' keys of that layer): the rate from the bits
// (FalsePositiveRate) says what it costs, and the union's next Add adds a
// layer if the newest is full. g is not changed.
func (f *Filter) Union(g *Filter) error {
	if err := f.Compatible(g); err != nil {
		return err
	}
	if g == f {
		return nil
	}
	for i, gl := range g.layers {
		if i < len(f.layers) {
			if err := f.layers[i].Union(gl); err != nil {
				return fmt.Errorf("%w: layer %d: %w", ErrIncompatible, i, err)
			}
			continue
		}
		f.layers = append(f.layers, gl.Clone())
		f.caps = append(f.caps, g.caps[i])
	}
	f.last = f.layers[len(f.layers)-1]
	return nil
}

// batch is how many hashes the batch forms test per layer at once.
const batch = 256

// ContainsBatch sets out[i] to ContainsHash(hs[i]) for every i, asking
// each layer about a group of keys at once so that its memory misses
// overlap (bloom.Filter.ContainsBatch). out must be at least as long as
// hs; nothing is allocated.
func (f *Filter) ContainsBatch(hs []hashing.Hash128, out []bool) {
	f.mustLast()
	out = out[:len(hs)]
	var tmp [batch]bool
	for start := 0; start < len(hs); start += batch {
		chunk := hs[start:min(start+batch, len(hs))]
		res := out[start : start+len(chunk)]
		f.last.ContainsBatch(chunk, res)
		for i := len(f.layers) - 2; i >= 0; i-- {
			f.layers[i].ContainsBatch(chunk, tmp[:len(chunk)])
			for j, t := range tmp[:len(chunk)] {
				res[j] = res[j] || t
			}
		}
	}
}

// AddBatch adds every hash of hs in order, as AddHash does, testing them
// against the layers a group at a time (ContainsBatch). On ErrFull the
// keys before the refused one were added and the rest were not.
func (f *Filter) AddBatch(hs []hashing.Hash128) error {
	f.mustLast()
	var present [batch]bool
	for start := 0; start < len(hs); start += batch {
		chunk := hs[start:min(start+batch, len(hs))]
		f.ContainsBatch(chunk, present[:len(chunk)])
		newest := len(f.layers) - 1 // layers from here on may have changed since
		for j, h := range chunk {
			if present[j] || f.containsFrom(newest, h) {
				continue
			}
			if err := f.room(); err != nil {
				return err
			}
			f.last.AddHash(h)
		}
	}
	return nil
}

// containsFrom reports whether a layer from i on reports h.
func (f *Filter) containsFrom(i int, h hashing.Hash128) bool {
	for _, l := range f.layers[i:] {
		if l.ContainsHash(h) {
			return true
		}
	}
	return false
}

// Concurrent is a scalable filter that many goroutines may use at once:
// queries share a read lock, adds (and the growth they may cause) take
// the write lock. Queries run in parallel; adds are serialised, since
// whether a key goes in, and into which layer, depends on every layer.
//
// The zero Concurrent is not usable (make one with NewConcurrent): its
// per-key methods panic as a zero Filter's do.
type Concurrent struct {
	mu sync.RWMutex
	f  Filter
}

// NewConcurrent returns an empty concurrent scalable filter for c.
func NewConcurrent(c Config) (*Concurrent, error) {
	f, err := New(c)
	if err != nil {
		return nil, err
	}
	return &Concurrent{f: *f}, nil
}

// Hash returns key's hash under the filter's scheme and seed.
func (c *Concurrent) Hash(key []byte) hashing.Hash128 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.f.Hash(key)
}

// Add inserts key (Filter.Add).
func (c *Concurrent) Add(key []byte) error { return c.AddHash(c.Hash(key)) }

// AddString inserts key (Filter.AddString).
func (c *Concurrent) AddString(key string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.f.AddString(key)
}

// AddHash inserts the key whose hash is h (Filter.AddHash).
func (c *Concurrent) AddHash(h hashing.Hash128) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.f.AddHash(h)
}

// AddBatch adds every hash of hs (Filter.AddBatch) under one lock.
func (c *Concurrent) AddBatch(hs []hashing.Hash128) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.f.AddBatch(hs)
}

// Contains reports whether key may be in the set.
func (c *Concurrent) Contains(key []byte) bool { return c.ContainsHash(c.Hash(key)) }

// ContainsString is Contains for a string key.
func (c *Concurrent) ContainsString(key string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.f.ContainsString(key)
}

// ContainsHash reports whether the key whose hash is h may be in the set.
func (c *Concurrent) ContainsHash(h hashing.Hash128) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.f.ContainsHash(h)
}

// ContainsBatch is Filter.ContainsBatch under the read lock.
func (c *Concurrent) ContainsBatch(hs []hashing.Hash128, out []bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	c.f.ContainsBatch(hs, out)
}

// Count returns the keys the layers took (Filter.Count).
func (c *Concurrent) Count() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.f.Count()
}

// Snapshot returns an independent copy of the filter as it is now.
func (c *Concurrent) Snapshot() *Filter {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.f.last == nil {
		return &Filter{}
	}
	return c.f.Clone()
}

// fromLayers makes a filter of layers, which it adopts.
func fromLayers(c Config, layers []*bloom.Filter) *Filter {
	f := &Filter{cfg: c, layers: layers, caps: make([]uint64, len(layers))}
	for i := range layers {
		f.caps[i], _ = c.LayerCapacity(i)
	}
	f.last = layers[len(layers)-1]
	return f
}
