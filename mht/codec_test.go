package mht

import (
	"bytes"
	"errors"
	"testing"
	"testing/iotest"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/codectest"
)

var goldenKeys = []string{"a", "b", "c", "http://www.example.com/", "d", "e", "f", "g"}

// goldenTable is a small table with one lazily deleted item.
func goldenTable(t testing.TB) *Table {
	tb := MustNew(Config{Sizes: []uint64{16, 8, 4}, Seed: 0x0123456789abcdef, LazyDelete: 4})
	for i, k := range goldenKeys {
		if err := tb.InsertString(k, uint64(100+i)); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := tb.DeleteString("d"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	return tb
}

// goldenSummaries are small summaries of the golden table, by file name.
func goldenSummaries(t testing.TB) map[string]Summary {
	tb := goldenTable(t)
	p := Plan{N: 8, Sizes: tb.Sizes(), SFCells: 40, SFK: 3, MBFBits: []uint64{64, 32, 16}, MBFK: []int{3, 2, 2}, CounterBits: 4}
	out := map[string]Summary{}
	for _, k := range Kinds() {
		s, err := p.NewSummary(k)
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.SetSummary(s); err != nil {
			t.Fatal(err)
		}
		out[k.String()] = s
	}
	return out
}

func TestGoldenEncodings(t *testing.T) {
	tb := goldenTable(t)
	b, err := tb.MarshalBinary()
	if err != nil || len(b) != tb.EncodedSize() {
		t.Fatal(err, len(b), tb.EncodedSize())
	}
	want := codectest.Golden(t, "table", b)
	g, err := Decode(want, envelope.Limits{})
	if err != nil || g.Len() != tb.Len() || g.Deleted() != 1 || g.Seed() != tb.Seed() {
		t.Fatalf("decoding the golden table: %v", err)
	}
	for i, k := range goldenKeys {
		v, ok := g.GetString(k)
		if ok != (k != "d") || (ok && v != uint64(100+i)) {
			t.Errorf("decoded table: %s = %d %v", k, v, ok)
		}
	}
	for name, s := range goldenSummaries(t) {
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		want := codectest.Golden(t, name, b)
		d, err := DecodeSummary(want, envelope.Limits{})
		if err != nil || d.Kind() != s.Kind() || d.Count() != s.Count() || d.Bits() != s.Bits() {
			t.Fatalf("%s: decoding the golden file: %v", name, err)
		}
		for _, k := range goldenKeys {
			h := tb.HashString(k)
			if d.Type(h) != s.Type(h) {
				t.Errorf("%s: decoded summary types %s differently", name, k)
			}
		}
		if err := g.SetSummary(d); err != nil {
			t.Errorf("%s: attaching the decoded summary: %v", name, err)
		}
	}
}

func TestRoundTrips(t *testing.T) {
	tb := goldenTable(t)
	b, _ := tb.MarshalBinary()
	codectest.EncodesAlike(t, "table", tb)
	var g Table
	if n, err := g.ReadFrom(iotest.OneByteReader(bytes.NewReader(append(b, 'z')))); err != nil || n != int64(len(b)) {
		t.Fatal(err, n)
	}
	var u Table
	if err := u.UnmarshalBinary(b); err != nil || u.Len() != tb.Len() {
		t.Fatal(err)
	}
	for name, s := range goldenSummaries(t) {
		b := codectest.EncodesAlike(t, name, s)
		d, n, err := ReadSummary(bytes.NewReader(b), envelope.Limits{})
		if err != nil || n != int64(len(b)) || d.Kind() != s.Kind() {
			t.Fatalf("%s: ReadSummary: %v", name, err)
		}
	}
}

func TestCorrupt(t *testing.T) {
	tb := goldenTable(t)
	b, _ := tb.MarshalBinary()
	h, payload, _ := envelope.Parse(b, envelope.Limits{})
	mutate := func(f func(h *envelope.Header, p []byte) []byte) error {
		h2 := h
		h2.Params = append([]byte(nil), h.Params...)
		p := f(&h2, append([]byte(nil), payload...))
		_, err := FromFrame(h2, p)
		return err
	}
	for name, f := range map[string]func(h *envelope.Header, p []byte) []byte{
		"type":       func(h *envelope.Header, p []byte) []byte { h.Type = envelope.TypeBloom; return p },
		"levels":     func(h *envelope.Header, p []byte) []byte { h.Params[0] = 9; return p },
		"short":      func(h *envelope.Header, p []byte) []byte { return p[:len(p)-8] },
		"count":      func(h *envelope.Header, p []byte) []byte { h.Params[8]++; return p },
		"moved key":  func(h *envelope.Header, p []byte) []byte { p[len(p)-1-8*3*4]++; p[len(p)-1-8*3*4-16] ^= 1; return p },
		"stray bits": func(h *envelope.Header, p []byte) []byte { p[7] |= 0x80; return p },
	} {
		if err := mutate(f); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Decode(b[:len(b)-1], envelope.Limits{}); err == nil {
		t.Error("truncated input accepted")
	}
	if _, err := DecodeSummary(b, envelope.Limits{}); !errors.Is(err, ErrCorrupt) {
		t.Error("a table decoded as a summary:", err)
	}
}

func fuzzSeeds(f *testing.F) {
	codectest.SeedFrames(f, map[string]*Table{"table": goldenTable(f)})
	codectest.SeedFrames(f, goldenSummaries(f))
}

// exercise runs every operation on a decoded structure.
func exercise(t *Table, s Summary) {
	for _, k := range goldenKeys {
		h := hashing.SumString(k)
		if t != nil {
			t.Lookup(h)
			t.Delete(h)
			t.Insert(h, 1)
		}
		if s != nil {
			s.Type(h)
			if s.CanRemove() {
				s.Remove(h, 1)
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Decode(data, envelope.Limits{MaxPayload: 1 << 20})
		if err != nil {
			return
		}
		codectest.Canonical(t, g, data)
		exercise(g, nil)
	})
}

func FuzzDecodeSummary(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeSummary(data, envelope.Limits{MaxPayload: 1 << 20})
		if err != nil {
			return
		}
		codectest.Canonical(t, s, data)
		exercise(nil, s)
	})
}

// FuzzFromFrame fuzzes the table checks behind the checksum.
func FuzzFromFrame(f *testing.F) {
	h, payload := codectest.Parts(f, goldenTable(f))
	f.Add(h.Params, payload)
	f.Fuzz(func(t *testing.T, params, payload []byte) {
		if len(payload) > 1<<16 {
			return
		}
		h := envelope.Header{Type: envelope.TypeMHT, Scheme: uint8(hashing.XXH3), Params: params}
		g, err := FromFrame(h, payload)
		if codectest.Refused(t, err, ErrCorrupt) {
			return
		}
		codectest.SameParts(t, g, params, payload)
		exercise(g, nil)
	})
}

// FuzzSummaryFromFrame fuzzes the summary checks behind the checksum.
func FuzzSummaryFromFrame(f *testing.F) {
	for _, s := range goldenSummaries(f) {
		h, payload := codectest.Parts(f, s)
		f.Add(uint8(h.Type), h.Params, payload)
	}
	f.Fuzz(func(t *testing.T, typ uint8, params, payload []byte) {
		if len(payload) > 1<<16 {
			return
		}
		h := envelope.Header{Type: envelope.Type(typ), Scheme: uint8(hashing.XXH3), Params: params}
		s, err := SummaryFromFrame(h, payload)
		if codectest.Refused(t, err, ErrCorrupt) {
			return
		}
		codectest.SameParts(t, s, params, payload)
		exercise(nil, s)
	})
}
