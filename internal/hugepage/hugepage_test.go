package hugepage

import (
	"testing"
)

// TestWordsZeroed checks that Words is make in effect, advised or not:
// the length asked for, every word zero, writable to the end.
func TestWordsZeroed(t *testing.T) {
	for _, n := range []uint64{0, 1, 1000, MinBytes/8 - 1, MinBytes / 8, 3*Size/8 + 5} {
		w := Words(n)
		if uint64(len(w)) != n {
			t.Fatalf("Words(%d) has length %d", n, len(w))
		}
		for i, x := range w {
			if x != 0 {
				t.Fatalf("Words(%d)[%d] = %#x, want 0", n, i, x)
			}
		}
		for i := range w {
			w[i] = ^uint64(i)
		}
		for i, x := range w {
			if x != ^uint64(i) {
				t.Fatalf("Words(%d)[%d] lost its value", n, i)
			}
		}
	}
}
