package digest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/envelope"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func key(i int) []byte { return fmt.Appendf(nil, "http://example.com/object/%d", i) }

// bloomWith returns a filter of the layout with keys [from, to).
func bloomWith(t testing.TB, c bloom.Config, from, to int) *bloom.Filter {
	t.Helper()
	f, err := bloom.New(c)
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < to; i++ {
		f.Add(key(i))
	}
	return f
}

func countingWith(t testing.TB, c counting.Config, from, to int) *counting.Filter {
	t.Helper()
	f, err := counting.New(c)
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < to; i++ {
		f.Add(key(i))
	}
	return f
}

var allCodecs = []Codec{Auto, Raw, Arith, Fast}

func TestRoundTripBloom(t *testing.T) {
	for _, l := range []bloom.Layout{bloom.Classic, bloom.Partitioned, bloom.Blocked, bloom.Paged} {
		// m/n = 14, k = 2: a filter built for transmission (p ≈ 0.13).
		f := bloomWith(t, bloom.Config{Layout: l, M: 14 * 3000, K: 2, Seed: 7}, 0, 3000)
		sizes := map[Codec]int{}
		for _, c := range allCodecs {
			d := &Digest{Sequence: 42, Bloom: f}
			b, err := Encode(d, c)
			if err != nil {
				t.Fatalf("%v %v: %v", l, c, err)
			}
			sizes[c] = len(b)
			got, err := Decode(b, envelope.Limits{})
			if err != nil {
				t.Fatalf("%v %v: decode: %v", l, c, err)
			}
			if !got.Bloom.Equal(f) || got.Sequence != 42 || got.Bloom.Count() != f.Count() {
				t.Fatalf("%v %v: round trip differs", l, c)
			}
			if c != Auto && got.Codec != codecOf(c) {
				t.Errorf("%v %v: decoded codec %v", l, c, got.Codec)
			}
		}
		if sizes[Auto] > min(sizes[Raw], sizes[Arith], sizes[Fast]) {
			t.Errorf("%v: auto chose %d bytes, the smallest is %d", l, sizes[Auto], min(sizes[Raw], sizes[Arith], sizes[Fast]))
		}
		if sizes[Fast] >= sizes[Raw] || sizes[Arith] >= sizes[Fast] {
			t.Errorf("%v: sizes raw %d fast %d arith %d; want arith < fast < raw", l, sizes[Raw], sizes[Fast], sizes[Arith])
		}
	}
}

func codecOf(c Codec) envelope.Codec {
	return map[Codec]envelope.Codec{Raw: envelope.CodecRaw, Arith: envelope.CodecArith, Fast: envelope.CodecFast}[c]
}

func TestRoundTripCounting(t *testing.T) {
	for _, width := range []int{4, 8, 16} {
		f := countingWith(t, counting.Config{M: 20000, K: 3, Width: width, Seed: 3}, 0, 2000)
		for _, c := range allCodecs {
			d := &Digest{Sequence: 1, Counting: f}
			b, err := Encode(d, c)
			if c == Arith {
				if !errors.Is(err, ErrCodec) {
					t.Errorf("width %d: arith on counters: %v, want ErrCodec", width, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("width %d %v: %v", width, c, err)
			}
			got, err := Decode(b, envelope.Limits{})
			if err != nil {
				t.Fatalf("width %d %v: decode: %v", width, c, err)
			}
			if !bytes.Equal(u64bytes(got.Counting.Counters()), u64bytes(f.Counters())) || got.Counting.Len() != f.Len() {
				t.Fatalf("width %d %v: round trip differs", width, c)
			}
			if !got.Filter().Equal(f.BitView()) {
				t.Fatalf("width %d %v: bit view differs", width, c)
			}
			if width == 16 && c == Fast && got.Codec != envelope.CodecRaw {
				t.Errorf("16-bit counters: fast should fall back to raw, got %v", got.Codec)
			}
			if width != 16 && c == Fast && len(b) >= f.EncodedSize() {
				t.Errorf("width %d: fast %d bytes, raw %d", width, len(b), f.EncodedSize())
			}
		}
	}
}

func u64bytes(w []uint64) []byte {
	b := make([]byte, 0, 8*len(w))
	for _, x := range w {
		b = fmt.Append(b, x, ",")
	}
	return b
}

func TestRawIsBloomEncoding(t *testing.T) {
	// The raw digest of sequence 0 is byte for byte what bloom writes, so
	// every bloom reader reads it and this package reads every bloom file.
	f := bloomWith(t, bloom.Config{N: 1000, P: 0.01}, 0, 500)
	want, _ := f.MarshalBinary()
	got, err := Encode(&Digest{Bloom: f}, Raw)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("raw digest differs from bloom's encoding (%v)", err)
	}
	c := countingWith(t, counting.Config{M: 4096, K: 3}, 0, 100)
	want, _ = c.MarshalBinary()
	got, err = Encode(&Digest{Counting: c}, Raw)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("raw counting digest differs from counting's encoding (%v)", err)
	}
}

