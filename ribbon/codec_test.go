package ribbon

import (
	"encoding/binary"
	"math/bits"

	"testing"

	"github.com/bloomcast/bloomcast/hashing"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/codectest"
)

// goldenKeys are the keys of the golden filters.
var goldenKeys = []string{"a", "b", "c", "http://www.example.com/"}

// goldenMore are the 200 further keys of the golden filter with two
// widths.
var goldenMore = func() []string {
	keys := make([]string, 200)
	for i := range keys {
		keys[i] = urlKey(i)
	}
	return keys
}()

// goldenFilters are small filters whose encodings testdata pins byte for
// byte: one width throughout, two widths, and the empty filter.
func goldenFilters(t testing.TB) map[string]*Filter {
	out := map[string]*Filter{}
	for name, c := range map[string]Config{
		"bits8":  {Bits: 8, Seed: 0x0123456789abcdef},
		"bits32": {Bits: 32, Seed: 2},
	} {
		f, err := BuildStrings(c, goldenKeys)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = f
	}
	// Two widths need more blocks than the three of a few keys.
	rate1, err := BuildStrings(Config{Rate: 0.01, Seed: 1}, append(goldenKeys, goldenMore...))
	if err != nil {
		t.Fatal(err)
	}
	out["rate1"] = rate1
	f, err := BuildStrings(Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out["empty"] = f
	return out
}

func TestGoldenEncodings(t *testing.T) {
	for name, f := range goldenFilters(t) {
		want := codectest.GoldenEncoding(t, name, f)
		g, err := Decode(want, envelope.Limits{})
		if err != nil {
			t.Fatalf("%s: decoding the golden file: %v", name, err)
		}
		if name == "empty" {
			if g.ContainsString("a") || g.Len() != 0 {
				t.Errorf("empty: reports a key")
			}
			continue
		}
		for _, k := range goldenKeys {
			if !g.ContainsString(k) {
				t.Errorf("%s: %s reported absent", name, k)
			}
		}
		if g.Shape() != f.Shape() {
			t.Errorf("%s: shape %v, built %v", name, g.Shape(), f.Shape())
		}
	}
}

func TestRoundTrips(t *testing.T) {
	for _, c := range []Config{{Bits: 5, Seed: 5}, {Rate: 0.007, Seed: 6}, {Bits: 32}} {
		hs := hashes(0, 3000, c.Seed)
		f := mustBuild(t, c, hs)
		b := codectest.EncodesAlike(t, "filter", f)
		var g Filter
		if err := g.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		var h Filter
		codectest.ReadsOneFrame(t, "filter", b, h.ReadFrom)
		others := hashes(1<<20, 3000, c.Seed)
		for i, k := range hs {
			if !g.ContainsHash(k) || !h.ContainsHash(k) {
				t.Fatalf("decoded filter: key %d absent", i)
			}
			if g.ContainsHash(others[i]) != f.ContainsHash(others[i]) {
				t.Fatalf("decoded filter answers absent key %d otherwise", i)
			}
		}
	}
}

func TestDecodeRejectsCorruption(t *testing.T) {
	for name, f := range goldenFilters(t) {
		if name == "empty" {
			continue // no payload to limit
		}
		good, _ := f.MarshalBinary()
		codectest.RejectsCorruption(t, name, good, 8, func(b []byte, l envelope.Limits) error {
			_, err := Decode(b, l)
			return err
		})
	}
}

func TestDecodeValidatesFields(t *testing.T) {
	good, _ := goldenFilters(t)["rate1"].MarshalBinary()
	cases := map[string]codectest.Edit{
		"type":          func(h *envelope.Header, p []byte) []byte { h.Type = envelope.TypeBloomier; return p },
		"codec":         func(h *envelope.Header, p []byte) []byte { h.Codec = 1; return p },
		"scheme":        func(h *envelope.Header, p []byte) []byte { h.Scheme = 2; return p },
		"params length": func(h *envelope.Header, p []byte) []byte { h.Params = h.Params[:39]; return p },
		"width":         func(h *envelope.Header, p []byte) []byte { h.Params[0] = 64; return p },
		"r zero":        func(h *envelope.Header, p []byte) []byte { h.Params[1] = 0; return p },
		"r 33":          func(h *envelope.Header, p []byte) []byte { h.Params[1] = 33; return p },
		"r 32 with hi":  func(h *envelope.Header, p []byte) []byte { h.Params[1] = 32; return p },
		"reserved 2":    func(h *envelope.Header, p []byte) []byte { h.Params[2] = 1; return p },
		"reserved 5":    func(h *envelope.Header, p []byte) []byte { h.Params[5] = 1; return p },
		"one block":     func(h *envelope.Header, p []byte) []byte { h.Params[8] = 1; return p },
		"huge":          func(h *envelope.Header, p []byte) []byte { h.Params[15] = 0xff; return p },
		"hi > blocks":   func(h *envelope.Header, p []byte) []byte { h.Params[16] = 0xff; return p },
		"n > slots":     func(h *envelope.Header, p []byte) []byte { h.Params[26] = 1; return p },
		"short":         func(h *envelope.Header, p []byte) []byte { return p[:len(p)-8] },
		"long":          func(h *envelope.Header, p []byte) []byte { return append(p, 0) },
	}
	codectest.RejectsEdits(t, good, cases, "ribbon: ", ErrCorrupt, func(b []byte) error {
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
		g.ContainsString("x")
	})
}

// FuzzFromFrame fuzzes the checks behind the checksum: the parameter
// block and the payload.
func FuzzFromFrame(f *testing.F) {
	for _, g := range goldenFilters(f) {
		h, payload := codectest.Parts(f, g)
		f.Add(h.Params, payload)
	}
	f.Fuzz(func(t *testing.T, params, payload []byte) {
		h := envelope.Header{Type: envelope.TypeRibbon, Scheme: 1, Params: params}
		g, err := FromFrame(h, payload)
		if codectest.Refused(t, err, ErrCorrupt) {
			return
		}
		codectest.SameParts(t, g, params, payload)
		for _, k := range goldenKeys {
			g.ContainsString(k)
		}
	})
}

// TestFormatLookupRule answers queries the slow way docs/FORMAT.md states
// the rule, slot by slot from the decoded payload words, and compares with
// ContainsHash on keys of the set and others.
func TestFormatLookupRule(t *testing.T) {
	for name, f := range goldenFilters(t) {
		if name == "empty" {
			continue
		}
		b, _ := f.MarshalBinary()
		h, payload, err := envelope.Parse(b, envelope.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		le := func(i uint64) uint64 { return binary.LittleEndian.Uint64(payload[8*i:]) }
		p := h.Params
		r, blocks, hi := uint64(p[1]), binary.LittleEndian.Uint64(p[8:]), binary.LittleEndian.Uint64(p[16:])
		salt := binary.LittleEndian.Uint64(p[32:])
		// bit j of slot i: the main column, or column r of the hi words.
		slot := func(i, j uint64) uint64 {
			if j < r {
				return le((i/64)*r+j) >> (i % 64) & 1
			}
			return le(blocks*r+i/64) >> (i % 64) & 1
		}
		for k := range 2000 {
			hash := hashing.SumStringSeed(urlKey(k-1000), h.Seed)
			a, bb := hash.Lo^salt, hash.Hi^bits.RotateLeft64(salt, 32)
			s := hashing.Reduce(mix(a), 64*blocks-127)
			c := [2]uint64{mix(bb) | 1, mix(a + golden)}
			fp := mix(bb+golden) >> 32
			width := r
			if s/64 < hi {
				width = r + 1
			}
			want := true
			for j := range width {
				bit := uint64(0)
				for i := range uint64(128) {
					if c[i/64]>>(i%64)&1 == 1 {
						bit ^= slot(s+i, j)
					}
				}
				if bit != fp>>j&1 {
					want = false
				}
			}
			if got := f.ContainsHash(hash); got != want {
				t.Fatalf("%s: key %d: ContainsHash %v, the documented rule %v", name, k, got, want)
			}
		}
	}
}
