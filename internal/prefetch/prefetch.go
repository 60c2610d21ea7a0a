// Package prefetch asks the CPU to start loading memory that a batch
// operation will read shortly, so that the misses of many keys overlap.
//
// Go has no prefetch intrinsic outside the runtime. On amd64 [Words] is a
// loop of PREFETCHT0 instructions in assembly (prefetch_amd64.s); with the
// purego build tag or on other architectures it is a pure-Go twin that
// loads the words instead (prefetch_generic.go). Both are hints: neither
// changes what the caller computes, and the tests of every batch operation
// run against both (`go test -tags purego`).
//
// The technique is software pipelining as in Chen, Gibbons, Mowry and
// Valentin, "Fractal prefetching B+-trees" (SIGMOD 2002) and the group
// prefetching of Chen, Ailamaki, Gibbons and Mowry, "Improving hash join
// performance through prefetching" (ICDE 2004): compute the addresses of a
// group of independent lookups, prefetch them all, and do the lookups of
// the previous group while the lines arrive.
package prefetch

// MaxPositions bounds how many positions one call of Words should be given:
// more than a few dozen outstanding lines only queue behind the CPU's
// line-fill buffers.
const MaxPositions = 64
