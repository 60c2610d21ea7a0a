package bloom

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

var layouts = []Layout{Classic, Partitioned, Blocked, Paged}

func key(i int) string {
	return "http://host" + strconv.Itoa(i%97) + ".example.com/object/" + strconv.Itoa(i)
}

// slowScheme is hashing.Default behind a different ID, so filters using it
// take the interface path instead of the inline one.
type slowScheme struct{ hashing.Scheme }

func (slowScheme) ID() hashing.SchemeID { return 250 }

func mustNew(t testing.TB, c Config) *Filter {
	t.Helper()
	f, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestNoFalseNegatives(t *testing.T) {
	for _, l := range layouts {
		for i, c := range []Config{{N: 1000, P: 0.01}, {N: 1, P: 0.5}, {M: 64 * 3, K: 3}, {M: 1000, K: 7, Seed: 99}, {N: 5000, P: 1e-4, BlockBits: 1024}} {
			c.Layout, c.Scheme = l, inlineSchemes[i%2]
			f := mustNew(t, c)
			for i := 0; i < 3000; i++ {
				f.AddString(key(i))
			}
			for i := 0; i < 3000; i++ {
				if !f.ContainsString(key(i)) || !f.Contains([]byte(key(i))) {
					t.Fatalf("%v %+v: false negative for %q", l, c, key(i))
				}
			}
		}
	}
}

// The inline probe paths must set exactly the bits the Scheme interface
// describes: that is what makes the golden vectors a contract for them.
func TestInlinePathsMatchScheme(t *testing.T) {
	for _, scheme := range inlineSchemes {
		for _, l := range layouts {
			inlinePathsMatchScheme(t, scheme, l)
		}
	}
}

// inlineSchemes are the schemes whose probes the filters run inline.
var inlineSchemes = []hashing.Scheme{hashing.Default, hashing.Fast64}

func inlinePathsMatchScheme(t *testing.T, scheme hashing.Scheme, l Layout) {
	t.Helper()
	for _, c := range []Config{{N: 20000, P: 0.01}, {M: 1000, K: 7}, {M: 4096, K: 1}, {M: 640, K: 64}} {
		c.Layout, c.Scheme = l, scheme
		fast := mustNew(t, c)
		c.Scheme = slowScheme{scheme}
		slow := mustNew(t, c)
		if fast.fast == slow.fast {
			t.Fatal("slowScheme did not select the interface path")
		}
		for i := 0; i < 20000; i++ {
			h := fast.HashString(key(i))
			fast.AddHash(h)
			slow.AddHash(h)
			if i%7 == 0 && fast.ContainsHash(xor1(h)) != slow.ContainsHash(xor1(h)) {
				t.Fatalf("%v scheme %d: ContainsHash differs", l, scheme.ID())
			}
		}
		slow.scheme = scheme
		if !fast.Equal(slow) {
			t.Fatalf("%v %+v: inline and interface paths set different bits", l, c)
		}
	}
}

// The key methods take shortcuts to the probe loops; for members and
// non-members alike they must answer as ContainsHash and as the interface
// path do, for every k (the classic-family loop reads two probes at once,
// so k = 1, 2 and 3 are edges).
func TestKeyMethodsMatchContainsHash(t *testing.T) {
	for _, scheme := range inlineSchemes {
		for _, l := range layouts {
			keyMethodsMatchContainsHash(t, scheme, l)
		}
	}
}

func keyMethodsMatchContainsHash(t *testing.T, scheme hashing.Scheme, l Layout) {
	t.Helper()
	for _, k := range []int{1, 2, 3, 7, 64} {
		c := Config{Layout: l, M: 64 * 40, K: k, Scheme: scheme}
		fast := mustNew(t, c)
		c.Scheme = slowScheme{scheme}
		slow := mustNew(t, c)
		for i := 0; i < 200; i++ {
			fast.AddString(key(i))
			slow.AddString(key(i))
		}
		found := 0
		for i := 0; i < 3000; i++ {
			s := key(i)
			want := fast.ContainsHash(fast.HashString(s))
			if fast.ContainsString(s) != want || fast.Contains([]byte(s)) != want ||
				slow.ContainsString(s) != want || slow.Contains([]byte(s)) != want {
				t.Fatalf("%v k=%d scheme %d: key %q: the key methods and ContainsHash differ", l, k, scheme.ID(), s)
			}
			if want {
				found++
			}
		}
		if found == 3000 || found < 200 {
			t.Fatalf("%v k=%d: %d of 3000 keys found: the test needs members and non-members", l, k, found)
		}
	}
}

func xor1(h hashing.Hash128) hashing.Hash128 { return hashing.Hash128{Lo: h.Lo ^ 0x5bd1e995, Hi: h.Hi} }

func TestPositionsMatchLocate(t *testing.T) {
	for _, l := range layouts {
		f := mustNew(t, Config{Layout: l, M: 64 * 700, K: 9, BlockBits: 640, Scheme: inlineSchemes[int(l)%2]})
		var a, b [params.MaxK]uint64
		for i := 0; i < 5000; i++ {
			h := f.HashString(key(i))
			pa, pb := f.Positions(h, &a), f.locate(h, &b)
			for j := range pa {
				if pa[j] != pb[j] {
					t.Fatalf("%v: probe %d of key %d: inline %d, scheme %d", l, j, i, pa[j], pb[j])
				}
			}
		}
	}
}

// measureFPR adds n keys and queries q keys that were never added.
func measureFPR(f *Filter, n, q int) float64 {
	for i := 0; i < n; i++ {
		f.AddString(key(i))
	}
	fp := 0
	for i := n; i < n+q; i++ {
		if f.ContainsString(key(i)) {
			fp++
		}
	}
	return float64(fp) / float64(q)
}

// TestFalsePositiveRateMatchesParams compares the measured rate with the
// layout's model in params, within five standard errors plus 3%.
func TestFalsePositiveRateMatchesParams(t *testing.T) {
	n, q := 50000, 400000
	if testing.Short() || raceEnabled {
		n, q = 20000, 100000
	}
	for _, l := range layouts {
		for _, c := range []struct {
			p      float64
			scheme hashing.Scheme
		}{{0.01, hashing.Default}, {0.001, hashing.Default}, {0.01, hashing.Fast64}, {0.001, hashing.Fast64}} {
			p, scheme := c.p, c.scheme
			f := mustNew(t, Config{Layout: l, N: uint64(n), P: p, Seed: 7, Scheme: scheme})
			got := measureFPR(f, n, q)
			want := f.Shape().FalsePositive(uint64(n))
			se := math.Sqrt(want * (1 - want) / float64(q))
			if math.Abs(got-want) > 5*se+0.03*want {
				t.Errorf("%v p=%g: measured %.5f, params predicts %.5f (±%.5f)", l, p, got, want, se)
			}
			if want > p*1.0000001 {
				t.Errorf("%v p=%g: sized shape predicts %.5f above the target", l, p, want)
			}
			est := f.FalsePositiveRate()
			if math.Abs(est-want) > 0.1*want {
				t.Errorf("%v p=%g: FalsePositiveRate from the bits %.5f, model %.5f", l, p, est, want)
			}
			t.Logf("%-11v p=%-6g scheme %d m/n=%.2f k=%d measured %.5f predicted %.5f", l, p, scheme.ID(), float64(f.M())/float64(n), f.K(), got, want)
		}
	}
}

func TestEstimateCount(t *testing.T) {
	for _, l := range layouts {
		f := mustNew(t, Config{Layout: l, N: 20000, P: 0.01})
		if f.EstimateCount() != 0 {
			t.Fatalf("%v: empty filter estimates %v", l, f.EstimateCount())
		}
		f.AddString("one")
		if e := f.EstimateCount(); math.Abs(e-1) > 0.01 {
			t.Errorf("%v: one key estimated as %v", l, e)
		}
		for i := 1; i < 20000; i++ {
			f.AddString(key(i))
		}
		if e := f.EstimateCount(); math.Abs(e-20000) > 20000*0.02 {
			t.Errorf("%v: 20000 keys estimated as %.0f", l, e)
		}
		for i := range f.words {
			f.words[i] = ^uint64(0)
		}
		f.words[len(f.words)-1] >>= (64 - f.m%64) % 64
		if e := f.EstimateCount(); math.IsInf(e, 0) || math.IsNaN(e) || e < 20000 {
			t.Errorf("%v: full filter estimates %v", l, e)
		}
		if fp := f.FalsePositiveRate(); fp != 1 {
			t.Errorf("%v: full filter's rate %v", l, fp)
		}
	}
}

func TestUnionIntersect(t *testing.T) {
	for _, l := range layouts {
		c := Config{Layout: l, N: 2000, P: 0.01}
		a, b := mustNew(t, c), mustNew(t, c)
		for i := 0; i < 2000; i++ {
			if i < 1500 {
				a.AddString(key(i))
			}
			if i >= 500 {
				b.AddString(key(i))
			}
		}
		u, x := a.Clone(), a.Clone()
		if err := u.Union(b); err != nil {
			t.Fatal(err)
		}
		if err := x.Intersect(b); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2000; i++ {
			if !u.ContainsString(key(i)) {
				t.Fatalf("%v: union lost %d", l, i)
			}
			if i >= 500 && i < 1500 && !x.ContainsString(key(i)) {
				t.Fatalf("%v: intersection lost %d", l, i)
			}
		}
		// The counts are estimates from the bits: 2000 distinct keys in
		// the union; 1000 in both, and the AND of two filters' bits keeps
		// some that keys of only one set (so the estimate errs high).
		if !u.CountEstimated() || !x.CountEstimated() || math.Abs(float64(u.Count())-2000) > 100 || x.Count() < 950 || x.Count() > 1200 {
			t.Errorf("%v: counts %d (estimated %t), %d (estimated %t); want ≈ 2000 and 1000–1200, estimated", l, u.Count(), u.CountEstimated(), x.Count(), x.CountEstimated())
		}
		if x.SetBits() > a.SetBits() || u.SetBits() < a.SetBits() {
			t.Errorf("%v: bit counts out of order", l)
		}
	}
	a := mustNew(t, Config{N: 100, P: 0.01})
	for _, c := range []Config{{N: 100, P: 0.01, Seed: 1}, {N: 200, P: 0.01}, {Layout: Blocked, N: 100, P: 0.01}, {M: a.M(), K: a.K() + 1}} {
		if err := a.Union(mustNew(t, c)); !errors.Is(err, ErrIncompatible) {
			t.Errorf("Union with %+v: %v", c, err)
		}
	}
}

// Folding must give exactly the filter built at half the size: multiply-
// shift maps bit b to b/2 when the range halves.
func TestFoldEqualsSmallerFilter(t *testing.T) {
	for _, l := range layouts {
		for _, m := range []uint64{1 << 16, 3 * 1024 * 8, 5 * 4096 * 4, 4 * 1000} {
			big := mustNew(t, Config{Layout: l, M: m, K: 4, BlockBits: 1024})
			small := mustNew(t, Config{Layout: l, M: big.M() / 4, K: 4, BlockBits: 1024})
			if big.M() != 4*small.M() {
				t.Fatalf("%v: sizes %d, %d", l, big.M(), small.M())
			}
			for i := 0; i < 3000; i++ {
				h := big.HashString(key(i))
				big.AddHash(h)
				small.AddHash(h)
			}
			if err := big.FoldTo(small.M()); err != nil {
				t.Fatalf("%v m=%d: %v", l, m, err)
			}
			if !big.Equal(small) {
				t.Fatalf("%v m=%d: folded filter differs from the one built at %d bits", l, m, small.M())
			}
			for i := 0; i < 3000; i++ {
				if !big.ContainsString(key(i)) {
					t.Fatalf("%v: false negative after folding", l)
				}
			}
		}
	}
	odd := mustNew(t, Config{M: 1001, K: 3})
	if err := odd.Fold(); !errors.Is(err, ErrFold) {
		t.Fatalf("Fold of 1001 bits: %v", err)
	}
	f := mustNew(t, Config{M: 1000, K: 3})
	if err := f.FoldTo(10); !errors.Is(err, ErrFold) || f.M() != 1000 {
		t.Fatalf("FoldTo past an odd size: %v, m=%d", err, f.M())
	}
}

// TestBatchMatchesSingle checks the batch operations against the single
// ones across group boundaries (blocked: 16 keys; the others: 64/k keys,
// so k = 64 makes groups of one) and lengths that are not multiples of a
// group, for every layout, with the assembly prefetch and, under the
// purego tag, its pure-Go twin.
func TestBatchMatchesSingle(t *testing.T) {
	for _, l := range layouts {
		for _, c := range []Config{
			{Layout: l, N: 5000, P: 0.01},
			{Layout: l, M: 1 << 16, K: 1},
			{Layout: l, M: 1 << 16, K: 13},
			{Layout: l, M: 1 << 18, K: 64},
		} {
			for _, n := range []int{0, 1, 15, 16, 17, 63, 2500} {
				checkBatch(t, c, n)
			}
		}
	}
}

func checkBatch(t *testing.T, c Config, n int) {
	t.Helper()
	f := mustNew(t, c)
	g := f.Clone()
	hs := make([]hashing.Hash128, 2*n+5)
	for i := range hs {
		hs[i] = f.HashString(key(i))
	}
	f.AddBatch(hs[:n])
	for _, h := range hs[:n] {
		g.AddHash(h)
	}
	if !f.Equal(g) || f.Count() != g.Count() {
		t.Fatalf("%v k=%d n=%d: AddBatch differs from AddHash", c.Layout, f.K(), n)
	}
	out := make([]bool, len(hs)+3)
	f.ContainsBatch(hs, out)
	for i, h := range hs {
		if out[i] != f.ContainsHash(h) {
			t.Fatalf("%v k=%d n=%d: ContainsBatch[%d] differs", c.Layout, f.K(), n, i)
		}
	}
}

func TestTestAndAdd(t *testing.T) {
	for _, l := range layouts {
		f := mustNew(t, Config{Layout: l, N: 1000, P: 0.001})
		fresh := 0
		for i := 0; i < 1000; i++ {
			if !f.TestAndAddString(key(i)) {
				fresh++
			}
			if !f.TestAndAddString(key(i)) {
				t.Fatalf("%v: second TestAndAdd of %d says absent", l, i)
			}
		}
		if fresh < 990 {
			t.Errorf("%v: only %d of 1000 new keys reported absent", l, fresh)
		}
	}
}

// TestFilterConcurrentQueries checks the Filter's documented claim that
// its queries are safe for concurrent use while nothing modifies it (run
// with -race).
func TestFilterConcurrentQueries(t *testing.T) {
	for _, l := range layouts {
		f := mustNew(t, Config{Layout: l, N: 2000})
		for i := range 1000 {
			f.AddString(strconv.Itoa(i))
		}
		want := make([]bool, 2000)
		for i := range want {
			want[i] = f.ContainsString(strconv.Itoa(i))
		}
		wantEnc, _ := f.MarshalBinary()
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range want {
					if f.ContainsString(strconv.Itoa(i)) != want[i] {
						t.Errorf("%v: key %d: answer differs under concurrent queries", l, i)
						return
					}
				}
				_, _ = f.EstimateCount(), f.FillRatio()
				enc, err := f.MarshalBinary()
				if err != nil || string(enc) != string(wantEnc) || !f.Clone().Equal(f) {
					t.Errorf("%v: encoding or clone differs under concurrent queries: %v", l, err)
				}
			}()
		}
		wg.Wait()
	}
}

