package scalable

import (
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
)

// keyOf writes key i into buf: 8 bytes, little-endian, the i-th key of
// a test (tag 0 for keys added, other tags for keys never added).
func keyOf(buf *[9]byte, tag byte, i uint64) []byte {
	buf[0] = tag
	binary.LittleEndian.PutUint64(buf[1:], i)
	return buf[:]
}

func TestConfigErrors(t *testing.T) {
	for name, c := range map[string]Config{
		"zero":       {},
		"no rate":    {Capacity: 10},
		"rate 1":     {Capacity: 10, P: 1},
		"tightening": {Capacity: 10, P: 0.01, Tightening: 1},
		"layout":     {Capacity: 10, P: 0.01, Layout: 9},
		"huge":       {Capacity: MaxCapacity + 1, P: 0.01},
		// No blocked first layer reaches the rate: a configuration
		// error, not a full filter.
		"tiny rate": {Capacity: 1000, P: 1e-300},
	} {
		_, err := New(c)
		if !errors.Is(err, ErrConfig) || !strings.HasPrefix(err.Error(), "scalable: ") {
			t.Errorf("%s: %v, want a scalable: ErrConfig", name, err)
		}
		if errors.Is(err, ErrFull) || err != nil && strings.Count(err.Error(), "scalable: ") > 1 {
			t.Errorf("%s: %v, want one scalable: prefix and not ErrFull", name, err)
		}
	}
	f := MustNew(Config{Capacity: 100, P: 0.01})
	c := f.Config()
	if c.Expansion != 2 || c.Tightening != 0.5 || c.Layout != bloom.Blocked || f.Layers() != 1 || f.Capacity(0) != 100 {
		t.Errorf("defaults: %+v, %d layers", c, f.Layers())
	}
}

func TestGrowth(t *testing.T) {
	for _, l := range []bloom.Layout{bloom.Classic, bloom.Partitioned, bloom.Blocked, bloom.Paged} {
		f := MustNew(Config{Capacity: 100, P: 0.01, Layout: l, Seed: 7})
		var buf [9]byte
		for i := range uint64(3100) {
			if err := f.Add(keyOf(&buf, 0, i)); err != nil {
				t.Fatal(err)
			}
		}
		// 100 + 200 + 400 + 800 + 1600 = 3100, less the keys found present.
		if f.Layers() != 5 && f.Layers() != 6 {
			t.Errorf("%v: %d layers after 3100 keys", l, f.Layers())
		}
		for i := range f.Layers() {
			if f.Layer(i).Count() > f.Capacity(i) || f.Capacity(i) != 100<<i {
				t.Errorf("%v: layer %d holds %d keys, capacity %d", l, i, f.Layer(i).Count(), f.Capacity(i))
			}
			s := f.Layer(i).Shape()
			if p, want := s.FalsePositive(f.Capacity(i)), f.Config().LayerRate(i); p > want*1.01 {
				t.Errorf("%v: layer %d's rate at capacity is %g, its target %g", l, i, p, want)
			}
		}
		for i := range uint64(3100) {
			if !f.Contains(keyOf(&buf, 0, i)) {
				t.Fatalf("%v: false negative %d", l, i)
			}
		}
		if f.Count() > 3100 || f.Count() < 3000 {
			t.Errorf("%v: Count = %d", l, f.Count())
		}
		if p := f.PredictedRate(); p > 0.01 || p <= 0 {
			t.Errorf("%v: predicted rate %g", l, p)
		}
		if f.FalsePositiveRate() > 0.02 {
			t.Errorf("%v: rate from the bits %g", l, f.FalsePositiveRate())
		}
		if f.Layer(-1) != nil || f.Layer(f.Layers()) != nil || f.Capacity(99) != 0 {
			t.Error("out-of-range layers")
		}
	}
}

