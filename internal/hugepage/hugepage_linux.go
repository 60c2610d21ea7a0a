//go:build linux && !purego

package hugepage

import (
	"syscall"
	"unsafe"
)

// Words returns a zeroed slice of n words, as make([]uint64, n) does. From
// MinBytes up, the part of it that spans whole huge pages is advised to be
// backed by huge pages (see advise). The kernel may populate that part at
// once, so a large filter takes its memory when made rather than as it
// fills.
func Words(n uint64) []uint64 {
	w := make([]uint64, n)
	if n >= MinBytes/8 {
		advise(w)
	}
	return w
}

// advise asks for huge pages on the whole huge pages inside w:
// MADV_HUGEPAGE, so that pages faulted in later come huge, then
// MADV_COLLAPSE (Linux 6.1 and later), which replaces the small pages
// already there with huge ones at once, since memory the Go heap reuses has
// been touched before. Errors (an older kernel, transparent huge pages set
// to "never", no free huge page) only mean the advice was not taken, and
// are ignored.
func advise(w []uint64) {
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	first := int((Size - start%Size) % Size)
	last := first + (len(b)-first)/Size*Size
	if last <= first {
		return
	}
	_ = syscall.Madvise(b[first:last], madvHugepage)
	_ = syscall.Madvise(b[first:last], madvCollapse)
}

// madvHugepage is MADV_HUGEPAGE from <asm-generic/mman-common.h>, which the
// syscall package does not name.
const madvHugepage = 14

// madvCollapse is MADV_COLLAPSE, likewise.
const madvCollapse = 25
