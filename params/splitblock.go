package params

import "math"

// SplitBlockFalsePositive returns the false-positive rate of a split block
// Bloom filter (the SBBF of Apache Parquet, BloomFilter.md) of z blocks of
// eight 32-bit lanes holding n distinct keys: each key picks one block and
// sets one bit in each lane. Following Putze, Sanders and Singler
// ("Cache-, Hash- and Space-Efficient Bloom Filters", WEA 2007) the number
// j of keys in the queried block is Poisson with mean λ = n/z; within the
// block the lanes are split Bloom filters of 32 bits and one probe each, so
// a lane's bit is set with probability exactly 1 − (31/32)^j and, lanes
// being independent, an absent key passes with probability
//
//	f = Σ_j Pois(j; λ) · (1 − (31/32)^j)^8.
//
// (With one probe per lane the block term is exact, unlike the classic
// block term of Putze et al. that BlockedFalsePositive corrects.) The sum
// covers λ ± 14√λ + 50, beyond which the Poisson mass is below 1e−40. It
// returns 0 for n = 0 and NaN for z = 0.
//
// BloomFilter.md sizes for p with c = −8/ln(1 − p^(1/8)) bits per key,
// which is (1 − e^(−λ/32))^8 = p solved for λ = 256/c: every block holding
// exactly λ keys. The spread of block loads costs more than that: at
// c = 9.68 (p = 1%) the rate is 1.46%, and 1% needs about 10.5 bits per
// key. The tests check the model against a simulation of the layout.
func SplitBlockFalsePositive(z, n uint64) float64 {
	if n == 0 {
		return 0
	}
	if z == 0 {
		return math.NaN()
	}
	lambda := float64(n) / float64(z)
	spread := 14*math.Sqrt(lambda) + 50
	lo := math.Max(0, math.Floor(lambda-spread))
	hi := math.Ceil(lambda + spread)
	sum := 0.0
	for j := lo; j <= hi; j++ {
		lane := -math.Expm1(j * math.Log1p(-1.0/32))
		sum += poissonPMF(j, lambda) * math.Pow(lane, 8)
	}
	return sum
}
