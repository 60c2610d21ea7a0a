//go:build !amd64 || purego

package prefetch

import "runtime"

// Words hints that words[p>>shift] will be read soon, for every p in pos:
// shift 6 turns bit positions into word indexes, shift 4 the positions of
// 4-bit counters. This pure-Go twin loads the words: independent loads
// whose results only feed one another's XOR, so the CPU can have several
// misses in flight, as many as its reorder window holds.
func Words(words []uint64, pos []uint64, shift uint) {
	var x uint64
	for _, p := range pos {
		x ^= words[p>>(shift&63)]
	}
	runtime.KeepAlive(x)
}

// Assembly reports whether Words is the PREFETCHT0 loop.
const Assembly = false
