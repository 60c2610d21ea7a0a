package params

import (
	"fmt"
	"math"
)

// Shape is a filter's geometry: everything the false-positive models need.
// The zero Shape is not valid: Validate reports ErrInvalid (no layout), and
// its FalsePositive and ExpectedFill are NaN.
type Shape struct {
	Layout Layout
	// M is the total number of bits.
	M uint64
	// K is the number of probes per key.
	K int
	// BlockBits is the number of bits per block: BlockedBits for Blocked,
	// the page size for Paged, 0 for Classic and Partitioned.
	BlockBits uint64
}

// Validate checks the shape: a defined layout, M ≥ 1 and 1 ≤ K ≤ MaxK;
// for Partitioned, M a multiple of K; for Blocked, BlockBits == BlockedBits
// and M a multiple of it; for Paged, BlockBits a positive multiple of 64 and
// M a multiple of it; for Classic and Partitioned, BlockBits == 0. The error
// wraps [ErrInvalid] and names the first violated rule.
func (s Shape) Validate() error {
	if !s.Layout.Valid() {
		return invalidf("undefined %v", s.Layout)
	}
	if s.M < 1 {
		return invalidf("M = 0 bits")
	}
	if s.K < 1 || s.K > MaxK {
		return invalidf("K = %d outside [1, %d]", s.K, MaxK)
	}
	switch s.Layout {
	case Classic, Partitioned:
		if s.BlockBits != 0 {
			return invalidf("%v layout with BlockBits = %d, want 0", s.Layout, s.BlockBits)
		}
		if s.Layout == Partitioned && s.M%uint64(s.K) != 0 {
			return invalidf("partitioned M = %d not a multiple of K = %d", s.M, s.K)
		}
	case Blocked:
		if s.BlockBits != BlockedBits {
			return invalidf("blocked layout with BlockBits = %d, want %d", s.BlockBits, BlockedBits)
		}
	case Paged:
		if s.BlockBits == 0 || s.BlockBits%64 != 0 {
			return invalidf("paged BlockBits = %d not a positive multiple of 64", s.BlockBits)
		}
	}
	if s.BlockBits != 0 && s.M%s.BlockBits != 0 {
		return invalidf("%v M = %d not a multiple of BlockBits = %d", s.Layout, s.M, s.BlockBits)
	}
	return nil
}

// FalsePositive returns the probability that a filter of this shape holding
// n distinct keys answers "maybe" for a key it does not hold, under the
// layout's model: [ClassicExact], [PartitionedExact] or the Poisson mixture
// of [BlockedFalsePositive] for Blocked and Paged (see the package
// documentation). It returns 0 for n = 0 and NaN for an invalid shape.
func (s Shape) FalsePositive(n uint64) float64 {
	if s.Validate() != nil {
		return math.NaN()
	}
	switch s.Layout {
	case Classic:
		return ClassicExact(s.M, n, s.K)
	case Partitioned:
		return PartitionedExact(s.M, n, s.K)
	default:
		return BlockedFalsePositive(s.M, n, s.BlockBits, s.K)
	}
}

// ExpectedFill returns the expected fraction of bits set after n distinct
// keys, one minus the probability that a given bit is still 0: for Classic
// 1 − (1 − 1/m)^(k·n); for Partitioned 1 − (1 − 1/s)^n with s = m/k; for
// Blocked and Paged 1 − (1 − (B/m)·(1 − (1 − 1/B)^k))^n, since each key
// touches the bit's block with probability B/m. These are exact (no Poisson
// approximation). It returns NaN for an invalid shape.
func (s Shape) ExpectedFill(n uint64) float64 {
	if s.Validate() != nil {
		return math.NaN()
	}
	nf, m, k := float64(n), float64(s.M), float64(s.K)
	switch s.Layout {
	case Classic:
		return -math.Expm1(k * nf * math.Log1p(-1/m))
	case Partitioned:
		return -math.Expm1(nf * math.Log1p(-k/m))
	default:
		b := float64(s.BlockBits)
		touched := -math.Expm1(k * math.Log1p(-1/b)) // a key in the block sets a given bit
		return -math.Expm1(nf * math.Log1p(-b/m*touched))
	}
}

// BitsPerKey returns M/n, the memory cost per key (+Inf for n = 0).
func (s Shape) BitsPerKey(n uint64) float64 {
	return float64(s.M) / float64(n)
}

// String formats the shape for messages and logs, for example
// "blocked m=1024 k=7 block=512".
func (s Shape) String() string {
	if s.BlockBits == 0 {
		return fmt.Sprintf("%v m=%d k=%d", s.Layout, s.M, s.K)
	}
	return fmt.Sprintf("%v m=%d k=%d block=%d", s.Layout, s.M, s.K, s.BlockBits)
}
