package entropy

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

var allDensities = []float64{0, 0.0005, 0.01, 0.03, 0.06, 0.1, 0.2, 0.3, 0.45, 0.5, 0.55, 0.7, 0.9, 0.99, 1}

var tinyLengths = []uint64{0, 1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 511, 512, 513, 1000, 4097, 65536 + 13}

var bitCodecs = []Codec{Arith, Fast, Raw, RANS}

// roundTrip encodes and decodes and fails on any difference.
func roundTrip(t *testing.T, w []uint64, m uint64, c Codec) []byte {
	t.Helper()
	prefix := []byte("prefix")
	enc, err := EncodeBits(slices.Clone(prefix), w, m, c)
	if err != nil {
		t.Fatalf("m=%d %v: encode: %v", m, c, err)
	}
	if !bytes.HasPrefix(enc, prefix) {
		t.Fatalf("m=%d %v: encode did not append", m, c)
	}
	enc = enc[len(prefix):]
	got := make([]uint64, wordsFor(m))
	for i := range got {
		got[i] = 0xDEADBEEF // must be overwritten
	}
	if err := DecodeBits(got, enc, m, c); err != nil {
		t.Fatalf("m=%d %v (stream %v): decode: %v", m, c, Codec(enc[0]), err)
	}
	if want := masked(w, m); !slices.Equal(got, want) {
		t.Fatalf("m=%d %v (stream %v): round trip differs", m, c, Codec(enc[0]))
	}
	return enc
}

func TestRoundTripBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, m := range tinyLengths {
		for _, p := range allDensities {
			w := randomBits(r, m, p)
			for _, c := range bitCodecs {
				roundTrip(t, w, m, c)
			}
		}
	}
}

// TestRoundTripStructured covers arrays that are not i.i.d.: runs, blocks
// of ones in a sparse array (rare bytes the byte model prices high), one
// set bit anywhere, alternating bits.
func TestRoundTripStructured(t *testing.T) {
	const m = 5000
	cases := map[string]func(i uint64) bool{
		"runs":        func(i uint64) bool { return (i/300)%2 == 1 },
		"sparse-ff":   func(i uint64) bool { return i%800 < 8 },
		"alternating": func(i uint64) bool { return i%2 == 0 },
		"last":        func(i uint64) bool { return i == m-1 },
		"first":       func(i uint64) bool { return i == 0 },
		"dense-bytes": func(i uint64) bool { return (i/8)%50 == 0 },
	}
	for name, f := range cases {
		w := make([]uint64, wordsFor(m))
		for i := range uint64(m) {
			if f(i) {
				w[i/64] |= 1 << (i % 64)
			}
		}
		for _, c := range bitCodecs {
			t.Run(name+"/"+c.String(), func(t *testing.T) { roundTrip(t, w, m, c) })
		}
	}
}

// TestFastVariants checks which variant Fast records.
func TestFastVariants(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	cases := []struct {
		m    uint64
		p    float64
		want Codec
	}{
		{0, 0, Raw}, {100, 0, Const}, {100, 1, Const}, {1 << 16, 0.5, Raw},
		{1 << 16, 0.48, Raw}, {1 << 16, 0.3, RANS}, {1 << 16, 0.01, RANS},
		{1 << 16, 0.9, RANS}, {64, 0.1, Raw},
	}
	for _, c := range cases {
		enc := roundTrip(t, randomBits(r, c.m, c.p), c.m, Fast)
		if got := Codec(enc[0]); got != c.want {
			t.Errorf("m=%d p=%g: Fast wrote %v, want %v", c.m, c.p, got, c.want)
		}
	}
}

// TestSizeBound asserts the size targets against m·H(p̂), p̂ the array's
// own density (what any coder of the array can know).
func TestSizeBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, m := range []uint64{1 << 16, 1 << 20} {
		for _, p := range []float64{0.5, 0.3, 0.2, 0.1, 0.06, 0.03, 0.01, 0.7, 0.97, 0.99} {
			w := randomBits(r, m, p)
			ideal := idealBytes(w, m)
			for _, c := range []Codec{Fast, RANS, Arith} {
				n := float64(len(roundTrip(t, w, m, c)))
				bound := 1.005*ideal + 64
				if c == Arith {
					bound = 1.001*ideal + 16
				}
				t.Logf("m=2^%d p=%.2f %-5v %8.0f B  %.5f × m·H(p̂)  (%+.0f B)", bits.Len64(m)-1, p, c, n, n/ideal, n-ideal)
				if n > bound {
					t.Errorf("m=%d p=%g %v: %.0f bytes > bound %.1f (m·H = %.1f)", m, p, c, n, bound, ideal)
				}
			}
		}
	}
}

