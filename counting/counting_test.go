package counting

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

var (
	layouts = []bloom.Layout{bloom.Classic, bloom.Partitioned, bloom.Blocked, bloom.Paged}
	widths  = []int{4, 8, 16}
)

func key(i int) string { return fmt.Sprintf("http://example.com/object/%d", i) }

func mustNew(t testing.TB, c Config) *Filter {
	t.Helper()
	f, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// checkInvariants verifies what every operation must preserve: bit b of
// the view is set exactly when counter b is non-zero, nothing is set past
// m, and Saturated counts the counters at Max. A filter without a view has
// no bits and never tracks changes.
func checkInvariants(t *testing.T, f *Filter) {
	t.Helper()
	if f.view == nil {
		if f.bits != nil || f.track.state != trackOff || f.BitView() != nil {
			t.Fatalf("%v: a filter without a view has bits or tracks changes", f)
		}
	}
	sat := uint64(0)
	for b := uint64(0); b < f.m; b++ {
		c := f.get(b)
		if f.bits != nil {
			if bit := f.bits[b>>6]>>(b&63)&1 == 1; bit != (c != 0) {
				t.Fatalf("%v: bit %d is %t, counter %d", f, b, bit, c)
			}
		}
		if c == f.max {
			sat++
		}
	}
	if sat != f.sat {
		t.Fatalf("%v: %d counters at max, Saturated says %d", f, sat, f.sat)
	}
	if tail := f.m % 64; tail != 0 && f.bits != nil && f.bits[len(f.bits)-1]>>tail != 0 {
		t.Fatalf("%v: view bits set past m", f)
	}
	if tail := f.m * uint64(f.width) % 64; tail != 0 && f.counters[len(f.counters)-1]>>tail != 0 {
		t.Fatalf("%v: counters set past m", f)
	}
}

func TestShapeMatchesBloom(t *testing.T) {
	configs := []bloom.Config{
		{N: 1000, P: 0.01},
		{Layout: bloom.Blocked, N: 12345, P: 0.001},
		{Layout: bloom.Partitioned, M: 1001, K: 7},
		{Layout: bloom.Paged, M: 100000, K: 5, BlockBits: 4096},
		{Layout: bloom.Paged, N: 5000, P: 0.02},
		{M: 777},
		{M: 777, N: 30},
	}
	for _, bc := range configs {
		b := bloom.MustNew(bc)
		f := mustNew(t, Config{Layout: bc.Layout, N: bc.N, P: bc.P, M: bc.M, K: bc.K, BlockBits: bc.BlockBits})
		if f.Shape() != b.Shape() {
			t.Errorf("%+v: counting shape %v, bloom shape %v", bc, f.Shape(), b.Shape())
		}
		// Same seed, same positions: the bit view answers as the filter.
		h := b.HashString("k")
		b.AddHash(h)
		f.AddHash(h)
		if !f.BitView().Equal(b) {
			t.Errorf("%+v: the bit view differs from a bloom filter with the same key", bc)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	bad := map[string]Config{
		"nothing":   {},
		"P":         {N: 10, P: 1},
		"width":     {M: 100, Width: 5},
		"width 32":  {M: 100, Width: 32},
		"layout":    {Layout: 9, M: 100},
		"k":         {M: 100, K: 65},
		"too large": {M: bloom.MaxBits + 1, K: 1},
		"page":      {Layout: bloom.Paged, M: 1000, BlockBits: 100},
		// K without M: N and P would choose k and ignore it.
		"k without m": {N: 1000, P: 0.01, K: 3},
	}
	for name, c := range bad {
		if _, err := New(c); !errors.Is(err, ErrConfig) || !strings.HasPrefix(err.Error(), "counting: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MustNew accepted a bad configuration")
		}
	}()
	MustNew(Config{})
}

// TestConcurrentQueries checks the Filter's documented claim that its
// queries are safe for concurrent use while nothing modifies it, with and
// without a bit view (run with -race).
func TestConcurrentQueries(t *testing.T) {
	for _, noView := range []bool{false, true} {
		f := mustNew(t, Config{Layout: bloom.Blocked, N: 2000, NoBitView: noView})
		for i := range 1000 {
			f.AddString(fmt.Sprint(i))
		}
		want := make([]uint64, 2000)
		for i := range want {
			want[i] = f.CountString(fmt.Sprint(i))
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range want {
					k := fmt.Sprint(i)
					if f.CountString(k) != want[i] || f.ContainsString(k) != (want[i] > 0) {
						t.Errorf("NoBitView %v: key %d: answer differs under concurrent queries", noView, i)
						return
					}
				}
				_, _ = f.EstimateDistinct(), f.FillRatio()
				if _, err := f.MarshalBinary(); err != nil || !f.Clone().Equal(f) {
					t.Errorf("NoBitView %v: encoding or clone under concurrent queries: %v", noView, err)
				}
			}()
		}
		wg.Wait()
	}
}

// TestConfigDefaultP checks that a counting filter is sized as a
// bloom.Filter of the same configuration, P zero meaning bloom.DefaultP.
func TestConfigDefaultP(t *testing.T) {
	for _, l := range []bloom.Layout{bloom.Classic, bloom.Blocked} {
		f, err := New(Config{Layout: l, N: 1000})
		if err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		want := bloom.MustNew(bloom.Config{Layout: l, N: 1000}).Shape()
		if got := f.BitView().Shape(); got != want {
			t.Errorf("%v: shape %v, want %v", l, got, want)
		}
	}
}

func TestWidths(t *testing.T) {
	for _, w := range append(widths, 0) {
		f := mustNew(t, Config{M: 1000, K: 3, Width: w})
		want := w
		if w == 0 {
			want = DefaultWidth
		}
		if f.Width() != want || f.Max() != 1<<want-1 {
			t.Fatalf("width %d: Width %d, Max %d", w, f.Width(), f.Max())
		}
		if got := len(f.counters); got != (1000*want+63)/64 {
			t.Fatalf("width %d: %d counter words", w, got)
		}
		if f.SizeBytes() != 8*(len(f.counters)+len(f.bits)) {
			t.Fatalf("SizeBytes %d", f.SizeBytes())
		}
	}
}

func TestAddRemoveCount(t *testing.T) {
	for _, l := range layouts {
		for _, w := range widths {
			f := mustNew(t, Config{Layout: l, N: 1000, P: 0.01, Width: w, Seed: 9})
			for i := range 3 {
				f.AddString("a")
				if got := f.CountString("a"); got != uint64(i+1) {
					t.Fatalf("%v/%d: Count after %d adds = %d", l, w, i+1, got)
				}
			}
			f.Add([]byte("b"))
			if !f.ContainsString("a") || !f.Contains([]byte("b")) || f.ContainsString("c") {
				t.Fatalf("%v/%d: membership wrong", l, w)
			}
			if f.Len() != 4 || f.Count([]byte("b")) != 1 || f.CountString("c") != 0 {
				t.Fatalf("%v/%d: Len %d, Count(b) %d", l, w, f.Len(), f.CountString("b"))
			}
			if err := f.RemoveString("b"); err != nil {
				t.Fatal(err)
			}
			if err := f.Remove([]byte("b")); !errors.Is(err, ErrNotPresent) {
				t.Fatalf("%v/%d: second removal of b: %v", l, w, err)
			}
			for range 3 {
				if err := f.RemoveString("a"); err != nil {
					t.Fatal(err)
				}
			}
			if f.Len() != 0 || f.SetBits() != 0 || f.ContainsString("a") {
				t.Fatalf("%v/%d: not empty after removing everything: %v", l, w, f)
			}
			checkInvariants(t, f)
		}
	}
}

// TestRefusedRemovalChangesNothing removes keys that were never added,
// including keys whose probes repeat a position, and checks that counters,
// bits, Len and the change tracker are untouched.
func TestRefusedRemovalChangesNothing(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) { testRefusedRemovalChangesNothing(t, mode.noView) })
	}
}

