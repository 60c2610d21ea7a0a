package counting

import (
	"fmt"
	"runtime"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// batchGroup is how many keys a batch has in flight, as in bloom: enough
// independent memory misses to keep the line-fill buffers busy.
const batchGroup = 16

// AddBatch adds every hash in hs, in order. It overlaps the memory misses
// of a group of keys: a first pass computes each key's positions and loads
// their counter and bit words (counter words only without a bit view),
// with no branch on what it loads, so the CPU has the whole group's misses
// in flight at once; a second pass does the adds on lines now in cache. It
// allocates nothing.
func (f *Filter) AddBatch(hs []hashing.Hash128) {
	var group [batchGroup][params.MaxK]uint64
	for len(hs) > 0 {
		n := min(len(hs), batchGroup)
		pos := f.prefetch(hs[:n], &group)
		for j := range pos[:n] {
			f.count++
			switch {
			case f.minInc:
				f.raiseMinimum(pos[j])
			case f.bits == nil:
				f.incrementCounters(pos[j])
			default:
				f.incrementAll(pos[j])
			}
		}
		hs = hs[n:]
	}
}

// prefetch writes the positions of each hash of hs (at most batchGroup)
// into group, loads every counter word and bit word they touch (counter
// words only without a bit view), and returns the positions.
func (f *Filter) prefetch(hs []hashing.Hash128, group *[batchGroup][params.MaxK]uint64) (pos [batchGroup][]uint64) {
	var sink uint64
	for j, h := range hs {
		pos[j] = f.geo.Positions(h, &group[j])
		if f.bits == nil {
			for _, b := range pos[j] {
				sink += f.counters[b>>f.perShift]
			}
			continue
		}
		for _, b := range pos[j] {
			sink += f.counters[b>>f.perShift] + f.bits[b>>6]
		}
	}
	// Keep the loads: without a use of their result the compiler could
	// drop them, and with them the overlap.
	runtime.KeepAlive(sink)
	return pos
}

// ContainsBatch sets out[i] to ContainsHash(hs[i]) for every i, overlapping
// memory misses as bloom.Filter.ContainsBatch does (it is that method, on
// the bit view). Without a bit view it asks key by key: the counters-only
// query loop is short enough that the CPU already overlaps the misses of
// consecutive keys, and a prefetching pass over a group (as CountBatch
// makes) measured slower, out of cache and in it. out must be at least as
// long as hs. It allocates nothing.
func (f *Filter) ContainsBatch(hs []hashing.Hash128, out []bool) {
	if f.view != nil {
		f.view.ContainsBatch(hs, out)
		return
	}
	out = out[:len(hs)]
	for i, h := range hs {
		out[i] = f.containsCounters(h)
	}
}

// CountBatch sets out[i] to CountHash(hs[i]) for every i, overlapping
// memory misses as AddBatch does. out must be at least as long as hs. It
// allocates nothing.
func (f *Filter) CountBatch(hs []hashing.Hash128, out []uint64) {
	var group [batchGroup][params.MaxK]uint64
	out = out[:len(hs)]
	for len(hs) > 0 {
		n := min(len(hs), batchGroup)
		pos := f.prefetch(hs[:n], &group)
		for j := range pos[:n] {
			out[j] = f.minimum(pos[j])
		}
		hs, out = hs[n:], out[n:]
	}
}

// RemoveBatch removes every hash in hs, in order, each as RemoveHash does:
// a key that is refused changes nothing and the others are still removed.
// It returns the number removed and, if any was refused, an error wrapping
// ErrNotPresent (or ErrNoRemoval) that says how many. It overlaps memory
// misses as AddBatch does.
func (f *Filter) RemoveBatch(hs []hashing.Hash128) (int, error) {
	if f.minInc {
		return 0, ErrNoRemoval
	}
	var group [batchGroup][params.MaxK]uint64
	removed, total := 0, len(hs)
	for len(hs) > 0 {
		n := min(len(hs), batchGroup)
		pos := f.prefetch(hs[:n], &group)
		for j := range pos[:n] {
			if f.removeAt(pos[j]) == nil {
				removed++
			}
		}
		hs = hs[n:]
	}
	if refused := total - removed; refused > 0 {
		return removed, fmt.Errorf("%w: %d of %d keys refused", ErrNotPresent, refused, total)
	}
	return removed, nil
}
