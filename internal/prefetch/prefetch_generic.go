//go:build !amd64 || purego

package prefetch

import "runtime"

// Bits hints that the words of words holding bits pos will be read soon:
// words[p/64] for every p in pos. This pure-Go twin loads the words:
// independent loads whose results only feed one another's XOR, so the CPU
// can have several misses in flight, as many as its reorder window holds.
func Bits(words []uint64, pos []uint64) {
	var x uint64
	for _, p := range pos {
		x ^= words[p>>6]
	}
	runtime.KeepAlive(x)
}

// Assembly reports whether Bits is the PREFETCHT0 loop.
const Assembly = false
