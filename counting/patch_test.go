package counting

import (
	"errors"
	"slices"
	"testing"
)

// TestPatchWords: the filter patched in place equals the one FromWords
// builds over the same counters (bit view, saturation, count); a header
// of another filter or a change past the counters is refused and leaves
// the filter unchanged.
func TestPatchWords(t *testing.T) {
	for _, width := range []int{4, 8, 16} {
		c := Config{M: 1001, K: 3, Width: width, Seed: 9}
		f := MustNew(c)
		g := MustNew(c)
		for i := range 300 {
			g.AddString(string(rune('a'+i%26)) + string(rune(i)))
		}
		for range 20 {
			g.AddString("hot") // saturates 4-bit counters
		}
		var changes []WordXOR
		for i, w := range g.Counters() {
			if x := w ^ f.Counters()[i]; x != 0 {
				changes = append(changes, WordXOR{Index: uint64(i), XOR: x})
			}
		}
		slices.Reverse(changes) // any order
		if err := f.PatchWords(g.FrameHeader(), changes); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Counters(), g.Counters()) || !slices.Equal(f.BitView().Words(), g.BitView().Words()) ||
			f.Len() != g.Len() || f.Saturated() != g.Saturated() {
			t.Fatalf("width %d: patched len %d sat %d, want %d %d", width, f.Len(), f.Saturated(), g.Len(), g.Saturated())
		}
		before := slices.Clone(f.Counters())
		other := MustNew(Config{M: 1001, K: 4, Width: width, Seed: 9})
		for _, bad := range []struct {
			name    string
			err     error
			changes []WordXOR
			g       *Filter
		}{
			{"another shape", ErrIncompatible, changes, other},
			{"past the counters", ErrCorrupt, []WordXOR{{Index: 0, XOR: 1}, {Index: uint64(len(before)), XOR: 1}}, g},
			{"past the last counter", ErrCorrupt, []WordXOR{{Index: uint64(len(before)) - 1, XOR: 1 << 63}}, g},
		} {
			if err := f.PatchWords(bad.g.FrameHeader(), bad.changes); !errors.Is(err, bad.err) {
				t.Errorf("width %d, %s: %v, want %v", width, bad.name, err, bad.err)
			}
			if !slices.Equal(f.Counters(), before) {
				t.Fatalf("width %d, %s: the filter changed", width, bad.name)
			}
		}
	}
	if err := new(Filter).PatchWords(MustNew(Config{M: 64, K: 1}).FrameHeader(), nil); !errors.Is(err, ErrIncompatible) {
		t.Errorf("the zero Filter: %v", err)
	}
}
