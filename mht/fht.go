package mht

import (
	"fmt"
	"iter"

	"github.com/bloomcast/bloomcast/hashing"
)

// FHT is the fast hash table of Song, Dharmapurikar, Turner and Lockwood
// ("Fast hash table lookup using extended Bloom filter: an aid to network
// processing", SIGCOMM 2005), the baseline that Kirsch and Mitzenmacher
// ("Simple summaries for hashing with multiple choices", section III)
// compare their summaries against. It has a bucket and a c-bit counter
// (the [Song] summary, in fast memory) for every bucket, laid out as the
// sub-tables of a multilevel table: an item has one bucket in each
// sub-table, the i-th chosen by the i-th value of its probe sequence, so
// k = d hash functions, partitioned. A bucket holds a list of items.
//
// Insertion adds 1 to the item's d counters and keeps the item only in the
// bucket whose counter is smallest, ties going to the first in table order
// (the pruned table, Song et al.'s "Pruned FHT"). Raising counters can
// make another of their buckets the smallest for items already stored
// there, so those items are relocated; lowering them on deletion can
// attract items from elsewhere, which the table finds through an unpruned
// index of every item under each of its d buckets (Song et al.'s offline
// "Basic FHT"; Kirsch and Mitzenmacher: deletions need "a copy of the
// unpruned hash table"). Every item therefore always sits in the bucket
// its counters name: a lookup reads that one bucket (none when a counter
// is 0), and the cost that remains is the length of its list.
// [FHT.Relocations] counts the moves.
//
// Counters stick at their maximum and are then never decremented; lookups
// and placement read the same counters, so a stuck counter changes where
// items go but never loses one. An FHT is not safe for concurrent use:
// lookups update its statistics.
//
// The zero FHT has no buckets: lookups miss, Delete finds nothing, Insert
// returns an error wrapping ErrConfig and Counters returns nil; make one
// with NewFHT.
type FHT struct {
	c     *Song
	seed  uint64
	head  []uint32  // per bucket: the first item kept there (0: none)
	all   []uint32  // per bucket: the first node of the unpruned index
	items []fhtItem // items[0] is unused: 0 ends a list
	nodes []uint32  // the unpruned index: node id·d+i is item id under its i-th bucket
	free  []uint32
	count int
	moves uint64
	stats Stats
}

type fhtItem struct {
	key  hashing.Hash128
	val  uint64
	at   uint32 // the bucket keeping it
	next uint32 // the next item kept in that bucket
}

// FHTConfig describes a fast hash table. Its zero value is not valid:
// NewFHT needs Sizes and CounterBits.
type FHTConfig struct {
	// Sizes are the sub-table sizes: one bucket and one counter each, and
	// one hash function per sub-table.
	Sizes []uint64
	// CounterBits is c, 1..MaxCounterBits (Song et al. use 4).
	CounterBits int
	// Seed is the hashing seed of Hash and HashString.
	Seed uint64
}

// NewFHT returns an empty fast hash table.
func NewFHT(c FHTConfig) (*FHT, error) {
	s, err := NewSong(SongConfig{Sizes: c.Sizes, CounterBits: c.CounterBits})
	if err != nil {
		return nil, err
	}
	n := s.buckets()
	return &FHT{c: s, seed: c.Seed, head: make([]uint32, n), all: make([]uint32, n), items: make([]fhtItem, 1), nodes: make([]uint32, len(c.Sizes))}, nil
}

// buckets returns the number of counters.
func (s *Song) buckets() uint64 { return s.off[len(s.off)-1] + s.sizes[len(s.sizes)-1] }

// Hash returns the hash of key with the table's seed.
func (t *FHT) Hash(key []byte) hashing.Hash128 { return hashing.SumSeed(key, t.seed) }

// HashString returns the hash of key with the table's seed.
func (t *FHT) HashString(key string) hashing.Hash128 { return hashing.SumStringSeed(key, t.seed) }

// Seed returns the hashing seed.
func (t *FHT) Seed() uint64 { return t.seed }

// Levels returns d, the number of sub-tables and hash functions.
func (t *FHT) Levels() int {
	if t.c == nil {
		return 0
	}
	return len(t.c.sizes)
}

