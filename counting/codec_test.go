package counting

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/codectest"
)

// goldenFilters are small filters whose encodings testdata pins byte for
// byte: "a" added three times, "b" twice, "c" and "http://www.example.com/"
// once, then one "b" removed.
func goldenFilters(t testing.TB) map[string]*Filter {
	configs := map[string]Config{
		"classic4": {Layout: bloom.Classic, M: 40, K: 3, Seed: 0x0123456789abcdef},
		"blocked8": {Layout: bloom.Blocked, M: 512, K: 4, Width: 8},
		"paged16":  {Layout: bloom.Paged, M: 256, K: 2, BlockBits: 128, Width: 16, Seed: 2},
		"partmin4": {Layout: bloom.Partitioned, M: 48, K: 3, MinimalIncrease: true, Seed: 1},
	}
	out := map[string]*Filter{}
	for name, c := range configs {
		f, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"a", "a", "a", "b", "b", "c", "http://www.example.com/"} {
			f.AddString(k)
		}
		if !f.MinimalIncrease() {
			if err := f.RemoveString("b"); err != nil {
				t.Fatal(err)
			}
		}
		out[name] = f
	}
	return out
}

func TestGoldenEncodings(t *testing.T) {
	for name, f := range goldenFilters(t) {
		want := codectest.GoldenEncoding(t, name, f)
		g, err := Decode(want, envelope.Limits{})
		if err != nil || !g.Equal(f) || g.Len() != f.Len() || g.Saturated() != f.Saturated() {
			t.Errorf("%s: decoding the golden file: %v", name, err)
		}
	}
}

func TestRoundTrips(t *testing.T) {
	for _, l := range layouts {
		for _, w := range widths {
			f := mustNew(t, Config{Layout: l, N: 3000, P: 0.01, Width: w, Seed: 5})
			for i := range 3000 {
				f.AddString(key(i % 2500))
			}
			name := fmt.Sprintf("%v/%d", l, w)
			b := codectest.EncodesAlike(t, name, f)
			var g Filter
			if err := g.UnmarshalBinary(b); err != nil || !g.Equal(f) || g.Len() != f.Len() {
				t.Fatalf("%v/%d: UnmarshalBinary: %v", l, w, err)
			}
			if !g.BitView().Equal(f.BitView()) || g.Saturated() != f.Saturated() {
				t.Fatalf("%v/%d: the decoded bit view or saturation count differs", l, w)
			}
			var h Filter
			codectest.ReadsOneFrame(t, name, b, h.ReadFrom)
			if !h.Equal(f) {
				t.Fatalf("%s: ReadFrom read another filter", name)
			}
		}
	}
}

