// Package hugepage allocates the large word arrays of filters so that the
// operating system may back them with huge pages (2 MiB on amd64 Linux).
//
// A query of a filter far larger than the caches reads one or more random
// lines, and with 4 KiB pages each of them also misses the TLB: the CPU
// walks the page tables before the load can start, and on a virtual
// machine that walk is two-dimensional. One 2 MiB page covers what 512
// small ones do, so a filter of a few hundred megabytes fits in the TLB.
//
// Linux backs a range with transparent huge pages when the system setting
// (/sys/kernel/mm/transparent_hugepage/enabled) is "always", or is
// "madvise" (the usual default) and the range was advised. [Words] gives
// that advice for a large allocation on Linux (hugepage_linux.go);
// elsewhere, or with the purego build tag, it is a plain make
// (hugepage_other.go). Either way the result is an ordinary, zeroed,
// garbage-collected slice: the advice is a hint that changes no value, and
// where the kernel declines it nothing else changes.
//
// The advice belongs to the address range, not to the slice. When the
// garbage collector frees a filter's array, the Go heap reuses the range
// for other objects of the process, which the kernel may then back with
// huge pages too: a bits-and-blooms filter of 2·10^7 keys built after a
// bloomcast filter of that size was freed had 96% of its pages huge, and
// none when built first. Huge pages change
// no value, only the memory a range takes, in whole 2 MiB pages.
//
// Measured on the 2-vCPU Sapphire Rapids VM of docs/BENCHMARKS.md: a
// counters-only counting filter of 10^7 keys (48 MB) answered string keys
// 12–25% faster against BoomFilters' in two paired runs; the gain is
// smaller for arrays of a few tens of megabytes, whose page-table entries
// stay in the caches.
package hugepage

// MinBytes is the smallest allocation Words advises: below it a filter
// spans few enough small pages for the TLB, and a huge page would mostly
// cover memory that is not the filter's.
const MinBytes = 4 << 20

// Size is the huge page size the advice aims at, and the alignment of the
// advised range within the allocation.
const Size = 2 << 20
