package fpset

import (
	"bytes"
	"testing"
	"testing/iotest"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/codectest"
)

// goldenSets are small sets whose encodings testdata pins byte for byte.
func goldenSets(t testing.TB) map[string]interface {
	MarshalBinary() ([]byte, error)
} {
	set := MustNew(Config{N: 4, Bits: 20, Seed: 0x0123456789abcdef})
	multi := MustNew(Config{N: 4, Bits: 12, CountBits: 4, Seed: 1})
	for _, k := range []string{"a", "b", "c", "http://www.example.com/"} {
		set.AddString(k)
		multi.AddString(k)
	}
	multi.AddString("a")
	multi.AddString("a")
	return map[string]interface {
		MarshalBinary() ([]byte, error)
	}{
		"sorted":        set.Sorted(),
		"rice":          set.Compress(),
		"multiset-rice": multi.Compress(),
	}
}

func TestGoldenEncodings(t *testing.T) {
	for name, s := range goldenSets(t) {
		want := codectest.GoldenEncoding(t, name, s)
		d, err := Decode(want, envelope.Limits{})
		if err != nil || d.Len() != 4 || !d.ContainsString("http://www.example.com/") {
			t.Errorf("%s: decoding the golden file: %v", name, err)
		}
	}
}

func TestRoundTrips(t *testing.T) {
	for _, cb := range []int{0, 6} {
		s := MustNew(Config{N: 3000, Bits: 28, CountBits: cb, Seed: 5})
		for i := range 3000 {
			s.AddString(key(i))
			if i%3 == 0 {
				s.AddString(key(i))
			}
		}
		sorted := s.Sorted()
		compressed := s.Compress()
		for name, enc := range map[string]struct {
			marshal func() ([]byte, error)
			appendB func([]byte) ([]byte, error)
			writeTo func(*bytes.Buffer) (int64, error)
			size    int
		}{
			"set":        {s.MarshalBinary, s.AppendBinary, func(b *bytes.Buffer) (int64, error) { return s.WriteTo(b) }, s.EncodedSize()},
			"sorted":     {sorted.MarshalBinary, sorted.AppendBinary, func(b *bytes.Buffer) (int64, error) { return sorted.WriteTo(b) }, sorted.EncodedSize()},
			"compressed": {compressed.MarshalBinary, compressed.AppendBinary, func(b *bytes.Buffer) (int64, error) { return compressed.WriteTo(b) }, compressed.EncodedSize()},
		} {
			b, err := enc.marshal()
			if err != nil || len(b) != enc.size {
				t.Fatalf("%s: MarshalBinary: %v (%d bytes, EncodedSize %d)", name, err, len(b), enc.size)
			}
			var buf bytes.Buffer
			if n, err := enc.writeTo(&buf); err != nil || n != int64(len(b)) || !bytes.Equal(buf.Bytes(), b) {
				t.Fatalf("%s: WriteTo differs: %v", name, err)
			}
			if a, _ := enc.appendB([]byte("xy")); !bytes.Equal(a[2:], b) {
				t.Fatalf("%s: AppendBinary differs", name)
			}
			checkDecodesEverywhere(t, name, b, s)
		}
	}
}

