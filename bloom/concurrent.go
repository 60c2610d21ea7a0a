package bloom

import (
	"sync/atomic"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// Concurrent is a Bloom filter that many goroutines may add to and query at
// once without locks: adds set bits with atomic OR, queries load words
// atomically. A query that races with an add of the same key may miss it;
// once Add returns, every later query sees the key.
//
// It keeps no count of adds (a shared counter would be the one contended
// line); Snapshot records the estimated count instead.
//
// The zero Concurrent is not usable (make one with NewConcurrent): its
// per-key methods panic with a message naming the fix, Snapshot returns
// a zero Filter.
type Concurrent struct {
	f Filter
}

// NewConcurrent returns an empty concurrent filter for c.
func NewConcurrent(c Config) (*Concurrent, error) {
	f, err := New(c)
	if err != nil {
		return nil, err
	}
	return &Concurrent{f: *f}, nil
}

// Hash returns key's hash under the filter's scheme and seed.
func (c *Concurrent) Hash(key []byte) hashing.Hash128 { return c.f.Hash(key) }

// HashString is Hash for a string key.
func (c *Concurrent) HashString(key string) hashing.Hash128 { return c.f.HashString(key) }

// Add inserts key.
func (c *Concurrent) Add(key []byte) { c.AddHash(c.f.Hash(key)) }

// AddString inserts key.
func (c *Concurrent) AddString(key string) { c.AddHash(c.f.HashString(key)) }

// Contains reports whether key may be in the set.
func (c *Concurrent) Contains(key []byte) bool { return c.ContainsHash(c.f.Hash(key)) }

// ContainsString is Contains for a string key.
func (c *Concurrent) ContainsString(key string) bool { return c.ContainsHash(c.f.HashString(key)) }

// AddHash inserts the key whose hash is h.
func (c *Concurrent) AddHash(h hashing.Hash128) { c.TestAndAddHash(h) }

// TestAndAddHash inserts h and reports whether all its bits were already
// set. Between racing adds of one key, at least one reports false.
func (c *Concurrent) TestAndAddHash(h hashing.Hash128) bool {
	var buf [params.MaxK]uint64
	present := true
	for _, b := range c.f.Positions(h, &buf) {
		mask := uint64(1) << (b & 63)
		if atomic.LoadUint64(&c.f.words[b>>6])&mask != 0 {
			continue // already set: skip the locked instruction
		}
		old := atomic.OrUint64(&c.f.words[b>>6], mask)
		present = present && old&mask != 0
	}
	return present
}

// ContainsHash reports whether the key whose hash is h may be in the set.
func (c *Concurrent) ContainsHash(h hashing.Hash128) bool {
	var buf [params.MaxK]uint64
	for _, b := range c.f.Positions(h, &buf) {
		if atomic.LoadUint64(&c.f.words[b>>6])&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}

// Shape returns the filter's geometry.
func (c *Concurrent) Shape() params.Shape { return c.f.Shape() }

// Snapshot returns a plain Filter holding the bits as they are now (each
// word read atomically), with Count set to the estimated number of keys.
// Encode a snapshot to send the filter.
func (c *Concurrent) Snapshot() *Filter {
	g := c.f
	g.words = make([]uint64, len(c.f.words))
	for i := range g.words {
		g.words[i] = atomic.LoadUint64(&c.f.words[i])
	}
	g.SetCountFromBits()
	g.ownKeyed()
	return &g
}