// TestByteModel checks the frequency tables for any density: every byte
// codable, sum M.
func TestByteModel(t *testing.T) {
	pqs := []uint32{0, 1, 2, 1000, 1 << 20, 1 << 28, 1 << 31, 3 << 30, 1<<32 - 2, 1<<32 - 1}
	r := rand.New(rand.NewPCG(4, 4))
	for range 1000 {
		pqs = append(pqs, r.Uint32())
	}
	for _, pq := range pqs {
		f := byteFreqs(pq)
		var sum uint64
		for j, v := range f {
			if v == 0 || v >= ransM {
				t.Fatalf("pq=%d: class %d frequency %d", pq, j, v)
			}
			sum += uint64(binom8[j]) * uint64(v)
		}
		if sum != ransM {
			t.Fatalf("pq=%d: frequencies sum to %d", pq, sum)
		}
	}
	// Symmetry: the model for 1−p is the model for p mirrored.
	for _, pq := range pqs[2:20] {
		f, g := byteFreqs(pq), byteFreqs(-pq)
		for j := range f {
			if d := int64(f[j]) - int64(g[8-j]); d < -300 || d > 300 {
				t.Fatalf("pq=%d: class %d: %d vs mirrored %d", pq, j, f[j], g[8-j])
			}
		}
	}
}

// TestEncSymExact checks the reciprocal division against real division for
// every frequency shape near its edges.
func TestEncSymExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	freqs := []uint32{1, 2, 3, 5, 7, 255, 256, 257, 1 << 23, 1<<23 + 1, ransM - 256, ransM - 1}
	for range 200 {
		freqs = append(freqs, 1+r.Uint32N(ransM-1))
	}
	for _, f := range freqs {
		e := newEncSym(0, f)
		xs := []uint64{ransL, e.xmax - 1, uint64(f) * ransL, uint64(f)*ransL - 1, 1<<63 - 1}
		for range 200 {
			xs = append(xs, ransL+r.Uint64N(e.xmax-ransL))
		}
		for _, x := range xs {
			if x >= e.xmax && x != 1<<63-1 {
				continue
			}
			if f == 1 && x == 0 {
				continue
			}
			got, _ := e.put(min(x, e.xmax-1), nil, 0)
			x = min(x, e.xmax-1)
			want := (x/uint64(f))<<ransScale + x%uint64(f)
			if got != want {
				t.Fatalf("f=%d x=%d: %d, want %d", f, x, got, want)
			}
		}
	}
}

// TestTruncated cuts every stream at every length (sampled for long ones)
// and expects an error, never a panic.
func TestTruncated(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for _, m := range []uint64{1, 64, 100, 3000, 40000} {
		for _, p := range []float64{0.01, 0.2, 0.5} {
			w := randomBits(r, m, p)
			for _, c := range bitCodecs {
				enc := roundTrip(t, w, m, c)
				dst := make([]uint64, wordsFor(m))
				step := max(1, len(enc)/300)
				for n := 0; n < len(enc); n += step {
					if err := DecodeBits(dst, enc[:n], m, c); err == nil {
						t.Fatalf("m=%d p=%g %v: %d of %d bytes decoded without error", m, p, c, n, len(enc))
					}
				}
				// A trailing byte is an error too.
				err := DecodeBits(dst, append(slices.Clone(enc), 0), m, c)
				if err == nil {
					t.Fatalf("m=%d p=%g %v: trailing byte accepted", m, p, c)
				}
			}
		}
	}
}

