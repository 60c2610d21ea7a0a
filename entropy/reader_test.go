package entropy

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// readAll decodes src with a BitReader, chunk words at a time.
func readAll(src []byte, m uint64, c Codec, chunk int) ([]uint64, error) {
	r, err := NewBitReader(src, m, c)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, wordsFor(m))
	for lo := 0; lo < len(out); lo += chunk {
		if err := r.Read(out[lo:min(lo+chunk, len(out))]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func TestBitReader(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, m := range []uint64{0, 1, 63, 64, 65, 1000, 5000, 70001} {
		for _, p := range []float64{0, 0.003, 0.1, 0.5, 1} {
			w := randomBits(r, m, p)
			for _, c := range []Codec{Arith, Fast, Raw, RANS} {
				enc, err := EncodeBits(nil, w, m, c)
				if err != nil {
					t.Fatal(err)
				}
				for _, chunk := range []int{1, 3, 8, 64, 10000} {
					got, err := readAll(enc, m, c, chunk)
					if err != nil || !slices.Equal(got, masked(w, m)) {
						t.Fatalf("m %d p %g %v chunk %d: %v", m, p, c, chunk, err)
					}
				}
				// A truncated or extended stream fails as DecodeBits fails.
				for _, bad := range [][]byte{enc[:len(enc)-1], append(slices.Clone(enc), 0)} {
					if len(bad) == 0 {
						continue
					}
					derr := DecodeBits(make([]uint64, wordsFor(m)), bad, m, c)
					_, rerr := readAll(bad, m, c, 5)
					if (derr == nil) != (rerr == nil) {
						t.Fatalf("m %d p %g %v, %d bytes: DecodeBits %v, BitReader %v", m, p, c, len(bad), derr, rerr)
					}
				}
			}
		}
	}
}

func TestBitReaderMisuse(t *testing.T) {
	var zero BitReader
	if err := zero.Read(make([]uint64, 1)); !errors.Is(err, ErrCodec) {
		t.Errorf("zero BitReader: %v", err)
	}
	enc, _ := EncodeBits(nil, []uint64{5, 7}, 100, Arith)
	r, err := NewBitReader(enc, 100, Arith)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Read(make([]uint64, 3)); !errors.Is(err, ErrLength) {
		t.Errorf("reading 3 words of 2: %v", err)
	}
	if _, err := NewBitReader(enc, 100, RANS); !errors.Is(err, ErrCodec) {
		t.Errorf("an arith stream read as rans: %v", err)
	}
	dst := make([]uint64, 1)
	if err := r.Read(dst); err != nil || dst[0] != 5 {
		t.Fatalf("first word %d: %v", dst[0], err)
	}
	if err := r.Read(dst); err != nil || dst[0] != 7 {
		t.Fatalf("second word %d: %v", dst[0], err)
	}
	if err := r.Read(dst); !errors.Is(err, ErrLength) {
		t.Errorf("past the end: %v", err)
	}
}

// FuzzBitReader: a BitReader, whatever its run lengths, reads what
// DecodeBits decodes and fails where it fails.
func FuzzBitReader(f *testing.F) {
	seedBits(f, Arith, Fast)
	f.Fuzz(func(t *testing.T, src []byte, m uint64) {
		m %= fuzzMaxBits
		want := make([]uint64, wordsFor(m))
		derr := DecodeBits(want, src, m, Fast)
		c := Fast
		if errors.Is(derr, ErrCodec) {
			c = Arith
			derr = DecodeBits(want, src, m, Arith)
		}
		got, rerr := readAll(src, m, c, 1+int(m%7))
		if (derr == nil) != (rerr == nil) {
			t.Fatalf("DecodeBits %v, BitReader %v", derr, rerr)
		}
		if derr == nil && !slices.Equal(got, want) {
			t.Fatal("BitReader and DecodeBits differ")
		}
	})
}

// readCounters decodes counters with a counter reader, chunk words at a
// time.
func readCounters(src []byte, n uint64, width uint, chunk int) ([]uint64, error) {
	r, err := NewCounterReader(src, n, width)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, r.Words())
	for lo := 0; lo < len(out); lo += chunk {
		if err := r.Read(out[lo:min(lo+chunk, len(out))]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TestCounterReader: a counter reader, whatever its run lengths, reads
// what DecodeCounters decodes, from every stream EncodeCounters writes
// (raw, constant, order 0), and fails where it fails.
func TestCounterReader(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, width := range []uint{4, 8} {
		for _, n := range []uint64{0, 1, 15, 16, 17, 1000, 5001} {
			for _, mean := range []float64{0, 0.05, 3, 200} {
				w := poissonCounters(r, n, width, mean)
				enc, err := EncodeCounters(nil, w, n, width)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]uint64, wordsFor(n*uint64(width)))
				if err := DecodeCounters(want, enc, n, width); err != nil {
					t.Fatal(err)
				}
				for _, chunk := range []int{1, 3, 8, 10000} {
					got, err := readCounters(enc, n, width, chunk)
					if err != nil || !slices.Equal(got, want) {
						t.Fatalf("width %d n %d mean %g, codec %v, chunk %d: %v", width, n, mean, Codec(enc[0]), chunk, err)
					}
				}
				for _, bad := range [][]byte{enc[:len(enc)-1], append(slices.Clone(enc), 0)} {
					derr := DecodeCounters(make([]uint64, len(want)), bad, n, width)
					_, rerr := readCounters(bad, n, width, 5)
					if (derr == nil) != (rerr == nil) {
						t.Fatalf("width %d n %d mean %g, %d bytes: DecodeCounters %v, reader %v", width, n, mean, len(bad), derr, rerr)
					}
				}
			}
		}
	}
}