func testRefusedRemovalChangesNothing(t *testing.T, noView bool) {
	// A tiny classic filter: with 8 counters and k = 6 most keys probe
	// some position twice, and many counters are 1.
	f := mustNew(t, Config{M: 8, K: 6, NoBitView: noView})
	f.AddString("x")
	f.Mark()
	before := f.Clone()
	refused := 0
	for i := range 2000 {
		h := f.HashString(key(i))
		var buf [params.MaxK]uint64
		pos := f.geo.Positions(h, &buf)
		if !needsMore(f, pos) {
			continue
		}
		if err := f.RemoveHash(h); !errors.Is(err, ErrNotPresent) {
			t.Fatalf("removing %q (positions %v) from %v: %v", key(i), pos, f.counters, err)
		}
		refused++
		if !f.Equal(before) || !slices.Equal(f.bits, before.bits) || f.Len() != 1 || len(f.track.list) != 0 {
			t.Fatalf("a refused removal changed the filter")
		}
	}
	if refused < 100 {
		t.Fatalf("only %d refusals exercised", refused)
	}
	checkInvariants(t, f)
}

// needsMore reports whether removing positions pos would take some
// counter below zero.
func needsMore(f *Filter, pos []uint64) bool {
	need := map[uint64]uint64{}
	for _, b := range pos {
		need[b]++
	}
	for b, n := range need {
		if c := f.get(b); c != f.max && c < n {
			return true
		}
	}
	return false
}

