package cache

import (
	"container/list"
	"net/http"
	"slices"
	"sync"
	"unsafe"
)

// The heap an entry costs. A store's budget is only worth planning with if
// what it charges for an entry is what the entry holds in the heap: every
// allocation rounded up to the allocator's size class, the header maps,
// the structures that make a stored entry quick to serve, and the index.
// The figures below are worked out from the types themselves
// (unsafe.Sizeof) and from the allocator (allocSize); the remaining
// constants are the runtime's map layout, and TestMemoryAccountingMatchesHeap
// compares the total with the live heap after a collection.

// largeAllocPage is the rounding of an allocation larger than the
// largest size class: whole runtime pages.
const largeAllocPage = 8 << 10

// sizeClasses are the allocator's size classes up to 32 KiB, found by
// asking it: append rounds the capacity of a new slice up to the size
// class it allocates. Worked out once, on first use.
var sizeClasses = sync.OnceValue(func() []int {
	var classes []int
	for n := 1; n <= 32<<10; {
		c := cap(append([]byte(nil), make([]byte, n)...))
		classes = append(classes, c)
		n = c + 1
	}
	return classes
})

// allocSize is the heap an allocation of n bytes takes.
func allocSize(n int) int64 {
	switch {
	case n <= 0:
		return 0
	case n > 32<<10:
		return int64((n + largeAllocPage - 1) / largeAllocPage * largeAllocPage)
	}
	cs := sizeClasses()
	i, _ := slices.BinarySearch(cs, n)
	if i == len(cs) {
		return int64(n)
	}
	return int64(cs[i])
}

// mapHeapSize is the heap of a Go map of n entries whose key and value
// take slot bytes together. A map of up to 8 entries is its header and
// one group of 8 slots, each group with 8 control bytes; a larger one
// holds its entries at a load of at most 7/8 in tables that double as it
// grows, so on average it has half as much room again as it needs: 3/2
// slots per entry, rounded up to groups, plus a directory word per table.
func mapHeapSize(n int, slot int) int64 {
	const header, group = 48, 8
	if n == 0 {
		return 0
	}
	if n <= group {
		return header + allocSize(group*(slot+1))
	}
	slots := (n*3/2 + group - 1) / group * group
	return header + allocSize(slots*(slot+1)) + int64(8*(slots/1024+1))
}

// headerHeapSize is the heap of h as net/http builds it: the map, each
// name and value string, and the backing of each field's value slice.
func headerHeapSize(h http.Header) int64 {
	if h == nil {
		return 0
	}
	n := mapHeapSize(len(h), int(unsafe.Sizeof("")+unsafe.Sizeof([]string(nil))))
	for k, vs := range h {
		n += allocSize(len(k)) + allocSize(len(vs)*int(unsafe.Sizeof("")))
		for _, v := range vs {
			n += allocSize(len(v))
		}
	}
	return n
}

// Size is the heap the entry holds: the Entry itself, its URL, its header
// fields and request header fields (maps, names, values) and the capacity
// of its body, each allocation rounded up to the allocator's size class.
// A [Memory] store holds an entry in a more compact form, and charges
// what that form holds against its budget.
func (e *Entry) Size() int64 {
	return allocSize(int(unsafe.Sizeof(*e))) + allocSize(len(e.URL)) + allocSize(cap(e.Body)) +
		headerHeapSize(e.Header) + headerHeapSize(e.ReqHeader)
}

// indexSlot is what an index record's map slot costs: a string key and a
// pointer, in a map holding one slot and a half per entry (mapHeapSize).
const indexSlot = (16 + 8 + 1) * 3 / 2

// diskItemSize is what a Disk store's index holds in memory for an
// entry: the record, its list element, the key and the index slot.
func diskItemSize(key string) int64 {
	return allocSize(int(unsafe.Sizeof(diskItem{}))) + allocSize(int(unsafe.Sizeof(list.Element{}))) +
		allocSize(len(key)) + indexSlot
}