func TestConcurrentMatchesFilter(t *testing.T) {
	for _, l := range layouts {
		c := Config{Layout: l, N: 40000, P: 0.01}
		cf, err := NewConcurrent(c)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := g; i < 40000; i += 4 {
					cf.AddString(key(i))
					if !cf.ContainsString(key(i)) {
						t.Errorf("%v: own add not visible", l)
						return
					}
					cf.ContainsString(key(i + 1)) // races with another goroutine's add
				}
			}(g)
		}
		wg.Wait()
		f := mustNew(t, c)
		for i := 0; i < 40000; i++ {
			f.AddString(key(i))
		}
		snap := cf.Snapshot()
		if !snap.Equal(f) {
			t.Fatalf("%v: concurrent adds differ from sequential ones", l)
		}
		if math.Abs(float64(snap.Count())-40000) > 800 {
			t.Errorf("%v: snapshot count %d", l, snap.Count())
		}
	}
}

// TestConcurrentTestAndAdd: used by one goroutine, a Concurrent's
// TestAndAddHash answers exactly as a Filter's for the same keys in the
// same order, in every layout, and allocates nothing.
func TestConcurrentTestAndAdd(t *testing.T) {
	for _, l := range layouts {
		c := Config{Layout: l, N: 2000, P: 0.01}
		cf, err := NewConcurrent(c)
		if err != nil {
			t.Fatal(err)
		}
		f := mustNew(t, c)
		for i := range 6000 { // up to three times the capacity: some keys are false positives
			h := f.HashString(key(i % 4000))
			if got, want := cf.TestAndAddHash(h), f.TestAndAddHash(h); got != want {
				t.Fatalf("%v: key %d: Concurrent says %v, Filter %v", l, i%4000, got, want)
			}
		}
		if !cf.Snapshot().Equal(f) {
			t.Fatalf("%v: the bits differ", l)
		}
		h := f.HashString("k")
		if a := testing.AllocsPerRun(100, func() { cf.TestAndAddHash(h) }); a != 0 {
			t.Errorf("%v: Concurrent.TestAndAddHash allocates %v", l, a)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{{}, {P: 0.01}, {N: 10, P: 1}, {N: 10, P: -1}, {M: 100, K: 65}, {Layout: 9, M: 100}, {Layout: Paged, M: 1 << 20, BlockBits: 100}, {M: MaxBits + 1, K: 1},
		// K without M: N and P would choose k and ignore it.
		{N: 1000, P: 0.01, K: 3}, {N: 1000, K: -1}, {N: 1000, P: 0.01, K: math.MaxInt}} {
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) error %v", c, err)
		}
	}
	f := mustNew(t, Config{Layout: Partitioned, M: 1000, K: 7})
	if f.M()%7 != 0 || f.M() < 1000 {
		t.Errorf("partitioned M rounded to %d", f.M())
	}
	g := mustNew(t, Config{Layout: Blocked, M: 1000})
	if g.M() != 1024 || g.K() < 1 {
		t.Errorf("blocked M rounded to %d, k=%d", g.M(), g.K())
	}
}

