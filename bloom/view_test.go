package bloom

import (
	"errors"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/params"
)

func TestViewSharesWords(t *testing.T) {
	for _, l := range layouts {
		src := mustNew(t, Config{Layout: l, N: 1000, P: 0.01, Seed: 3})
		words := make([]uint64, len(src.Words()))
		v, err := NewView(src.Shape(), src.Seed(), nil, words)
		if err != nil {
			t.Fatal(err)
		}
		if !v.ReadOnly() || v.Clone().ReadOnly() {
			t.Fatal("ReadOnly flags wrong")
		}
		h := src.HashString("k")
		var buf [params.MaxK]uint64
		for _, b := range v.Positions(h, &buf) {
			words[b>>6] |= 1 << (b & 63) // the owner sets the bits in place
		}
		src.AddHash(h)
		if !v.ContainsHash(h) || !v.Equal(src) {
			t.Fatalf("%v: the view does not see the owner's bits", l)
		}
		mustPanic(t, "Add", func() { v.AddString("x") })
		mustPanic(t, "Union", func() { _ = v.Union(src) })
		mustPanic(t, "Fold", func() { _ = v.Fold() })
		mustPanic(t, "Clear", func() { v.Clear() })
		c := v.Clone()
		c.AddString("x") // a clone is writable and independent
		if v.ContainsString("x") && !src.ContainsString("x") {
			t.Fatalf("%v: writing the clone changed the view", l)
		}
	}
	if _, err := NewView(params.Shape{Layout: Classic, M: 100, K: 3}, 0, nil, make([]uint64, 1)); !errors.Is(err, ErrConfig) {
		t.Fatalf("short word slice: %v", err)
	}
}

func mustPanic(t *testing.T, what string, fn func()) {
	t.Helper()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "read-only view") {
			t.Errorf("%s on a view: recovered %v", what, r)
		}
	}()
	fn()
}

func TestBitBytesRoundTrip(t *testing.T) {
	for _, m := range []uint64{1, 7, 8, 9, 63, 64, 65, 200, 1000} {
		f := mustNew(t, Config{M: m, K: 2})
		for i := 0; i < 10; i++ {
			f.AddString(key(i))
		}
		b := f.AppendBitBytes(nil)
		if len(b) != f.BitBytes() {
			t.Fatalf("m=%d: %d bytes", m, len(b))
		}
		g := mustNew(t, Config{M: m, K: 2})
		if err := g.SetBitBytes(b); err != nil || !g.Equal(f) {
			t.Fatalf("m=%d: round trip: %v", m, err)
		}
		for i := uint64(0); i < m; i++ {
			if getBit(f.words, i) != (b[i/8]>>(i%8)&1 == 1) {
				t.Fatalf("m=%d: bit %d misplaced", m, i)
			}
		}
		if m%8 != 0 {
			b[len(b)-1] |= 0x80
			if err := g.SetBitBytes(b); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("m=%d: bit past m accepted: %v", m, err)
			}
		}
		if err := g.SetBitBytes(b[:len(b)-1]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("m=%d: short input accepted", m)
		}
	}
}
