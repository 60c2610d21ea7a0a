package counting

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/codectest"
)

// goldenDeletion is the deletion filter testdata/golden-deletion.bin pins:
// a classic filter, m = 128, k = 3, holding a, b, c and
// http://www.example.com/, from which b was removed.
func goldenDeletion(t testing.TB) *DeletionFilter {
	d, err := NewDeletion(bloom.Config{Layout: bloom.Classic, M: 128, K: 3, Seed: 0x0123456789abcdef})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "c", "http://www.example.com/"} {
		d.AddString(k)
	}
	d.RemoveString("b")
	return d
}

func TestDeletionGolden(t *testing.T) {
	d := goldenDeletion(t)
	want := codectest.GoldenEncoding(t, "deletion", d)
	g, err := DecodeDeletion(want, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Added().Equal(d.Added()) || !g.Removed().Equal(d.Removed()) ||
		g.Added().Count() != 4 || g.Removed().Count() != 1 {
		t.Error("decoding the golden file gives another filter")
	}
	for k, in := range map[string]bool{"a": true, "b": false, "c": true, "http://www.example.com/": true} {
		if g.ContainsString(k) != in {
			t.Errorf("golden filter: Contains(%q) = %v, want %v", k, !in, in)
		}
	}
}

func TestDeletionRoundTrip(t *testing.T) {
	for _, l := range layouts {
		d, err := NewDeletion(bloom.Config{Layout: l, N: 1000, P: 0.01, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 1000 {
			d.AddString(key(i))
		}
		for i := 0; i < 1000; i += 3 {
			d.RemoveString(key(i))
		}
		b := codectest.EncodesAlike(t, l.String(), d)
		g, n, err := ReadDeletion(bytes.NewReader(append(b, 'x')), envelope.Limits{})
		if err != nil || n != int64(len(b)) {
			t.Fatalf("%v: ReadDeletion: %v", l, err)
		}
		for i := range 1000 {
			if g.ContainsString(key(i)) != d.ContainsString(key(i)) {
				t.Fatalf("%v: key %d answers differently after decoding", l, i)
			}
		}
		if g.FalseDeletionRate() != d.FalseDeletionRate() || d.FalseDeletionRate() <= 0 || d.FalseDeletionRate() > 0.01 {
			t.Errorf("%v: false-deletion rate %v after decoding, %v before (want in (0, 0.01])", l, g.FalseDeletionRate(), d.FalseDeletionRate())
		}
	}
}

func TestDeletionCorrupt(t *testing.T) {
	good, _ := goldenDeletion(t).MarshalBinary()
	reframe := func(edit func(h *envelope.Header, payload []byte) []byte) []byte {
		return codectest.Reframe(t, good, edit)
	}
	cases := map[string][]byte{
		"other shape": reframe(func(h *envelope.Header, p []byte) []byte {
			binary.LittleEndian.PutUint16(h.Params[24+2:], 4)
			return p
		}),
		"short params": reframe(func(h *envelope.Header, p []byte) []byte { h.Params = h.Params[:24]; return p }),
		"codec":        reframe(func(h *envelope.Header, p []byte) []byte { h.Codec = envelope.CodecFast; return p }),
		"odd payload":  reframe(func(h *envelope.Header, p []byte) []byte { return p[:len(p)-8] }),
		"bloom type":   reframe(func(h *envelope.Header, p []byte) []byte { h.Type = envelope.TypeBloom; return p }),
		"huge m": reframe(func(h *envelope.Header, p []byte) []byte {
			binary.LittleEndian.PutUint64(h.Params[8:], 1<<40)
			binary.LittleEndian.PutUint64(h.Params[24+8:], 1<<40)
			return p
		}),
	}
	for name, b := range cases {
		_, err := DecodeDeletion(b, envelope.Limits{})
		if !errors.Is(err, ErrCorrupt) || !strings.HasPrefix(err.Error(), "counting: ") {
			t.Errorf("%s: %v, want a counting: corrupt error", name, err)
		}
	}
	if _, err := DecodeDeletion(good[:len(good)-1], envelope.Limits{}); err == nil {
		t.Error("a truncated frame decoded")
	}
}

func FuzzDecodeDeletion(f *testing.F) {
	good, _ := goldenDeletion(f).MarshalBinary()
	f.Add(good)
	f.Add([]byte("BLMC"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := DecodeDeletion(data, envelope.Limits{MaxPayload: 1 << 20})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "counting: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		codectest.Canonical(t, d, data)
		d.AddString("x")
		d.RemoveString("y")
		d.ContainsString("x")
		_ = d.FalseDeletionRate()
	})
}
