package mht

import "github.com/bloomcast/bloomcast/hashing"

// bucketIn returns h's bucket in sub-table i (0-based) of m buckets: the
// i-th value of h's probe sequence reduced by multiply-shift.
func bucketIn(h hashing.Hash128, i int, m uint64) uint64 {
	p := hashing.NewProbes(h)
	v := p.Next()
	for ; i > 0; i-- {
		v = p.Next()
	}
	return hashing.Reduce(v, m)
}

// mix64 is the finaliser of SplitMix64 (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014): a bijection
// whose every output bit depends on every input bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Salts that make each summary's hashes independent of the table's and of
// each other's. A summary structure s uses salted(h, salt+s).
const (
	saltSF     = 0x5346_0000_0000_0001
	saltMBF    = 0x4d42_4600_0000_0001 // + filter index
	saltInterp = 0x494e_5450_0000_0001
)

// salted scrambles h with salt into an unrelated Hash128 (both halves pass
// through a bijection, so it stays uniform).
func salted(h hashing.Hash128, salt uint64) hashing.Hash128 {
	return hashing.Hash128{Lo: mix64(h.Lo ^ salt), Hi: mix64(h.Hi + salt*hashing.StepMultiplier)}
}