func TestRepeatedPositions(t *testing.T) {
	// With 2 counters and k = 8, every key probes each position several
	// times; adds and removes must stay symmetric.
	f := mustNew(t, Config{M: 2, K: 8, Width: 8})
	f.AddString("a")
	f.AddString("b")
	if err := f.RemoveString("a"); err != nil {
		t.Fatal(err)
	}
	if err := f.RemoveString("b"); err != nil {
		t.Fatal(err)
	}
	if f.get(0) != 0 || f.get(1) != 0 {
		t.Fatalf("counters %d %d after removing everything", f.get(0), f.get(1))
	}
	checkInvariants(t, f)
}

func TestSaturationIsSticky(t *testing.T) {
	f := mustNew(t, Config{M: 64, K: 2})
	for range 20 {
		f.AddString("hot")
	}
	if f.CountString("hot") != 15 || f.Saturated() == 0 {
		t.Fatalf("Count %d, Saturated %d after 20 adds", f.CountString("hot"), f.Saturated())
	}
	sat := f.Saturated()
	for range 20 {
		if err := f.RemoveString("hot"); err != nil {
			t.Fatal(err) // saturated counters are never zero, so removal goes on
		}
	}
	if !f.ContainsString("hot") || f.CountString("hot") != 15 || f.Saturated() != sat {
		t.Fatalf("a saturated counter moved: Count %d, Saturated %d", f.CountString("hot"), f.Saturated())
	}
	checkInvariants(t, f)

	// Reaching Max exactly is saturation too: the filter cannot tell 15
	// from 16.
	g := mustNew(t, Config{M: 64, K: 1})
	for range 15 {
		g.AddString("k")
	}
	if g.Saturated() != 1 {
		t.Fatalf("Saturated %d at exactly 15", g.Saturated())
	}
}

func TestMinimalIncrease(t *testing.T) {
	f := mustNew(t, Config{M: 1000, K: 4, MinimalIncrease: true})
	if !f.MinimalIncrease() {
		t.Fatal("MinimalIncrease false")
	}
	for range 3 {
		f.AddString("a")
	}
	if f.CountString("a") != 3 {
		t.Fatalf("Count %d", f.CountString("a"))
	}
	if err := f.RemoveString("a"); !errors.Is(err, ErrNoRemoval) {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := f.RemoveBatch([]hashing.Hash128{f.HashString("a")}); !errors.Is(err, ErrNoRemoval) {
		t.Fatalf("RemoveBatch: %v", err)
	}
	if err := f.Subtract(f.Clone()); !errors.Is(err, ErrNoRemoval) {
		t.Fatalf("Subtract: %v", err)
	}
	// Saturation under minimal increase: the minimum reaches Max and stays.
	for range 20 {
		f.AddString("a")
	}
	if f.CountString("a") != 15 {
		t.Fatalf("Count %d after 23 adds", f.CountString("a"))
	}
	checkInvariants(t, f)
}

func TestBatch(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) { testBatch(t, mode.noView) })
	}
}

