package entropy

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// positions returns the ones of words.
func positions(words []uint64) []uint64 {
	var pos []uint64
	for i, w := range words {
		for ; w != 0; w &= w - 1 {
			pos = append(pos, uint64(64*i+bits.TrailingZeros64(w)))
		}
	}
	return pos
}

func TestGapsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, m := range []uint64{0, 1, 63, 64, 65, 1000, 100000, 1 << 20} {
		for _, p := range []float64{0, 1e-5, 0.001, 0.05, 0.5, 1} {
			w := masked(randomBits(r, m, p), m)
			pos := positions(w)
			enc, err := AppendGaps([]byte{0xAA}, pos, m)
			if err != nil {
				t.Fatal(err)
			}
			if enc[0] != 0xAA || Codec(enc[1]) != Gaps {
				t.Fatalf("m %d p %g: stream does not follow dst or lacks its codec byte", m, p)
			}
			got := make([]uint64, wordsFor(m))
			n, err := XORGaps(got, enc[1:], m)
			if err != nil || n != uint64(len(pos)) || !slices.Equal(got, w) {
				t.Fatalf("m %d p %g: %d of %d ones, %v", m, p, n, len(pos), err)
			}
			// Applied twice, a delta cancels.
			if _, err := XORGaps(got, enc[1:], m); err != nil || slices.ContainsFunc(got, func(v uint64) bool { return v != 0 }) {
				t.Fatalf("m %d p %g: XOR twice is not zero (%v)", m, p, err)
			}
		}
	}
}

// TestGapsLongGaps: gaps whose low bits take more than one chunk of 16.
func TestGapsLongGaps(t *testing.T) {
	const m = 1 << 22
	pos := []uint64{5, 6, 1<<21 + 1, m - 1}
	enc, err := AppendGaps(nil, pos, m)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]uint64, wordsFor(m))
	if n, err := XORGaps(dst, enc, m); err != nil || n != 4 || !slices.Equal(positions(dst), pos) {
		t.Fatalf("%d ones at %v: %v", n, positions(dst), err)
	}
}

func TestGapsErrors(t *testing.T) {
	if _, err := AppendGaps(nil, []uint64{3, 3}, 10); !errors.Is(err, ErrLength) {
		t.Errorf("repeated position: %v", err)
	}
	if _, err := AppendGaps(nil, []uint64{10}, 10); !errors.Is(err, ErrLength) {
		t.Errorf("position past m: %v", err)
	}
	enc, _ := AppendGaps(nil, []uint64{1, 50, 900}, 1000)
	dst := make([]uint64, wordsFor(1000))
	if _, err := XORGaps(dst, enc[:len(enc)-1], 1000); !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: %v", err)
	}
	if _, err := XORGaps(dst, append(enc, 0), 1000); !errors.Is(err, ErrTrailing) && !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing byte: %v", err)
	}
	if _, err := XORGaps(dst, enc, 800); err == nil {
		t.Error("a position past a shorter array decoded")
	}
	if _, err := XORGaps(dst[:1], enc, 1000); !errors.Is(err, ErrLength) {
		t.Errorf("short dst: %v", err)
	}
	if _, err := XORGaps(dst, []byte{byte(Arith), 0}, 1000); !errors.Is(err, ErrCodec) {
		t.Errorf("another codec: %v", err)
	}
}

// TestGapsSize: on random sparse arrays the gap code is within 2% (plus
// 8 bytes) of the arithmetic coder's.
func TestGapsSize(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const m = 1 << 22
	for _, p := range []float64{1e-4, 1e-3, 1e-2, 0.05} {
		w := masked(randomBits(r, m, p), m)
		g, _ := AppendGaps(nil, positions(w), m)
		a, _ := EncodeBits(nil, w, m, Arith)
		t.Logf("p %g: gaps %d B, arith %d B", p, len(g), len(a))
		if float64(len(g)) > 1.02*float64(len(a))+8 {
			t.Errorf("p %g: gaps %d bytes, arith %d", p, len(g), len(a))
		}
	}
}

func FuzzXORGaps(f *testing.F) {
	r := rand.New(rand.NewPCG(20, 21))
	for _, m := range []uint64{1, 64, 1000, 5000} {
		for _, p := range []float64{0, 0.01, 0.1} {
			enc, _ := AppendGaps(nil, positions(masked(randomBits(r, m, p), m)), m)
			f.Add(enc, m)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, m uint64) {
		m %= fuzzMaxBits
		dst := make([]uint64, wordsFor(m))
		n, err := XORGaps(dst, src, m)
		if err != nil {
			return
		}
		if err := checkTail(dst, m); err != nil {
			t.Fatal("decoded bits past m")
		}
		pos := positions(dst)
		if uint64(len(pos)) != n {
			t.Fatalf("%d flips, %d ones", n, len(pos))
		}
		// One spelling: the encoder writes the stream back.
		enc, err := AppendGaps(nil, pos, m)
		if err != nil || !slices.Equal(enc, src) {
			t.Fatalf("re-encoding differs (%v)", err)
		}
	})
}

// TestGapReaderPieces: read a run of words at a time, a stream flips the
// same bits as XORGaps, and Close reports ones left unread.
func TestGapReaderPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const m = 100000
	w := masked(randomBits(r, m, 0.003), m)
	enc, _ := AppendGaps(nil, positions(w), m)
	for _, run := range []int{1, 7, 64, 1563} {
		g, err := NewGapReader(enc, m)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uint64, wordsFor(m))
		for i := 0; i < len(got); i += run {
			end := min(i+run, len(got))
			if err := g.XOR(got[i:end], uint64(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Close(); err != nil || !slices.Equal(got, w) {
			t.Fatalf("runs of %d words: %v", run, err)
		}
	}
	g, _ := NewGapReader(enc, m)
	if err := g.XOR(make([]uint64, 10), 0); err != nil {
		t.Fatal(err)
	}
	if err := g.XOR(make([]uint64, 10), 5); !errors.Is(err, ErrLength) {
		t.Errorf("words read again: %v", err)
	}
	if err := g.Close(); !errors.Is(err, ErrLength) {
		t.Errorf("Close with ones unread: %v", err)
	}
}

// TestGapsGolden pins the Gaps stream: a change here is a format change.
func TestGapsGolden(t *testing.T) {
	w := []uint64{0x8000_0000_0100_0001, 0x0000_0000_0003_0000, 0x0FF5}
	const m = 140
	enc, err := AppendGaps(nil, positions(w), m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%x", enc), "070f00d769669ea082423c470000"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
	got := make([]uint64, wordsFor(m))
	if _, err := XORGaps(got, enc, m); err != nil || !slices.Equal(got, w) {
		t.Fatalf("round trip: %v", err)
	}
}
