package keyfile

import (
	"slices"

	"github.com/bloomcast/bloomcast/hashing"
)

// Distinct counts distinct keys by the high halves of their 128-bit
// hashes: exact give or take a 64-bit collision (about n²/2^65 of them),
// up to a limit of distinct keys, beyond which it gives up and says so
// (a filter then records the count estimated from its bits, as
// bloom.Filter.SetCountFromBits does). It buffers hashes and
// deduplicates them (sort, compact) whenever the buffer doubles, so its
// memory stays within twice the distinct keys, 8 bytes each.
//
// Make one with NewDistinct. The zero value is usable but has a limit of
// 0: it counts the keys added (Seen), never the distinct ones.
type Distinct struct {
	limit int
	his   []uint64
	next  int  // deduplicate when len(his) reaches next
	over  bool // more than limit distinct keys: no exact count
	seen  uint64
}

// NewDistinct returns a counter of up to limit distinct keys.
func NewDistinct(limit int) *Distinct {
	return &Distinct{limit: limit, next: 1 << 16}
}

// Add counts the key whose hash is h.
func (d *Distinct) Add(h hashing.Hash128) {
	d.seen++
	if d.over {
		return
	}
	d.his = append(d.his, h.Hi)
	if len(d.his) >= d.next {
		d.compact()
	}
}

func (d *Distinct) compact() {
	slices.Sort(d.his)
	d.his = slices.Compact(d.his)
	if len(d.his) > d.limit {
		d.over, d.his = true, nil
		return
	}
	d.next = max(2*len(d.his), 1<<16)
}

// Count returns the number of distinct keys added and true, or false
// when there were more than the limit.
func (d *Distinct) Count() (uint64, bool) {
	if d.over {
		return 0, false
	}
	d.compact()
	if d.over {
		return 0, false
	}
	return uint64(len(d.his)), true
}

// Seen returns the number of keys added, duplicates included.
func (d *Distinct) Seen() uint64 { return d.seen }

// CountDistinct counts the distinct keys among hs, with no limit, as
// Distinct does: it is hashing.CountDistinct.
func CountDistinct(hs []hashing.Hash128) uint64 { return hashing.CountDistinct(hs) }
