package node

import (
	"math"
	"runtime/debug"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/internal/storefail"
)

// heldBytes is the memory the publisher holds: the counting filter and
// its bit view, the published snapshot, the current full digest, the
// deltas served from it and the word changes kept for them.
func (p *Publisher) heldBytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := int64(p.filter.SizeBytes()) + int64(8*len(p.snapshot)) + int64(len(p.current.full))
	for _, b := range p.deltas {
		n += int64(len(b))
	}
	for _, pub := range p.history {
		n += int64(len(pub.changed)) * int64(unsafe.Sizeof(counting.WordChange{}))
	}
	return n
}

// heldBytes is the memory of the Squid digest's counting filter.
func (d *squidDigest) heldBytes() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return int64(d.filter.SizeBytes())
}

// fixedBytes is the memory the node holds besides its cache: its own
// digests (counting filters, bit views, published digests and deltas,
// static publications)
// and its peers' views. While a peer has no view yet, it is counted at
// the size of this node's bit array, which a peer configured alike
// sends.
func (n *Node) fixedBytes(estimate bool) int64 {
	if n.publisher == nil { // a zero Node holds nothing
		return 0
	}
	total := n.publisher.heldBytes() + n.squid.heldBytes()
	if n.static != nil {
		total += n.static.heldBytes()
	}
	own := int64(n.publisher.bitBytes())
	for _, s := range n.directory.status() {
		switch {
		case s.HasView:
			total += int64(s.HeldBytes)
		case estimate:
			total += own
		}
	}
	return total
}

// memoryBudget is the heap the node's cache may hold: the memory cache's
// budget, or the budget of a disk cache's index.
func (n *Node) memoryBudget() int64 { return n.cfg.MemoryBytes }

// MemoryLimit is the soft memory limit (runtime/debug.SetMemoryLimit)
// that suits the node's process now: its memory budget
// (NodeConfig.MemoryBytes, which the memory cache's entries, or a disk
// cache's index, are accounted against at what they cost in the heap)
// plus its fixed parts (its digests, and its peers' views, each counted
// at the size of its own until it arrives), plus headroom for what the
// runtime holds beside the live heap and for the garbage of the requests
// in flight: limitHeadroomPerObject for each object the cache holds, at
// most half the rest and at least an eighth and 16 MiB. It grows as the
// cache fills: "bloomcast serve" sets it, and sets it again as it
// changes, unless GOMEMLIMIT is set.
//
// The headroom is measured, not guessed (docs/BENCHMARKS.md, fills of
// 100-byte objects): the runtime holds more than the live heap (size
// classes left part-empty as eviction frees objects across spans, its
// own metadata), and a miss allocates about 9 KB (BenchmarkNodeMiss) that
// the collector needs room for; both the part-empty spans and the
// collector's marking grow with the number of objects, not their bytes,
// so the room does too, and a cache of large objects needs little (The
// Go GC guide, "Memory limit": a limit the live heap nearly reaches makes
// the collector run continuously).
func (n *Node) MemoryLimit() int64 {
	base := n.memoryBudget() + n.fixedBytes(true)
	objects := int64(0)
	if n.store != nil {
		objects = int64(n.store.Len())
	}
	// At most half the base: more than the smallest objects need, and a
	// bound for a disk cache, whose objects hold only an index record
	// each in the heap.
	return base + max(min(objects*limitHeadroomPerObject, base/2), base/8, 16<<20)
}

// limitHeadroomPerObject is MemoryLimit's headroom for each object held.
// A 64 MiB node full of 100-byte objects (81 740 of them, each held in
// one compact stored form) was resident at the same 94–96 MiB under
// limits of 76 and 84 MiB, and at 128 MiB under one of 114 MiB: below
// about 84 MiB a lower limit saves nothing and costs the collector's
// CPU. 84 MiB is its budget and fixed parts plus 18.6 MiB, about 240
// bytes per object.
const limitHeadroomPerObject = 256

// registerMemory adds the runtime's metrics (the Prometheus client's
// process and Go collectors) and the node's budgets and fixed parts.
func (m *nodeMetrics) registerMemory(n *Node) {
	gauge := func(name, help string, f func() float64) {
		m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
	}
	m.registry.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector())
	budget := n.cfg.MemoryBytes
	if n.cfg.DiskDir != "" {
		budget = n.cfg.DiskBytes
	}
	gauge("bloomcast_cache_budget_bytes", "Budget of bloomcast_cache_bytes: --memory, or --disk-size for a disk cache.",
		func() float64 { return float64(budget) })
	gauge("bloomcast_memory_budget_bytes",
		"Budget of the heap the cache holds (--memory): the memory cache's entries, or a disk cache's index.",
		func() float64 { return float64(n.memoryBudget()) })
	gauge("bloomcast_memory_fixed_bytes",
		"Memory the node holds besides its cache: its digests (counting filters, bit views, published digests and deltas) and its peers' views.",
		func() float64 { return float64(n.fixedBytes(false)) })
	m.registry.MustRegister(limitCollector{})
	if d, ok := n.store.(*cache.Disk); ok {
		gauge("bloomcast_cache_index_bytes", "Heap the disk cache's index holds, accounted against --memory.",
			func() float64 { return float64(d.IndexBytes()) })
		m.registry.MustRegister(&failureCollector{d: d})
	}
}

// failureCollector reports a disk store's failures by reason.
type failureCollector struct{ d *cache.Disk }

var storeFailuresDesc = prometheus.NewDesc("bloomcast_store_failures_total",
	"Failed file operations of the disk cache, by reason: no_space, missing (directory or file gone), read_only, corrupt, io.",
	[]string{"reason"}, nil)

func (c *failureCollector) Describe(ch chan<- *prometheus.Desc) { ch <- storeFailuresDesc }

func (c *failureCollector) Collect(ch chan<- prometheus.Metric) {
	counts := c.d.Failures()
	for _, r := range storefail.Reasons {
		ch <- prometheus.MustNewConstMetric(storeFailuresDesc, prometheus.CounterValue, float64(counts[r]), r)
	}
}

// limitCollector reports the process's soft memory limit, when it has
// one.
type limitCollector struct{}

var memoryLimitDesc = prometheus.NewDesc("bloomcast_memory_limit_bytes",
	"The process's soft memory limit: GOMEMLIMIT, or the one serve sets from --memory and the fixed parts; absent when there is none.",
	nil, nil)

func (limitCollector) Describe(ch chan<- *prometheus.Desc) { ch <- memoryLimitDesc }

func (limitCollector) Collect(ch chan<- prometheus.Metric) {
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		ch <- prometheus.MustNewConstMetric(memoryLimitDesc, prometheus.GaugeValue, float64(l))
	}
}

// bitBytes is the size of the publisher's bit array, the size of the
// view a peer configured alike holds of this node.
func (p *Publisher) bitBytes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return int((p.filter.M() + 7) / 8)
}
