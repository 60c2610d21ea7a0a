package counting

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// TestPositionsMatchBloom checks that the filter's own probe derivation
// (bloom.Geometry, which a filter without a bit view depends on) gives exactly
// the hashes and positions of a bloom.Filter of the same shape, for every
// layout and both schemes.
func TestPositionsMatchBloom(t *testing.T) {
	configs := []bloom.Config{
		{N: 1000, P: 0.01, Seed: 1},
		{M: 777, K: 5, Seed: 2},
		{Layout: bloom.Partitioned, M: 1001, K: 7},
		{Layout: bloom.Partitioned, N: 5000, P: 0.001, Seed: 3},
		{Layout: bloom.Blocked, N: 12345, P: 0.001, Seed: 4},
		{Layout: bloom.Blocked, M: 512, K: 16},
		{Layout: bloom.Paged, M: 100000, K: 5, BlockBits: 4096},
		{Layout: bloom.Paged, N: 5000, P: 0.02, Seed: 5},
		{M: 2, K: 8},
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, scheme := range []hashing.Scheme{hashing.Default, hashing.Fast64, hashing.Squid} {
		for _, bc := range configs {
			bc.Scheme = scheme
			b := bloom.MustNew(bc)
			g, err := bloom.NewGeometry(b.Shape(), bc.Seed, scheme)
			if err != nil {
				t.Fatal(err)
			}
			if g.Shape() != b.Shape() {
				t.Fatalf("%+v: shape %v, bloom %v", bc, g.Shape(), b.Shape())
			}
			var want, got [params.MaxK]uint64
			for i := range 5000 {
				h := hashing.Hash128{Lo: r.Uint64(), Hi: r.Uint64()}
				if i%2 == 0 {
					k := key(i)
					h = b.HashString(k)
					if g.HashString(k) != h || g.Hash([]byte(k)) != h {
						t.Fatalf("%v %+v: hash of %q differs from bloom's", scheme.ID(), bc, k)
					}
				}
				if w, p := b.Positions(h, &want), g.Positions(h, &got); !slices.Equal(w, p) {
					t.Fatalf("%v %+v: positions %v, bloom %v", scheme.ID(), bc, p, w)
				}
			}
		}
	}
}

// differential drives a filter with a bit view and one without through
// the same random adds and removes and checks that they agree on
// everything but the view.
type differential struct {
	t          *testing.T
	view, only *Filter
	hs         []hashing.Hash128
}

func (d *differential) step(r *rand.Rand, mult []uint64) {
	i := r.IntN(len(d.hs))
	h := d.hs[i]
	if r.IntN(100) < 55 || d.view.MinimalIncrease() {
		d.view.AddHash(h)
		d.only.AddHash(h)
		mult[i]++
		return
	}
	ev, eo := d.view.RemoveHash(h), d.only.RemoveHash(h)
	if (ev == nil) != (eo == nil) || !errors.Is(eo, ErrNotPresent) && eo != nil {
		d.t.Fatalf("removing key %d: with view %v, counters only %v", i, ev, eo)
	}
	if ev == nil && mult[i] > 0 {
		mult[i]--
	}
}

// agree checks every observable of the two filters.
func (d *differential) agree(what string) {
	t, v, o := d.t, d.view, d.only
	t.Helper()
	checkInvariants(t, v)
	checkInvariants(t, o)
	if !v.Equal(o) || !o.Equal(v) || v.Len() != o.Len() || v.Saturated() != o.Saturated() {
		t.Fatalf("%s: counters differ: %v vs %v", what, v, o)
	}
	if v.SetBits() != o.SetBits() || v.FillRatio() != o.FillRatio() ||
		v.FalsePositiveRate() != o.FalsePositiveRate() || v.EstimateDistinct() != o.EstimateDistinct() {
		t.Fatalf("%s: estimates differ: %d %g %g %g vs %d %g %g %g", what,
			v.SetBits(), v.FillRatio(), v.FalsePositiveRate(), v.EstimateDistinct(),
			o.SetBits(), o.FillRatio(), o.FalsePositiveRate(), o.EstimateDistinct())
	}
	if !slices.Equal(v.Histogram(), o.Histogram()) {
		t.Fatalf("%s: histograms differ", what)
	}
	if !o.bitFilter().Equal(v.BitView()) {
		t.Fatalf("%s: the counters' projection differs from the live view", what)
	}
	inV, inO := make([]bool, len(d.hs)), make([]bool, len(d.hs))
	cV, cO := make([]uint64, len(d.hs)), make([]uint64, len(d.hs))
	v.ContainsBatch(d.hs, inV)
	o.ContainsBatch(d.hs, inO)
	v.CountBatch(d.hs, cV)
	o.CountBatch(d.hs, cO)
	for i, h := range d.hs {
		in := v.ContainsHash(h)
		if o.ContainsHash(h) != in || inV[i] != in || inO[i] != in {
			t.Fatalf("%s: key %d: Contains %t, counters only %t, batch %t %t", what, i, in, o.ContainsHash(h), inV[i], inO[i])
		}
		// The key methods take their own shortcuts (d.hs[i] is key(i)'s hash).
		if s := key(i); v.ContainsString(s) != in || o.ContainsString(s) != in || v.Contains([]byte(s)) != in || o.Contains([]byte(s)) != in {
			t.Fatalf("%s: key %d: the key methods differ from ContainsHash (%t)", what, i, in)
		}
		c := v.CountHash(h)
		if o.CountHash(h) != c || cV[i] != c || cO[i] != c || (c != 0) != in {
			t.Fatalf("%s: key %d: Count %d, counters only %d, batch %d %d", what, i, c, o.CountHash(h), cV[i], cO[i])
		}
	}
}

func TestNoBitViewMatchesView(t *testing.T) {
	rounds := 6
	if testing.Short() || raceEnabled {
		rounds = 2
	}
	type variant struct {
		minInc bool
		scheme hashing.Scheme
	}
	variants := []variant{{false, nil}, {true, nil}, {false, hashing.Squid}, {false, hashing.Fast64}}
	for _, l := range layouts {
		for _, w := range widths {
			for _, vr := range variants {
				name := fmt.Sprintf("%v/%d/minInc=%t/scheme=%v", l, w, vr.minInc, vr.scheme)
				c := Config{Layout: l, N: 1500, P: 0.02, Width: w, Seed: 11, MinimalIncrease: vr.minInc, Scheme: vr.scheme}
				view := mustNew(t, c)
				c.NoBitView = true
				only := mustNew(t, c)
				if view.Shape() != only.Shape() || only.K() != view.K() || only.Layout() != l {
					t.Fatalf("%s: shapes differ: %v vs %v", name, view.Shape(), only.Shape())
				}
				// The universe is twice the design load, so that keys
				// never added (false positives included) are asked too.
				d := &differential{t: t, view: view, only: only, hs: make([]hashing.Hash128, 3000)}
				for i := range d.hs {
					d.hs[i] = view.HashString(key(i))
					if only.HashString(key(i)) != d.hs[i] {
						t.Fatalf("%s: hashes differ", name)
					}
				}
				mult := make([]uint64, len(d.hs))
				r := rand.New(rand.NewPCG(uint64(l), uint64(w)))
				for round := range rounds {
					for range 1000 {
						d.step(r, mult)
					}
					d.agree(fmt.Sprintf("%s round %d", name, round))
				}
				// AddBatch and RemoveBatch agree with the single-key forms.
				view.AddBatch(d.hs[:500])
				only.AddBatch(d.hs[:500])
				if !vr.minInc {
					nv, ev := view.RemoveBatch(d.hs[200:800])
					no, eo := only.RemoveBatch(d.hs[200:800])
					if nv != no || (ev == nil) != (eo == nil) {
						t.Fatalf("%s: RemoveBatch %d, %v vs %d, %v", name, nv, ev, no, eo)
					}
				}
				d.agree(name + " after batches")
				checkCountersOnlyCopies(t, name, view, only)
			}
		}
	}
}

// checkCountersOnlyCopies checks Clone, the set algebra across modes, the
// encoding and Clear of a counters-only filter against its twin with a
// view.
func checkCountersOnlyCopies(t *testing.T, name string, view, only *Filter) {
	t.Helper()
	// Clone keeps the mode.
	cl := only.Clone()
	if cl.BitView() != nil || !cl.Equal(only) || cl.Len() != only.Len() || cl.Saturated() != only.Saturated() {
		t.Fatalf("%s: Clone of a counters-only filter: %v", name, cl)
	}
	checkInvariants(t, cl)
	// The encoding does not record the mode; decoding gives a view.
	ev, err := view.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	eo, err := only.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ev, eo) {
		t.Fatalf("%s: encodings differ between modes", name)
	}
	var buf bytes.Buffer
	if _, err := only.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), eo) {
		t.Fatalf("%s: WriteTo differs from MarshalBinary: %v", name, err)
	}
	dec, err := Decode(eo, envelope.Limits{})
	if err != nil || dec.BitView() == nil || !dec.Equal(only) || !dec.BitView().Equal(view.BitView()) {
		t.Fatalf("%s: decoding a counters-only filter: %v", name, err)
	}
	un := cl.Clone()
	if err := un.UnmarshalBinary(eo); err != nil || un.BitView() == nil || !un.Equal(only) {
		t.Fatalf("%s: UnmarshalBinary into a counters-only filter: %v", name, err)
	}
	checkInvariants(t, un)
	// Merging a decoded filter into an empty counters-only one drops the
	// view again, as Config.NoBitView documents.
	again := mustNew(t, Config{Layout: only.Layout(), M: only.M(), K: only.K(), BlockBits: only.Shape().BlockBits,
		Width: only.Width(), MinimalIncrease: only.MinimalIncrease(), Seed: only.Seed(), Scheme: only.Scheme(), NoBitView: true})
	if err := again.Merge(dec); err != nil || !again.Equal(only) || again.BitView() != nil || again.Len() != only.Len() {
		t.Fatalf("%s: merging the decoded filter into a counters-only one: %v", name, err)
	}
	checkInvariants(t, again)
	// Merge and Subtract across modes, both ways.
	sumV, sumO := view.Clone(), only.Clone()
	if err := sumV.Merge(only); err != nil {
		t.Fatal(err)
	}
	if err := sumO.Merge(view); err != nil {
		t.Fatal(err)
	}
	if !sumV.Equal(sumO) || sumV.Len() != sumO.Len() || sumV.Saturated() != sumO.Saturated() {
		t.Fatalf("%s: Merge differs between modes", name)
	}
	checkInvariants(t, sumV)
	checkInvariants(t, sumO)
	if !view.MinimalIncrease() {
		sumSat := sumO.Saturated()
		errV, errO := sumV.Subtract(only), sumO.Subtract(view)
		// f is a sub-multiset of f + f whatever saturated.
		if errV != nil || errO != nil || !sumV.Equal(sumO) {
			t.Fatalf("%s: Subtract differs between modes: %v, %v", name, errV, errO)
		}
		if sumSat == 0 && !sumO.Equal(only) {
			t.Fatalf("%s: (f + f) − f differs from f without a view", name)
		}
		checkInvariants(t, sumV)
		checkInvariants(t, sumO)
	}
	cl.Clear()
	if cl.Len() != 0 || cl.SetBits() != 0 || cl.Saturated() != 0 || slices.ContainsFunc(cl.Counters(), func(w uint64) bool { return w != 0 }) {
		t.Fatalf("%s: Clear left %v", name, cl)
	}
	checkInvariants(t, cl)
}