func TestCompressedSizeNearEntropy(t *testing.T) {
	// (m/n, k) = (48, 3) and (14, 2), the paper's examples.
	for _, s := range []struct{ bpe, k int }{{48, 3}, {14, 2}, {8, 6}} {
		n := 20000
		f := bloomWith(t, bloom.Config{M: uint64(s.bpe * n), K: s.k, Seed: 1}, 0, n)
		ones := f.FillRatio()
		ideal := float64(f.M()) * entropy.Entropy(ones) / 8
		for _, c := range []Codec{Arith, Fast} {
			b, err := Encode(&Digest{Bloom: f}, c)
			if err != nil {
				t.Fatal(err)
			}
			over := float64(len(b)) - ideal
			if over < 0 || over > 64+float64(envelope.HeaderSize+envelope.TrailerSize+24) {
				t.Errorf("(%d,%d) %v: %d bytes, m·H(p̂)/8 = %.0f", s.bpe, s.k, c, len(b), ideal)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	f := bloomWith(t, bloom.Config{M: 1 << 16, K: 3}, 0, 1000)
	good, err := Encode(&Digest{Sequence: 3, Bloom: f}, Fast)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(good, envelope.Limits{MaxPayload: 4096}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("decoded size over the limit: %v, want ErrTooLarge", err)
	}
	if _, err := Decode(good[:len(good)-1], envelope.Limits{}); !errors.Is(err, envelope.ErrTruncated) {
		t.Errorf("truncated: %v", err)
	}
	// A payload that does not decode, with a valid checksum.
	h, body, _ := envelope.Parse(good, envelope.Limits{})
	bad := append([]byte(nil), body...)
	bad[len(bad)/2] ^= 0x55
	frame, _ := appendFrame(nil, &h, bad)
	if _, err := Decode(frame, envelope.Limits{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt payload: %v, want ErrCorrupt", err)
	}
	// An arith frame whose stream is fast-coded.
	h.Codec = envelope.CodecArith
	frame, _ = appendFrame(nil, &h, body)
	if _, err := Decode(frame, envelope.Limits{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("mismatched codec: %v, want ErrCorrupt", err)
	}
	h.Codec = 9
	frame, _ = appendFrame(nil, &h, body)
	if _, err := Decode(frame, envelope.Limits{}); !errors.Is(err, ErrCodec) {
		t.Errorf("unknown codec: %v, want ErrCodec", err)
	}
	if _, err := Encode(&Digest{}, Auto); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty digest: %v", err)
	}
	if _, err := Encode(&Digest{Bloom: f}, Codec(9)); !errors.Is(err, ErrCodec) {
		t.Errorf("unknown codec: %v", err)
	}
}

func TestParseCodec(t *testing.T) {
	for _, c := range allCodecs {
		got, err := ParseCodec(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCodec(%q) = %v, %v", c, got, err)
		}
	}
	if _, err := ParseCodec("zstd"); !errors.Is(err, ErrCodec) {
		t.Errorf("ParseCodec(zstd): %v", err)
	}
}

func TestRead(t *testing.T) {
	f := bloomWith(t, bloom.Config{M: 1 << 14, K: 2}, 0, 500)
	b, _ := Encode(&Digest{Sequence: 9, Bloom: f}, Arith)
	stream := append(append([]byte(nil), b...), b...)
	r := bytes.NewReader(stream)
	for range 2 {
		d, n, err := Read(r, envelope.Limits{})
		if err != nil || n != int64(len(b)) || !d.Bloom.Equal(f) || d.Sequence != 9 {
			t.Fatalf("Read: n %d err %v", n, err)
		}
	}
	var buf bytes.Buffer
	if n, err := Write(&buf, &Digest{Sequence: 9, Bloom: f}, Arith); err != nil || n != int64(len(b)) || !bytes.Equal(buf.Bytes(), b) {
		t.Fatalf("Write: %d %v", n, err)
	}
}

// goldenDigests are the digests testdata pins byte for byte.
func goldenDigests(t testing.TB) map[string][]byte {
	base := bloomWith(t, bloom.Config{M: 4096, K: 2, Seed: 11}, 0, 150)
	next := bloomWith(t, bloom.Config{M: 4096, K: 2, Seed: 11}, 5, 155)
	cnt := countingWith(t, counting.Config{M: 1024, K: 3, Seed: 5}, 0, 60)
	out := map[string][]byte{}
	must := func(name string, b []byte, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b
	}
	b, err := Encode(&Digest{Sequence: 1, Bloom: base}, Arith)
	must("bloom-arith", b, err)
	b, err = Encode(&Digest{Sequence: 1, Bloom: base}, Fast)
	must("bloom-fast", b, err)
	b, err = Encode(&Digest{Sequence: 2, Counting: cnt}, Fast)
	must("counting-fast", b, err)
	b, err = Diff(&Digest{Sequence: 1, Bloom: base}, &Digest{Sequence: 2, Bloom: next}, Fast)
	must("delta-gaps", b, err)
	dense := bloomWith(t, bloom.Config{M: 4096, K: 2, Seed: 11}, 100, 250)
	b, err = Diff(&Digest{Sequence: 1, Bloom: base}, &Digest{Sequence: 2, Bloom: dense}, Fast)
	must("delta-dense-fast", b, err)
	b, err = Diff(&Digest{Sequence: 1, Bloom: base}, &Digest{Sequence: 2, Bloom: next}, Raw)
	must("delta-raw", b, err)
	b, err = EncodePieces(&Digest{Sequence: 1, Bloom: base}, Fast, 128)
	must("bloom-pieces", b, err)
	small := bloom.MustNew(bloom.Config{M: 200, K: 3, Seed: 0x0123456789abcdef})
	for _, k := range []string{"a", "b", "c", "http://www.example.com/"} {
		small.AddString(k)
	}
	b, err = EncodePieces(&Digest{Bloom: small}, Fast, 8)
	must("pieces-small", b, err)
	sbase, snext := scalableWith(t, 0, 300), scalableWith(t, 0, 500)
	b, err = Encode(&Digest{Sequence: 1, Scalable: sbase}, Fast)
	must("scalable-fast", b, err)
	b, err = Diff(&Digest{Sequence: 1, Scalable: sbase}, &Digest{Sequence: 2, Scalable: snext}, Fast)
	must("delta-scalable-fast", b, err)
	return out
}

func TestGolden(t *testing.T) {
	checkGolden(t, goldenDigests(t))
}

// checkGolden compares each frame with testdata/golden-NAME.bin, or
// with -args -update writes it there.
func checkGolden(t *testing.T, frames map[string][]byte) {
	t.Helper()
	for name, b := range frames {
		path := "testdata/golden-" + name + ".bin"
		if *update {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -args -update to create it)", err)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%s: encoding differs from %s (%d bytes, golden %d); if the format changed on purpose, bump the version and run -args -update", name, path, len(b), len(want))
		}
	}
}

func TestEntropyBits(t *testing.T) {
	f := bloomWith(t, bloom.Config{M: 1 << 16, K: 2}, 0, 5000)
	d := &Digest{Bloom: f}
	if got, want := d.EntropyBits(), float64(f.M())*entropy.Entropy(f.FillRatio()); got != want {
		t.Errorf("bloom: %v, want %v", got, want)
	}
	c, _ := counting.New(counting.Config{M: 64, K: 1})
	// 64 counters: 32 at 0, 32 at 1 → 64 bits of order-0 entropy.
	for i := 0; c.BitView().SetBits() < 32; i++ {
		if c.Count(key(i)) == 0 {
			c.Add(key(i))
		}
	}
	if got := (&Digest{Counting: c}).EntropyBits(); math.Abs(got-64) > 1e-9 {
		t.Errorf("counting: %v bits, want 64", got)
	}
	if (&Digest{}).EntropyBits() != 0 {
		t.Error("empty digest")
	}
}
