package bloomier

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

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
		got, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		want := codectest.Golden(t, name, got)
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
		b, err := f.MarshalBinary()
		if err != nil || len(b) != f.EncodedSize() {
			t.Fatalf("MarshalBinary: %v (%d bytes, EncodedSize %d)", err, len(b), f.EncodedSize())
		}
		var buf bytes.Buffer
		if n, err := f.WriteTo(&buf); err != nil || n != int64(len(b)) || !bytes.Equal(buf.Bytes(), b) {
			t.Fatalf("WriteTo differs from MarshalBinary: %v", err)
		}
		if a, _ := f.AppendBinary([]byte("xy")); !bytes.Equal(a[2:], b) {
			t.Fatal("AppendBinary differs")
		}
		var g Filter
		if err := g.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		r := bytes.NewReader(append(bytes.Clone(b), b...))
		var h Filter
		if n, err := h.ReadFrom(iotest.OneByteReader(r)); err != nil || n != int64(len(b)) || r.Len() != len(b) {
			t.Fatalf("ReadFrom: %v", err)
		}
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
	for name, edit := range cases {
		_, err := Decode(codectest.Reframe(t, good, edit), envelope.Limits{})
		if !errors.Is(err, ErrCorrupt) || !strings.HasPrefix(err.Error(), "bloomier: ") {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, g := range goldenFilters(f) {
		b, _ := g.MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte("BLMC"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Decode(data, envelope.Limits{MaxPayload: 1 << 20})
		if err != nil {
			return
		}
		if b, err := g.MarshalBinary(); err != nil || !bytes.Equal(b, data) {
			t.Fatalf("decode/encode not canonical: %v", err)
		}
		g.GetString("x")
		g.UpdateString("x", 0)
	})
}

// FuzzFromFrame fuzzes the checks behind the checksum: the parameter block
// and the payload.
func FuzzFromFrame(f *testing.F) {
	for _, g := range goldenFilters(f) {
		b, _ := g.MarshalBinary()
		h, payload, _ := envelope.Parse(b, envelope.Limits{})
		f.Add(h.Params, payload)
	}
	f.Fuzz(func(t *testing.T, params, payload []byte) {
		h := envelope.Header{Type: envelope.TypeBloomier, Scheme: 1, Params: params}
		g, err := FromFrame(h, payload)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		b, _ := g.MarshalBinary()
		h2, payload2, err := envelope.Parse(b, envelope.Limits{})
		if err != nil || !bytes.Equal(h2.Params, params) || !bytes.Equal(payload2, payload) {
			t.Fatalf("decode/encode not canonical: %v", err)
		}
		for _, k := range goldenKeys {
			if v, ok := g.GetString(k); ok && v>>(g.ValueBits()-1)>>1 != 0 {
				t.Fatalf("value %d wider than %d bits", v, g.ValueBits())
			}
			g.UpdateString(k, 1)
		}
	})
}