// TestNoBitViewAPI checks what differs without a bit view: no view, no
// change tracking, less memory, and a String that says so.
func TestNoBitViewAPI(t *testing.T) {
	for _, w := range widths {
		c := Config{Layout: bloom.Blocked, N: 10000, P: 0.01, Width: w}
		view := mustNew(t, c)
		c.NoBitView = true
		f := mustNew(t, c)
		if f.BitView() != nil || f.bits != nil {
			t.Fatalf("width %d: a counters-only filter has a bit view", w)
		}
		words := (f.M()*uint64(w) + 63) / 64
		if f.SizeBytes() != int(8*words) || view.SizeBytes() != f.SizeBytes()+int(8*((f.M()+63)/64)) {
			t.Fatalf("width %d: SizeBytes %d without a view, %d with", w, f.SizeBytes(), view.SizeBytes())
		}
		if !strings.Contains(f.String(), "no bit view") || strings.Contains(view.String(), "no bit view") {
			t.Fatalf("String: %q, %q", f.String(), view.String())
		}
		f.AddString("a")
		f.Mark()
		if f.Marked() {
			t.Fatal("Marked true without a view")
		}
		f.AddString("b")
		if ws, err := f.ChangedWords(nil); !errors.Is(err, ErrNoBitView) || ws != nil || !strings.HasPrefix(err.Error(), "counting: ") {
			t.Fatalf("ChangedWords: %v, %v", ws, err)
		}
		dst := []uint64{7}
		if bs, err := f.ChangedBits(dst); !errors.Is(err, ErrNoBitView) || !slices.Equal(bs, dst) {
			t.Fatalf("ChangedBits: %v, %v", bs, err)
		}
		f.Unmark()
		if f.Marked() || f.track.state != trackOff {
			t.Fatal("Unmark")
		}
		checkInvariants(t, f)
	}
	// At 4-bit counters the view is a fifth of the memory.
	c := Config{Layout: bloom.Classic, N: 100000, P: 0.01}
	with := mustNew(t, c).SizeBytes()
	c.NoBitView = true
	without := mustNew(t, c).SizeBytes()
	if r := float64(without) / float64(with); r < 0.799 || r > 0.801 {
		t.Errorf("counters-only memory %d bytes, %d with a view: ratio %.4f, want 0.8", without, with, r)
	}
}

