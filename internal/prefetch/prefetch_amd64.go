//go:build amd64 && !purego

package prefetch

// Words hints that words[p>>shift] will be read soon, for every p in pos:
// shift 6 turns bit positions into word indexes, shift 4 the positions of
// 4-bit counters. Every p>>shift must be below len(words); the hint itself
// never faults.
//
//go:noescape
func Words(words []uint64, pos []uint64, shift uint)

// Assembly reports whether Words is the PREFETCHT0 loop.
const Assembly = true