func TestDecodeRejectsCorruption(t *testing.T) {
	good, _ := goldenFilters(t)["classic4"].MarshalBinary()
	codectest.RejectsCorruption(t, "classic4", good, 8, func(b []byte, l envelope.Limits) error {
		_, err := Decode(b, l)
		return err
	})
	if _, _, err := Read(bytes.NewReader(good[:50]), envelope.Limits{}); !errors.Is(err, envelope.ErrTruncated) {
		t.Errorf("Read of a truncated frame: %v", err)
	}
	bf, _ := bloom.MustNew(bloom.Config{M: 64, K: 2}).MarshalBinary()
	if _, err := Decode(bf, envelope.Limits{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a bloom frame: %v", err)
	}
}

func TestDecodeValidatesFields(t *testing.T) {
	// classic4 has m = 40 counters of 4 bits: 160 bits in 3 words, the
	// last one used up to bit 32.
	good, _ := goldenFilters(t)["classic4"].MarshalBinary()
	cases := map[string]codectest.Edit{
		"layout":           func(h *envelope.Header, p []byte) []byte { h.Params[0] = 9; return p },
		"width 0":          func(h *envelope.Header, p []byte) []byte { h.Params[1] = 0; return p },
		"width 5":          func(h *envelope.Header, p []byte) []byte { h.Params[1] = 5; return p },
		"width 32":         func(h *envelope.Header, p []byte) []byte { h.Params[1] = 32; return p },
		"k zero":           func(h *envelope.Header, p []byte) []byte { h.Params[2] = 0; return p },
		"k 65":             func(h *envelope.Header, p []byte) []byte { h.Params[2] = 65; return p },
		"block bits":       func(h *envelope.Header, p []byte) []byte { h.Params[4] = 1; return p },
		"m huge":           func(h *envelope.Header, p []byte) []byte { h.Params[15] = 0x7f; return p },
		"m zero":           func(h *envelope.Header, p []byte) []byte { h.Params[8] = 0; return p },
		"flags":            func(h *envelope.Header, p []byte) []byte { h.Params[24] = 2; return p },
		"reserved":         func(h *envelope.Header, p []byte) []byte { h.Params[31] = 1; return p },
		"params length":    func(h *envelope.Header, p []byte) []byte { h.Params = h.Params[:24]; return p },
		"short payload":    func(h *envelope.Header, p []byte) []byte { return p[:len(p)-8] },
		"long payload":     func(h *envelope.Header, p []byte) []byte { return append(p, make([]byte, 8)...) },
		"counters past m":  func(h *envelope.Header, p []byte) []byte { p[len(p)-1] = 0x10; return p },
		"type":             func(h *envelope.Header, p []byte) []byte { h.Type = 77; return p },
		"codec":            func(h *envelope.Header, p []byte) []byte { h.Codec = 77; return p },
		"scheme":           func(h *envelope.Header, p []byte) []byte { h.Scheme = 77; return p },
		"blocked m 40":     func(h *envelope.Header, p []byte) []byte { h.Params[0] = 3; return p },
		"partitioned m 40": func(h *envelope.Header, p []byte) []byte { h.Params[0] = 2; h.Params[2] = 7; return p },
	}
	codectest.RejectsEdits(t, good, cases, "counting: ", nil, func(b []byte) error {
		_, err := Decode(b, envelope.Limits{})
		return err
	})
	// m = 2^40, the largest allowed, with a small payload: refused before
	// the counters are allocated.
	huge := codectest.Reframe(t, good, func(h *envelope.Header, p []byte) []byte { h.Params[8], h.Params[13] = 0, 1; return p })
	if _, err := Decode(huge, envelope.Limits{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("m = 2^40 with a 24-byte payload: %v", err)
	}
	if allocs := testing.AllocsPerRun(10, func() { _, _ = Decode(huge, envelope.Limits{}) }); allocs > 8 {
		t.Errorf("decoding a frame that claims 2^40 counters made %v allocations", allocs)
	}
}

func FuzzDecode(f *testing.F) {
	codectest.SeedFrames(f, goldenFilters(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Decode(data, envelope.Limits{MaxPayload: 1 << 20})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "counting: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		// A decoded filter re-encodes to the same bytes, keeps its
		// invariants and survives every operation.
		codectest.Canonical(t, g, data)
		checkInvariants(t, g)
		g.Mark()
		g.AddString("x")
		g.CountString("y")
		_ = g.RemoveString("x")
		_ = g.RemoveString("z")
		g.Histogram()
		g.EstimateDistinct()
		if _, err := g.ChangedBits(nil); err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, g)
		if err := g.Merge(g.Clone()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPayloadLayout checks docs/FORMAT.md's description of where counter
// b sits in the raw payload, for every width.
func TestPayloadLayout(t *testing.T) {
	for _, w := range widths {
		f := mustNew(t, Config{M: 77, K: 3, Width: w})
		for i := range 60 {
			f.AddString(key(i % 20))
		}
		b, _ := f.MarshalBinary()
		payload := b[envelope.HeaderSize+paramsSize : len(b)-envelope.TrailerSize]
		for c := uint64(0); c < f.M(); c++ {
			var got uint64
			switch w {
			case 4:
				got = uint64(payload[c/2]>>(4*(c%2))) & 15
			case 8:
				got = uint64(payload[c])
			case 16:
				got = uint64(payload[2*c]) | uint64(payload[2*c+1])<<8
			}
			if got != f.get(c) {
				t.Fatalf("width %d: counter %d is %d in the payload, %d in the filter", w, c, got, f.get(c))
			}
		}
	}
}

// FuzzFromFrame reaches the structure checks behind the checksum: any
// parameter block and payload, under a type-2 header.
func FuzzFromFrame(f *testing.F) {
	for _, g := range goldenFilters(f) {
		h, payload := codectest.Parts(f, g)
		f.Add(h.Scheme, h.Params, payload)
	}
	f.Fuzz(func(t *testing.T, scheme uint8, p, payload []byte) {
		h := envelope.Header{Type: envelope.TypeCounting, Scheme: scheme, Params: p}
		g, err := FromFrame(h, payload)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "counting: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		checkInvariants(t, g)
		g.AddString("x")
		if err := g.RemoveString("x"); err != nil && !errors.Is(err, ErrNoRemoval) {
			t.Fatal(err)
		}
		g.CountString("x")
		checkInvariants(t, g)
		b, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(b, envelope.Limits{}); err != nil {
			t.Fatalf("re-encoding does not decode: %v", err)
		}
	})
}
