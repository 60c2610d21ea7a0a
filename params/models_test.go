package params_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/params"
)

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

func TestLayoutNames(t *testing.T) {
	for _, l := range []params.Layout{params.Classic, params.Partitioned, params.Blocked, params.Paged} {
		for _, s := range []string{l.String(), strings.ToUpper(l.String()), " " + l.String() + " "} {
			got, err := params.ParseLayout(s)
			if err != nil || got != l {
				t.Errorf("ParseLayout(%q) = %v, %v; want %v", s, got, err, l)
			}
		}
		text, err := l.MarshalText()
		var back params.Layout
		if err != nil || back.UnmarshalText(text) != nil || back != l {
			t.Errorf("text round trip of %v: %q, %v, %v", l, text, err, back)
		}
	}
	if s := params.Layout(9).String(); s != "layout(9)" {
		t.Errorf("Layout(9).String() = %q", s)
	}
	if params.Layout(0).Valid() || params.Layout(5).Valid() || !params.Paged.Valid() {
		t.Error("Valid disagrees with the defined layouts")
	}
	if _, err := params.ParseLayout("layout(1)"); !errors.Is(err, params.ErrInvalid) || !strings.HasPrefix(err.Error(), "params: ") {
		t.Errorf("ParseLayout(layout(1)) error = %v", err)
	}
	if _, err := params.Layout(7).MarshalText(); !errors.Is(err, params.ErrInvalid) {
		t.Errorf("MarshalText of layout(7): %v", err)
	}
}

func TestValidate(t *testing.T) {
	good := []params.Shape{
		{Layout: params.Classic, M: 1, K: 1},
		{Layout: params.Classic, M: 1000, K: params.MaxK},
		{Layout: params.Partitioned, M: 700, K: 7},
		{Layout: params.Blocked, M: 1024, K: 8, BlockBits: 512},
		{Layout: params.Paged, M: 3 * 32768, K: 8, BlockBits: 32768},
		{Layout: params.Paged, M: 128, K: 3, BlockBits: 64},
	}
	for _, s := range good {
		if err := s.Validate(); err != nil {
			t.Errorf("%v: %v", s, err)
		}
	}
	bad := []params.Shape{
		{Layout: 0, M: 64, K: 1},
		{Layout: params.Classic, M: 0, K: 1},
		{Layout: params.Classic, M: 64, K: 0},
		{Layout: params.Classic, M: 64, K: params.MaxK + 1},
		{Layout: params.Classic, M: 1024, K: 3, BlockBits: 512},
		{Layout: params.Partitioned, M: 701, K: 7},
		{Layout: params.Partitioned, M: 700, K: 7, BlockBits: 64},
		{Layout: params.Blocked, M: 1024, K: 8, BlockBits: 256},
		{Layout: params.Blocked, M: 1000, K: 8, BlockBits: 512},
		{Layout: params.Paged, M: 32768, K: 8},
		{Layout: params.Paged, M: 3000, K: 8, BlockBits: 1000},
		{Layout: params.Paged, M: 32768 + 64, K: 8, BlockBits: 32768},
	}
	for _, s := range bad {
		err := s.Validate()
		if !errors.Is(err, params.ErrInvalid) || !strings.HasPrefix(err.Error(), "params: ") {
			t.Errorf("%v: Validate() = %v, want a params: error wrapping ErrInvalid", s, err)
		}
		if fp := s.FalsePositive(10); !math.IsNaN(fp) {
			t.Errorf("%v: FalsePositive of an invalid shape = %g, want NaN", s, fp)
		}
	}
}

// The exact classic rate differs from (1 − e^(−kn/m))^k by a factor
// 1 + k²·n/(2m²)·q/(1 − q) + …, q = e^(−kn/m): it converges as m grows.
func TestClassicExactApproachesApprox(t *testing.T) {
	for _, bpk := range []uint64{2, 8, 16, 32} {
		for k := 1; k <= int(math.Ceil(math.Ln2*float64(bpk)))+1; k++ {
			prev := math.Inf(1)
			for _, n := range []uint64{10, 1000, 1e5, 1e7, 1e9} {
				m := bpk * n
				exact, approx := params.ClassicExact(m, n, k), params.ApproxFalsePositive(m, n, k)
				q := math.Exp(-float64(k) / float64(bpk))
				bound := float64(k*k)*float64(n)/float64(m*m)*q/(1-q) + 1e-13
				d := relErr(exact, approx)
				if d > bound || d > prev {
					t.Errorf("m=%d n=%d k=%d: exact %g approx %g differ by %g (bound %g, previous %g)", m, n, k, exact, approx, d, bound, prev)
				}
				prev = d
			}
		}
	}
}

