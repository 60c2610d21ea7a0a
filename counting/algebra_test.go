package counting

import (
	"errors"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
)

func TestMergeSubtract(t *testing.T) {
	for _, l := range layouts {
		for _, w := range widths {
			c := Config{Layout: l, N: 3000, P: 0.01, Width: w, Seed: 6}
			a, b, both := mustNew(t, c), mustNew(t, c), mustNew(t, c)
			for i := range 2000 {
				a.AddString(key(i))
				both.AddString(key(i))
				if i%2 == 0 {
					b.AddString(key(i + 1000))
					both.AddString(key(i + 1000))
				}
			}
			sum := a.Clone()
			if err := sum.Merge(b); err != nil {
				t.Fatal(err)
			}
			if !sum.Equal(both) || sum.Len() != both.Len() {
				t.Fatalf("%v/%d: Merge is not the filter of the sum", l, w)
			}
			checkInvariants(t, sum)
			if err := sum.Subtract(b); err != nil {
				t.Fatal(err)
			}
			if !sum.Equal(a) || sum.Len() != a.Len() {
				t.Fatalf("%v/%d: Subtract did not undo Merge", l, w)
			}
			checkInvariants(t, sum)
			// b is not inside a: refused, nothing changes.
			before := a.Clone()
			if err := a.Subtract(b); !errors.Is(err, ErrNotSubset) {
				t.Fatalf("%v/%d: Subtract of a non-subset: %v", l, w, err)
			}
			if !a.Equal(before) {
				t.Fatalf("%v/%d: a refused Subtract changed the filter", l, w)
			}
		}
	}
}

func TestMergeSaturates(t *testing.T) {
	a := mustNew(t, Config{M: 64, K: 1})
	for range 10 {
		a.AddString("x")
	}
	b := a.Clone()
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	if a.CountString("x") != 15 || a.Saturated() != 1 {
		t.Fatalf("Count %d, Saturated %d after merging 10 and 10", a.CountString("x"), a.Saturated())
	}
	// A saturated counter of f stays through Subtract.
	if err := a.Subtract(b); err != nil || a.CountString("x") != 15 {
		t.Fatalf("Subtract from a saturated counter: %v, Count %d", err, a.CountString("x"))
	}
	// A saturated counter of g over an unsaturated one of f is refused.
	if err := b.Subtract(a); !errors.Is(err, ErrNotSubset) {
		t.Fatalf("subtracting a saturated counter: %v", err)
	}
	checkInvariants(t, a)
}

func TestCompatible(t *testing.T) {
	base := Config{M: 1000, K: 3, Seed: 1}
	f := mustNew(t, base)
	others := map[string]Config{
		"m":                {M: 2000, K: 3, Seed: 1},
		"k":                {M: 1000, K: 4, Seed: 1},
		"seed":             {M: 1000, K: 3, Seed: 2},
		"layout":           {Layout: bloom.Partitioned, M: 999, K: 3, Seed: 1},
		"width":            {M: 1000, K: 3, Seed: 1, Width: 8},
		"minimal increase": {M: 1000, K: 3, Seed: 1, MinimalIncrease: true},
	}
	for name, c := range others {
		g := mustNew(t, c)
		if err := f.Compatible(g); !errors.Is(err, ErrIncompatible) {
			t.Errorf("%s: Compatible = %v", name, err)
		}
		if f.Merge(g) == nil || f.Subtract(g) == nil || f.Equal(g) {
			t.Errorf("%s: combined incompatible filters", name)
		}
	}
	if err := f.Compatible(mustNew(t, base)); err != nil {
		t.Fatal(err)
	}
}

func TestCloneEqualClear(t *testing.T) {
	f := mustNew(t, Config{Layout: bloom.Blocked, N: 1000, P: 0.01})
	for i := range 500 {
		f.AddString(key(i))
	}
	g := f.Clone()
	if !g.Equal(f) || g.Len() != f.Len() || !g.BitView().Equal(f.BitView()) {
		t.Fatal("clone differs")
	}
	before := f.BitView().Clone()
	g.AddString("more")
	if g.Equal(f) || !f.BitView().Equal(before) || f.Len() != 500 {
		t.Fatal("changing the clone changed the original, or Equal missed it")
	}
	g.Clear()
	if g.Len() != 0 || g.SetBits() != 0 || g.Saturated() != 0 || g.ContainsString(key(1)) {
		t.Fatalf("Clear left %v", g)
	}
	checkInvariants(t, g)
}
