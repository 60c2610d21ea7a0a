package params_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/params"
)

var layouts = []params.Layout{params.Classic, params.Partitioned, params.Blocked, params.Paged}

// smaller returns, for every k, the largest valid M below s.M on the
// layout's grid (0 if none), the shapes Size must have rejected.
func smaller(s params.Shape, k int) uint64 {
	unit := uint64(64)
	switch s.Layout {
	case params.Partitioned:
		unit = 64 * uint64(k)
	case params.Blocked, params.Paged:
		unit = s.BlockBits
	}
	return (s.M - 1) / unit * unit
}

func TestSizeMeetsTargetAndIsMinimal(t *testing.T) {
	for _, layout := range layouts {
		for _, n := range []uint64{1, 10, 1e5, 2e7} {
			for _, p := range []float64{0.5, 0.01, 0.001, 1e-6} {
				s, err := params.Size(layout, n, p, 0)
				if err != nil {
					t.Errorf("Size(%v, %d, %g): %v", layout, n, p, err)
					continue
				}
				checkSized(t, s, n, p)
			}
		}
	}
}

// checkSized checks that s is valid, reaches p, and that no k reaches p
// one granule lower, and no smaller k reaches it at the same M; for
// Blocked, that no larger k reaches it with BlockedProbeSlack less memory.
func checkSized(t *testing.T, s params.Shape, n uint64, p float64) {
	t.Helper()
	if err := s.Validate(); err != nil {
		t.Errorf("n=%d p=%g: %v", n, p, err)
		return
	}
	if f := s.FalsePositive(n); !(f <= p) {
		t.Errorf("%v n=%d: rate %g above p = %g", s, n, f, p)
	}
	for k := 1; k <= params.MaxK; k++ {
		lower := s
		lower.K = k
		onGrid := s.Layout != params.Partitioned || s.M%(64*uint64(k)) == 0
		if k < s.K && onGrid && lower.Validate() == nil && lower.FalsePositive(n) <= p {
			t.Errorf("%v n=%d p=%g: k=%d reaches p with the same M", s, n, p, k)
		}
		if lower.M = smaller(s, k); s.Layout == params.Blocked && k > s.K {
			// More probes may take less memory, but not less than
			// 1/(1+BlockedProbeSlack) of it (less one block, for rounding).
			lower.M = 0
			if m := uint64(float64(s.M) / (1 + params.BlockedProbeSlack)); m > s.BlockBits {
				lower.M = smaller(params.Shape{Layout: s.Layout, M: m - s.BlockBits, BlockBits: s.BlockBits}, k)
			}
		}
		if lower.M == 0 {
			continue
		}
		if f := lower.FalsePositive(n); f <= p {
			t.Errorf("%v n=%d p=%g: not minimal, %v gives %g", s, n, p, lower, f)
		}
	}
}

func TestSizeOtherTargets(t *testing.T) {
	cases := []struct {
		layout    params.Layout
		n         uint64
		p         float64
		blockBits uint64
	}{
		{params.Classic, 1000, 1e-30, 0},
		{params.Blocked, 1000, 1e-20, 512},
		{params.Paged, 1e6, 1e-4, 4096},
		{params.Paged, 1e6, 0.02, 64},
		{params.Partitioned, 3, 0.999, 0},
		{params.Blocked, 1 << 36, 0.01, 0},
		{params.Classic, 1 << 40, 1e-6, 0},
		{params.Paged, 1 << 40, 1e-3, 1 << 20},
		{params.Partitioned, 1 << 40, 0.5, 0},
	}
	for _, c := range cases {
		s, err := params.Size(c.layout, c.n, c.p, c.blockBits)
		if err != nil {
			t.Errorf("Size(%v, %d, %g, %d): %v", c.layout, c.n, c.p, c.blockBits, err)
			continue
		}
		checkSized(t, s, c.n, c.p)
	}
	// Below about 1e−19 the classic optimum needs more than MaxK probes.
	if s, _ := params.Size(params.Classic, 1000, 1e-30, 0); s.K != params.MaxK {
		t.Errorf("p = 1e-30: K = %d, want MaxK", s.K)
	}
}

func TestSizeShapeFields(t *testing.T) {
	want := map[params.Layout]uint64{params.Classic: 0, params.Partitioned: 0, params.Blocked: params.BlockedBits, params.Paged: params.DefaultPageBits}
	for layout, bb := range want {
		s, err := params.Size(layout, 1000, 0.01, 0)
		if err != nil || s.Layout != layout || s.BlockBits != bb {
			t.Errorf("Size(%v): %v, %v", layout, s, err)
		}
	}
	s, err := params.Size(params.Paged, 1000, 0.01, 8192)
	if err != nil || s.BlockBits != 8192 || s.M%8192 != 0 {
		t.Errorf("Size(paged, 8192 bits): %v, %v", s, err)
	}
	s, err = params.Size(params.Partitioned, 12345, 0.001, 0)
	if err != nil || s.M%(64*uint64(s.K)) != 0 {
		t.Errorf("partitioned slices should be multiples of 64 bits: %v, %v", s, err)
	}
}