func TestModelsEdgeCases(t *testing.T) {
	for _, f := range []func(m, n uint64, k int) float64{params.ClassicExact, params.ApproxFalsePositive, params.PartitionedExact} {
		if f(100, 0, 3) != 0 || f(0, 5, 3) != 1 || f(100, 5, 0) != 1 {
			t.Error("edge cases of a rate function")
		}
	}
	if got := params.ClassicExact(1, 1, 1); got != 1 {
		t.Errorf("one-bit filter: %g, want 1", got)
	}
	// Far below 1e−15 the rates keep full relative accuracy.
	got := params.ClassicExact(1<<40, 1<<30, 40)
	want := params.ApproxFalsePositive(1<<40, 1<<30, 40)
	if relErr(got, want) > 1e-9 || got > 1e-50 || got == 0 {
		t.Errorf("tiny rate: exact %g approx %g", got, want)
	}
	// Partitioned is a little worse than classic at the same m and k.
	for _, k := range []int{2, 5, 7, 10} {
		m, n := uint64(10*k*1000), uint64(7000)
		if p, c := params.PartitionedExact(m, n, k), params.ClassicExact(m, n, k); p <= c || relErr(p, c) > 1e-3 {
			t.Errorf("k=%d: partitioned %g classic %g", k, p, c)
		}
	}
}

func TestOptimalK(t *testing.T) {
	for _, bpk := range []uint64{1, 2, 5, 8, 10, 16, 20, 32, 64, 100, 200} {
		n := uint64(1000)
		m := bpk * n
		k := params.OptimalK(m, n)
		for j := 1; j <= params.MaxK; j++ {
			if params.ClassicExact(m, n, j) < params.ClassicExact(m, n, k) {
				t.Errorf("m/n=%d: OptimalK=%d but k=%d is better", bpk, k, j)
			}
		}
	}
	if params.OptimalK(10, 0) != 1 || params.OptimalK(0, 10) != 1 {
		t.Error("OptimalK with m or n = 0 should be 1")
	}
	if k := params.OptimalK(1000*1000, 1000); k != params.MaxK {
		t.Errorf("OptimalK at 1000 bits per key = %d, want MaxK", k)
	}
}

func TestBitsFormulas(t *testing.T) {
	n := uint64(1000000)
	if got := params.MinimumBits(n, 1.0/1024); got != 10*float64(n) {
		t.Errorf("MinimumBits(1e6, 2^-10) = %g", got)
	}
	ratio := params.ClassicBits(n, 0.01) / params.MinimumBits(n, 0.01)
	if relErr(ratio, math.Log2E) > 1e-12 {
		t.Errorf("ClassicBits/MinimumBits = %g, want log2 e", ratio)
	}
	// At the real optimum the classic approximation gives p back.
	m := params.ClassicBits(n, 0.01)
	k := math.Ln2 * m / float64(n)
	if f := math.Pow(-math.Expm1(-k*float64(n)/m), k); relErr(f, 0.01) > 1e-12 {
		t.Errorf("rate at ClassicBits = %g, want 0.01", f)
	}
}

func TestShapeFillAndBitsPerKey(t *testing.T) {
	n := uint64(100000)
	shapes := []params.Shape{
		{Layout: params.Classic, M: 1000000, K: 7},
		{Layout: params.Partitioned, M: 1000006, K: 7},
		{Layout: params.Blocked, M: 512 * 2000, K: 7, BlockBits: 512},
		{Layout: params.Paged, M: 32768 * 31, K: 7, BlockBits: 32768},
	}
	for _, s := range shapes {
		fill := s.ExpectedFill(n)
		approx := -math.Expm1(-float64(s.K) * float64(n) / float64(s.M))
		tol := 1e-4
		if s.BlockBits != 0 {
			tol = 1e-2 // uneven block loads
		}
		if relErr(fill, approx) > tol {
			t.Errorf("%v: fill %g, want about %g", s, fill, approx)
		}
		if s.ExpectedFill(0) != 0 || s.FalsePositive(0) != 0 {
			t.Errorf("%v: empty filter not empty", s)
		}
		if got := s.BitsPerKey(n); got != float64(s.M)/float64(n) {
			t.Errorf("%v: BitsPerKey = %g", s, got)
		}
	}
	// Uneven block loads cost fill: crowded blocks waste probes on
	// collisions.
	same := params.Shape{Layout: params.Classic, M: shapes[2].M, K: shapes[2].K}
	if b, c := shapes[2].ExpectedFill(n), same.ExpectedFill(n); b >= c || b < 0.99*c {
		t.Errorf("blocked fill %g should be a little below classic fill %g", b, c)
	}
}