// Sizes returns the sub-table sizes.
func (t *FHT) Sizes() []uint64 {
	if t.c == nil {
		return nil
	}
	return append([]uint64(nil), t.c.sizes...)
}

// Len returns the number of items.
func (t *FHT) Len() int { return t.count }

// Counters returns a copy of the counters, the summary in fast memory.
func (t *FHT) Counters() *Song {
	if t.c == nil {
		return nil
	}
	return t.c.clone()
}

// Relocations returns the number of times an item already stored moved to
// another bucket because its smallest counter moved.
func (t *FHT) Relocations() uint64 { return t.moves }

// Loads returns how many buckets hold each number of items: Loads()[j]
// buckets hold j items.
func (t *FHT) Loads() []uint64 {
	var l []uint64
	for _, id := range t.head {
		j := 0
		for ; id != 0; id = t.items[id].next {
			j++
		}
		for len(l) <= j {
			l = append(l, 0)
		}
		l[j]++
	}
	return l
}

// Clear empties the table, keeping its buckets.
func (t *FHT) Clear() {
	if t.c == nil {
		return
	}
	t.c.Clear()
	clear(t.head)
	clear(t.all)
	t.items, t.nodes, t.free = t.items[:1], t.nodes[:len(t.c.sizes)], t.free[:0]
	t.count, t.moves, t.stats = 0, 0, Stats{}
}

// locate returns h's item id, 0 if absent, from the bucket its counters
// name.
func (t *FHT) locate(h hashing.Hash128) uint32 {
	if t.c == nil {
		return 0
	}
	typ, at := t.c.least(h)
	if typ == 0 {
		return 0
	}
	for id := t.head[at]; id != 0; id = t.items[id].next {
		if t.items[id].key == h {
			return id
		}
	}
	return 0
}

// bucketsOf writes h's d bucket indexes into b.
func (t *FHT) bucketsOf(h hashing.Hash128, b *[MaxLevels]uint64) {
	p := hashing.NewProbes(h)
	for i, m := range t.c.sizes {
		b[i] = t.c.off[i] + hashing.Reduce(p.Next(), m)
	}
}

// Insert stores value under the key whose hash is h, replacing the value
// of a key already there. It returns an error wrapping [ErrConfig] only
// for a zero FHT or when the table cannot number another item.
func (t *FHT) Insert(h hashing.Hash128, value uint64) error {
	if t.c == nil {
		return fmt.Errorf("%w: a zero FHT (make one with NewFHT)", ErrConfig)
	}
	if id := t.locate(h); id != 0 {
		t.items[id].val = value
		return nil
	}
	d := len(t.c.sizes)
	var id uint32
	if n := len(t.free); n > 0 {
		id, t.free = t.free[n-1], t.free[:n-1]
	} else {
		if uint64(len(t.items)+1)*uint64(d) > 1<<32-1 {
			return fmt.Errorf("%w: Song's table holds at most %d items", ErrConfig, uint64(1<<32-1)/uint64(d)-1)
		}
		id = uint32(len(t.items))
		t.items = append(t.items, fhtItem{})
		t.nodes = append(t.nodes, make([]uint32, d)...)
	}
	t.items[id] = fhtItem{key: h, val: value}
	var b [MaxLevels]uint64
	t.bucketsOf(h, &b)
	for i := range d {
		node := id*uint32(d) + uint32(i)
		t.nodes[node], t.all[b[i]] = t.all[b[i]], node
	}
	if err := t.c.Add(h, 1); err != nil {
		return err
	}
	// Only the items kept in the buckets whose counters rose can find a
	// smaller counter elsewhere.
	for i := range d {
		t.resettle(t.head[b[i]], b[i])
	}
	_, at := t.c.least(h)
	t.keep(id, at)
	t.count++
	return nil
}

// resettle moves every item of the list starting at id, kept in bucket
// at, whose smallest counter is now elsewhere.
func (t *FHT) resettle(id uint32, at uint64) {
	for id != 0 {
		next := t.items[id].next
		if _, to := t.c.least(t.items[id].key); to != at {
			t.unkeep(id)
			t.keep(id, to)
			t.moves++
		}
		id = next
	}
}

