package node

import (
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/storefail"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// TestNodeDiskFullHealth runs a node whose disk cache is on a 512 KiB
// tmpfs, with a budget of 10 MiB: once the file system is full, /healthz
// answers 503 naming the fault, /metrics counts the failures by reason,
// and every request is still answered; once there is room again, the
// next store succeeds and the node is healthy.
func TestNodeDiskFullHealth(t *testing.T) {
	mnt := mountTmpfs(t, 512<<10)
	origin := newTestOrigin(t)
	logs := &faultLog{}
	n := startFaultNode(t, listen(t, "127.0.0.1:0"), NodeConfig{DiskDir: filepath.Join(mnt, "cache"), DiskBytes: 10 << 20}, logs)
	if code, body := getBody(t, n.url()+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz %d %q before the disk filled", code, body)
	}
	var code int
	var body string
	for i := 0; ; i++ {
		if i == 400 {
			t.Fatalf("400 objects stored on a 512 KiB file system (%d in the store)", n.Store().Len())
		}
		got, resp := n.get(t, fmt.Sprintf("%s/object-%d", origin.URL, i))
		if resp.StatusCode != http.StatusOK || got != fmt.Sprintf("object /object-%d", i) {
			t.Fatalf("object %d: %d %q", i, resp.StatusCode, got)
		}
		if code, body = getBody(t, n.url()+"/healthz"); code != http.StatusOK {
			break
		}
	}
	if code != http.StatusServiceUnavailable || !strings.HasPrefix(body, "disk cache failing (no_space)") {
		t.Errorf("/healthz %d %q, want 503 naming no_space", code, body)
	}
	_, text := getBody(t, n.url()+"/metrics")
	if v := metricValue(t, text, `bloomcast_store_failures_total{reason="no_space"}`); v < 1 {
		t.Errorf(`bloomcast_store_failures_total{reason="no_space"} = %v, want ≥ 1`, v)
	}
	if v := metricValue(t, text, `bloomcast_store_failures_total{reason="io"}`); v != 0 {
		t.Errorf(`bloomcast_store_failures_total{reason="io"} = %v, want 0`, v)
	}
	logs.mu.Lock()
	warned := 0
	for _, r := range logs.recs {
		if r.msg == "cache: disk store failing" && r.attrs["reason"] == storefail.NoSpace {
			warned++
		}
	}
	logs.mu.Unlock()
	if warned != 1 {
		t.Errorf("%d warnings of no_space, want 1", warned)
	}

	for _, k := range n.Store().Keys()[:n.Store().Len()/2] {
		n.Store().Delete(k)
	}
	n.get(t, origin.URL+"/after")
	if code, body := getBody(t, n.url()+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz %d %q after a store succeeded again", code, body)
	}
}

// TestNodeRuntimeMetrics sees the process and Go collectors' series and
// the budgets beside the cache's bytes in /metrics.
func TestNodeRuntimeMetrics(t *testing.T) {
	n := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{MemoryBytes: 32 << 20, Peers: []PeerConfig{{Name: "p", Proxy: "http://127.0.0.1:9"}},
		Manual: true, Logger: quietLogger()})
	_, text := getBody(t, n.url()+"/metrics")
	for _, series := range []string{"process_resident_memory_bytes", "process_cpu_seconds_total", "go_goroutines",
		"go_memstats_heap_alloc_bytes", "bloomcast_cache_bytes"} {
		if v := metricValue(t, text, series); v < 0 {
			t.Errorf("%s missing from /metrics", series)
		}
	}
	if v := metricValue(t, text, "bloomcast_cache_budget_bytes"); v != 32<<20 {
		t.Errorf("bloomcast_cache_budget_bytes = %v", v)
	}
	if v := metricValue(t, text, "bloomcast_memory_budget_bytes"); v != 32<<20 {
		t.Errorf("bloomcast_memory_budget_bytes = %v", v)
	}
	// The counting filters of both digests at least, and no peer view
	// yet.
	fixed := metricValue(t, text, "bloomcast_memory_fixed_bytes")
	filters := n.Publisher().filter.SizeBytes() + n.squid.filter.SizeBytes()
	if fixed < float64(filters) || fixed > 3*float64(filters) {
		t.Errorf("bloomcast_memory_fixed_bytes = %v, the filters alone %d", fixed, filters)
	}
	// The limit counts the peer's view at this node's bit array. The
	// fixed parts are read again: the scrape may have collected them
	// before another of its gauges had the full digest encoded, which
	// they then include.
	base := 32<<20 + n.fixedBytes(false) + int64(n.Publisher().bitBytes())
	// An empty cache: the headroom's floor, 16 MiB.
	if l, want := n.MemoryLimit(), base+16<<20; l != want {
		t.Errorf("MemoryLimit %d for a budget of 32 MiB and fixed parts of %v, want %d", l, fixed, want)
	}
}