func testBatch(t *testing.T, noView bool) {
	for _, l := range layouts {
		f := mustNew(t, Config{Layout: l, N: 2000, P: 0.01, Seed: 4, NoBitView: noView})
		g := f.Clone()
		hs := make([]hashing.Hash128, 1000)
		for i := range hs {
			hs[i] = f.HashString(key(i % 700)) // some twice
		}
		f.AddBatch(hs)
		for _, h := range hs {
			g.AddHash(h)
		}
		if !f.Equal(g) || f.Len() != g.Len() {
			t.Fatalf("%v: AddBatch differs from AddHash", l)
		}
		in := make([]bool, len(hs))
		counts := make([]uint64, len(hs))
		f.ContainsBatch(hs, in)
		f.CountBatch(hs, counts)
		for i, h := range hs {
			if !in[i] || counts[i] != f.CountHash(h) {
				t.Fatalf("%v: batch answer %d wrong", l, i)
			}
		}
		// Keys never added: ContainsBatch agrees with ContainsHash,
		// false positives included.
		others := make([]hashing.Hash128, 3000)
		for i := range others {
			others[i] = f.HashString(key(10000 + i))
		}
		in = make([]bool, len(others))
		f.ContainsBatch(others, in)
		for i, h := range others {
			if in[i] != f.ContainsHash(h) {
				t.Fatalf("%v: ContainsBatch of absent key %d says %t", l, i, in[i])
			}
		}
		removed, err := f.RemoveBatch(hs[:700])
		if err != nil || removed != 700 {
			t.Fatalf("%v: RemoveBatch: %d, %v", l, removed, err)
		}
		removed, err = f.RemoveBatch(hs[:400])
		if !errors.Is(err, ErrNotPresent) || removed != 300 {
			t.Fatalf("%v: RemoveBatch of 400 with 300 left: %d, %v", l, removed, err)
		}
		if f.Len() != 0 || f.SetBits() != 0 {
			t.Fatalf("%v: not empty: %v", l, f)
		}
		checkInvariants(t, f)
	}
}

func TestNonZero(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, w := range widths {
		for range 10000 {
			x := r.Uint64()
			// Clear random counters so that zeros occur.
			for sh := 0; sh < 64; sh += w {
				if r.IntN(2) == 0 {
					x &^= (1<<w - 1) << sh
				}
			}
			want := uint64(0)
			for j := 0; j < 64/w; j++ {
				if x>>(j*w)&(1<<w-1) != 0 {
					want |= 1 << j
				}
			}
			if got := nonZero(x, uint(w)); got != want {
				t.Fatalf("nonZero(%#x, %d) = %#x, want %#x", x, w, got, want)
			}
		}
	}
}

func TestHistogram(t *testing.T) {
	f := mustNew(t, Config{M: 1001, K: 3, Width: 4})
	for i := range 200 {
		f.AddString(key(i % 120))
	}
	h := f.Histogram()
	sum, weighted := uint64(0), uint64(0)
	for v, n := range h {
		sum += n
		weighted += uint64(v) * n
	}
	if sum != f.M() || weighted != 600 || h[15] != f.Saturated() {
		t.Fatalf("histogram %v: %d counters, %d increments", h, sum, weighted)
	}
	if h[0] != f.M()-f.SetBits() {
		t.Fatalf("h[0] = %d, zero counters %d", h[0], f.M()-f.SetBits())
	}
}