func TestZeroAllocations(t *testing.T) {
	for _, l := range layouts {
		f := mustNew(t, Config{Layout: l, N: 1000, P: 0.01})
		h := f.HashString("k")
		hs := []hashing.Hash128{h, h, h}
		out := make([]bool, 3)
		for name, fn := range map[string]func(){
			"AddHash":        func() { f.AddHash(h) },
			"ContainsHash":   func() { f.ContainsHash(h) },
			"TestAndAddHash": func() { f.TestAndAddHash(h) },
			"AddString":      func() { f.AddString("some key") },
			"ContainsString": func() { f.ContainsString("some key") },
			"ContainsBatch":  func() { f.ContainsBatch(hs, out) },
			"AddBatch":       func() { f.AddBatch(hs) },
		} {
			if a := testing.AllocsPerRun(100, fn); a != 0 {
				t.Errorf("%v %s: %v allocations", l, name, a)
			}
		}
	}
}

func TestOnesInRange(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	words := make([]uint64, 8)
	for i := range words {
		words[i] = r.Uint64()
	}
	for trial := 0; trial < 2000; trial++ {
		a, b := r.Uint64N(513), r.Uint64N(513)
		if a > b {
			a, b = b, a
		}
		want := uint64(0)
		for i := a; i < b; i++ {
			if getBit(words, i) {
				want++
			}
		}
		if got := onesInRange(words, a, b); got != want {
			t.Fatalf("onesInRange(%d, %d) = %d, want %d", a, b, got, want)
		}
	}
}

