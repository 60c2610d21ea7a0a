package ribbon

import (
	"errors"
	"math"
	"testing"
)

func TestSize(t *testing.T) {
	for _, n := range []uint64{1, 4, 200, 1000, 100000, 10000000} {
		for _, p := range []float64{0.5, 0.3, 0.1, 0.01, 1.0 / 256, 0.001, 1e-6, math.Ldexp(1, -32)} {
			s, err := Size(n, p)
			if err != nil {
				t.Fatalf("n = %d, p = %g: %v", n, p, err)
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("n = %d, p = %g: %v", n, p, err)
			}
			if got := s.FalsePositiveRate(); got > p {
				t.Errorf("n = %d, p = %g: rate %g above p (%s)", n, p, got, s)
			}
			// No shape with fewer bits on the same blocks meets p.
			for h := uint64(0); h < s.Blocks; h++ {
				for _, r := range []int{s.Bits - 1, s.Bits} {
					alt := Shape{Keys: n, Blocks: s.Blocks, Bits: r, HiBlocks: h}
					if alt.Validate() == nil && alt.SizeBits() < s.SizeBits() && alt.FalsePositiveRate() <= p {
						t.Errorf("n = %d, p = %g: %s (%d bits) beats %s (%d bits)", n, p, alt, alt.SizeBits(), s, s.SizeBits())
					}
				}
			}
		}
	}
}

func TestSizeAtScale(t *testing.T) {
	for _, c := range []struct {
		n     uint64
		p     float64
		times float64 // at most, × the bound
	}{{100000, 1.0 / 256, 1.05}, {100000, 0.01, 1.06}, {10000000, 1.0 / 256, 1.065}, {10000000, 0.01, 1.075}} {
		s, _ := Size(c.n, c.p)
		if s.TimesBound() > c.times {
			t.Errorf("n = %d, p = %g: %s is %.4f × the bound", c.n, c.p, s, s.TimesBound())
		}
	}
}

func TestRibbonErrors(t *testing.T) {
	for _, p := range []float64{0, 1, -0.1, math.NaN(), 1e-10} {
		if _, err := Size(100, p); !errors.Is(err, ErrConfig) {
			t.Errorf("p = %g: %v", p, err)
		}
	}
	for _, r := range []int{0, 33} {
		if _, err := OfBits(100, r); !errors.Is(err, ErrConfig) {
			t.Errorf("r = %d: %v", r, err)
		}
	}
	for _, s := range []Shape{
		{Keys: 1, Blocks: 1, Bits: 8}, {Keys: 1, Blocks: 3, Bits: 0}, {Keys: 1, Blocks: 3, Bits: 8, HiBlocks: 4},
		{Keys: 1, Blocks: 3, Bits: 32, HiBlocks: 1}, {Keys: 193, Blocks: 3, Bits: 8}, {Keys: 1, Bits: 8},
		{Keys: 1, Blocks: maxBlocks + 1, Bits: 1},
	} {
		if err := s.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

func TestShapeFormulas(t *testing.T) {
	s := Shape{Keys: 100, Blocks: 4, Bits: 6, HiBlocks: 1}
	// 256 slots, 129 starts, 64 of them in the first block.
	if s.Starts() != 129 || s.HiWords() != 3 || s.SizeBits() != 64*(24+3) {
		t.Errorf("starts %d, hi words %d, bits %d", s.Starts(), s.HiWords(), s.SizeBits())
	}
	if want := math.Ldexp(1-64.0/129/2, -6); math.Abs(s.FalsePositiveRate()-want) > 1e-15 {
		t.Errorf("rate %g, want %g", s.FalsePositiveRate(), want)
	}
	if got, want := s.Bound(), 100*math.Log2(1/s.FalsePositiveRate()); math.Abs(got-want) > 1e-9 {
		t.Errorf("bound %g, want %g", got, want)
	}
	var z Shape
	if z.FalsePositiveRate() != 0 || z.SizeBits() != 0 || z.Validate() != nil {
		t.Error("the zero shape")
	}
}