// x = fill·m set bits, read back through EstimateCount, gives n back up to
// the rounding of x and the O(1/m) gap between (1 − 1/m)^kn and e^(−kn/m).
func TestEstimateCountInvertsFill(t *testing.T) {
	for _, m := range []uint64{1000, 1 << 20, 1 << 40} {
		for _, k := range []int{1, 3, 7, 20} {
			for _, ratio := range []float64{0.001, 0.05, 0.1, 0.3, 1} {
				n := uint64(math.Max(1, ratio*float64(m)))
				s := params.Shape{Layout: params.Classic, M: m, K: k}
				x := math.Round(s.ExpectedFill(n) * float64(m))
				if x >= float64(m) {
					continue
				}
				est := params.EstimateCount(m, uint64(x), k)
				tol := 0.5*float64(m)/float64(k)/(float64(m)-x) + float64(n)/float64(m) + 1e-12*float64(n)
				if math.Abs(est-float64(n)) > tol {
					t.Errorf("m=%d k=%d n=%d: x=%g estimates %g (tolerance %g)", m, k, n, x, est, tol)
				}
			}
		}
	}
	// One bit in 2^60 is one key; a naive ln(1 − x/m) would round to 0.
	if got := params.EstimateCount(1<<60, 1, 1); relErr(got, 1) > 1e-15 {
		t.Errorf("EstimateCount(2^60, 1, 1) = %g, want 1", got)
	}
	full := params.EstimateCount(1000, 1000, 5)
	if want := 1000.0 / 5 * math.Log(2000); relErr(full, want) > 1e-12 || params.EstimateCount(1000, 5000, 5) != full {
		t.Errorf("full filter estimate %g, want %g", full, want)
	}
	if params.EstimateCount(1000, 0, 5) != 0 || params.EstimateCount(0, 1, 5) != 0 || params.EstimateCount(10, 1, 0) != 0 {
		t.Error("EstimateCount edge cases should be 0")
	}
}

func TestFalsePositiveFromFill(t *testing.T) {
	if got := params.FalsePositiveFromFill(0.5, 10); got != 1.0/1024 {
		t.Errorf("0.5^10 = %g", got)
	}
	if params.FalsePositiveFromFill(-0.1, 3) != 0 || params.FalsePositiveFromFill(1.5, 3) != 1 {
		t.Error("fill is not clamped to [0, 1]")
	}
	// With the expected fill of an exact classic filter it is the exact rate.
	s := params.Shape{Layout: params.Classic, M: 1 << 20, K: 7}
	n := uint64(100000)
	if got := params.FalsePositiveFromFill(s.ExpectedFill(n), s.K); relErr(got, s.FalsePositive(n)) > 1e-13 {
		t.Errorf("from fill %g, model %g", got, s.FalsePositive(n))
	}
}

// Uneven block loads make a blocked filter worse than a classic one of the
// same size (Putze et al. 2007), by Jensen's inequality where the per-block
// rate is convex in the load. With k = 1 the two coincide up to O(n/m²).
func TestBlockedWorseThanClassic(t *testing.T) {
	n := uint64(1000000)
	for bpk := uint64(4); bpk <= 32; bpk++ {
		m := bpk * n / 512 * 512
		kMax := int(math.Ceil(math.Ln2*float64(bpk))) + 2
		for k := 1; k <= kMax; k++ {
			b, c := params.BlockedFalsePositive(m, n, 512, k), params.ClassicExact(m, n, k)
			if k == 1 && relErr(b, c) > 1e-6 || k > 1 && b < c {
				t.Errorf("m/n=%d k=%d: blocked %g classic %g", bpk, k, b, c)
			}
		}
	}
}

// As pages grow, a page behaves like a whole classic filter.
func TestPagedApproachesClassic(t *testing.T) {
	const m = 1 << 24
	n := uint64(m / 10)
	classic := params.ClassicExact(m, n, 7)
	prev := math.Inf(1)
	for b := uint64(1 << 12); b <= m; b <<= 3 {
		s := params.Shape{Layout: params.Paged, M: m, K: 7, BlockBits: b}
		d := relErr(s.FalsePositive(n), classic)
		// The excess is about k²κ²/(2λ), κ = kn/m, λ = n·b/m.
		lambda := float64(n) * float64(b) / m
		if d > prev || d > 15/lambda {
			t.Errorf("page %d bits: rate %g vs classic %g, relative gap %g (previous %g)", b, s.FalsePositive(n), classic, d, prev)
		}
		prev = d
	}
	if prev > 1e-5 {
		t.Errorf("one page of 2^24 bits: gap %g to classic", prev)
	}
}

func TestLargeParameters(t *testing.T) {
	const m = 1 << 40
	cases := []struct {
		s params.Shape
		n uint64
	}{
		{params.Shape{Layout: params.Classic, M: m, K: 7}, m / 10},
		{params.Shape{Layout: params.Partitioned, M: m, K: 8}, m / 10},
		{params.Shape{Layout: params.Blocked, M: m, K: 7, BlockBits: 512}, m / 10},
		{params.Shape{Layout: params.Paged, M: m, K: 7, BlockBits: 1 << 30}, m / 10},
		{params.Shape{Layout: params.Blocked, M: m, K: 7, BlockBits: 512}, m},
		{params.Shape{Layout: params.Paged, M: m, K: 20, BlockBits: m}, m / 40},
	}
	for _, c := range cases {
		f := c.s.FalsePositive(c.n)
		approx := params.ApproxFalsePositive(c.s.M, c.n, c.s.K)
		if !(f >= approx*0.999 && f <= approx*1.5 && f <= 1) {
			t.Errorf("%v n=%d: rate %g, classic approximation %g", c.s, c.n, f, approx)
		}
	}
}
