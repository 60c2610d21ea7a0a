package hashing

import "slices"

// CountDistinct returns the number of distinct keys among the hashes hs,
// told apart by their high 64 bits: exact give or take a collision of two
// keys' high halves (about n²/2^65 of them for n keys). It is what a
// structure built from hashed keys is sized for when the caller does not
// know how many keys are distinct. It sorts a copy of the high halves, 8
// bytes per hash.
func CountDistinct(hs []Hash128) uint64 {
	his := make([]uint64, len(hs))
	for i, h := range hs {
		his[i] = h.Hi
	}
	slices.Sort(his)
	return uint64(len(slices.Compact(his)))
}