// checkDecodesEverywhere decodes b into every form, by every entry point,
// and checks that each holds what s holds.
func checkDecodesEverywhere(t *testing.T, name string, b []byte, s *Set) {
	t.Helper()
	var set Set
	var sorted Sorted
	var compressed Compressed
	if err := set.UnmarshalBinary(b); err != nil {
		t.Fatalf("%s: Set.UnmarshalBinary: %v", name, err)
	}
	if err := sorted.UnmarshalBinary(b); err != nil {
		t.Fatalf("%s: Sorted.UnmarshalBinary: %v", name, err)
	}
	if err := compressed.UnmarshalBinary(b); err != nil {
		t.Fatalf("%s: Compressed.UnmarshalBinary: %v", name, err)
	}
	two := append(bytes.Clone(b), b...)
	r := bytes.NewReader(two)
	var streamed Compressed
	if n, err := streamed.ReadFrom(iotest.OneByteReader(r)); err != nil || n != int64(len(b)) || r.Len() != len(b) {
		t.Fatalf("%s: ReadFrom: %v", name, err)
	}
	var streamedSet Set
	if _, err := streamedSet.ReadFrom(r); err != nil {
		t.Fatalf("%s: Set.ReadFrom: %v", name, err)
	}
	want, _ := s.Sorted().MarshalBinary()
	for form, got := range map[string]interface{ MarshalBinary() ([]byte, error) }{
		"set": &set, "sorted": &sorted, "compressed": compressed.Sorted(), "streamed": streamed.Sorted(), "streamed set": &streamedSet,
	} {
		if g, _ := got.MarshalBinary(); !bytes.Equal(g, want) {
			t.Fatalf("%s decoded as %s differs", name, form)
		}
	}
	if set.Total() != s.Total() || compressed.Total() != s.Total() || set.CountString(key(3)) != s.CountString(key(3)) {
		t.Fatalf("%s: totals %d, %d; want %d", name, set.Total(), compressed.Total(), s.Total())
	}
}

func TestDecodeRejectsCorruption(t *testing.T) {
	for name, s := range goldenSets(t) {
		good, _ := s.MarshalBinary()
		codectest.RejectsCorruption(t, name, good, 4, func(b []byte, l envelope.Limits) error {
			_, err := Decode(b, l)
			return err
		})
	}
}

func TestDecodeValidatesFields(t *testing.T) {
	sets := goldenSets(t)
	sorted, _ := sets["sorted"].MarshalBinary()
	rice, _ := sets["multiset-rice"].MarshalBinary()
	cases := map[string]struct {
		frame []byte
		edit  codectest.Edit
	}{
		"type":            {sorted, func(h *envelope.Header, p []byte) []byte { h.Type = envelope.TypeBloom; return p }},
		"codec":           {sorted, func(h *envelope.Header, p []byte) []byte { h.Codec = 9; return p }},
		"scheme":          {sorted, func(h *envelope.Header, p []byte) []byte { h.Scheme = 2; return p }},
		"params length":   {sorted, func(h *envelope.Header, p []byte) []byte { h.Params = h.Params[:8]; return p }},
		"form":            {sorted, func(h *envelope.Header, p []byte) []byte { h.Params[0] = 3; return p }},
		"bits 1":          {sorted, func(h *envelope.Header, p []byte) []byte { h.Params[1] = 1; return p }},
		"bits 65":         {sorted, func(h *envelope.Header, p []byte) []byte { h.Params[1] = 65; return p }},
		"count bits":      {sorted, func(h *envelope.Header, p []byte) []byte { h.Params[2] = 33; return p }},
		"k in sorted":     {sorted, func(h *envelope.Header, p []byte) []byte { h.Params[3] = 1; return p }},
		"reserved":        {sorted, func(h *envelope.Header, p []byte) []byte { h.Params[5] = 1; return p }},
		"n huge":          {sorted, func(h *envelope.Header, p []byte) []byte { h.Params[15] = 0x10; return p }},
		"n above 2^b":     {sorted, func(h *envelope.Header, p []byte) []byte { h.Params[1] = 2; h.Params[8] = 4; return p }},
		"short payload":   {sorted, func(h *envelope.Header, p []byte) []byte { return p[:len(p)-8] }},
		"odd payload":     {sorted, func(h *envelope.Header, p []byte) []byte { return p[:len(p)-1] }},
		"padding":         {sorted, func(h *envelope.Header, p []byte) []byte { p[len(p)-1] = 0x80; return p }},
		"order":           {sorted, func(h *envelope.Header, p []byte) []byte { p[0], p[1], p[2] = 0xff, 0xff, 0x0f; return p }},
		"zero":            {sorted, func(h *envelope.Header, p []byte) []byte { p[0], p[1], p[2] = 0, 0, 0xf0&p[2]; return p }},
		"k ≥ bits":        {rice, func(h *envelope.Header, p []byte) []byte { h.Params[3] = 12; return p }},
		"rice n too big":  {rice, func(h *envelope.Header, p []byte) []byte { h.Params[8] = 200; return p }},
		"rice n too few":  {rice, func(h *envelope.Header, p []byte) []byte { h.Params[8] = 3; return p }},
		"rice extra word": {rice, func(h *envelope.Header, p []byte) []byte { return append(p, make([]byte, 8)...) }},
		"rice cut":        {rice, func(h *envelope.Header, p []byte) []byte { return p[:len(p)-8] }},
		"rice padding":    {rice, func(h *envelope.Header, p []byte) []byte { p[len(p)-1] |= 0x80; return p }},
		"rice zeros":      {rice, func(h *envelope.Header, p []byte) []byte { return make([]byte, len(p)) }},
	}
	for name, c := range cases {
		codectest.RejectsEdits(t, c.frame, map[string]codectest.Edit{name: c.edit}, "fpset: ", ErrCorrupt, func(b []byte) error {
			_, err := Decode(b, envelope.Limits{})
			return err
		})
	}
}