// TestNoBitViewSaturation checks saturation without a view: sticky
// counters, counted, never a false negative.
func TestNoBitViewSaturation(t *testing.T) {
	f := mustNew(t, Config{M: 64, K: 2, NoBitView: true})
	for range 20 {
		f.AddString("hot")
	}
	sat := f.Saturated()
	if f.CountString("hot") != 15 || sat == 0 {
		t.Fatalf("Count %d, Saturated %d after 20 adds", f.CountString("hot"), sat)
	}
	for range 20 {
		if err := f.RemoveString("hot"); err != nil {
			t.Fatal(err)
		}
	}
	if !f.ContainsString("hot") || f.Saturated() != sat {
		t.Fatalf("a saturated counter moved: %v", f)
	}
	checkInvariants(t, f)
}

// TestKeyMethodsFast64: under hashing scheme XXH3x64 the key methods of
// a counters-only filter, which take the inline probe paths (in the
// blocked layout with AVX-512 the assembly, blockCountersKey64), answer
// as the hash methods do, for members and non-members, in every layout.
func TestKeyMethodsFast64(t *testing.T) {
	for _, l := range layouts {
		f := mustNew(t, Config{Layout: l, N: 2000, P: 0.05, NoBitView: true, Scheme: hashing.Fast64})
		if !f.inline {
			t.Fatalf("%v: the probes of scheme XXH3x64 do not run inline", l)
		}
		if asm := hasAVX512 && l == bloom.Blocked; (f.blockKeys64 != nil) != asm {
			t.Fatalf("%v: the key methods take blockCountersKey64: %v, want %v", l, f.blockKeys64 != nil, asm)
		}
		for i := range 2000 {
			f.AddString(key(i))
		}
		found := 0
		for i := range 6000 {
			k := key(i)
			want := f.ContainsHash(hashing.SumString64Seed(k, f.Seed()))
			if f.ContainsString(k) != want || f.Contains([]byte(k)) != want {
				t.Fatalf("%v: key %q: the key methods and ContainsHash differ", l, k)
			}
			if want {
				found++
			}
		}
		if found < 2000 || found == 6000 {
			t.Fatalf("%v: %d of 6000 keys found", l, found)
		}
	}
}
