package fuse

import (
	"errors"
	"math"
	"testing"
)

// TestFuseFormulas pins the paper's segment lengths and size factors at a
// few n, worked by hand from section 5 of Graf and Lemire (2022).
func TestFuseFormulas(t *testing.T) {
	for _, c := range []struct {
		arity int
		n     uint64
		l     uint64
		c     float64
	}{
		// ln(10^5)/ln 3.33 + 2.25 = 11.82: L = 2^11; 0.875 + 0.25·6/5 = 1.175.
		{3, 100000, 2048, 1.175},
		// ln(10^7)/ln 3.33 + 2.25 = 15.65: L = 2^15; 0.875 + 0.25·6/7 = 1.0893 < 1.125.
		{3, 10000000, 32768, 1.125},
		// ln(10^5)/ln 2.91 − 0.5 = 10.31: L = 2^10; 0.77 + 0.305·ln(6·10^5)/ln(10^5) = 1.1187.
		{4, 100000, 1024, 0.77 + 0.305*math.Log(600000)/math.Log(100000)},
		// Past 2^18 the segment length stays there.
		{3, 1 << 40, MaxSegmentLength, 1.125},
		{4, 1 << 50, MaxSegmentLength, 1.075},
	} {
		if got := SegmentLength(c.arity, c.n); got != c.l {
			t.Errorf("%d-wise, n = %d: L = %d, want %d", c.arity, c.n, got, c.l)
		}
		if got := SizeFactor(c.arity, c.n); math.Abs(got-c.c) > 1e-12 {
			t.Errorf("%d-wise, n = %d: c = %g, want %g", c.arity, c.n, got, c.c)
		}
	}
	// 10^5 keys, 3-wise: round(1.175·10^5) = 117500 slots, 58 segments of
	// 2048 (57.4 rounded up): 118784 slots of 8 bits, 9.503 bits per key.
	s, err := OfBits(100000, 3, 8)
	if err != nil {
		t.Fatal(err)
	}
	if s.Segments != 58 || s.Slots() != 118784 || s.SizeBits() != 8*118784 {
		t.Errorf("%s: %d slots", s, s.Slots())
	}
	if got := s.TimesBound(); math.Abs(got-9.50272/8) > 1e-4 {
		t.Errorf("× bound %g", got)
	}
	// A filter of one key is the arity segments.
	if s, _ := OfBits(1, 4, 8); s.Segments != 4 || s.Slots() == 0 {
		t.Errorf("one key: %+v", s)
	}
}

func TestFuseSize(t *testing.T) {
	for _, c := range []struct {
		p    float64
		bits int
	}{{0.5, 1}, {0.3, 2}, {0.01, 7}, {1.0 / 256, 8}, {0.0039, 9}, {math.Ldexp(1, -32), 32}} {
		s, err := Size(1000, 3, c.p)
		if err != nil {
			t.Fatalf("p = %g: %v", c.p, err)
		}
		if s.Bits != c.bits || s.FalsePositiveRate() > c.p {
			t.Errorf("p = %g: %d bits, rate %g", c.p, s.Bits, s.FalsePositiveRate())
		}
	}
	// At large n the factors reach their floors: 1.125 and 1.075 × the
	// bound, plus the last segments.
	for _, c := range []struct {
		arity int
		times float64
	}{{3, 1.13}, {4, 1.08}} {
		s, _ := Size(1e9, c.arity, 1.0/256)
		if s.TimesBound() > c.times || s.TimesBound() < c.times-0.01 {
			t.Errorf("%d-wise at 10^9: × %g", c.arity, s.TimesBound())
		}
	}
	if s, err := Size(0, 3, 0.01); err != nil || s.Slots() != 0 || s.FalsePositiveRate() != 0 {
		t.Errorf("n = 0: %+v %v", s, err)
	}
	for _, p := range []float64{0, 1, math.NaN(), 1e-10} {
		if _, err := Size(100, 3, p); !errors.Is(err, ErrInvalid) {
			t.Errorf("p = %g: %v", p, err)
		}
	}
	for _, c := range []struct{ arity, r int }{{2, 8}, {5, 8}, {3, 0}, {4, 33}} {
		if _, err := OfBits(100, c.arity, c.r); !errors.Is(err, ErrInvalid) {
			t.Errorf("arity %d, r = %d: %v", c.arity, c.r, err)
		}
	}
}
