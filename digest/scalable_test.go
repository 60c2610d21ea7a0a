package digest

import (
	"errors"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/scalable"
)

// scalableWith returns a scalable filter (capacity 100, P = 1%, blocked)
// with keys [from, to).
func scalableWith(t testing.TB, from, to int) *scalable.Filter {
	t.Helper()
	f, err := scalable.New(scalable.Config{Capacity: 100, P: 0.01, Seed: 17})
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < to; i++ {
		if err := f.Add(key(i)); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func TestScalableRoundTrip(t *testing.T) {
	f := scalableWith(t, 0, 1000)
	raw, _ := f.MarshalBinary()
	for _, c := range []Codec{Raw, Arith, Fast, Auto} {
		b, err := Encode(&Digest{Sequence: 7, Scalable: f}, c)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if c != Raw && len(b) >= len(raw) {
			t.Errorf("%v: %d bytes, raw %d", c, len(b), len(raw))
		}
		d, err := Decode(b, envelope.Limits{})
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if d.Sequence != 7 || !d.Scalable.Equal(f) || d.Scalable.Count() != f.Count() {
			t.Errorf("%v: decoded digest differs", c)
		}
		if c == Raw {
			if _, err := scalable.Decode(b, envelope.Limits{}); err != nil {
				t.Errorf("package scalable does not read a raw digest: %v", err)
			}
		}
		if _, err := Decode(b, envelope.Limits{MaxPayload: uint64(f.SizeBytes()) - 1}); !errors.Is(err, envelope.ErrTooLarge) {
			t.Errorf("%v: under a limit below the layers' arrays: %v", c, err)
		}
	}
	if (&Digest{Scalable: f}).EntropyBits() <= 0 {
		t.Error("EntropyBits of a scalable digest")
	}
}

// TestScalableDelta: a filter that only took keys changes its newest
// layer and adds layers; its delta carries only those.
func TestScalableDelta(t *testing.T) {
	base := &Digest{Sequence: 1, Scalable: scalableWith(t, 0, 1000)}
	nf := base.Scalable.Clone()
	for i := 1000; i < 1100; i++ {
		_ = nf.Add(key(i))
	}
	if nf.Layers() != base.Scalable.Layers() {
		t.Fatalf("the test wants no new layer: %d → %d", base.Scalable.Layers(), nf.Layers())
	}
	next := &Digest{Sequence: 2, Scalable: nf}
	full, _ := Encode(next, Fast)
	for _, c := range []Codec{Raw, Arith, Fast, Auto} {
		delta, err := Diff(base, next, c)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		d, err := DecodeDelta(delta, envelope.Limits{})
		if err != nil {
			t.Fatalf("%v: DecodeDelta: %v", c, err)
		}
		newest := nf.Layer(nf.Layers() - 1)
		if d.Target != envelope.TypeScalable || d.Bits != newest.M() || d.Changed() == 0 {
			t.Errorf("%v: the delta covers %d bits, the newest layer has %d", c, d.Bits, newest.M())
		}
		got, err := Patch(base, delta, envelope.Limits{})
		if err != nil {
			t.Fatalf("%v: Patch: %v", c, err)
		}
		if got.Sequence != 2 || !got.Scalable.Equal(nf) || got.Scalable.Count() != nf.Count() {
			t.Errorf("%v: patched filter differs", c)
		}
		if c == Fast && len(delta) >= len(full)/2 {
			t.Errorf("delta of one layer is %d bytes, the full digest %d", len(delta), len(full))
		}
	}
	// Growth: new layers travel whole.
	gf := nf.Clone()
	for i := 1100; i < 3000; i++ {
		_ = gf.Add(key(i))
	}
	grown := &Digest{Sequence: 3, Scalable: gf}
	delta, err := Diff(next, grown, Fast)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Patch(next, delta, envelope.Limits{})
	if err != nil || !got.Scalable.Equal(gf) {
		t.Fatalf("patching across growth: %v", err)
	}
	// Nothing changed: an empty delta.
	same := &Digest{Sequence: 4, Scalable: gf}
	if delta, err = Diff(grown, same, Fast); err != nil {
		t.Fatal(err)
	}
	if got, err = Patch(grown, delta, envelope.Limits{}); err != nil || !got.Scalable.Equal(gf) {
		t.Fatalf("empty delta: %v", err)
	}
	// Refusals: another base, a shrinking filter, another kind.
	if _, err := Patch(base, delta, envelope.Limits{}); !errors.Is(err, ErrBase) {
		t.Errorf("patch of another base: %v", err)
	}
	if _, err := Diff(grown, next, Fast); !errors.Is(err, ErrBase) && !errors.Is(err, ErrSequence) {
		t.Errorf("diff to fewer layers: %v", err)
	}
	if _, err := Diff(&Digest{Sequence: 5, Scalable: gf}, &Digest{Sequence: 6, Scalable: nf}, Fast); !errors.Is(err, ErrBase) {
		t.Errorf("diff to fewer layers: %v", err)
	}
	b := &Digest{Sequence: 1, Bloom: bloom.MustNew(bloom.Config{M: 1024, K: 2})}
	if _, err := Patch(b, delta, envelope.Limits{}); !errors.Is(err, ErrBase) {
		t.Errorf("scalable delta on a Bloom filter: %v", err)
	}
	if _, err := Diff(b, grown, Fast); !errors.Is(err, ErrBase) {
		t.Errorf("diff of a Bloom and a scalable filter: %v", err)
	}
	other := &Digest{Sequence: 1, Scalable: scalable.MustNew(scalable.Config{Capacity: 100, P: 0.02, Seed: 17})}
	if _, err := Diff(other, grown, Fast); !errors.Is(err, ErrBase) {
		t.Errorf("diff of two configurations: %v", err)
	}
}

func TestScalableCorrupt(t *testing.T) {
	g := goldenDigests(t)
	for _, name := range []string{"scalable-fast", "delta-scalable-fast"} {
		good := g[name]
		for i := range good {
			bad := append([]byte(nil), good...)
			bad[i] ^= 0x10
			var err error
			if strings.HasPrefix(name, "delta") {
				_, err = Patch(&Digest{Sequence: 1, Scalable: scalableWith(t, 0, 300)}, bad, envelope.Limits{})
			} else {
				_, err = Decode(bad, envelope.Limits{})
			}
			if err == nil {
				t.Fatalf("%s: flipping a bit of byte %d went unnoticed", name, i)
			}
			if !strings.HasPrefix(err.Error(), "digest: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%s: error %q", name, err)
			}
		}
	}
}

func FuzzPatchScalable(f *testing.F) {
	base := &Digest{Sequence: 1, Scalable: scalableWith(f, 0, 300)}
	want, _ := Encode(base, Raw)
	f.Add(goldenDigests(f)["delta-scalable-fast"])
	grown := &Digest{Sequence: 2, Scalable: scalableWith(f, 0, 900)}
	for _, c := range []Codec{Raw, Arith} {
		d, _ := Diff(base, grown, c)
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, delta []byte) {
		d, err := Patch(base, delta, fuzzLimits)
		if now, _ := Encode(base, Raw); string(now) != string(want) {
			t.Fatal("Patch changed its base")
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "digest: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error not one line with the package prefix: %q", err)
			}
			return
		}
		if _, err := DecodeDelta(delta, fuzzLimits); err != nil {
			t.Fatalf("Patch applies what DecodeDelta refuses: %v", err)
		}
		d.Scalable.ContainsString("x")
		_ = d.Scalable.AddString("y")
	})
}
