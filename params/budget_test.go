package params_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bloomcast/bloomcast/params"
)

// TestZeroBitsSD throws the probes of every layout at random and compares
// the standard deviation of the zero bits over 400 filters with the
// occupancy formulas (a sample SD of 400 is within 10% with high
// probability).
func TestZeroBitsSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		s params.Shape
		n int
	}{
		{params.Shape{Layout: params.Classic, M: 20000, K: 3}, 1000},
		{params.Shape{Layout: params.Classic, M: 8000, K: 6}, 1000},
		{params.Shape{Layout: params.Partitioned, M: 3 * 4096, K: 3}, 1500},
		{params.Shape{Layout: params.Blocked, M: 64 * 512, K: 4, BlockBits: 512}, 3000},
		{params.Shape{Layout: params.Paged, M: 16 * 1024, K: 2, BlockBits: 1024}, 2000},
	} {
		const trials = 400
		var sum, sq float64
		bits := make([]bool, c.s.M)
		for range trials {
			clear(bits)
			for range c.n {
				switch c.s.Layout {
				case params.Classic:
					for range c.s.K {
						bits[rng.Uint64N(c.s.M)] = true
					}
				case params.Partitioned:
					w := c.s.M / uint64(c.s.K)
					for i := range uint64(c.s.K) {
						bits[i*w+rng.Uint64N(w)] = true
					}
				default:
					b := c.s.BlockBits
					base := rng.Uint64N(c.s.M/b) * b
					for range c.s.K {
						bits[base+rng.Uint64N(b)] = true
					}
				}
			}
			z := 0.0
			for _, set := range bits {
				if !set {
					z++
				}
			}
			sum += z
			sq += z * z
		}
		mean := sum / trials
		sd := math.Sqrt((sq - trials*mean*mean) / (trials - 1))
		if want := params.ZeroBitsSD(c.s, uint64(c.n)); math.Abs(sd-want) > 0.12*want {
			t.Errorf("%v, n = %d: measured σ %.2f, formula %.2f", c.s, c.n, sd, want)
		}
	}
}

// TestOptimizeBudget: at the paper's 16 bits per key the compressed
// optimum within 4× the budget is k = 3 (the paper's m/n = 48 row), its
// 99.9% bound fits, and it beats the raw filter of the same bytes.
func TestOptimizeBudget(t *testing.T) {
	const n, frame = 10000, 65
	r, err := params.OptimizeBudget(params.BudgetQuery{N: n, Bytes: 2*n + frame, FrameBytes: frame})
	if err != nil {
		t.Fatal(err)
	}
	b := r.Best
	if b.Shape.Layout != params.Classic || b.Shape.K != 3 || !b.Compressed || b.BoundBytes > 2*n+frame {
		t.Fatalf("best %+v", b)
	}
	if bpk := float64(b.Shape.M) / n; bpk < 46 || bpk > 50 || b.FalsePositive > 2.4e-4 {
		t.Errorf("best m/n %.2f, rate %g; the paper has 48, 2.22e-4", bpk, b.FalsePositive)
	}
	if z := b.MeanBytes + r.Z*b.SDBytes; math.Abs(z-b.BoundBytes) > 1e-6 || math.Abs(r.Z-3.0902) > 1e-3 {
		t.Errorf("bound %g, mean + zσ %g (z = %g)", b.BoundBytes, z, r.Z)
	}
	if r.Raw.Compressed || r.Raw.Shape.M != 16*n || r.Raw.FalsePositive < 4e-4 || b.FalsePositive > r.Raw.FalsePositive/2 {
		t.Errorf("raw %+v against best %+v", r.Raw, b)
	}
	if !r.CapBinds || r.CapBits != 4*8*2*n || r.Uncapped.FalsePositive >= b.FalsePositive || r.Uncapped.Shape.M <= r.CapBits {
		t.Errorf("cap %d, binds %v, uncapped %+v", r.CapBits, r.CapBinds, r.Uncapped)
	}
	if len(r.PerLayout) != 4 {
		t.Errorf("%d layouts", len(r.PerLayout))
	}
	for _, s := range r.PerLayout {
		if s.FalsePositive < b.FalsePositive || s.BoundBytes > 2*n+frame {
			t.Errorf("layout %+v beats or overruns the best", s)
		}
	}
	// A memory cap at the raw size leaves the raw filter.
	r, err = params.OptimizeBudget(params.BudgetQuery{N: n, Bytes: 2*n + frame, FrameBytes: frame, MaxBits: 16 * n, Layouts: []params.Layout{params.Classic}})
	if err != nil || r.Best.Compressed || r.Best.Shape.M != 16*n {
		t.Errorf("cap at the raw size: %+v, %v", r.Best, err)
	}
	for _, q := range []params.BudgetQuery{{N: 0, Bytes: 100}, {N: 10, Bytes: 60, FrameBytes: 60}, {N: 10, Bytes: 1000, Confidence: 1}} {
		if _, err := params.OptimizeBudget(q); err == nil {
			t.Errorf("%+v: no error", q)
		}
	}
}