func TestDuplicatesNotCounted(t *testing.T) {
	f := MustNew(Config{Capacity: 10, P: 0.01})
	for range 100 {
		if err := f.AddString("same"); err != nil {
			t.Fatal(err)
		}
	}
	if f.Count() != 1 || f.Layers() != 1 {
		t.Errorf("Count %d, %d layers after one key added 100 times", f.Count(), f.Layers())
	}
	if present, err := f.TestAndAdd([]byte("same")); !present || err != nil {
		t.Errorf("TestAndAdd of a present key: %v, %v", present, err)
	}
}

func TestNonScaling(t *testing.T) {
	f := MustNew(Config{Capacity: 50, P: 0.01, NonScaling: true})
	var buf [9]byte
	added := 0
	var err error
	for i := range uint64(100) {
		if err = f.Add(keyOf(&buf, 0, i)); err != nil {
			break
		}
		added++
	}
	if !errors.Is(err, ErrFull) || f.Layers() != 1 || f.Count() != 50 {
		t.Errorf("non-scaling: %v after %d keys, %d layers, count %d", err, added, f.Layers(), f.Count())
	}
	if !strings.HasPrefix(err.Error(), "scalable: ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q", err)
	}
}

func TestBatch(t *testing.T) {
	f := MustNew(Config{Capacity: 100, P: 0.01, Seed: 3})
	g := MustNew(Config{Capacity: 100, P: 0.01, Seed: 3})
	var buf [9]byte
	hs := make([]hashing.Hash128, 2000)
	for i := range hs {
		hs[i] = f.Hash(keyOf(&buf, 0, uint64(i%1500))) // 500 duplicates
	}
	if err := f.AddBatch(hs); err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if err := g.AddHash(h); err != nil {
			t.Fatal(err)
		}
	}
	if !f.Equal(g) || f.Count() != g.Count() {
		t.Errorf("AddBatch and AddHash differ: %v vs %v", f, g)
	}
	absent := make([]hashing.Hash128, 3000)
	for i := range absent {
		absent[i] = f.Hash(keyOf(&buf, 1, uint64(i)))
	}
	out := make([]bool, len(absent))
	f.ContainsBatch(absent, out)
	for i, h := range absent {
		if out[i] != f.ContainsHash(h) {
			t.Fatalf("ContainsBatch differs at %d", i)
		}
	}
	f.ContainsBatch(hs, out)
	for i := range hs {
		if !out[i] {
			t.Fatalf("ContainsBatch: false negative %d", i)
		}
	}
}

func TestUnion(t *testing.T) {
	c := Config{Capacity: 100, P: 0.01, Seed: 5}
	a, b := MustNew(c), MustNew(c)
	var buf [9]byte
	for i := range uint64(250) {
		_ = a.Add(keyOf(&buf, 0, i))
	}
	for i := range uint64(1000) {
		_ = b.Add(keyOf(&buf, 1, i))
	}
	la, lb := a.Layers(), b.Layers()
	u := a.Clone()
	if err := u.Union(b); err != nil {
		t.Fatal(err)
	}
	if u.Layers() != max(la, lb) {
		t.Errorf("union has %d layers, inputs %d and %d", u.Layers(), la, lb)
	}
	for i := range uint64(250) {
		if !u.Contains(keyOf(&buf, 0, i)) {
			t.Fatal("union lost a key of a")
		}
	}
	for i := range uint64(1000) {
		if !u.Contains(keyOf(&buf, 1, i)) {
			t.Fatal("union lost a key of b")
		}
	}
	// The other way round: b keeps its newer layers.
	v := b.Clone()
	if err := v.Union(a); err != nil || !v.Equal(u) {
		t.Errorf("b ∪ a differs from a ∪ b: %v", err)
	}
	if err := u.Add([]byte("more")); err != nil || !u.ContainsString("more") {
		t.Errorf("adding to a union: %v", err)
	}
	if err := a.Union(MustNew(Config{Capacity: 100, P: 0.02, Seed: 5})); !errors.Is(err, ErrIncompatible) {
		t.Errorf("union of other rates: %v", err)
	}
	if err := a.Union(MustNew(Config{Capacity: 100, P: 0.01, Seed: 6})); !errors.Is(err, ErrIncompatible) {
		t.Errorf("union of other seeds: %v", err)
	}
	if err := a.Union(nil); !errors.Is(err, ErrZero) {
		t.Errorf("union with nil: %v", err)
	}
}

