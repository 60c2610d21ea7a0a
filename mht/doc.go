// Package mht implements the multilevel hash table of Broder and Karlin
// ("Multilevel adaptive hashing", SODA 1990) with the summaries of Kirsch
// and Mitzenmacher ("Simple summaries for hashing with multiple choices",
// IEEE/ACM Transactions on Networking 16(1), 2008), which tell a lookup
// which sub-table holds a key so that it touches one bucket of the table.
//
// A [Table] has d sub-tables T1..Td of decreasing sizes (given, or
// geometric: a first size and a ratio), each bucket holding one item: a
// key and a uint64 value. The table stores a key as its 128-bit hash
// ([hashing.Hash128], XXH3-128 with the table's seed): two keys whose whole
// 128-bit hashes agree (probability 2^−128 per pair) are one key. The item
// goes to T_i at h_i(x) for the smallest i whose bucket is empty; if all d
// are full that is a crisis, [ErrCrisis], and nothing is stored, moved or
// overwritten. The d bucket indexes h_1(x)..h_d(x) are the first d values
// of the key's probe sequence ([hashing.Probes]), each reduced to its
// sub-table by multiply-shift.
//
// A [Summary] lives in fast memory beside the table and maps a key to its
// type, the sub-table holding it (1..d), or 0 for "absent". The table
// keeps its summary up to date on every insertion and deletion; a lookup
// asks the summary and reads one bucket, and falls back to the other
// sub-tables only when the summary was wrong, which it records as a false
// positive (an absent key the summary called present) or a type failure (a
// present key the summary put in the wrong sub-table). [Result.Touched]
// counts the buckets read. The summaries, each its own type:
//
//   - [Song]: the baseline of Song, Dharmapurikar, Turner and Lockwood
//     ("Fast hash table lookup using extended Bloom filter", SIGCOMM 2005),
//     a counter per bucket naming the sub-table of least count; it is
//     right only for the table it was designed for, [FHT], which keeps
//     each item in the bucket of its smallest counter (pruning) and moves
//     items when that changes (relocation), its buckets holding lists;
//   - [Interp]: a b-bit hash of each item with its type, kept sorted and
//     searched by interpolation; two items with one hash fail construction
//     ([ErrCollision]);
//   - [SF], the single filter: cells hold types, an insertion writes
//     max(cell, type) into k cells and a lookup takes the minimum; with
//     counters (a counter per type in each cell) it supports deletion;
//   - [MBF], multiple Bloom filters: B_1 holds every item and B_i those of
//     type ≥ i, each sized to the skew of the table; counting filters
//     support deletion.
//
// Summaries hash independently of the table: each derives its probes from
// the key's hash scrambled with a constant of its own.
//
// Deletion removes the item from its bucket and from the summary when the
// summary can forget (counting SF and MBF, interpolation search, Song);
// with Config.LazyDelete the table instead marks the bucket deleted (a bit
// per bucket) and rebuilds table and summary once that many items are
// marked, as the paper suggests for summaries without counters.
//
// The calculator of Kirsch and Mitzenmacher computes the occupancy, crisis
// probability and every summary's bounds ([NewOccupancy], occupancy.go)
// and the figures of Song et al.'s table ([Occupancy.SongBounds],
// song_bounds.go); [Plan.Calculate] runs it and [Plan.Simulate] measures
// the same figures.
// Tables travel in the bloomcast frame as structure type 6 and summaries
// as types 7 (interpolation search), 8 (single filter and Song's counters)
// and 9 (multiple Bloom filters). A Table is not safe for concurrent use:
// lookups update its statistics.
package mht