func ExampleFilter() {
	f, err := New(Config{Layout: Blocked, N: 1000, P: 0.01})
	if err != nil {
		panic(err)
	}
	f.AddString("http://example.com/a")
	fmt.Println(f.ContainsString("http://example.com/a"), f.ContainsString("http://example.com/b"))
	// Output: true false
}

func ExampleFilter_Fold() {
	f := MustNew(Config{M: 1 << 16, K: 4})
	f.AddString("alpha")
	_ = f.FoldTo(1 << 12) // four halvings: 65536 → 4096 bits
	fmt.Println(f.M(), f.ContainsString("alpha"))
	// Output: 4096 true
}

func ExampleFilter_ContainsBatch() {
	f := MustNew(Config{Layout: Blocked, N: 100, P: 0.001})
	keys := []string{"a", "b", "c"}
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = f.HashString(k)
	}
	f.AddHash(hs[1])
	out := make([]bool, len(hs))
	f.ContainsBatch(hs, out)
	fmt.Println(out)
	// Output: [false true false]
}

func TestConfigFolds(t *testing.T) {
	for _, l := range layouts {
		for _, c := range []Config{{N: 12345, P: 0.01}, {M: 100000, K: 5}} {
			c.Layout, c.Folds = l, 5
			f := mustNew(t, c)
			base := mustNew(t, Config{Layout: l, N: c.N, P: c.P, M: c.M, K: c.K})
			if f.M() < base.M() || f.K() != base.K() {
				t.Fatalf("%v: Folds changed the shape beyond M: %d/%d vs %d/%d", l, f.M(), f.K(), base.M(), base.K())
			}
			if f.Folds() < 5 {
				t.Fatalf("%v %+v: Folds() = %d, want ≥ 5", l, c, f.Folds())
			}
			if err := f.Clone().FoldTo(f.M() >> 6); f.Folds() == 5 && !errors.Is(err, ErrFold) {
				t.Fatalf("%v %+v: FoldTo past Folds(): %v", l, c, err)
			}
			for i := 0; i < 5; i++ {
				if err := f.Fold(); err != nil {
					t.Fatalf("%v %+v: fold %d: %v", l, c, i+1, err)
				}
			}
		}
	}
	if _, err := New(Config{N: 10, P: 0.1, Folds: 33}); !errors.Is(err, ErrConfig) {
		t.Fatalf("Folds 33: %v", err)
	}
}

