package params_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/params"
)

var solveLayouts = []params.Layout{params.Classic, params.Partitioned, params.Blocked, params.Paged}

// solveFitted rounds m up the way Solve (and bloom.Config) does for k probes.
func solveFitted(l params.Layout, m uint64, k int, pageBits uint64) params.Shape {
	s := params.Shape{Layout: l, M: m, K: k}
	unit := uint64(1)
	switch l {
	case params.Partitioned:
		unit = uint64(k)
	case params.Blocked:
		s.BlockBits = params.BlockedBits
		unit = s.BlockBits
	case params.Paged:
		s.BlockBits = pageBits
		if s.BlockBits == 0 {
			s.BlockBits = params.DefaultPageBits
		}
		unit = s.BlockBits
	}
	s.M = (m + unit - 1) / unit * unit
	return s
}

func mustSolve(t *testing.T, q params.Query) params.Solution {
	t.Helper()
	sol, err := params.Solve(q)
	if err != nil {
		t.Fatalf("Solve(%+v): %v", q, err)
	}
	if q.Layout == 0 && len(sol.Layouts) != 4 {
		t.Fatalf("Solve(%+v): %d layouts, want 4", q, len(sol.Layouts))
	}
	for i, s := range sol.Layouts {
		if q.Layout == 0 && s.Shape.Layout != solveLayouts[i] {
			t.Errorf("Solve(%+v): row %d is %v, want %v", q, i, s.Shape.Layout, solveLayouts[i])
		}
		if err := s.Shape.Validate(); err != nil {
			t.Errorf("Solve(%+v): %v", q, err)
		}
		if want := s.Shape.FalsePositive(s.N); s.FalsePositive != want {
			t.Errorf("Solve(%+v) %v: FalsePositive = %g, want Shape.FalsePositive(%d) = %g", q, s.Shape, s.FalsePositive, s.N, want)
		}
		if want := float64(s.Shape.M) / float64(s.N); s.BitsPerKey != want {
			t.Errorf("Solve(%+v) %v: BitsPerKey = %g, want %g", q, s.Shape, s.BitsPerKey, want)
		}
		if want := q.P == 0 || s.FalsePositive <= q.P; s.Meets != want {
			t.Errorf("Solve(%+v) %v: Meets = %v, want %v", q, s.Shape, s.Meets, want)
		}
	}
	return sol
}

