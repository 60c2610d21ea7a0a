package bloom

import (
	"runtime"

	"github.com/bloomcast/bloomcast/hashing"
)

// batchGroup is how many keys a batch operation has in flight at once:
// enough to keep the CPU's line-fill buffers busy (10–12 outstanding misses
// on current x86 cores), few enough that the group's lines stay in L1.
const batchGroup = 16

// ContainsBatch sets out[i] to ContainsHash(hs[i]) for every i. It overlaps
// the memory misses of many keys: a first pass issues one independent load
// per key (the first probe), a second finishes the keys that passed, now in
// cache. out must be at least as long as hs; nothing is allocated.
func (f *Filter) ContainsBatch(hs []hashing.Hash128, out []bool) {
	out = out[:len(hs)]
	for len(hs) > 0 {
		n := min(len(hs), batchGroup)
		g, o := hs[:n], out[:n]
		for j, h := range g {
			o[j] = f.firstProbe(h)
		}
		for j, h := range g {
			if o[j] {
				o[j] = f.ContainsHash(h)
			}
		}
		hs, out = hs[n:], out[n:]
	}
}

// AddBatch adds every hash in hs, overlapping the memory misses as
// ContainsBatch does.
func (f *Filter) AddBatch(hs []hashing.Hash128) {
	f.mustWrite("AddBatch")
	for len(hs) > 0 {
		n := min(len(hs), batchGroup)
		touched := false
		for _, h := range hs[:n] {
			touched = f.firstProbe(h) != touched
		}
		// Keep the loads: without a use of their result the compiler
		// could drop them, and with them the overlap.
		runtime.KeepAlive(touched)
		for _, h := range hs[:n] {
			f.AddHash(h)
		}
		hs = hs[n:]
	}
}

// firstProbe tests h's first probe only: one load whose address does not
// depend on any other key, so the CPU can have many in flight.
func (f *Filter) firstProbe(h hashing.Hash128) bool {
	if !f.fast {
		return true
	}
	x := hashing.Finalize(h.Lo) // the first value of hashing.Probes
	var b uint64
	switch f.layout {
	case Blocked:
		b = hashing.Block(h, f.span)*512 + x>>55
	case Classic:
		b = hashing.Reduce(x, f.m)
	case Partitioned:
		b = hashing.Reduce(x, f.span)
	default:
		b = hashing.Block(h, f.span)*f.blockBits + hashing.Reduce(x, f.blockBits)
	}
	return f.words[b>>6]&(1<<(b&63)) != 0
}
