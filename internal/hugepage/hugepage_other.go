//go:build !linux || purego

package hugepage

// Words returns a zeroed slice of n words: make([]uint64, n), since this
// build gives no huge page advice.
func Words(n uint64) []uint64 { return make([]uint64, n) }