func solveNames(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func TestSolveNP(t *testing.T) {
	for _, q := range []params.Query{{N: 1_000_000, P: 0.01}, {N: 1000, P: 1e-6}, {N: 1, P: 0.5}} {
		sol := mustSolve(t, q)
		solveNames(t, "Given", sol.Given, "n", "p")
		solveNames(t, "Derived", sol.Derived, "m", "k")
		for _, s := range sol.Layouts {
			want, err := params.Size(s.Shape.Layout, q.N, q.P, 0)
			if err != nil {
				t.Fatal(err)
			}
			if s.Shape != want || s.N != q.N || !s.Meets {
				t.Errorf("Solve(%+v) %v = %+v, want Size's %v", q, s.Shape.Layout, s, want)
			}
		}
	}
}

func TestSolveNPK(t *testing.T) {
	q := params.Query{N: 100_000, P: 0.001, K: 5}
	sol := mustSolve(t, q)
	solveNames(t, "Derived", sol.Derived, "m")
	for _, s := range sol.Layouts {
		if s.Shape.K != 5 || !s.Meets {
			t.Errorf("%+v: want k = 5 meeting p", s)
		}
		// One granule less must miss the target.
		unit := map[params.Layout]uint64{params.Classic: 64, params.Partitioned: 64 * 5,
			params.Blocked: params.BlockedBits, params.Paged: params.DefaultPageBits}[s.Shape.Layout]
		smaller := s.Shape
		smaller.M -= unit
		if r := smaller.FalsePositive(q.N); r <= q.P {
			t.Errorf("%v: %v already reaches %g ≤ p", s.Shape, smaller, r)
		}
	}
}

func TestSolveNM(t *testing.T) {
	for _, q := range []params.Query{{N: 1_000_000, M: 10_000_000}, {N: 5000, M: 100_003}} {
		sol := mustSolve(t, q)
		solveNames(t, "Derived", sol.Derived, "k")
		for _, s := range sol.Layouts {
			if s.N != q.N {
				t.Errorf("%v: N = %d, want %d", s.Shape, s.N, q.N)
			}
			if want := solveFitted(s.Shape.Layout, q.M, s.Shape.K, 0); s.Shape != want {
				t.Errorf("shape %v, want %v (m rounded up for k)", s.Shape, want)
			}
			for k := 1; k <= params.MaxK; k++ {
				if r := solveFitted(s.Shape.Layout, q.M, k, 0).FalsePositive(q.N); r < s.FalsePositive {
					t.Errorf("%v: k = %d gives %g < %g", s.Shape, k, r, s.FalsePositive)
				}
			}
		}
		// Partitioned is not limited to the divisors of m (100003 is prime).
		if k := sol.Layouts[1].Shape.K; k == 1 {
			t.Errorf("partitioned k = 1 for a prime m")
		}
	}
}

func TestSolveNMK(t *testing.T) {
	const n, m, k = 200_000, 2_000_000, 6
	sol := mustSolve(t, params.Query{N: n, M: m, K: k})
	solveNames(t, "Derived", sol.Derived)
	want := []float64{
		params.ClassicExact(m, n, k),
		params.PartitionedExact(m+4, n, k), // 2000004 = 6·333334
		params.BlockedFalsePositive(m+384, n, params.BlockedBits, k),
		params.BlockedFalsePositive(62*params.DefaultPageBits, n, params.DefaultPageBits, k), // 61.04 pages, rounded up
	}
	for i, s := range sol.Layouts {
		if s.FalsePositive != want[i] {
			t.Errorf("%v: rate %g, want %g", s.Shape, s.FalsePositive, want[i])
		}
	}
}

// checkSolvedMax checks that the rate is at most p at s.N and above p at
// s.N+1 for every shape in shapes.
func checkSolvedMax(t *testing.T, s params.Solved, p float64, shapes []params.Shape) {
	t.Helper()
	if s.FalsePositive > p || !s.Meets {
		t.Errorf("%v: rate %g at n = %d exceeds p = %g", s.Shape, s.FalsePositive, s.N, p)
	}
	for _, sh := range shapes {
		if r := sh.FalsePositive(s.N + 1); r <= p {
			t.Errorf("%v: n = %d is not the largest: %v reaches %g at n+1", s.Shape, s.N, sh, r)
		}
	}
}

func TestSolveMP(t *testing.T) {
	q := params.Query{M: 10_000_000, P: 0.01}
	sol := mustSolve(t, q)
	solveNames(t, "Derived", sol.Derived, "n", "k")
	for _, s := range sol.Layouts {
		var shapes []params.Shape
		for k := 1; k <= params.MaxK; k++ {
			shapes = append(shapes, solveFitted(s.Shape.Layout, q.M, k, 0))
		}
		checkSolvedMax(t, s, q.P, shapes)
		if s.N < 900_000 || s.N > 1_100_000 {
			t.Errorf("%v: n = %d, want about 1.04e6", s.Shape, s.N)
		}
	}
}

func TestSolveMKP(t *testing.T) {
	q := params.Query{M: 1 << 20, K: 3, P: 0.05}
	sol := mustSolve(t, q)
	solveNames(t, "Derived", sol.Derived, "n")
	for _, s := range sol.Layouts {
		if s.Shape.K != 3 {
			t.Errorf("%v: k changed", s.Shape)
		}
		checkSolvedMax(t, s, q.P, []params.Shape{s.Shape})
	}
}

func TestSolveOptimalK(t *testing.T) {
	sol := mustSolve(t, params.Query{N: 1_000_000, K: 7})
	solveNames(t, "Derived", sol.Derived, "m")
	for _, s := range sol.Layouts {
		want := math.Ceil(7 * 1e6 / math.Ln2)
		if m := float64(s.Shape.M); m < want || m > want+params.DefaultPageBits {
			t.Errorf("%v: m = %g, want about %g", s.Shape, m, want)
		}
	}
	if got := sol.Layouts[0].Shape.M; params.OptimalK(got, 1_000_000) != 7 {
		t.Errorf("classic m = %d: k = 7 is not optimal", got)
	}

	sol = mustSolve(t, params.Query{M: 1 << 24, K: 10})
	solveNames(t, "Derived", sol.Derived, "n")
	m := float64(1 << 24)
	if c := sol.Layouts[0]; c.N != uint64(m*math.Ln2/10) || params.OptimalK(c.Shape.M, c.N) != 10 {
		t.Errorf("classic: n = %d for m = 2^24, k = 10", c.N)
	}
}

func TestSolveOverdetermined(t *testing.T) {
	for _, p := range []float64{0.001, 0.05} {
		q := params.Query{N: 1_000_000, M: 10_000_000, P: p}
		sol := mustSolve(t, q)
		solveNames(t, "Given", sol.Given, "n", "p", "m")
		solveNames(t, "Derived", sol.Derived, "k")
		for _, s := range sol.Layouts {
			if s.Meets != (p == 0.05) {
				t.Errorf("p = %g: %v at %g: Meets = %v", p, s.Shape, s.FalsePositive, s.Meets)
			}
		}
	}
	sol := mustSolve(t, params.Query{N: 1000, P: 0.5, M: 640, K: 1})
	solveNames(t, "Given", sol.Given, "n", "p", "m", "k")
	solveNames(t, "Derived", sol.Derived)
}

func TestSolveOneLayout(t *testing.T) {
	sol := mustSolve(t, params.Query{N: 10_000, P: 0.01, Layout: params.Paged, BlockBits: 4096})
	if len(sol.Layouts) != 1 || sol.Layouts[0].Shape.Layout != params.Paged || sol.Layouts[0].Shape.BlockBits != 4096 {
		t.Fatalf("got %+v, want one paged shape with 4096-bit pages", sol.Layouts)
	}
	// BlockBits is the page size; it does not change the other layouts.
	sol = mustSolve(t, params.Query{N: 10_000, P: 0.01, BlockBits: 4096})
	if b := sol.Layouts[2].Shape.BlockBits; b != params.BlockedBits {
		t.Errorf("blocked block = %d, want %d", b, params.BlockedBits)
	}
	if b := sol.Layouts[0].Shape.BlockBits; b != 0 {
		t.Errorf("classic block = %d, want 0", b)
	}
}

func TestSolveErrors(t *testing.T) {
	for _, c := range []struct {
		q    params.Query
		want string
	}{
		{params.Query{}, "at least two"},
		{params.Query{N: 100}, "at least two"},
		{params.Query{K: 7, P: 0.01}, "bits per key (9.59 for classic)"},
		{params.Query{N: 100, P: 1}, "outside (0, 1)"},
		{params.Query{N: 100, P: -0.1}, "outside (0, 1)"},
		{params.Query{N: 100, P: math.NaN()}, "outside (0, 1)"},
		{params.Query{N: 100, K: 65}, "k = 65"},
		{params.Query{N: 100, K: -1}, "k = -1"},
		{params.Query{N: 100, P: 0.1, Layout: 9}, "undefined"},
		{params.Query{N: 100, P: 0.1, BlockBits: 100}, "multiple of 64"},
		{params.Query{M: 1 << 63, K: 3}, "exceeds 2^62"},
		{params.Query{M: 64, P: 1e-15, Layout: params.Classic}, "classic m=64: even one key"},
		{params.Query{M: 64, K: 1, P: 1e-9}, "classic m=64 k=1: even one key"},
	} {
		_, err := params.Solve(c.q)
		if err == nil || !errors.Is(err, params.ErrInvalid) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "params: ") {
			t.Errorf("Solve(%+v) = %v, want an ErrInvalid mentioning %q", c.q, err, c.want)
		}
	}
}

