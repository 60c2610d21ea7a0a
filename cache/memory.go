package cache

import (
	"container/list"
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
// byte budget. Get, Put and Delete are O(1) (a map and a doubly linked
// list, most recently used at the front), plus the evictions a Put causes.
//
// What it charges for an entry against the budget is the heap the entry
// holds there ([Entry.Size]: struct, URL, header fields, body, each
// allocation rounded up to the allocator's size class) plus the form it
// serves hits from and its share of the index, so that the live heap of a
// full store is its budget and not a multiple of it. A body with much
// spare capacity is copied to one of its length when stored.
//
// The zero Memory is not usable; make one with NewMemory.
type Memory struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	lru   *list.List // of memItem, most recently used first
	index map[string]*list.Element
	obs   Observer
}

// memItem is an entry in its stored form with the size it was accounted
// for when stored.
type memItem struct {
	s    *storedEntry
	size int64
}

// NewMemory returns an empty in-memory store.
func NewMemory(cfg MemoryConfig) (*Memory, error) {
	if cfg.MaxBytes <= 0 {
		return nil, fmt.Errorf("%w: MaxBytes %d must be positive", ErrConfig, cfg.MaxBytes)
	}
	return &Memory{
		max:   cfg.MaxBytes,
		lru:   list.New(),
		index: make(map[string]*list.Element),
		obs:   observerOrNop(cfg.Observer),
	}, nil
}

// Get implements Store.
func (m *Memory) Get(key string) (*Entry, bool) {
	s, ok := m.getStored(key)
	if !ok {
		return nil, false
	}
	return s.Entry, true
}

// getStored is Get returning the entry's stored form, worked out when
// it was stored.
func (m *Memory) getStored(key string) (*storedEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.index[key]
	if !ok {
		return nil, false
	}
	m.lru.MoveToFront(el)
	return el.Value.(memItem).s, true
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
	s := newStored(e)
	size := e.Size() + memItemSize(s)
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.index[e.URL]; ok {
		m.remove(el)
	}
	if size > m.max {
		return fmt.Errorf("%w: %d bytes, budget %d", ErrTooLarge, size, m.max)
	}
	for m.bytes+size > m.max {
		m.remove(m.lru.Back())
	}
	m.index[e.URL] = m.lru.PushFront(memItem{s, size})
	m.bytes += size
	m.obs.Stored(e.URL)
	return nil
}

// remove drops an element and reports the eviction; m.mu is held.
func (m *Memory) remove(el *list.Element) {
	it := m.lru.Remove(el).(memItem)
	delete(m.index, it.s.URL)
	m.bytes -= it.size
	m.obs.Evicted(it.s.URL)
}

// Delete implements Store.
func (m *Memory) Delete(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.index[key]
	if ok {
		m.remove(el)
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