// keep puts item id at the head of bucket at's list.
func (t *FHT) keep(id uint32, at uint64) {
	t.items[id].at, t.items[id].next = uint32(at), t.head[at]
	t.head[at] = id
}

// unkeep takes item id out of its bucket's list.
func (t *FHT) unkeep(id uint32) {
	p := &t.head[t.items[id].at]
	for *p != id {
		p = &t.items[*p].next
	}
	*p = t.items[id].next
}

// InsertString stores value under key.
func (t *FHT) InsertString(key string, value uint64) error {
	return t.Insert(t.HashString(key), value)
}

// Delete removes the key whose hash is h and reports whether it was
// there. The items that hash to its buckets (found through the unpruned
// index) move to a bucket whose counter fell if it is now their smallest.
func (t *FHT) Delete(h hashing.Hash128) bool {
	id := t.locate(h)
	if id == 0 {
		return false
	}
	d := len(t.c.sizes)
	t.unkeep(id)
	var b [MaxLevels]uint64
	t.bucketsOf(h, &b)
	for i := range d {
		node := id*uint32(d) + uint32(i)
		p := &t.all[b[i]]
		for *p != node {
			p = &t.nodes[*p]
		}
		*p = t.nodes[node]
	}
	_ = t.c.Remove(h, 1) // its only error is a type out of range; 1 always fits
	t.items[id] = fhtItem{}
	t.free = append(t.free, id)
	t.count--
	for i := range d {
		for node := t.all[b[i]]; node != 0; node = t.nodes[node] {
			y := node / uint32(d)
			if _, to := t.c.least(t.items[y].key); to != uint64(t.items[y].at) {
				t.unkeep(y)
				t.keep(y, to)
				t.moves++
			}
		}
	}
	return true
}

// DeleteString removes key.
func (t *FHT) DeleteString(key string) bool { return t.Delete(t.HashString(key)) }

// Lookup finds the key whose hash is h. It reads the counters and, when
// none is 0, the one bucket whose counter is smallest; Result.Items is the
// number of items in that bucket (the whole list is read), Result.Type the
// sub-table of the bucket, and an absent key whose bucket was read is a
// false positive. It allocates nothing and records the lookup in
// [FHT.Stats].
func (t *FHT) Lookup(h hashing.Hash128) Result {
	r := Result{Outcome: Miss}
	if t.c == nil {
		t.stats.Lookups++
		return r
	}
	typ, at := t.c.least(h)
	if typ != 0 {
		r.Touched, r.Outcome = 1, FalsePositive
		for id := t.head[at]; id != 0; id = t.items[id].next {
			r.Items++
			if it := &t.items[id]; it.key == h {
				r.Value, r.Found, r.Type, r.Outcome = it.val, true, typ, Hit
			}
		}
	}
	s := &t.stats
	s.Lookups++
	s.Touched += uint64(r.Touched)
	s.Items += uint64(r.Items)
	switch r.Outcome {
	case Hit:
		s.Hits++
	case FalsePositive:
		s.FalsePositives++
	}
	return r
}

// Get returns the value stored under the key whose hash is h.
func (t *FHT) Get(h hashing.Hash128) (uint64, bool) {
	r := t.Lookup(h)
	return r.Value, r.Found
}

// GetString returns the value stored under key.
func (t *FHT) GetString(key string) (uint64, bool) { return t.Get(t.HashString(key)) }

// Stats returns the lookup statistics since the table was made, cleared
// or ResetStats was called. TypeFailures stays 0: a lookup reads one
// bucket and cannot tell a misplaced key from an absent one (placement
// makes misplacement impossible; [Plan.Simulate] checks it).
func (t *FHT) Stats() Stats { return t.stats }

// ResetStats zeroes the lookup statistics.
func (t *FHT) ResetStats() { t.stats = Stats{} }

// All iterates over the items in order of bucket.
func (t *FHT) All() iter.Seq2[hashing.Hash128, uint64] {
	return func(yield func(hashing.Hash128, uint64) bool) {
		for _, id := range t.head {
			for ; id != 0; id = t.items[id].next {
				if !yield(t.items[id].key, t.items[id].val) {
					return
				}
			}
		}
	}
}