func FuzzDecode(f *testing.F) {
	codectest.SeedFrames(f, goldenSets(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := envelope.Limits{MaxPayload: 1 << 16}
		h, payload, err := envelope.Parse(data, lim)
		if err != nil {
			return
		}
		sorted, compressed, err := fromFrame(h, payload)
		if err != nil {
			return
		}
		// A decoded set re-encodes to the same bytes, in either form, and
		// its other forms agree with it.
		var b []byte
		if sorted != nil {
			b, _ = sorted.MarshalBinary()
			compressed = sorted.Compress()
		} else {
			b, _ = compressed.MarshalBinary()
			sorted = compressed.Sorted()
		}
		if !bytes.Equal(b, data) {
			t.Fatal("decode/encode not canonical")
		}
		set := sorted.Set()
		sorted.Fingerprints(func(fp, c uint64) bool {
			i, found := set.find(fp)
			if !found || set.countAt(i) != c {
				t.Fatalf("fingerprint %#x lost by the set", fp)
			}
			return true
		})
		compressed.ContainsString("x")
		sorted.ContainsString("x")
		set.AddString("x")
		set.RemoveString("y")
	})
}

// FuzzFromFrame fuzzes the structure-level decoder behind the checksum:
// the parameter block and the payload.
func FuzzFromFrame(f *testing.F) {
	for _, s := range goldenSets(f) {
		h, payload := codectest.Parts(f, s)
		f.Add(h.Params, payload)
	}
	f.Fuzz(func(t *testing.T, params, payload []byte) {
		h := envelope.Header{Type: envelope.TypeFPSet, Scheme: 1, Params: params}
		sorted, compressed, err := fromFrame(h, payload)
		if codectest.Refused(t, err, ErrCorrupt) {
			return
		}
		if sorted != nil {
			codectest.SameParts(t, sorted, params, payload)
			compressed = sorted.Compress()
		} else {
			codectest.SameParts(t, compressed, params, payload)
			sorted = compressed.Sorted()
		}
		if sorted.Len() != compressed.Len() || sorted.Total() != compressed.Total() {
			t.Fatal("forms disagree")
		}
		sorted.Fingerprints(func(fp, c uint64) bool {
			if n, ok := compressed.search(fp); !ok || n != c {
				t.Fatalf("compressed form lost %#x", fp)
			}
			if _, ok := sorted.search(fp); !ok {
				t.Fatalf("sorted form lost %#x", fp)
			}
			return true
		})
		sorted.Set().AddString("x")
	})
}
