package main

import (
	"math"
	"slices"

	"github.com/bloomcast/bloomcast/hashing"
)

// maxExactDistinct bounds the keys build counts exactly: 2^24 distinct
// keys, held as 64-bit hashes (at most 256 MiB while deduplicating).
// Beyond it the count recorded is the estimate from the bits, marked as
// such (bloom.Filter.SetCountFromBits).
var maxExactDistinct = 1 << 24 // a variable so that tests can lower it

// distinctCounter counts distinct keys by the high halves of their
// hashes: exact give or take a 64-bit collision (about n²/2^65 of them),
// up to limit distinct keys. It buffers hashes and deduplicates (sort,
// compact) whenever the buffer doubles, so memory stays within twice the
// distinct keys.
type distinctCounter struct {
	limit int
	his   []uint64
	next  int  // deduplicate when len(his) reaches next
	over  bool // more than limit distinct keys: no exact count
	seen  uint64
}

func newDistinctCounter(limit int) *distinctCounter {
	return &distinctCounter{limit: limit, next: 1 << 16}
}

// add counts the key whose hash is h.
func (d *distinctCounter) add(h hashing.Hash128) {
	d.seen++
	if d.over {
		return
	}
	d.his = append(d.his, h.Hi)
	if len(d.his) >= d.next {
		d.compact()
	}
}

func (d *distinctCounter) compact() {
	slices.Sort(d.his)
	d.his = slices.Compact(d.his)
	if len(d.his) > d.limit {
		d.over, d.his = true, nil
		return
	}
	d.next = max(2*len(d.his), 1<<16)
}

// count returns the number of distinct keys and true, or false when
// there were more than the limit.
func (d *distinctCounter) count() (uint64, bool) {
	if d.over {
		return 0, false
	}
	d.compact()
	if d.over {
		return 0, false
	}
	return uint64(len(d.his)), true
}

// read returns the number of keys added, duplicates included.
func (d *distinctCounter) read() uint64 { return d.seen }

// distinctHashes counts the distinct keys among hs, with no limit.
func distinctHashes(hs []hashing.Hash128) uint64 {
	d := newDistinctCounter(math.MaxInt)
	for _, h := range hs {
		d.add(h)
	}
	n, _ := d.count()
	return n
}
