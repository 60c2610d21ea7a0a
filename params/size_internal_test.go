package params

import (
	"math"
	"testing"
)

// Size walks k outwards from log2(1/p) for the block layouts and stops
// early; an exhaustive search over every k must find nothing better.
func TestSizeMatchesExhaustiveSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive search is slow")
	}
	type layoutBlock struct {
		layout Layout
		block  uint64
	}
	lbs := []layoutBlock{{Classic, 0}, {Partitioned, 0}, {Blocked, 0}, {Paged, 0}, {Paged, 64}, {Paged, 4096}, {Paged, 1 << 20}}
	ps := []float64{0.9, 0.5, 0.2, 0.05, 0.01, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5, 1e-6, 1e-7, 1e-9, 1e-12, 1e-15, 1e-18}
	for _, lb := range lbs {
		for _, n := range []uint64{1, 7, 100, 3000, 1e5, 1e6, 2e7} {
			for _, p := range ps {
				got, err := Size(lb.layout, n, p, lb.block)
				if err != nil {
					t.Errorf("Size(%v, %d, %g, %d): %v", lb.layout, n, p, lb.block, err)
					continue
				}
				b, _ := sizeArgs(lb.layout, n, p, lb.block)
				want := Shape{M: math.MaxUint64}
				for k := 1; k <= MaxK; k++ {
					if s, ok := sizeForK(lb.layout, n, p, b, k); ok && s.M < want.M {
						want = s
					}
				}
				if got != want {
					t.Errorf("Size(%v, %d, %g, %d) = %v, exhaustive search %v", lb.layout, n, p, lb.block, got, want)
				}
			}
		}
	}
}
