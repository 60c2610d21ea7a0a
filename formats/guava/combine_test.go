package guava

import (
	"bytes"
	"errors"
	"testing"
)

// A folded filter is the filter of half the bits built from the same
// keys, for both strategies; Union and Intersect keep the keys of either
// and of both.
func TestFoldUnionIntersect(t *testing.T) {
	for _, s := range []Strategy{Murmur128Mitz32, Murmur128Mitz64} {
		for _, words := range []int64{2, 8, 150, 1024} {
			f, _ := NewSized(s, 64*words, 7)
			g, _ := NewSized(s, 64*words, 7)
			half, _ := NewSized(s, 32*words, 7)
			for i := range 500 {
				f.AddString(strKey(true, i))
				g.AddLong(longKey(true, i))
				half.AddString(strKey(true, i))
				half.AddLong(longKey(true, i))
			}
			both, _ := NewSized(s, 64*words, 7)
			both.AddString(strKey(true, 3))
			if err := both.Intersect(f); err != nil || !both.TestString(strKey(true, 3)) {
				t.Fatalf("%v %d words: a key of both lost by Intersect (%v)", s, words, err)
			}
			if err := f.Union(g); err != nil {
				t.Fatal(err)
			}
			if !f.TestLong(longKey(true, 9)) || !f.TestString(strKey(true, 9)) {
				t.Fatalf("%v %d words: a key lost by Union", s, words)
			}
			if f.Folds() < 1 {
				t.Fatalf("%v %d words: Folds %d", s, words, f.Folds())
			}
			if err := f.Fold(); err != nil {
				t.Fatal(err)
			}
			a, _ := f.MarshalBinary()
			b, _ := half.MarshalBinary()
			if !bytes.Equal(a, b) {
				t.Fatalf("%v %d words: folded filter differs from the filter of %d words with the same keys", s, words, words/2)
			}
		}
	}
	odd, _ := NewSized(Murmur128Mitz64, 3*64, 3)
	if err := odd.Fold(); !errors.Is(err, ErrFold) {
		t.Fatalf("odd word count folded: %v", err)
	}
	a, _ := NewSized(Murmur128Mitz64, 128, 3)
	for _, b := range []*Filter{nil, {}, must(NewSized(Murmur128Mitz32, 128, 3)), must(NewSized(Murmur128Mitz64, 128, 4)), must(NewSized(Murmur128Mitz64, 256, 3))} {
		if err := a.Union(b); !errors.Is(err, ErrIncompatible) {
			t.Fatalf("union with %v: %v", b, err)
		}
	}
}

func must(f *Filter, err error) *Filter {
	if err != nil {
		panic(err)
	}
	return f
}
