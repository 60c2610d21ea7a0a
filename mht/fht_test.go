package mht

import (
	"errors"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

// checkFHT verifies the table's invariants: every counter is the number of
// items hashing to its bucket (stuck at the maximum), every item is kept
// in the bucket of its smallest counter and in no other, and the unpruned
// index lists each item under each of its buckets.
func checkFHT(t *testing.T, f *FHT) {
	t.Helper()
	d := len(f.c.sizes)
	under := make([]uint64, len(f.all))
	for b, node := range f.all {
		for ; node != 0; node = f.nodes[node] {
			under[b]++
			var bs [MaxLevels]uint64
			f.bucketsOf(f.items[node/uint32(d)].key, &bs)
			if bs[node%uint32(d)] != uint64(b) {
				t.Fatalf("bucket %d lists an item whose bucket %d is %d", b, node%uint32(d), bs[node%uint32(d)])
			}
		}
	}
	for b, n := range under {
		if got, want := f.c.c.a.Get(uint64(b)), min(n, f.c.c.a.mask); got != want {
			t.Fatalf("counter %d is %d, %d items hash there", b, got, n)
		}
	}
	seen := 0
	for b, id := range f.head {
		for ; id != 0; id = f.items[id].next {
			seen++
			it := f.items[id]
			if it.at != uint32(b) {
				t.Fatalf("item in bucket %d says it is in %d", b, it.at)
			}
			if typ, at := f.c.least(it.key); typ == 0 || at != uint64(b) {
				t.Fatalf("item kept in bucket %d, its smallest counter is at %d (type %d)", b, at, typ)
			}
		}
	}
	if seen != f.Len() || uint64(seen) != f.c.Count() {
		t.Fatalf("%d items kept, Len %d, counted %d", seen, f.Len(), f.c.Count())
	}
}

// Every inserted key is found by reading the one bucket its counters name;
// the counters count the items under each bucket; insertions relocate.
func TestFHTFindsEveryKeyInOneBucket(t *testing.T) {
	const n = 5000
	f, err := NewFHT(FHTConfig{Sizes: []uint64{3 * n, 3 * n / 2, 3 * n / 4, 3 * n / 8, 3 * n / 16}, CounterBits: 4})
	if err != nil {
		t.Fatal(err)
	}
	keys := randomKeys(21, n)
	for i, h := range keys {
		if err := f.Insert(h, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	checkFHT(t, f)
	if f.Relocations() == 0 {
		t.Error("no insertion relocated an item")
	}
	items := 0
	for i, h := range keys {
		r := f.Lookup(h)
		if !r.Found || r.Value != uint64(i) || r.Touched != 1 || r.Outcome != Hit || r.Items < 1 {
			t.Fatalf("key %d: %+v", i, r)
		}
		items += r.Items
	}
	if items == n {
		t.Error("no bucket read held two items: the test checks too little")
	}
	st := f.Stats()
	if st.Lookups != n || st.Hits != n || st.Touched != n || st.Items != uint64(items) || st.TypeFailures != 0 {
		t.Errorf("stats %+v", st)
	}
	fp := 0
	for _, h := range randomKeys(22, 20000) {
		r := f.Lookup(h)
		if r.Found {
			t.Fatal("found a key never inserted")
		}
		if r.Touched > 1 || (r.Touched == 1) != (r.Outcome == FalsePositive) {
			t.Fatalf("absent key: %+v", r)
		}
		fp += r.Touched
	}
	if fp == 0 {
		t.Error("no false positive among 20000 absent keys")
	}
	loads, total := f.Loads(), uint64(0)
	for j, c := range loads {
		total += uint64(j) * c
	}
	if total != n || len(loads) < 3 {
		t.Errorf("loads %v hold %d items", loads, total)
	}
}

// Deletions relocate the items their lowered counters attract, and the
// table after insertions and deletions is the pruned table of what it
// holds: the same placement as the survivors inserted afresh in another
// order (with counters wide enough never to stick).
func TestFHTDeleteRelocates(t *testing.T) {
	const n = 3000
	cfg := FHTConfig{Sizes: []uint64{n, n / 2, n / 4}, CounterBits: 16, Seed: 7}
	f, _ := NewFHT(cfg)
	keys := randomKeys(23, 2*n)
	for i, h := range keys {
		f.Insert(h, uint64(i))
	}
	before := f.Relocations()
	for _, h := range keys[:n] {
		if !f.Delete(h) {
			t.Fatal("Delete of a stored key reported absent")
		}
	}
	if f.Delete(keys[0]) {
		t.Error("second Delete reported present")
	}
	if f.Relocations() == before {
		t.Error("no deletion relocated an item")
	}
	checkFHT(t, f)
	for i, h := range keys {
		v, ok := f.Get(h)
		if ok != (i >= n) || (ok && v != uint64(i)) {
			t.Fatalf("key %d: %d %v", i, v, ok)
		}
	}
	// Reinsertion reuses the freed items.
	for i, h := range keys[:n/2] {
		f.Insert(h, uint64(i))
	}
	if len(f.items) != 2*n+1 {
		t.Errorf("%d item slots for %d items", len(f.items)-1, f.Len())
	}
	checkFHT(t, f)
	fresh, _ := NewFHT(cfg)
	for i := len(keys) - 1; i >= 0; i-- {
		if i >= n || i < n/2 {
			fresh.Insert(keys[i], 0)
		}
	}
	where := func(f *FHT) map[hashing.Hash128]uint32 {
		m := map[hashing.Hash128]uint32{}
		for _, id := range f.head {
			for ; id != 0; id = f.items[id].next {
				m[f.items[id].key] = f.items[id].at
			}
		}
		return m
	}
	a, b := where(f), where(fresh)
	if len(a) != len(b) || len(a) != f.Len() {
		t.Fatalf("%d and %d items", len(a), len(b))
	}
	for k, at := range a {
		if b[k] != at {
			t.Fatalf("an item sits in bucket %d, afresh in %d", at, b[k])
		}
	}
	// Replacing a value moves nothing.
	moves := f.Relocations()
	f.Insert(keys[n], 99)
	if v, _ := f.Get(keys[n]); v != 99 || f.Relocations() != moves || f.Len() != len(a) {
		t.Errorf("replace: value %d, %d moves, %d items", v, f.Relocations()-moves, f.Len())
	}
	f.Clear()
	if f.Len() != 0 || f.Relocations() != 0 || f.c.Count() != 0 {
		t.Error("Clear left items")
	}
	if _, ok := f.Get(keys[n]); ok {
		t.Error("found a key after Clear")
	}
	checkFHT(t, f)
}

// Saturated counters stick: deleting keeps every other item findable.
func TestFHTStuckCounters(t *testing.T) {
	f, _ := NewFHT(FHTConfig{Sizes: []uint64{40, 20}, CounterBits: 2})
	keys := randomKeys(24, 200)
	for i, h := range keys {
		f.Insert(h, uint64(i))
	}
	checkFHT(t, f)
	for _, h := range keys[:150] {
		f.Delete(h)
	}
	for i, h := range keys[150:] {
		if v, ok := f.Get(h); !ok || v != uint64(150+i) {
			t.Fatalf("key %d lost after deletions with stuck counters", 150+i)
		}
	}
}

func TestFHTConfig(t *testing.T) {
	for _, c := range []FHTConfig{{}, {Sizes: []uint64{10}, CounterBits: 0}, {Sizes: []uint64{0}, CounterBits: 4}, {Sizes: []uint64{10}, CounterBits: 17}} {
		if _, err := NewFHT(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	f, _ := NewFHT(FHTConfig{Sizes: []uint64{8, 4}, CounterBits: 4, Seed: 3})
	if f.Levels() != 2 || f.Seed() != 3 || f.Sizes()[1] != 4 || f.Counters().Bits() != 48 {
		t.Errorf("accessors: %d %d %v %d", f.Levels(), f.Seed(), f.Sizes(), f.Counters().Bits())
	}
	f.InsertString("a", 1)
	f.InsertString("b", 2)
	c := f.Counters()
	f.DeleteString("a")
	if c.Count() != 2 || f.Counters().Count() != 1 {
		t.Error("Counters shares the table's counters")
	}
	n := 0
	for k, v := range f.All() {
		if k != f.HashString("b") || v != 2 {
			t.Errorf("All: %v %d", k, v)
		}
		n++
	}
	if n != 1 {
		t.Errorf("All yields %d items", n)
	}
}

// The zero FHT answers without panicking.
func TestFHTZero(t *testing.T) {
	var f FHT
	h := hashing.Hash128{Lo: 1, Hi: 2}
	if r := f.Lookup(h); r.Found || r.Touched != 0 || r.Outcome != Miss {
		t.Errorf("Lookup %+v", r)
	}
	if err := f.Insert(h, 1); !errors.Is(err, ErrConfig) {
		t.Errorf("Insert: %v", err)
	}
	if f.Delete(h) || f.Len() != 0 || f.Levels() != 0 || f.Sizes() != nil || f.Counters() != nil || f.Loads() != nil {
		t.Error("zero FHT holds something")
	}
	f.Clear()
	for range f.All() {
		t.Error("All yields an item")
	}
	if f.Stats().Lookups != 1 {
		t.Errorf("stats %+v", f.Stats())
	}
}
