package bitpack

import (
	"math/rand/v2"
	"testing"
)

func TestGetSetAllWidths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for width := 1; width <= 64; width++ {
		const n = 300
		a := New(n, width)
		want := make([]uint64, n)
		mask := ^uint64(0) >> (64 - width)
		for round := 0; round < 3; round++ {
			for i := range want {
				want[i] = r.Uint64() & mask
				a.Set(uint64(i), want[i])
			}
			for i, v := range want {
				if got := a.Get(uint64(i)); got != v {
					t.Fatalf("width %d field %d: %#x, want %#x", width, i, got, v)
				}
			}
		}
		if uint64(len(a.Words())) != Words(n, uint64(width)) {
			t.Fatalf("width %d: %d words", width, len(a.Words()))
		}
	}
}
