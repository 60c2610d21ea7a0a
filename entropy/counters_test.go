package entropy

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func countersRoundTrip(t *testing.T, w []uint64, n uint64, width uint) []byte {
	t.Helper()
	enc, err := EncodeCounters([]byte{0xAA}, w, n, width)
	if err != nil {
		t.Fatalf("n=%d width=%d: encode: %v", n, width, err)
	}
	if enc[0] != 0xAA {
		t.Fatal("encode did not append")
	}
	enc = enc[1:]
	nbits := n * uint64(width)
	got := make([]uint64, wordsFor(nbits))
	for i := range got {
		got[i] = 0x5555
	}
	if err := DecodeCounters(got, enc, n, width); err != nil {
		t.Fatalf("n=%d width=%d (stream %v): decode: %v", n, width, Codec(enc[0]), err)
	}
	if !slices.Equal(got, masked(w, nbits)) {
		t.Fatalf("n=%d width=%d (stream %v): round trip differs", n, width, Codec(enc[0]))
	}
	return enc
}

// counterSets are value distributions: Poisson at several loads, a
// constant, two values, uniform.
func counterSets(r *rand.Rand, n uint64, width uint) map[string][]uint64 {
	sets := map[string][]uint64{}
	for _, mean := range []float64{0.05, math.Ln2, 2, 6} {
		sets["poisson"+strconvF(mean)] = poissonCounters(r, n, width, mean)
	}
	nbits := n * uint64(width)
	fill := func(f func(i uint64) uint64) []uint64 {
		w := make([]uint64, wordsFor(nbits))
		for i := range n {
			b := i * uint64(width)
			w[b/64] |= f(i) << (b % 64)
		}
		return w
	}
	max := uint64(1)<<width - 1
	sets["zero"] = fill(func(uint64) uint64 { return 0 })
	sets["max"] = fill(func(uint64) uint64 { return max })
	sets["two"] = fill(func(i uint64) uint64 { return 3 * (i % 3 / 2) })
	sets["uniform"] = fill(func(uint64) uint64 { return r.Uint64() & max })
	sets["rare-top"] = fill(func(i uint64) uint64 {
		if i%997 == 5 {
			return max
		}
		return i % 2
	})
	return sets
}

func strconvF(f float64) string { return "-" + string(rune('0'+int(f*10)%10)) }

func TestRoundTripCounters(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	for _, width := range []uint{4, 8} {
		for _, n := range []uint64{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 1000, 4099, 1 << 16} {
			for name, w := range counterSets(r, n, width) {
				t.Run(name, func(t *testing.T) { countersRoundTrip(t, w, n, width) })
			}
		}
	}
}

// TestCountersSize asserts ≤ 1.01 × n·H0 + header, H0 the empirical
// order-0 entropy, and reports the sizes.
func TestCountersSize(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	for _, width := range []uint{4, 8} {
		for _, n := range []uint64{1 << 16, 1 << 20} {
			for _, mean := range []float64{0.05, 0.3, math.Ln2, 2} {
				w := poissonCounters(r, n, width, mean)
				var count [256]uint64
				histogram(&count, w, n, width)
				k := 0
				for _, c := range count {
					if c > 0 {
						k++
					}
				}
				enc := countersRoundTrip(t, w, n, width)
				ideal := order0Bytes(w, n, width)
				header := float64(2 + ransStates + 5*k)
				size := float64(len(enc))
				t.Logf("width=%d n=2^%d mean=%.2f: %d values, %.0f B, %.5f × n·H0 (%+.0f B)", width, int(math.Log2(float64(n))), mean, k, size, size/ideal, size-ideal)
				if size > 1.01*ideal+header {
					t.Errorf("width=%d n=%d mean=%g: %.0f B > 1.01 × %.1f + %.0f", width, n, mean, size, ideal, header)
				}
			}
		}
	}
}

func TestCountersErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 13))
	const n = 5000
	w := poissonCounters(r, n, 4, 0.7)
	enc, _ := EncodeCounters(nil, w, n, 4)
	if Codec(enc[0]) != Order0 {
		t.Fatalf("stream %v", Codec(enc[0]))
	}
	dst := make([]uint64, len(w))
	check := func(name string, err, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	check("width 16", DecodeCounters(dst, enc, n, 16), ErrWidth)
	if _, err := EncodeCounters(nil, w, n, 2); !errors.Is(err, ErrWidth) {
		t.Errorf("encode width 2: %v", err)
	}
	if _, err := EncodeCounters(nil, w, n+16, 4); !errors.Is(err, ErrLength) {
		t.Errorf("encode short: %v", err)
	}
	check("huge n", DecodeCounters(dst, enc, 1<<63, 4), ErrLength)
	check("dst", DecodeCounters(dst[1:], enc, n, 4), ErrLength)
	check("empty", DecodeCounters(dst, nil, n, 4), ErrTruncated)
	check("bits codec", DecodeCounters(dst, []byte{byte(RANS)}, n, 4), ErrCodec)
	check("k=0 with n>0", DecodeCounters(dst, []byte{byte(Order0), 0}, n, 4), ErrCorrupt)
	check("k=1 value 16", DecodeCounters(dst, []byte{byte(Order0), 1, 16}, n, 4), ErrCorrupt)
	check("k=1 trailing", DecodeCounters(dst, []byte{byte(Order0), 1, 3, 0}, n, 4), ErrTrailing)
	check("k=17", DecodeCounters(dst, []byte{byte(Order0), 17}, n, 4), ErrCorrupt)
	check("bad varint", DecodeCounters(dst, []byte{byte(Order0), 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}, n, 4), ErrCorrupt)
	hdr := []byte{byte(Order0), 2, 0}
	hdr = binary.AppendUvarint(hdr, ransM) // first frequency = M: nothing left
	check("freq sum", DecodeCounters(dst, append(hdr, 0), n, 4), ErrCorrupt)
	check("freq zero", DecodeCounters(dst, []byte{byte(Order0), 2, 0, 0, 0}, n, 4), ErrCorrupt)
	check("value gap", DecodeCounters(dst, []byte{byte(Order0), 2, 9, 1, 9}, n, 4), ErrCorrupt)
	for cut := 0; cut < len(enc); cut += max(1, len(enc)/200) {
		if err := DecodeCounters(dst, enc[:cut], n, 4); err == nil {
			t.Fatalf("truncated at %d of %d decoded", cut, len(enc))
		}
	}
	caught := 0
	for range 300 {
		bad := slices.Clone(enc)
		bad[1+r.IntN(len(bad)-1)] ^= byte(1 + r.IntN(255))
		if DecodeCounters(dst, bad, n, 4) != nil {
			caught++
		}
	}
	if caught < 290 {
		t.Errorf("only %d/300 corruptions detected", caught)
	}
	// Constant arrays are the header alone.
	zero := make([]uint64, 10)
	if enc, _ := EncodeCounters(nil, zero, 160, 4); len(enc) != 3 {
		t.Errorf("zero counters: %x", enc)
	}
}
