//go:build amd64 && !purego

package prefetch

// Bits hints that the words of words holding bits pos will be read soon:
// words[p/64] for every p in pos. Every p/64 must be below len(words); the
// hint itself never faults.
//
//go:noescape
func Bits(words []uint64, pos []uint64)

// Assembly reports whether Bits is the PREFETCHT0 loop.
const Assembly = true
