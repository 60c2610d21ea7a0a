package bloomier

import (
	"testing"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/codectest"
)

// goldenKeys are the keys of the golden filters, mapped to their values.
var goldenKeys = []string{"a", "b", "c", "http://www.example.com/"}
var goldenValues = []uint64{1, 2, 3, 200}

// goldenFilters are small filters whose encodings testdata pins byte for
// byte.
func goldenFilters(t testing.TB) map[string]*Filter {
	out := map[string]*Filter{}
	for name, c := range map[string]Config{
		"static":    {ValueBits: 8, CheckBits: 8, Seed: 0x0123456789abcdef},
		"updatable": {ValueBits: 8, CheckBits: 4, Updatable: true, Seed: 1},
	} {
		out[name] = mustBuild(t, c, goldenKeys, goldenValues)
	}
	return out
}

func TestGoldenEncodings(t *testing.T) {
	for name, f := range goldenFilters(t) {
		want := codectest.GoldenEncoding(t, name, f)
		g, err := Decode(want, envelope.Limits{})
		if err != nil {
			t.Fatalf("%s: decoding the golden file: %v", name, err)
		}
		for i, k := range goldenKeys {
			if v, ok := g.GetString(k); !ok || v != goldenValues[i] {
				t.Errorf("%s: %s = %d, %v", name, k, v, ok)
			}
		}
	}
}

func TestRoundTrips(t *testing.T) {
	for _, c := range []Config{{ValueBits: 7, CheckBits: 9, Seed: 5}, {ValueBits: 33, CheckBits: 3, Updatable: true}} {
		keys, values := entries(3000, c.ValueBits, 12)
		f := mustBuild(t, c, keys, values)
		b := codectest.EncodesAlike(t, "filter", f)
		var g Filter
		if err := g.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		var h Filter
		codectest.ReadsOneFrame(t, "filter", b, h.ReadFrom)
		for i, k := range keys {
			if v, ok := g.GetString(k); !ok || v != values[i] {
				t.Fatalf("decoded filter: key %d = %d, %v", i, v, ok)
			}
			if v, _ := h.GetString(k); v != values[i] {
				t.Fatalf("streamed filter: key %d = %d", i, v)
			}
		}
	}
}

func TestDecodeRejectsCorruption(t *testing.T) {
	for name, f := range goldenFilters(t) {
		good, _ := f.MarshalBinary()
		codectest.RejectsCorruption(t, name, good, 8, func(b []byte, l envelope.Limits) error {
			_, err := Decode(b, l)
			return err
		})
	}
}

func TestDecodeValidatesFields(t *testing.T) {
	good, _ := goldenFilters(t)["updatable"].MarshalBinary()
	cases := map[string]func(h *envelope.Header, p []byte) []byte{
		"type":          func(h *envelope.Header, p []byte) []byte { h.Type = envelope.TypeFPSet; return p },
		"codec":         func(h *envelope.Header, p []byte) []byte { h.Codec = 3; return p },
		"scheme":        func(h *envelope.Header, p []byte) []byte { h.Scheme = 2; return p },
		"params length": func(h *envelope.Header, p []byte) []byte { h.Params = h.Params[:31]; return p },
		"mode":          func(h *envelope.Header, p []byte) []byte { h.Params[0] = 3; return p },
		"r zero":        func(h *envelope.Header, p []byte) []byte { h.Params[1] = 0; return p },
		"r 65":          func(h *envelope.Header, p []byte) []byte { h.Params[1] = 65; return p },
		"c 63":          func(h *envelope.Header, p []byte) []byte { h.Params[2] = 63; return p },
		"static r+c":    func(h *envelope.Header, p []byte) []byte { h.Params[0], h.Params[1], h.Params[2] = 1, 60, 10; return p },
		"reserved 3":    func(h *envelope.Header, p []byte) []byte { h.Params[3] = 1; return p },
		"reserved 12":   func(h *envelope.Header, p []byte) []byte { h.Params[13] = 1; return p },
		"segment 0":     func(h *envelope.Header, p []byte) []byte { clear(h.Params[4:8]); return p },
		"windows 0":     func(h *envelope.Header, p []byte) []byte { clear(h.Params[8:12]); return p },
		"huge table":    func(h *envelope.Header, p []byte) []byte { h.Params[7], h.Params[11] = 0xff, 0xff; return p },
		"n > cells":     func(h *envelope.Header, p []byte) []byte { h.Params[17] = 1; return p },
		"short":         func(h *envelope.Header, p []byte) []byte { return p[:len(p)-8] },
		"long":          func(h *envelope.Header, p []byte) []byte { return append(p, 0) },
		"padding":       func(h *envelope.Header, p []byte) []byte { p[23] |= 0x80; return p }, // 24 index cells of 6 bits end in word 2
	}
	codectest.RejectsEdits(t, good, cases, "bloomier: ", ErrCorrupt, func(b []byte) error {
		_, err := Decode(b, envelope.Limits{})
		return err
	})
}

func FuzzDecode(f *testing.F) {
	codectest.SeedFrames(f, goldenFilters(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Decode(data, envelope.Limits{MaxPayload: 1 << 20})
		if err != nil {
			return
		}
		codectest.Canonical(t, g, data)
		g.GetString("x")
		g.UpdateString("x", 0)
	})
}

// FuzzFromFrame fuzzes the checks behind the checksum: the parameter block
// and the payload.
func FuzzFromFrame(f *testing.F) {
	for _, g := range goldenFilters(f) {
		h, payload := codectest.Parts(f, g)
		f.Add(h.Params, payload)
	}
	f.Fuzz(func(t *testing.T, params, payload []byte) {
		h := envelope.Header{Type: envelope.TypeBloomier, Scheme: 1, Params: params}
		g, err := FromFrame(h, payload)
		if codectest.Refused(t, err, ErrCorrupt) {
			return
		}
		codectest.SameParts(t, g, params, payload)
		for _, k := range goldenKeys {
			if v, ok := g.GetString(k); ok && v>>(g.ValueBits()-1)>>1 != 0 {
				t.Fatalf("value %d wider than %d bits", v, g.ValueBits())
			}
			g.UpdateString(k, 1)
		}
	})
}
