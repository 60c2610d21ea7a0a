package mht

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

// randomKeys returns n random hashes from a fixed seed.
func randomKeys(seed uint64, n int) []hashing.Hash128 {
	r := rand.New(rand.NewPCG(seed, 7))
	k := make([]hashing.Hash128, n)
	for i := range k {
		k[i] = hashing.Hash128{Lo: r.Uint64(), Hi: r.Uint64()}
	}
	return k
}

func testPlan(t testing.TB, n uint64) Plan {
	p, err := DefaultPlan(n)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfig(t *testing.T) {
	for _, c := range []Config{
		{}, {Sizes: []uint64{0}}, {Sizes: []uint64{10}, Levels: 2}, {First: 10, Levels: 0},
		{First: 10, Levels: 3, Ratio: 1.5}, {Sizes: make([]uint64, MaxLevels+1)}, {First: 10, Levels: 2, LazyDelete: -1},
	} {
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", c, err)
		}
	}
	tb := MustNew(Config{First: 100, Levels: 3})
	if got := fmt.Sprint(tb.Sizes()); got != "[100 50 25]" || tb.Buckets() != 175 || tb.Levels() != 3 {
		t.Errorf("sizes %s", got)
	}
}

func TestInsertGetDelete(t *testing.T) {
	tb := MustNew(Config{First: 3000, Levels: 4, Seed: 9})
	keys := randomKeys(1, 1000)
	for i, h := range keys {
		if err := tb.Insert(h, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.Insert(keys[5], 55); err != nil || tb.Len() != 1000 {
		t.Fatalf("update: %v, %d items", err, tb.Len())
	}
	for i, h := range keys {
		want := uint64(i)
		if i == 5 {
			want = 55
		}
		if v, ok := tb.Get(h); !ok || v != want {
			t.Fatalf("key %d: %d %v", i, v, ok)
		}
	}
	if _, ok := tb.Get(hashing.SumString("absent")); ok {
		t.Error("absent key found")
	}
	st := tb.Stats()
	if st.Lookups != 1001 || st.Hits != 1000 || st.Touched < 1000+4 {
		t.Errorf("stats %+v", st)
	}
	occ := tb.Occupancy()
	total := uint64(0)
	for _, c := range occ {
		total += c
	}
	if total != 1000 || occ[0] < occ[1] {
		t.Errorf("occupancy %v", occ)
	}
	seen := 0
	for h, v := range tb.All() {
		if r := tb.Probe(h); !r.Found || r.Value != v {
			t.Fatal("All yields a key Probe cannot find")
		}
		seen++
	}
	if seen != 1000 {
		t.Errorf("All yielded %d", seen)
	}
	for _, h := range keys[:500] {
		if ok, err := tb.Delete(h); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if ok, _ := tb.Delete(keys[0]); ok || tb.Len() != 500 {
		t.Error("deleted twice")
	}
	for i, h := range keys {
		if _, ok := tb.Get(h); ok != (i >= 500) {
			t.Fatalf("key %d after deletions: %v", i, ok)
		}
	}
}

// A crisis refuses the item and changes nothing.
func TestCrisis(t *testing.T) {
	tb := MustNew(Config{Sizes: []uint64{4, 2}})
	keys := randomKeys(2, 50)
	var stored []hashing.Hash128
	crises := 0
	for _, h := range keys {
		err := tb.Insert(h, h.Lo)
		switch {
		case errors.Is(err, ErrCrisis):
			crises++
		case err != nil:
			t.Fatal(err)
		default:
			stored = append(stored, h)
		}
	}
	if crises == 0 || tb.Len() != len(stored) || len(stored) > 6 {
		t.Fatalf("%d crises, %d stored, Len %d", crises, len(stored), tb.Len())
	}
	for _, h := range stored {
		if v, ok := tb.Get(h); !ok || v != h.Lo {
			t.Fatal("a stored item was lost or overwritten")
		}
	}
}

// Every summary finds every stored key, with one bucket unless it errs,
// and counts its errors.
func TestSummaries(t *testing.T) {
	p := testPlan(t, 2000)
	keys := randomKeys(3, 2000)
	absent := randomKeys(4, 5000)
	for _, k := range Kinds() {
		t.Run(k.String(), func(t *testing.T) {
			tb := MustNew(Config{Sizes: p.Sizes})
			s, err := p.NewSummary(k)
			if err != nil {
				t.Fatal(err)
			}
			if err := tb.SetSummary(s); err != nil {
				t.Fatal(err)
			}
			for i, h := range keys {
				if err := tb.Insert(h, uint64(i)); err != nil {
					t.Fatal(err)
				}
			}
			if s.Count() != 2000 || s.Kind() != k || s.Levels() != 5 || s.Bits() == 0 {
				t.Errorf("count %d kind %v levels %d bits %d", s.Count(), s.Kind(), s.Levels(), s.Bits())
			}
			for i, h := range keys {
				r := tb.Lookup(h)
				if !r.Found || r.Value != uint64(i) || r.Type != tb.Probe(h).Type {
					t.Fatalf("key %d: %+v", i, r)
				}
				if (r.Outcome == Hit) != (r.Touched == 1) {
					t.Fatalf("key %d: %+v", i, r)
				}
			}
			for _, h := range absent {
				r := tb.Lookup(h)
				if r.Found || (r.Outcome == Miss) != (r.Touched == 0) {
					t.Fatalf("absent: %+v", r)
				}
			}
			st := tb.Stats()
			if st.Hits != 2000 || st.Lookups != 7000 {
				t.Errorf("%+v", st)
			}
			if k == KindInterp && (st.FalsePositives != 0 || st.TypeFailures != 0) {
				t.Errorf("interpolation search erred: %+v", st)
			}
			if k == KindSong && st.TypeFailures == 0 {
				t.Errorf("Song's rule never failed on a multilevel table: %+v", st)
			}
			// Deletion: summaries that forget, and ErrNoDelete for the rest.
			ok, err := tb.Delete(keys[0])
			if s.CanRemove() {
				if !ok || err != nil {
					t.Fatal(ok, err)
				}
				if _, found := tb.Get(keys[0]); found || tb.Len() != 1999 {
					t.Error("deleted key still found")
				}
				for _, h := range keys[1:] {
					if _, found := tb.Get(h); !found {
						t.Fatal("deletion lost another key")
					}
				}
			} else if !errors.Is(err, ErrNoDelete) || ok || tb.Len() != 2000 {
				t.Errorf("plain summary delete: %v %v", ok, err)
			}
		})
	}
}

func TestCountingSFForgets(t *testing.T) {
	s, err := NewSF(SFConfig{Levels: 3, Cells: 1000, K: 4, CounterBits: 4})
	if err != nil {
		t.Fatal(err)
	}
	h := hashing.SumString("x")
	s.Add(h, 3)
	s.Add(h, 1)
	if s.Type(h) != 3 {
		t.Fatal(s.Type(h))
	}
	s.Remove(h, 3)
	if s.Type(h) != 1 {
		t.Fatal(s.Type(h))
	}
	s.Remove(h, 1)
	if s.Type(h) != 0 {
		t.Fatal(s.Type(h))
	}
}

// Lazy deletion marks buckets and rebuilds at the threshold.
func TestLazyDelete(t *testing.T) {
	p := testPlan(t, 1000)
	tb := MustNew(Config{Sizes: p.Sizes, LazyDelete: 100})
	s, _ := p.NewSummary(KindSF)
	if err := tb.SetSummary(s); err != nil {
		t.Fatal(err)
	}
	keys := randomKeys(5, 1000)
	for i, h := range keys {
		if err := tb.Insert(h, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i, h := range keys[:99] {
		if ok, err := tb.Delete(h); !ok || err != nil {
			t.Fatal(i, ok, err)
		}
	}
	if tb.Deleted() != 99 || tb.Len() != 901 {
		t.Fatalf("deleted %d, len %d", tb.Deleted(), tb.Len())
	}
	if _, ok := tb.Get(keys[0]); ok {
		t.Error("lazily deleted key found")
	}
	// Re-inserting a marked key revives it.
	if err := tb.Insert(keys[0], 7); err != nil || tb.Deleted() != 98 {
		t.Fatal(err, tb.Deleted())
	}
	if v, ok := tb.Get(keys[0]); !ok || v != 7 {
		t.Error("revived key")
	}
	for _, h := range keys[99:101] {
		tb.Delete(h)
	}
	if tb.Deleted() != 0 || tb.Len() != 900 || s.Count() != 900 {
		t.Fatalf("after rebuild: deleted %d, len %d, summary %d", tb.Deleted(), tb.Len(), s.Count())
	}
	for i, h := range keys {
		if _, ok := tb.Get(h); ok != (i == 0 || i >= 101) {
			t.Fatalf("key %d after rebuild: %v", i, ok)
		}
	}
}

// TestInterpConfig checks that NewInterp refuses a bad configuration
// before it allocates: a Capacity beyond MaxBuckets is an error, not a
// slice the runtime refuses.
func TestInterpConfig(t *testing.T) {
	for _, c := range []InterpConfig{
		{}, {Levels: MaxLevels + 1}, {Levels: 3, HashBits: 7}, {Levels: 3, HashBits: 63},
		{Levels: 3, Capacity: -1}, {Levels: 3, Capacity: MaxBuckets + 1}, {Levels: 3, Capacity: math.MaxInt},
	} {
		if _, err := NewInterp(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", c, err)
		}
	}
}

// Interpolation search refuses a second item with the same hash, and the
// table keeps nothing of it.
func TestInterpCollision(t *testing.T) {
	tb := MustNew(Config{First: 20000, Levels: 3})
	s, err := NewInterp(InterpConfig{Levels: 3, HashBits: 8})
	if err != nil {
		t.Fatal(err)
	}
	tb.SetSummary(s)
	collided := false
	for i, h := range randomKeys(6, 200) {
		err := tb.Insert(h, uint64(i))
		if errors.Is(err, ErrCollision) {
			collided = true
			if _, ok := tb.Get(h); ok || tb.Len() != int(s.Count()) {
				t.Fatal("refused item kept")
			}
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if !collided {
		t.Error("no collision among 200 8-bit hashes")
	}
	// SetSummary over a table with a collision fails and keeps the old one.
	tb2 := MustNew(Config{First: 20000, Levels: 3})
	for _, h := range randomKeys(6, 200) {
		tb2.Insert(h, 0)
	}
	s2, _ := NewInterp(InterpConfig{Levels: 3, HashBits: 8})
	if err := tb2.SetSummary(s2); !errors.Is(err, ErrCollision) || tb2.Summary() != nil {
		t.Errorf("SetSummary: %v", err)
	}
}

func TestInterpSearch(t *testing.T) {
	s, _ := NewInterp(InterpConfig{Levels: 4})
	keys := randomKeys(8, 5000)
	for i, h := range keys {
		if err := s.Add(h, i%4+1); err != nil {
			t.Fatal(err)
		}
	}
	for i, h := range keys {
		if s.Type(h) != i%4+1 {
			t.Fatalf("key %d: type %d", i, s.Type(h))
		}
	}
	for _, h := range randomKeys(9, 5000) {
		if s.Type(h) != 0 {
			t.Fatal("false positive with 62-bit hashes")
		}
	}
	for i, h := range keys[:2500] {
		s.Remove(h, i%4+1)
	}
	if s.Count() != 2500 || s.Type(keys[0]) != 0 || s.Type(keys[4999]) != 4999%4+1 {
		t.Error("remove")
	}
}

func TestSummaryMismatch(t *testing.T) {
	tb := MustNew(Config{First: 100, Levels: 3})
	s, _ := NewSF(SFConfig{Levels: 4, Cells: 100, K: 2})
	if err := tb.SetSummary(s); !errors.Is(err, ErrSummary) {
		t.Error(err)
	}
	sg, _ := NewSong(SongConfig{Sizes: []uint64{100, 50, 26}, CounterBits: 4})
	if err := tb.SetSummary(sg); !errors.Is(err, ErrSummary) {
		t.Error(err)
	}
	if err := s.Add(hashing.Hash128{}, 5); !errors.Is(err, ErrConfig) {
		t.Error(err)
	}
	if _, err := ParseKind("nope"); !errors.Is(err, ErrConfig) {
		t.Error(err)
	}
	for _, k := range Kinds() {
		if k2, err := ParseKind(k.String()); err != nil || k2 != k {
			t.Error(k, err)
		}
	}
}

// Hot paths allocate nothing.
func TestNoAllocs(t *testing.T) {
	p := testPlan(t, 1000)
	keys := randomKeys(10, 1000)
	for _, k := range Kinds() {
		tb := MustNew(Config{Sizes: p.Sizes})
		for _, h := range keys {
			tb.Insert(h, 1)
		}
		s, _ := p.NewSummary(k)
		tb.SetSummary(s)
		h := keys[3]
		if a := testing.AllocsPerRun(100, func() { tb.Lookup(h); tb.Probe(h); s.Type(h) }); a != 0 {
			t.Errorf("%v: %v allocations per lookup", k, a)
		}
	}
}

// refusing is a summary that starts refusing every Add once refuse is set.
type refusing struct {
	Summary
	refuse bool
}

var errRefused = errors.New("refused")

func (r *refusing) Add(h hashing.Hash128, typ int) error {
	if r.refuse {
		return errRefused
	}
	return r.Summary.Add(h, typ)
}

// A Rebuild whose summary refuses both the fresh table and the refill
// detaches the summary rather than leave a cleared one in front of the
// items: every live key is still found, and the error says what happened.
func TestRebuildSummaryRefused(t *testing.T) {
	p := testPlan(t, 1000)
	tb := MustNew(Config{Sizes: p.Sizes, LazyDelete: 1 << 20})
	inner, err := p.NewSummary(KindMBF)
	if err != nil {
		t.Fatal(err)
	}
	s := &refusing{Summary: inner}
	if err := tb.SetSummary(s); err != nil {
		t.Fatal(err)
	}
	keys := randomKeys(6, 1000)
	for i, h := range keys {
		if err := tb.Insert(h, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := tb.Delete(keys[0]); !ok || err != nil {
		t.Fatal(ok, err)
	}
	s.refuse = true
	err = tb.Rebuild()
	if !errors.Is(err, errRefused) || !strings.Contains(err.Error(), "summary detached") {
		t.Fatalf("Rebuild: %v; want the refusal and the detachment", err)
	}
	if tb.Summary() != nil {
		t.Fatal("a summary that could not be refilled is still attached")
	}
	for i, h := range keys[1:] {
		if v, ok := tb.Get(h); !ok || v != uint64(i+1) {
			t.Fatalf("key %d: got %d, %v after the failed Rebuild", i+1, v, ok)
		}
		if r := tb.Lookup(h); r.Outcome != Hit {
			t.Fatalf("key %d: Lookup %v after the failed Rebuild", i+1, r.Outcome)
		}
	}
}
