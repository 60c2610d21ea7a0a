package bloom

import (
	"errors"
	"fmt"
	"testing"
)

// TestCloneSharesNothing changes one word of everything a clone (and a
// Concurrent's snapshot) holds, the keyed hashing table included, and
// checks that the original still finds every key. When Clone copied the
// table's pointer, changing one word of the clone's table made the
// original miss 990 of 1000 keys of 17–128 bytes (most URLs) in the
// classic, partitioned and blocked layouts.
func TestCloneSharesNothing(t *testing.T) {
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("http://www.example.com/objects/%06d.html", i)
	}
	for _, layout := range []Layout{Classic, Partitioned, Blocked, Paged} {
		f := MustNew(Config{Layout: layout, N: 1000, P: 0.01, Seed: 42})
		for _, k := range keys {
			f.AddString(k)
		}
		for _, copyOf := range []struct {
			name string
			c    *Filter
		}{{"Clone", f.Clone()}, {"view Clone", mustView(t, f).Clone()}} {
			c := copyOf.c
			if c.keyed != nil {
				c.keyed[0]++
			}
			c.words[0] ^= 1
			c.Clear()
			missed := 0
			for _, k := range keys {
				if !f.ContainsString(k) {
					missed++
				}
			}
			if missed != 0 {
				t.Errorf("%s, %s: changing the copy made the original miss %d of %d keys", layout, copyOf.name, missed, len(keys))
			}
		}
	}
}

func TestSnapshotSharesNothing(t *testing.T) {
	c, err := NewConcurrent(Config{Layout: Blocked, N: 1000, P: 0.01, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	key := "http://www.example.com/objects/000001.html"
	c.AddString(key)
	s := c.Snapshot()
	if s.keyed != nil {
		s.keyed[0]++
	}
	if !c.ContainsString(key) {
		t.Fatal("changing a snapshot's table changed the concurrent filter's hashing")
	}
}

func mustView(t *testing.T, f *Filter) *Filter {
	t.Helper()
	v, err := NewView(f.Shape(), f.Seed(), f.Scheme(), f.Words())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestUnionWithItself checks that f ∪ f is f, count included.
func TestUnionWithItself(t *testing.T) {
	f := MustNew(Config{N: 100, P: 0.01})
	for i := range 10 {
		f.AddString(fmt.Sprint(i))
	}
	before := f.Clone()
	if err := f.Union(f); err != nil {
		t.Fatal(err)
	}
	if !f.Equal(before) || f.Count() != before.Count() {
		t.Fatalf("f.Union(f): count %d, want %d; bits equal: %t", f.Count(), before.Count(), f.Equal(before))
	}
}

// TestConfigRefusesWhatCannotBeMeant: M with P (the doc says "either"),
// and a page larger than MaxPageBits, which once made a ten-key filter
// allocate 128 GiB and the process die out of memory.
func TestConfigRefusesWhatCannotBeMeant(t *testing.T) {
	for _, c := range []Config{
		{N: 1e6, P: 1e-6, M: 64},
		{Layout: Paged, N: 10, P: 0.01, BlockBits: 1 << 40},
		{Layout: Paged, M: 1 << 20, BlockBits: MaxPageBits * 2},
	} {
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v): %v, want ErrConfig", c, err)
		}
	}
	f, err := New(Config{Layout: Paged, N: 10, P: 0.01, BlockBits: MaxPageBits})
	if err != nil || f.SizeBytes() > MaxPageBits/8 {
		t.Fatalf("ten keys on the largest page: %v, %d bytes", err, f.SizeBytes())
	}
}