// Size a filter for a million keys at 1% in every layout.
func ExampleSolve() {
	sol, err := params.Solve(params.Query{N: 1_000_000, P: 0.01})
	if err != nil {
		panic(err)
	}
	fmt.Println("derived:", strings.Join(sol.Derived, ", "))
	for _, s := range sol.Layouts {
		fmt.Printf("%-11s m=%-8d k=%d %.2f bits/key p=%.5f\n", s.Shape.Layout, s.Shape.M, s.Shape.K, s.BitsPerKey, s.FalsePositive)
	}
	// Output:
	// derived: m, k
	// classic     m=9592960  k=7 9.59 bits/key p=0.01000
	// partitioned m=9593024  k=7 9.59 bits/key p=0.01000
	// blocked     m=9918464  k=6 9.92 bits/key p=0.01000
	// paged       m=9601024  k=7 9.60 bits/key p=0.00999
}

// How many keys fit in a 1 MiB classic filter at one in a thousand?
func ExampleSolve_capacity() {
	sol, err := params.Solve(params.Query{M: 8 << 20, P: 0.001, Layout: params.Classic})
	if err != nil {
		panic(err)
	}
	s := sol.Layouts[0]
	fmt.Printf("n=%d k=%d p=%.6f\n", s.N, s.Shape.K, s.FalsePositive)
	// Output:
	// n=583448 k=10 p=0.001000
}
