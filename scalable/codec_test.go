package scalable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/codectest"
)

// goldenFilter is the filter testdata/golden-small.bin pins: classic
// layers, capacity 2, P = 0.1, seed 0x0123456789abcdef, holding a, b, c
// and http://www.example.com/ in two layers (2 + 2 keys).
func goldenFilter(t testing.TB) *Filter {
	f, err := New(Config{Capacity: 2, P: 0.1, Layout: bloom.Classic, Seed: 0x0123456789abcdef})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "c", "http://www.example.com/"} {
		if err := f.AddString(k); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func TestGolden(t *testing.T) {
	f := goldenFilter(t)
	if f.Layers() != 2 {
		t.Fatalf("golden filter has %d layers", f.Layers())
	}
	got, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := codectest.Golden(t, "small", got)
	g, err := Decode(want, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Equal(f) || g.Count() != 4 {
		t.Error("decoding the golden file gives another filter")
	}
	for _, k := range []string{"a", "b", "c", "http://www.example.com/"} {
		if !g.ContainsString(k) {
			t.Errorf("golden filter lost %q", k)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, c := range []Config{
		{Capacity: 100, P: 0.01, Seed: 9},
		{Capacity: 100, P: 0.01, Layout: bloom.Paged, BlockBits: 1024, Expansion: 4, Tightening: 0.9},
		{Capacity: 300, P: 0.05, Layout: bloom.Partitioned, NonScaling: true},
	} {
		f := MustNew(c)
		var buf [9]byte
		for i := range uint64(1000) {
			if f.Add(keyOf(&buf, 0, i)) != nil {
				break
			}
		}
		b, err := f.MarshalBinary()
		if err != nil || len(b) != f.EncodedSize() {
			t.Fatalf("%+v: MarshalBinary: %v (%d bytes, EncodedSize %d)", c, err, len(b), f.EncodedSize())
		}
		var w bytes.Buffer
		if n, err := f.WriteTo(&w); err != nil || n != int64(len(b)) || !bytes.Equal(w.Bytes(), b) {
			t.Fatalf("WriteTo differs from MarshalBinary: %v", err)
		}
		var g Filter
		if n, err := g.ReadFrom(bytes.NewReader(append(b, 'x'))); err != nil || n != int64(len(b)) {
			t.Fatalf("ReadFrom: %v", err)
		}
		if !g.Equal(f) || g.Count() != f.Count() || g.Config() != f.Config() {
			t.Fatalf("%+v: decoded filter differs", c)
		}
		// The decoded filter goes on growing as the original does.
		for i := range uint64(1000) {
			ef, eg := f.Add(keyOf(&buf, 1, i)), g.Add(keyOf(&buf, 1, i))
			if (ef == nil) != (eg == nil) {
				t.Fatal("decoded filter refuses keys the original takes, or the reverse")
			}
		}
		if !g.Equal(f) {
			t.Errorf("%+v: decoded filter grew differently", c)
		}
	}
}

func TestCorrupt(t *testing.T) {
	good, _ := goldenFilter(t).MarshalBinary()
	codectest.RejectsCorruption(t, "scalable", good, 8, func(b []byte, lim envelope.Limits) error {
		_, err := Decode(b, lim)
		return err
	})
	reframe := func(edit func(h *envelope.Header, p []byte) []byte) []byte { return codectest.Reframe(t, good, edit) }
	cases := map[string][]byte{
		"type":      reframe(func(h *envelope.Header, p []byte) []byte { h.Type = envelope.TypeBloom; return p }),
		"codec":     reframe(func(h *envelope.Header, p []byte) []byte { h.Codec = envelope.CodecFast; return p }),
		"params":    reframe(func(h *envelope.Header, p []byte) []byte { h.Params = h.Params[:24]; return p }),
		"flags":     reframe(func(h *envelope.Header, p []byte) []byte { h.Params[0] = 2; return p }),
		"reserved":  reframe(func(h *envelope.Header, p []byte) []byte { h.Params[37] = 1; return p }),
		"no layers": reframe(func(h *envelope.Header, p []byte) []byte { h.Params[2] = 0; return p[:0] }),
		"too many":  reframe(func(h *envelope.Header, p []byte) []byte { h.Params[2] = MaxLayers + 1; return p }),
		"fewer":     reframe(func(h *envelope.Header, p []byte) []byte { h.Params[2] = 1; return p }),
		"more":      reframe(func(h *envelope.Header, p []byte) []byte { h.Params[2] = 3; return p }),
		"seed":      reframe(func(h *envelope.Header, p []byte) []byte { h.Seed++; return p }),
		"sequence":  reframe(func(h *envelope.Header, p []byte) []byte { h.Sequence = 1; return p }),
		"layout":    reframe(func(h *envelope.Header, p []byte) []byte { h.Params[1] = byte(bloom.Partitioned); return p }),
		"blocks":    reframe(func(h *envelope.Header, p []byte) []byte { h.Params[32] = 1; return p }),
		"rate":      reframe(func(h *envelope.Header, p []byte) []byte { putFloat(h.Params[16:], math.NaN()); return p }),
		"tighten":   reframe(func(h *envelope.Header, p []byte) []byte { putFloat(h.Params[24:], 1); return p }),
		"expansion": reframe(func(h *envelope.Header, p []byte) []byte { binary.LittleEndian.PutUint32(h.Params[4:], 0); return p }),
		"capacity":  reframe(func(h *envelope.Header, p []byte) []byte { binary.LittleEndian.PutUint64(h.Params[8:], 0); return p }),
		"overflow": reframe(func(h *envelope.Header, p []byte) []byte {
			binary.LittleEndian.PutUint64(h.Params[8:], MaxCapacity)
			return p
		}),
		"nonscaling": reframe(func(h *envelope.Header, p []byte) []byte { h.Params[0] = 1; return p }),
		"trailing":   reframe(func(h *envelope.Header, p []byte) []byte { return append(p, 0) }),
	}
	for name, b := range cases {
		_, err := Decode(b, envelope.Limits{})
		if !errors.Is(err, ErrCorrupt) || !strings.HasPrefix(err.Error(), "scalable: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a one-line scalable: corrupt error", name, err)
		}
	}
}

func putFloat(b []byte, x float64) { binary.LittleEndian.PutUint64(b, math.Float64bits(x)) }

func FuzzDecode(f *testing.F) {
	good, _ := goldenFilter(f).MarshalBinary()
	f.Add(good)
	g := MustNew(Config{Capacity: 10, P: 0.2, Layout: bloom.Paged, BlockBits: 128, Expansion: 3, Tightening: 0.8})
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		_ = g.AddString(k)
	}
	b, _ := g.MarshalBinary()
	f.Add(b)
	f.Add([]byte("BLMC"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Decode(data, envelope.Limits{MaxPayload: 1 << 20})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "scalable: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error not one line with the package prefix: %q", err)
			}
			return
		}
		b, err := d.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		e, err := Decode(b, envelope.Limits{})
		if err != nil || !e.Equal(d) || e.Count() != d.Count() {
			t.Fatalf("re-encoding does not decode to the same filter: %v", err)
		}
		d.ContainsString("x")
		_ = d.FalsePositiveRate()
		_ = d.PredictedRate()
		for i := range 64 {
			if err := d.AddString(string(rune('a' + i))); err != nil && !errors.Is(err, ErrFull) {
				t.Fatal(err)
			}
		}
		_ = d.Union(e)
	})
}
