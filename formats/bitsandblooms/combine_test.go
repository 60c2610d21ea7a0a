package bitsandblooms

import (
	"bytes"
	"errors"
	"testing"
)

// A folded filter is the filter of half the bits built from the same
// keys; Union and Intersect keep the keys of either and of both.
func TestFoldUnionIntersect(t *testing.T) {
	for _, m := range []uint64{2, 64, 130, 1000, 8192, 100002} {
		f, _ := New(m, 5)
		g, _ := New(m, 5)
		half, _ := New(m/2, 5)
		for i := range 300 {
			f.Add(key("in", i))
			g.Add(key("out", i))
			half.Add(key("in", i))
			half.Add(key("out", i))
		}
		both, _ := New(m, 5)
		both.Add(key("in", 0))
		if err := both.Intersect(f); err != nil {
			t.Fatal(err)
		}
		if !both.Test(key("in", 0)) {
			t.Fatalf("m=%d: a key of both lost by Intersect", m)
		}
		if err := f.Union(g); err != nil {
			t.Fatal(err)
		}
		if !f.Test(key("out", 7)) || !f.Test(key("in", 7)) {
			t.Fatalf("m=%d: a key lost by Union", m)
		}
		if f.Folds() < 1 {
			t.Fatalf("m=%d: Folds %d", m, f.Folds())
		}
		if err := f.Fold(); err != nil {
			t.Fatal(err)
		}
		a, _ := f.MarshalBinary()
		b, _ := half.MarshalBinary()
		if !bytes.Equal(a, b) {
			t.Fatalf("m=%d: folded filter differs from the filter of m=%d with the same keys", m, m/2)
		}
	}
	odd, _ := New(1001, 3)
	if err := odd.Fold(); !errors.Is(err, ErrFold) {
		t.Fatalf("odd m folded: %v", err)
	}
	a, _ := New(64, 3)
	b, _ := New(64, 4)
	if err := a.Union(b); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("union of k=3 and k=4: %v", err)
	}
	if err := a.Intersect(nil); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("intersect with nil: %v", err)
	}
	if _, err := NewWithEstimates(0, 0.1); !errors.Is(err, ErrConfig) {
		t.Fatalf("n=0: %v", err)
	}
	if f, err := NewWithEstimates(1000, 0.01); err != nil || f.M() != 9586 || f.K() != 7 {
		t.Fatalf("NewWithEstimates(1000, 0.01): %v, %v", f, err)
	}
}