func TestConcurrent(t *testing.T) {
	c, err := NewConcurrent(Config{Capacity: 100, P: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf [9]byte
			for i := range uint64(500) {
				k := keyOf(&buf, byte(g), i)
				if err := c.Add(k); err != nil {
					t.Error(err)
					return
				}
				if !c.Contains(k) {
					t.Error("a key just added is missing")
					return
				}
			}
		}()
	}
	wg.Wait()
	s := c.Snapshot()
	var buf [9]byte
	for g := range 4 {
		for i := range uint64(500) {
			if !s.Contains(keyOf(&buf, byte(g), i)) {
				t.Fatal("snapshot lost a key")
			}
		}
	}
	if c.Count() != s.Count() || s.Count() < 1900 {
		t.Errorf("counts %d, %d", c.Count(), s.Count())
	}
	if (&Concurrent{}).Snapshot().Layers() != 0 {
		t.Error("zero Concurrent's snapshot")
	}
}

func TestZeroFilter(t *testing.T) {
	var f Filter
	if f.Count() != 0 || f.Layers() != 0 || f.SizeBytes() != 0 || f.FalsePositiveRate() != 0 || f.PredictedRate() != 0 {
		t.Error("zero Filter's accessors")
	}
	if _, err := f.MarshalBinary(); !errors.Is(err, ErrZero) {
		t.Errorf("MarshalBinary: %v", err)
	}
	if err := f.Union(MustNew(Config{Capacity: 1, P: 0.5})); !errors.Is(err, ErrZero) {
		t.Errorf("Union: %v", err)
	}
	defer func() {
		if r := recover(); r != errZeroFilter {
			t.Errorf("Contains on a zero Filter: %v", r)
		}
	}()
	f.ContainsString("x")
}

func TestNoAllocations(t *testing.T) {
	f := MustNew(Config{Capacity: 1000, P: 0.01})
	var buf [9]byte
	for i := range uint64(5000) {
		_ = f.Add(keyOf(&buf, 0, i))
	}
	h := f.Hash([]byte("absent"))
	key := []byte("key-0123456789-0123456789")
	if n := testing.AllocsPerRun(100, func() {
		f.ContainsHash(h)
		f.Contains(key)
		f.ContainsString("absent")
		_ = f.AddHash(f.Hash(keyOf(&buf, 0, 1)))
	}); n != 0 {
		t.Errorf("%v allocations per query and add of a present key", n)
	}
}

func TestStats(t *testing.T) {
	f := MustNew(Config{Capacity: 100, P: 0.01})
	var buf [9]byte
	for i := range uint64(500) {
		_ = f.Add(keyOf(&buf, 0, i))
	}
	st := f.Stats()
	var sum float64
	n, bytes := uint64(0), 0
	for i, s := range st {
		if s.Capacity != f.Capacity(i) || s.Count > s.Capacity || s.Fill <= 0 || s.Predict > s.Target*1.01 || s.M == 0 {
			t.Errorf("layer %d: %+v", i, s)
		}
		sum += s.Target
		n += s.Count
		bytes += s.Bytes
	}
	if sum >= 0.01 || n != f.Count() || bytes != f.SizeBytes() || len(st) != f.Layers() {
		t.Errorf("targets sum to %g, counts %d of %d, bytes %d of %d", sum, n, f.Count(), bytes, f.SizeBytes())
	}
	if (&Filter{}).Stats() == nil || len((&Filter{}).Stats()) != 0 {
		t.Error("zero Filter's stats")
	}
}
