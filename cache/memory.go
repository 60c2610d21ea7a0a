package cache

import (
	"fmt"
	"slices"
	"sync"
)

// MemoryConfig configures a [Memory] store.
// The zero MemoryConfig is not valid: NewMemory reports ErrConfig, as
// MaxBytes must be positive.
type MemoryConfig struct {
	MaxBytes int64    // budget of the heap the entries and the index hold; must be positive
	Observer Observer // told of every store and removal; nil for none
}

// Memory is an in-memory Store with least-recently-used eviction under a
// byte budget. Get, Put and Delete are O(1) (a map, and a doubly linked
// list through the entries, most recently used first), plus the evictions
// a Put causes.
//
// It holds each entry in the compact form hits are served from (its
// fields' names and values in one string), and what it charges for an
// entry against the budget is the heap that form holds: struct, text,
// arrays, body and index slot, each allocation rounded up to the
// allocator's size class, so that the live heap of a full store is its
// budget and not a multiple of it. A body with much spare capacity is
// copied to one of its length when stored. Get rebuilds an [Entry] from
// the stored form.
//
// The zero Memory is not usable; make one with NewMemory.
type Memory struct {
	mu     sync.Mutex
	max    int64
	bytes  int64
	index  map[string]*storedEntry
	newest *storedEntry // the recency list's ends, linked by storedEntry.older and .newer
	oldest *storedEntry
	obs    Observer
}

// NewMemory returns an empty in-memory store.
func NewMemory(cfg MemoryConfig) (*Memory, error) {
	if cfg.MaxBytes <= 0 {
		return nil, fmt.Errorf("%w: MaxBytes %d must be positive", ErrConfig, cfg.MaxBytes)
	}
	return &Memory{
		max:   cfg.MaxBytes,
		index: make(map[string]*storedEntry),
		obs:   observerOrNop(cfg.Observer),
	}, nil
}

// Get implements Store. The Entry is rebuilt from the stored form; its
// header shares the stored values, which must not be modified.
func (m *Memory) Get(key string) (*Entry, bool) {
	s, ok := m.getStored(key)
	if !ok {
		return nil, false
	}
	return s.entry(), true
}

// getStored is Get returning the entry's stored form, worked out when
// it was stored.
func (m *Memory) getStored(key string) (*storedEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.index[key]
	if !ok {
		return nil, false
	}
	if s != m.newest {
		m.unlink(s)
		m.pushNewest(s)
	}
	return s, true
}

// Put implements Store.
func (m *Memory) Put(e *Entry) error {
	if e == nil {
		return errNilEntry
	}
	if cap(e.Body)-len(e.Body) > len(e.Body)/8+64 {
		// A body collected by appending may have up to twice the room
		// it needs: the store would hold, and charge, the spare room.
		// It keeps a copy of the length instead (a stored Entry is
		// read-only, so the caller's is not changed).
		c := *e
		c.Body = slices.Clone(e.Body)
		e = &c
	}
	return m.putStored(newStored(e))
}

// putStored is Put of an entry's stored form, which the store keeps as
// it is: its body must have no spare room (Put trims it).
func (m *Memory) putStored(s *storedEntry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.index[s.URL]; ok {
		m.remove(old)
	}
	if s.size > m.max {
		return fmt.Errorf("%w: %d bytes, budget %d", ErrTooLarge, s.size, m.max)
	}
	for m.bytes+s.size > m.max {
		m.remove(m.oldest)
	}
	m.index[s.URL] = s
	m.pushNewest(s)
	m.bytes += s.size
	m.obs.Stored(s.URL)
	return nil
}

// pushNewest puts s at the front of the recency list; m.mu is held.
func (m *Memory) pushNewest(s *storedEntry) {
	s.older, s.newer = m.newest, nil
	if m.newest != nil {
		m.newest.newer = s
	} else {
		m.oldest = s
	}
	m.newest = s
}

// unlink takes s out of the recency list; m.mu is held.
func (m *Memory) unlink(s *storedEntry) {
	if s.newer != nil {
		s.newer.older = s.older
	} else {
		m.newest = s.older
	}
	if s.older != nil {
		s.older.newer = s.newer
	} else {
		m.oldest = s.newer
	}
	s.newer, s.older = nil, nil
}

// remove drops an entry and reports the eviction; m.mu is held.
func (m *Memory) remove(s *storedEntry) {
	m.unlink(s)
	delete(m.index, s.URL)
	m.bytes -= s.size
	m.obs.Evicted(s.URL)
}

// Delete implements Store.
func (m *Memory) Delete(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.index[key]
	if ok {
		m.remove(s)
	}
	return ok
}

// Len implements Store.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.index)
}

// Bytes implements Store.
func (m *Memory) Bytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes
}

// Keys implements Store.
func (m *Memory) Keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([]string, 0, len(m.index))
	for k := range m.index {
		keys = append(keys, k)
	}
	return keys
}

// Close implements Store; a Memory store needs no release.
func (m *Memory) Close() error { return nil }