func TestConfigShape(t *testing.T) {
	for _, l := range layouts {
		for _, c := range []Config{{N: 12345, P: 0.01}, {M: 100000, K: 5}, {M: 100000}, {N: 1000, P: 0.001, Folds: 3}} {
			c.Layout = l
			s, err := c.Shape()
			if err != nil {
				t.Fatalf("%v %+v: %v", l, c, err)
			}
			if f := mustNew(t, c); s != f.Shape() {
				t.Errorf("%v %+v: Shape() = %+v, New gives %+v", l, c, s, f.Shape())
			}
		}
	}
	if _, err := (Config{N: 10, P: 1}).Shape(); !errors.Is(err, ErrConfig) {
		t.Errorf("Shape of an invalid Config: %v", err)
	}
	if _, err := (Config{}).Shape(); !errors.Is(err, ErrConfig) {
		t.Errorf("Shape of the zero Config: %v", err)
	}
}

// TestDefaultP: a Config with N and no P is sized for 1%, the command's
// default -p, in any layout.
func TestDefaultP(t *testing.T) {
	for _, l := range layouts {
		got, err := Config{N: 1000, Layout: l}.Shape()
		if err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		want, err := Config{N: 1000, P: 0.01, Layout: l}.Shape()
		if err != nil || got != want {
			t.Errorf("%v: Config{N: 1000} = %+v, want %+v (P 0.01)", l, got, want)
		}
	}
}

// TestDocSaysWhichType: the package doc answers "Which type do I want?",
// and New's first lines say how its defaults differ from the command's.
func TestDocSaysWhichType(t *testing.T) {
	src, err := os.ReadFile("filter.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"// # Which type do I want?", "// New returns an empty filter for c. Its defaults are the command's but\n// one:"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("filter.go lacks %q", want)
		}
	}
}
