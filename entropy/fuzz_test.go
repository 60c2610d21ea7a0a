package entropy

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// fuzzMaxBits bounds the lengths the fuzzers ask for, so one input cannot
// take long.
const fuzzMaxBits = 1 << 16

// seedBits adds streams of every variant to a decoder fuzzer's corpus.
func seedBits(f *testing.F, codecs ...Codec) {
	r := rand.New(rand.NewPCG(20, 20))
	for _, m := range []uint64{0, 1, 63, 64, 65, 1000, 5000} {
		for _, p := range []float64{0, 0.01, 0.1, 0.4, 0.5, 1} {
			w := randomBits(r, m, p)
			for _, c := range codecs {
				enc, _ := EncodeBits(nil, w, m, c)
				f.Add(enc, m)
			}
		}
	}
}

// fuzzDecodeBits decodes arbitrary input as codec c: no panic, no bits
// past m, and a stream that decodes must be the one the encoder writes
// for the decoded bits when the format has one spelling (Arith, Raw,
// Const; a RANS stream may spell its density several ways).
func fuzzDecodeBits(t *testing.T, src []byte, m uint64, c Codec) {
	m %= fuzzMaxBits
	dst := make([]uint64, wordsFor(m))
	if err := DecodeBits(dst, src, m, c); err != nil {
		return
	}
	if err := checkTail(dst, m); err != nil {
		t.Fatal("decoded bits past m")
	}
	tag := Codec(src[0])
	var as Codec
	switch tag {
	case Arith, Raw:
		as = tag
	case Const:
		if m == 0 {
			return
		}
		as = Fast
	case RANS:
		return
	default:
		t.Fatalf("decoded a %v stream", tag)
	}
	enc, err := EncodeBits(nil, dst, m, as)
	if err != nil || !slices.Equal(enc, src) {
		t.Fatalf("%v stream is not canonical: %x re-encodes as %x", tag, src, enc)
	}
}

func FuzzDecodeBitsArith(f *testing.F) {
	seedBits(f, Arith)
	f.Fuzz(func(t *testing.T, src []byte, m uint64) { fuzzDecodeBits(t, src, m, Arith) })
}

func FuzzDecodeBitsFast(f *testing.F) {
	seedBits(f, Fast, RANS, Raw)
	f.Fuzz(func(t *testing.T, src []byte, m uint64) { fuzzDecodeBits(t, src, m, Fast) })
}

func FuzzDecodeCounters(f *testing.F) {
	r := rand.New(rand.NewPCG(21, 21))
	for _, width := range []uint{4, 8} {
		for _, n := range []uint64{0, 1, 17, 1000, 5000} {
			for _, mean := range []float64{0.05, 0.7, 3} {
				w := poissonCounters(r, n, width, mean)
				enc, _ := EncodeCounters(nil, w, n, width)
				f.Add(enc, n, width == 8)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, n uint64, wide bool) {
		width := uint(4)
		if wide {
			width = 8
		}
		n %= fuzzMaxBits / uint64(width)
		nbits := n * uint64(width)
		dst := make([]uint64, wordsFor(nbits))
		derr := DecodeCounters(dst, src, n, width)
		got, rerr := readCounters(src, n, width, 1+int(n%7))
		if (derr == nil) != (rerr == nil) || derr == nil && !slices.Equal(got, dst) {
			t.Fatalf("DecodeCounters %v, counter reader %v, or their words differ", derr, rerr)
		}
		if derr != nil {
			return
		}
		if checkTail(dst, nbits) != nil {
			t.Fatal("decoded bits past n·width")
		}
		enc, err := EncodeCounters(nil, dst, n, width)
		if err != nil {
			t.Fatal(err)
		}
		again := make([]uint64, len(dst))
		if err := DecodeCounters(again, enc, n, width); err != nil || !slices.Equal(again, dst) {
			t.Fatalf("re-encoding does not round-trip: %v", err)
		}
	})
}

// FuzzRoundTrip encodes arbitrary arrays with every codec.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{0xFF, 0, 0, 1}, uint16(30))
	f.Add(make([]byte, 300), uint16(2400))
	f.Add(binary.LittleEndian.AppendUint64(nil, 0x8000_0000_0000_0001), uint16(64))
	f.Fuzz(func(t *testing.T, data []byte, mm uint16) {
		m := min(uint64(mm), uint64(len(data))*8)
		w := make([]uint64, wordsFor(uint64(len(data))*8))
		for i, b := range data {
			w[i/8] |= uint64(b) << (i % 8 * 8)
		}
		for _, c := range bitCodecs {
			enc, err := EncodeBits(nil, w, m, c)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]uint64, wordsFor(m))
			if err := DecodeBits(got, enc, m, c); err != nil {
				t.Fatalf("%v: %v", c, err)
			}
			if !slices.Equal(got, masked(w, m)) {
				t.Fatalf("%v: round trip differs", c)
			}
		}
		for _, width := range []uint{4, 8} {
			n := m / uint64(width)
			enc, err := EncodeCounters(nil, w, n, width)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]uint64, wordsFor(n*uint64(width)))
			if err := DecodeCounters(got, enc, n, width); err != nil {
				t.Fatalf("counters %d: %v", width, err)
			}
			if !slices.Equal(got, masked(w, n*uint64(width))) {
				t.Fatalf("counters %d: round trip differs", width)
			}
		}
	})
}
