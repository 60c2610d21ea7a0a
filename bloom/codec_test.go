package bloom

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/codectest"
)

// goldenFilters are small filters whose encodings testdata pins byte for byte.
func goldenFilters(t testing.TB) map[string]*Filter {
	configs := map[string]Config{
		"classic":     {Layout: Classic, M: 200, K: 3, Seed: 0x0123456789abcdef},
		"partitioned": {Layout: Partitioned, M: 210, K: 3, Seed: 1},
		"blocked":     {Layout: Blocked, M: 1024, K: 6},
		// blocked-xxh3x64: hashing scheme 3 (hashing.XXH3x64).
		"blocked-xxh3x64": {Layout: Blocked, M: 1024, K: 6, Scheme: hashing.Fast64},
		"paged":           {Layout: Paged, M: 2048, K: 4, BlockBits: 512, Seed: 2},
		// estimated: the union of two classic filters, whose count is
		// the estimate from the bits (format version 2, flags byte 1).
		"estimated": {Layout: Classic, M: 200, K: 3, Seed: 0x0123456789abcdef},
	}
	out := map[string]*Filter{}
	for name, c := range configs {
		f := mustNew(t, c)
		for _, k := range []string{"a", "b", "c", "http://www.example.com/"} {
			f.AddString(k)
		}
		out[name] = f
	}
	g := mustNew(t, configs["estimated"])
	g.AddString("d")
	if err := out["estimated"].Union(g); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGoldenEncodings(t *testing.T) {
	for name, f := range goldenFilters(t) {
		want := codectest.GoldenEncoding(t, name, f)
		g, err := Decode(want, envelope.Limits{})
		if err != nil || !g.Equal(f) || g.Count() != f.Count() || g.CountEstimated() != f.CountEstimated() {
			t.Errorf("%s: decoding the golden file: %v", name, err)
		}
	}
}

func TestRoundTrips(t *testing.T) {
	for _, l := range layouts {
		f := mustNew(t, Config{Layout: l, N: 3000, P: 0.01, Seed: 5})
		for i := 0; i < 3000; i++ {
			f.AddString(key(i))
		}
		b := codectest.EncodesAlike(t, l.String(), f)
		var g Filter
		if err := g.UnmarshalBinary(b); err != nil || !g.Equal(f) || g.Count() != f.Count() {
			t.Fatalf("%v: UnmarshalBinary: %v", l, err)
		}
		// ReadFrom reads exactly one frame from a stream, byte by byte.
		var h Filter
		codectest.ReadsOneFrame(t, l.String(), b, h.ReadFrom)
		if !h.Equal(f) {
			t.Fatalf("%v: ReadFrom read another filter", l)
		}
	}
}

func TestDecodeRejectsCorruption(t *testing.T) {
	good, _ := goldenFilters(t)["classic"].MarshalBinary()
	codectest.RejectsCorruption(t, "classic", good, 8, func(b []byte, l envelope.Limits) error {
		_, err := Decode(b, l)
		return err
	})
}

func TestDecodeValidatesFields(t *testing.T) {
	good, _ := goldenFilters(t)["classic"].MarshalBinary()
	cases := map[string]func(h *envelope.Header, p []byte) []byte{
		"layout":         func(h *envelope.Header, p []byte) []byte { h.Params[0] = 9; return p },
		"reserved":       func(h *envelope.Header, p []byte) []byte { h.Params[1] = 1; return p },
		"k zero":         func(h *envelope.Header, p []byte) []byte { h.Params[2] = 0; return p },
		"m huge":         func(h *envelope.Header, p []byte) []byte { h.Params[15] = 0x7f; return p },
		"short payload":  func(h *envelope.Header, p []byte) []byte { return p[:len(p)-8] },
		"bits past m":    func(h *envelope.Header, p []byte) []byte { p[len(p)-1] = 0x80; return p },
		"params length":  func(h *envelope.Header, p []byte) []byte { h.Params = h.Params[:20]; return p },
		"type":           func(h *envelope.Header, p []byte) []byte { h.Type = 77; return p },
		"codec":          func(h *envelope.Header, p []byte) []byte { h.Codec = 77; return p },
		"scheme":         func(h *envelope.Header, p []byte) []byte { h.Scheme = 77; return p },
		"blocked k > 64": func(h *envelope.Header, p []byte) []byte { h.Params[2] = 65; return p },
	}
	codectest.RejectsEdits(t, good, cases, "bloom: ", nil, func(b []byte) error {
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
		// A decoded filter re-encodes to the same bytes and answers
		// queries; a version-2 frame without flags comes back as version
		// 1, the oldest that holds it, and is otherwise the same.
		b, err := g.MarshalBinary()
		if err == nil && !g.CountEstimated() && binary.LittleEndian.Uint16(data[4:]) == 2 {
			b = bytes.Clone(b[:len(b)-envelope.TrailerSize])
			binary.LittleEndian.PutUint16(b[4:], 2)
			b = envelope.AppendTrailer(b, 0)
		}
		if err != nil || !bytes.Equal(b, data) {
			t.Fatalf("decode/encode not canonical: %v", err)
		}
		g.ContainsString("x")
		g.EstimateCount()
		g.FalsePositiveRate()
		if g.CanFold() == nil {
			g.Clone().Fold()
		}
	})
}

// TestCountEstimatedFlag checks the version-2 flag: written only when the
// count is an estimate (version 1 otherwise, byte for byte as before),
// read back, refused in a version-1 frame, and unknown flags refused.
func TestCountEstimatedFlag(t *testing.T) {
	f := mustNew(t, Config{Layout: Blocked, M: 4096, K: 4})
	f.AddString("a")
	exact, _ := f.MarshalBinary()
	if v := binary.LittleEndian.Uint16(exact[4:]); v != 1 || exact[envelope.HeaderSize+1] != 0 {
		t.Fatalf("a tallied count: version %d, flags %#x; want 1 and 0", v, exact[envelope.HeaderSize+1])
	}
	if err := f.Union(f.Clone()); err != nil {
		t.Fatal(err)
	}
	est, _ := f.MarshalBinary()
	if v := binary.LittleEndian.Uint16(est[4:]); v != 2 || est[envelope.HeaderSize+1] != 1 {
		t.Fatalf("an estimated count: version %d, flags %#x; want 2 and 1", v, est[envelope.HeaderSize+1])
	}
	g, err := Decode(est, envelope.Limits{})
	if err != nil || !g.CountEstimated() || g.Count() != 1 {
		t.Fatalf("decoded: %v, estimated %t, count %d", err, g.CountEstimated(), g.Count())
	}
	g.SetCount(1)
	if g.CountEstimated() {
		t.Fatal("SetCount left the count marked estimated")
	}
	reframe := func(b []byte, version uint16, flags byte) []byte {
		c := bytes.Clone(b[:len(b)-envelope.TrailerSize])
		binary.LittleEndian.PutUint16(c[4:], version)
		c[envelope.HeaderSize+1] = flags
		return envelope.AppendTrailer(c, 0)
	}
	for _, c := range []struct {
		version uint16
		flags   byte
	}{{1, 1}, {2, 2}, {2, 0x81}} {
		if _, err := Decode(reframe(est, c.version, c.flags), envelope.Limits{}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("version %d, flags %#x: %v, want ErrCorrupt", c.version, c.flags, err)
		}
	}
	if g, err := Decode(reframe(est, 2, 0), envelope.Limits{}); err != nil || g.CountEstimated() {
		t.Errorf("version 2 without flags: %v, estimated %t", err, g != nil && g.CountEstimated())
	}
}

// TestSaturated checks that a filter reports saturation when a range is
// full, and not before.
func TestSaturated(t *testing.T) {
	for _, l := range layouts {
		f := mustNew(t, Config{Layout: l, N: 1000, P: 0.01})
		for i := 0; i < 1000; i++ {
			f.AddString(key(i))
		}
		if f.Saturated() {
			t.Errorf("%v: saturated at its capacity (fill %.3f)", l, f.FillRatio())
		}
		for i := 1000; !f.Saturated(); i++ {
			f.AddString(key(i))
			if i > 1_000_000 {
				t.Fatalf("%v: never saturated (fill %.4f)", l, f.FillRatio())
			}
		}
		if f.FillRatio() < 0.95 {
			t.Errorf("%v: saturated at fill %.3f", l, f.FillRatio())
		}
	}
}