func TestEstimates(t *testing.T) {
	f := mustNew(t, Config{Layout: bloom.Blocked, N: 10000, P: 0.01})
	for i := range 10000 {
		f.AddString(key(i))
		f.AddString(key(i))
	}
	if d := f.EstimateDistinct(); d < 9500 || d > 10500 {
		t.Errorf("EstimateDistinct %f for 10000 keys", d)
	}
	if r := f.FalsePositiveRate(); r < 0.005 || r > 0.015 {
		t.Errorf("FalsePositiveRate %f", r)
	}
	if f.FillRatio() != f.BitView().FillRatio() || f.Len() != 20000 {
		t.Errorf("FillRatio or Len wrong: %v", f)
	}
	if !strings.Contains(f.String(), "width=4") {
		t.Errorf("String %q", f.String())
	}
}

func TestNoAllocations(t *testing.T) {
	for _, mode := range modes {
		for _, l := range []bloom.Layout{bloom.Classic, bloom.Blocked} {
			t.Run(fmt.Sprintf("%s/%v", mode.name, l), func(t *testing.T) {
				testNoAllocations(t, mustNew(t, Config{Layout: l, N: 1000, P: 0.01, NoBitView: mode.noView}))
			})
		}
	}
}

func testNoAllocations(t *testing.T, f *Filter) {
	k := []byte("k")
	h := f.Hash(k)
	hs := []hashing.Hash128{h, f.HashString("j")}
	out, counts := make([]bool, 2), make([]uint64, 2)
	allocs := testing.AllocsPerRun(100, func() {
		f.AddHash(h)
		f.ContainsHash(h)
		f.Contains(k)
		f.CountHash(h)
		_ = f.RemoveHash(h)
		f.AddBatch(hs)
		f.ContainsBatch(hs, out)
		f.CountBatch(hs, counts)
		_, _ = f.RemoveBatch(hs)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
}

// TestBatchGroups checks the batch operations against the single ones at
// the edges of the prefetch groups (64/k keys each: k = 64 makes groups of
// one), for every width, with and without a view, and with minimal
// increase. The filters are past inCacheWords, where the batch
// prefetches; below it, it asks key by key (the first config).
func TestBatchGroups(t *testing.T) {
	const big = inCacheWords*16 + 64 // 4-bit positions past the in-cache size
	for _, k := range []int{1, 7, 13, 64} {
		for _, c := range []Config{
			{M: 1 << 14, K: k, NoBitView: true},
			{M: big, K: k},
			{M: big, K: k, Width: 8, NoBitView: true},
			{M: big, K: k, Width: 16, MinimalIncrease: true},
		} {
			for _, n := range []int{0, 1, 9, 10, 65, 300} {
				checkBatchGroups(t, c, n)
			}
		}
	}
}

func checkBatchGroups(t *testing.T, c Config, n int) {
	t.Helper()
	f := mustNew(t, c)
	g := f.Clone()
	hs := make([]hashing.Hash128, n)
	for i := range hs {
		hs[i] = f.HashString(key(i % 200))
	}
	f.AddBatch(hs)
	for _, h := range hs {
		g.AddHash(h)
	}
	if !f.Equal(g) || f.Len() != g.Len() {
		t.Fatalf("k=%d n=%d %+v: AddBatch differs from AddHash", c.K, n, c)
	}
	probe := make([]hashing.Hash128, n+50)
	for i := range probe {
		probe[i] = f.HashString(key(i + 150))
	}
	in, counts := make([]bool, len(probe)), make([]uint64, len(probe))
	f.ContainsBatch(probe, in)
	f.CountBatch(probe, counts)
	for i, h := range probe {
		if in[i] != f.ContainsHash(h) || counts[i] != f.CountHash(h) {
			t.Fatalf("k=%d n=%d %+v: batch answer %d differs", c.K, n, c, i)
		}
	}
	if c.MinimalIncrease {
		return
	}
	removed, err := f.RemoveBatch(probe)
	for _, h := range probe {
		_ = g.RemoveHash(h)
	}
	if !f.Equal(g) {
		t.Fatalf("k=%d n=%d: RemoveBatch differs from RemoveHash (removed %d, %v)", c.K, n, removed, err)
	}
}