func TestSizeErrors(t *testing.T) {
	cases := []struct {
		layout    params.Layout
		n         uint64
		p         float64
		blockBits uint64
		want      string
	}{
		{params.Classic, 100, 1.5, 0, "params: p = 1.5 outside (0, 1): invalid parameters"},
		{params.Classic, 100, 0, 0, "params: p = 0 outside (0, 1)"},
		{params.Classic, 100, 1, 0, "outside (0, 1)"},
		{params.Classic, 100, -0.1, 0, "outside (0, 1)"},
		{params.Blocked, 0, 0.01, 0, "params: n = 0 keys"},
		{params.Layout(0), 100, 0.01, 0, "params: undefined layout(0)"},
		{params.Classic, 100, 0.01, 512, "blockBits = 512, want 0"},
		{params.Blocked, 100, 0.01, 1024, "want 0 or 512"},
		{params.Paged, 100, 0.01, 100, "not a positive multiple of 64"},
		{params.Blocked, 1000, 1e-300, 0, "params: no blocked filter"},
	}
	for _, c := range cases {
		_, err := params.Size(c.layout, c.n, c.p, c.blockBits)
		if !errors.Is(err, params.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Size(%v, %d, %g, %d) error %v, want one containing %q", c.layout, c.n, c.p, c.blockBits, err, c.want)
		}
	}
	var nan float64
	nan /= nan
	if _, err := params.Size(params.Classic, 1, nan, 0); !errors.Is(err, params.ErrInvalid) {
		t.Errorf("p = NaN: %v", err)
	}
}

// The brief's budget: sizing 2·10^7 keys at 1e−4, blocked, within 50 ms.
// The check allows ten times that, so a loaded machine does not fail it;
// the benchmarks give the real figure.
func TestSizeSpeed(t *testing.T) {
	start := time.Now()
	if _, err := params.Size(params.Blocked, 2e7, 1e-4, 0); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("Size(blocked, 2e7, 1e-4) took %v", d)
	}
}

func TestBestK(t *testing.T) {
	n := uint64(100000)
	shapes := []params.Shape{
		{Layout: params.Classic, M: 1e6},
		{Layout: params.Partitioned, M: 1e6},
		{Layout: params.Partitioned, M: 9 * 97 * 1031},
		{Layout: params.Blocked, M: 512 * 1953, BlockBits: 512},
		{Layout: params.Paged, M: 32768 * 31, BlockBits: 32768},
	}
	for _, s := range shapes {
		k := params.BestK(s, n)
		s.K = k
		best := s.FalsePositive(n)
		for j := 1; j <= params.MaxK; j++ {
			o := s
			o.K = j
			if o.Validate() == nil && o.FalsePositive(n) < best {
				t.Errorf("%v: BestK=%d (rate %g) but k=%d gives %g", s, k, best, j, o.FalsePositive(n))
			}
		}
	}
	if k := params.BestK(params.Shape{Layout: params.Classic, M: 1e6}, 1e5); k != params.OptimalK(1e6, 1e5) {
		t.Errorf("classic BestK %d, OptimalK %d", k, params.OptimalK(1e6, 1e5))
	}
	if params.BestK(params.Shape{Layout: params.Classic, M: 1e6}, 0) != 1 {
		t.Error("BestK with n = 0 should be 1")
	}
}

func BenchmarkSize(b *testing.B) {
	for _, layout := range layouts {
		b.Run(fmt.Sprintf("%v/n=2e7/p=0.001", layout), func(b *testing.B) {
			for b.Loop() {
				if _, err := params.Size(layout, 2e7, 0.001, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("blocked/n=2e7/p=1e-4", func(b *testing.B) {
		for b.Loop() {
			if _, err := params.Size(params.Blocked, 2e7, 1e-4, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestSizeNamesLowestRate: a p that no shape of at most 2^62 bits reaches
// is refused with the lowest rate that one does, and that rate is
// answered, with and without a fixed k.
func TestSizeNamesLowestRate(t *testing.T) {
	for _, c := range []struct {
		layout params.Layout
		n      uint64
		p      float64
		k      int
	}{
		{params.Blocked, 1, 1e-300, 0},
		{params.Paged, 1, 1e-300, 0},
		{params.Classic, 1<<64 - 1, 0.01, 0},
		{params.Blocked, 1, 1e-300, 64},
	} {
		q := params.Query{N: c.n, P: c.p, K: c.k, Layout: c.layout}
		_, err := params.Solve(q)
		if !errors.Is(err, params.ErrInvalid) {
			t.Fatalf("Solve(%+v): %v, want ErrInvalid", q, err)
		}
		_, bound, found := strings.Cut(err.Error(), "want p of at least ")
		if !found {
			t.Fatalf("Solve(%+v): %q names no bound", q, err)
		}
		if _, err := fmt.Sscan(bound, &q.P); err != nil {
			t.Fatalf("Solve(%+v): bound in %q: %v", q, bound, err)
		}
		if sol, err := params.Solve(q); err != nil || !sol.Layouts[0].Meets {
			t.Errorf("Solve(%+v) at the bound it named: %v", q, err)
		}
	}
}
