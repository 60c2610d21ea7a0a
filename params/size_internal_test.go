package params

import (
	"math"
	"testing"
)

// Size walks k outwards from log2(1/p) for the block layouts and stops
// early; an exhaustive search over every k must find nothing better (and,
// for Blocked, no shape with fewer probes within BlockedProbeSlack).
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
				if lb.layout == Blocked { // the fewest probes within the slack
					bound := want.M + uint64(float64(want.M)*BlockedProbeSlack)
					for k := 1; k < want.K; k++ {
						if s, ok := sizeForK(lb.layout, n, p, b, k); ok && s.M <= bound {
							want = s
							break
						}
					}
				}
				if got != want {
					t.Errorf("Size(%v, %d, %g, %d) = %v, exhaustive search %v", lb.layout, n, p, lb.block, got, want)
				}
			}
		}
	}
}

// At p = 10⁻³ the smallest Blocked shape has nine probes and eight cost
// 0.7% more bits: Size takes eight. At p = 1% six probes are the smallest
// and five cost 2% more: Size keeps six.
func TestSizeBlockedTradesSlackForProbes(t *testing.T) {
	cases := []struct {
		p              float64
		want, smallest int
	}{{1e-3, 8, 9}, {0.01, 6, 6}}
	for _, c := range cases {
		got, err := Size(Blocked, 1e5, c.p, 0)
		if err != nil {
			t.Fatal(err)
		}
		small, _ := sizeForK(Blocked, 1e5, c.p, BlockedBits, c.smallest)
		if got.K != c.want || got.M < small.M || float64(got.M) > float64(small.M)*(1+BlockedProbeSlack) {
			t.Errorf("p=%g: Size = %v, want k=%d within %.0f%% of %v", c.p, got, c.want, 100*BlockedProbeSlack, small)
		}
	}
}