// TestNodeHeapWithinBudget fills a node with --memory 8 MiB with more
// small objects than fit, through its handler from a loopback origin,
// and checks the live heap it grew by against its budget plus its fixed
// parts: within 1.25× (the bound for an honest accounting).
func TestNodeHeapWithinBudget(t *testing.T) {
	origin := newTestOrigin(t)
	before := liveHeap()
	const budget = 8 << 20
	n, err := NewNode(NodeConfig{MemoryBytes: budget, Capacity: 20000, Manual: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	objects := 16000
	for i := range objects {
		r, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/objects/%07d", origin.URL, i), nil)
		if err != nil {
			t.Fatal(err)
		}
		r.RequestURI = r.URL.String()
		r.RemoteAddr = "127.0.0.1:1234"
		w := testutil.NewDiscardWriter()
		n.Handler().ServeHTTP(w, r)
		if w.Status != http.StatusOK {
			t.Fatalf("object %d: status %d", i, w.Status)
		}
	}
	after := liveHeap()
	limit := 1.25 * float64(budget+n.fixedBytes(false))
	t.Logf("%d objects, %d held, %d B accounted; heap grew %d B; budget %d B + fixed %d B",
		objects, n.Store().Len(), n.Store().Bytes(), after-before, budget, n.fixedBytes(false))
	if n.Store().Len() == objects {
		t.Fatalf("all %d objects held: the budget was never reached", objects)
	}
	if float64(after-before) > limit {
		t.Errorf("heap grew %d B, over 1.25 × (budget + fixed parts) = %.0f B", after-before, limit)
	}
	runtime.KeepAlive(n)
}

// TestMemoryLimitGrowsWithObjects sees the soft limit's headroom follow
// the objects held once they need more than its floor.
func TestMemoryLimitGrowsWithObjects(t *testing.T) {
	n, err := NewNode(NodeConfig{Name: "limit", MemoryBytes: 128 << 20, Capacity: 1000, Manual: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	base := n.memoryBudget() + n.fixedBytes(true)
	if l, want := n.MemoryLimit(), base+max(base/8, 16<<20); l != want {
		t.Fatalf("empty: MemoryLimit %d, want %d", l, want)
	}
	const objects = 100000
	now := time.Now()
	for i := range objects {
		h := http.Header{"Cache-Control": {"max-age=3600"}}
		if err := n.Store().Put(&cache.Entry{URL: fmt.Sprintf("http://origin.test/%d", i), Status: http.StatusOK, Header: h,
			Body: []byte("x"), RequestTime: now, ResponseTime: now}); err != nil {
			t.Fatal(err)
		}
	}
	base = n.memoryBudget() + n.fixedBytes(true)
	if l, want := n.MemoryLimit(), base+objects*limitHeadroomPerObject; l != want {
		t.Fatalf("%d objects: MemoryLimit %d, want %d", objects, l, want)
	}
}