// TestCorrupted flips bytes of RANS and Arith streams: decoding must not
// panic, and almost always reports the damage (the final rANS states, the
// arithmetic coder's sentinel bits and exact length); Raw streams carry no
// redundancy.
func TestCorrupted(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	const m = 20000
	for _, p := range []float64{0.01, 0.1, 0.3} {
		w := randomBits(r, m, p)
		for _, c := range []Codec{Arith, RANS, Fast, Raw} {
			enc := roundTrip(t, w, m, c)
			dst := make([]uint64, wordsFor(m))
			caught, tries := 0, 400
			for range tries {
				bad := slices.Clone(enc)
				i := 1 + r.IntN(len(bad)-1)
				bad[i] ^= byte(1 + r.IntN(255))
				err := DecodeBits(dst, bad, m, c)
				if err != nil {
					caught++
					if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrTrailing) {
						t.Fatalf("%v: unexpected error %v", c, err)
					}
				} else if slices.Equal(dst, masked(w, m)) && !(Codec(enc[0]) == RANS && i <= 4) {
					// (The low bits of the RANS density may not change
					// the model.)
					t.Fatalf("%v: corrupted stream decoded to the original", c)
				}
			}
			t.Logf("p=%.2f %v: %d/%d corruptions detected", p, c, caught, tries)
			if (c == Arith || c == RANS) && caught < tries*97/100 {
				t.Errorf("p=%.2f %v: only %d/%d corruptions detected", p, c, caught, tries)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	w := []uint64{0xF0F0}
	enc, _ := EncodeBits(nil, w, 64, Fast)
	dst := make([]uint64, 1)
	check := func(name string, err, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	check("empty", DecodeBits(dst, nil, 64, Fast), ErrTruncated)
	check("short dst", DecodeBits(dst[:0], enc, 64, Fast), ErrLength)
	check("long dst", DecodeBits(make([]uint64, 2), enc, 64, Fast), ErrLength)
	check("arith as fast", DecodeBits(dst, []byte{byte(Arith), 0, 0, 0, 0}, 64, Fast), ErrCodec)
	check("fast tag", DecodeBits(dst, []byte{byte(Fast)}, 64, Fast), ErrCodec)
	check("unknown tag", DecodeBits(dst, []byte{99}, 64, Fast), ErrCodec)
	renc, _ := EncodeBits(nil, w, 64, RANS)
	check("rans as raw", DecodeBits(dst, renc, 64, Raw), ErrCodec)
	check("rans as arith", DecodeBits(dst, renc, 64, Arith), ErrCodec)
	check("unknown codec", DecodeBits(dst, enc, 64, Codec(77)), ErrCodec)
	check("const 2", DecodeBits(dst, []byte{byte(Const), 2}, 64, Fast), ErrCorrupt)
	check("const short", DecodeBits(dst, []byte{byte(Const)}, 64, Fast), ErrTruncated)
	check("raw tail bits", DecodeBits(dst, []byte{byte(Raw), 0xFF}, 5, Raw), ErrCorrupt)
	check("raw tail bits", DecodeBits(dst, []byte{byte(Raw), 0xFF}, 7, Raw), ErrCorrupt)
	check("rans state", DecodeBits(dst, append([]byte{byte(RANS), 1, 2, 3, 4}, make([]byte, 32)...), 64, RANS), ErrCorrupt)
	if _, err := EncodeBits(nil, w, 65, Fast); !errors.Is(err, ErrLength) {
		t.Errorf("encode short words: %v", err)
	}
	for _, c := range []Codec{0, Const, Order0, 77} {
		if _, err := EncodeBits(nil, w, 64, c); !errors.Is(err, ErrCodec) {
			t.Errorf("encode with %v: %v", c, err)
		}
	}
	// A set bit past m in a Const-ones or RANS stream: Const masks by
	// construction; RANS of m=60 bits whose last byte says otherwise.
	full := []uint64{^uint64(0)}
	bad, _ := EncodeBits(nil, full, 64, RANS)
	if err := DecodeBits(dst, bad, 60, RANS); !errors.Is(err, ErrCorrupt) {
		t.Errorf("rans bits past m: %v", err)
	}
}

// TestArithSplit checks the split against exact arithmetic, past 2^32
// model counts too: at least 1, below rng, ⌊rng·c0/t⌋ or less by at most
// 1 + ⌊rng·c0/2^64⌋ (0 while c0 < 2^32).
func TestArithSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for range 100000 {
		rng := arithTop + r.Uint32N(math.MaxUint32-arithTop)
		t64 := 2 + r.Uint64N(1<<(2+r.IntN(50)))
		c0 := 1 + r.Uint64N(t64-1)
		b := uint64(arithSplit(rng, c0, ^uint64(0)/t64))
		hi, lo := bits.Mul64(uint64(rng), c0)
		exact, _ := bits.Div64(hi, lo, t64)
		if b >= uint64(rng) || b+hi+1 < exact || b > max(exact, 1) {
			t.Fatalf("split(%d, %d, %d) = %d, exact %d", rng, c0, t64, b, exact)
		}
	}
}

// TestNoAllocs checks that the decoders allocate nothing.
func TestNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const m = 10000
	w := randomBits(r, m, 0.1)
	dst := make([]uint64, wordsFor(m))
	for _, c := range bitCodecs {
		enc, _ := EncodeBits(nil, w, m, c)
		if n := testing.AllocsPerRun(5, func() { DecodeBits(dst, enc, m, c) }); n != 0 {
			t.Errorf("DecodeBits %v: %v allocations", c, n)
		}
	}
	cw := poissonCounters(r, 3000, 4, 0.7)
	enc, _ := EncodeCounters(nil, cw, 3000, 4)
	cdst := make([]uint64, len(cw))
	if n := testing.AllocsPerRun(5, func() { DecodeCounters(cdst, enc, 3000, 4) }); n != 0 {
		t.Errorf("DecodeCounters: %v allocations", n)
	}
}

func TestEntropy(t *testing.T) {
	for _, c := range []struct{ p, h float64 }{{0, 0}, {1, 0}, {0.5, 1}, {0.11, 0.49991595}, {0.25, 0.81127812}} {
		if got := Entropy(c.p); math.Abs(got-c.h) > 1e-8 {
			t.Errorf("H(%g) = %g, want %g", c.p, got, c.h)
		}
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if !math.IsNaN(Entropy(p)) {
			t.Errorf("H(%g) is not NaN", p)
		}
	}
}

func TestCodecString(t *testing.T) {
	var s []string
	for c := range Codec(9) {
		s = append(s, c.String())
	}
	if got := fmt.Sprint(s); got != "[codec(0) arith fast raw const rans order0 gaps codec(8)]" {
		t.Error(got)
	}
}

// TestGolden pins the stream formats: a change here is a format change
// (docs/FORMAT.md).
func TestGolden(t *testing.T) {
	w := []uint64{0x8000_0000_0100_0001, 0x0000_0000_0003_0000, 0xFFFF_F005}
	const m = 140
	want := map[Codec]string{
		Raw:   "03010000010000008000000300000000000500",
		RANS:  "05cdcccc0c0ddaaf653e680000793c58e103000000df410845a203000040f2aafda1030000",
		Arith: "01806555a3c2590f3600",
		Fast:  "03010000010000008000000300000000000500",
	}
	for c, hex := range want {
		enc := roundTrip(t, w, m, c)
		if got := fmt.Sprintf("%x", enc); got != hex {
			t.Errorf("%v: %s, want %s", c, got, hex)
		}
	}
	// 200 4-bit counters, geometric values 0, 1, 2, ... (integer-only
	// generator), and the same as 8-bit counters.
	r := rand.New(rand.NewPCG(10, 10))
	c4 := make([]uint64, 200*4/64+1)
	c8 := make([]uint64, 200*8/64)
	for i := range 200 {
		v := uint64(min(bits.TrailingZeros64(r.Uint64()|1<<40)/2, 15))
		c4[i/16] |= v << (i % 16 * 4)
		c8[i/8] |= v << (i % 8 * 8)
	}
	for _, c := range []struct {
		width uint
		w     []uint64
		want  string
	}{
		{4, c4, "0300010020000010000010000002001000000000001300001001000000000000001000100100020030110000100000120100200000000000000510000000001000100000000000000040011210000010100000000210200100000000002001010000000003"},
		{8, c8, "0606009f8aae0600dc9e8a01009f8a2e008aae0f00ae8f050022b5bbd3458409001bbb77b457b83d0378f7e0f12005000030c6a3794712020004b35f58905e2c4670f376aaaf3249f1"},
	} {
		enc, err := EncodeCounters(nil, c.w, 200, c.width)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", enc); got != c.want {
			t.Errorf("counters width %d: %s, want %s", c.width, got, c.want)
		}
	}
}

// TestSizeSweep checks the fast coder's bound at every density from 0.01
// to 0.99 in steps of 0.01, m = 2^16 (and one larger, odd length).
func TestSizeSweep(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 14))
	for _, m := range []uint64{1 << 16, 3<<16 + 7} {
		for i := 1; i <= 99; i++ {
			p := float64(i) / 100
			w := randomBits(r, m, p)
			ideal := idealBytes(w, m)
			n := float64(len(roundTrip(t, w, m, Fast)))
			if n > 1.005*ideal+64 {
				t.Errorf("m=%d p=%.2f: %.0f bytes > 1.005 × %.1f + 64", m, p, n, ideal)
			}
		}
	}
}
