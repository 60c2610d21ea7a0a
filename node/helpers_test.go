package node

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// The helpers the node's tests share: an origin, a node on loopback and
// a wait for what the node does in the background.

// testOrigin serves /obj/N, cacheable for an hour, and counts requests.
type testOrigin struct {
	*httptest.Server
	hits sync.Map // path → *atomic.Int64
}

func newTestOrigin(t *testing.T) *testOrigin {
	o := &testOrigin{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := o.hits.LoadOrStore(r.URL.Path, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "object %s", r.URL.Path)
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *testOrigin) count(path string) int64 {
	c, ok := o.hits.Load(path)
	if !ok {
		return 0
	}
	return c.(*atomic.Int64).Load()
}

// testNode is a node serving on loopback.
type testNode struct {
	*Node
	ln     net.Listener
	icp    net.PacketConn
	cancel context.CancelFunc
	done   chan error
	log    *syncBuffer
}

func listen(t *testing.T, addr string) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func startNode(t *testing.T, ln net.Listener, icpConn net.PacketConn, cfg NodeConfig) *testNode {
	t.Helper()
	tn := &testNode{ln: ln, icp: icpConn, done: make(chan error, 1), log: &syncBuffer{}}
	cfg.AccessLog = tn.log
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	testNodeDefaults(&cfg)
	n, err := NewNode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tn.Node = n
	ctx, cancel := context.WithCancel(context.Background())
	tn.cancel = cancel
	go func() { tn.done <- n.Serve(ctx, ln, icpConn) }()
	t.Cleanup(tn.stop)
	return tn
}

func (tn *testNode) stop() {
	if tn.cancel == nil {
		return
	}
	tn.cancel()
	tn.cancel = nil
	<-tn.done
}

func (tn *testNode) url() string { return "http://" + tn.ln.Addr().String() }

// get fetches target through the node and returns the body.
func (tn *testNode) get(t *testing.T, target string) (string, *http.Response) {
	t.Helper()
	proxy, _ := url.Parse(tn.url())
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := c.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), resp
}

// metric returns the value of one sample line of /metrics.
func (tn *testNode) metric(t *testing.T, sample string) string {
	t.Helper()
	resp, err := http.Get(tn.url() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, sample+" "); ok {
			return rest
		}
	}
	return ""
}

// testNodeDefaults sets what every test node shares: hourly polling (the
// tests refresh by hand), an 8 MiB cache unless set, 1000 objects unless
// set.
func testNodeDefaults(cfg *NodeConfig) {
	if cfg.PollInterval == 0 {
		cfg.PollInterval = time.Hour
	}
	if cfg.MemoryBytes == 0 {
		cfg.MemoryBytes = 8 << 20
	}
	if cfg.Capacity == 0 {
		cfg.Capacity = 1000
	}
}

// syncBuffer and fakeClock are the module's shared test buffer and clock.
type (
	syncBuffer = testutil.SyncBuffer
	fakeClock  = testutil.Clock
)

// waitFor waits for ok, as [testutil.WaitFor] does.
func waitFor(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	testutil.WaitFor(t, limit, what, ok)
}

// mountTmpfs, liveHeap and rawStallOrigin are the module's shared ones.
func mountTmpfs(t *testing.T, size int) string { t.Helper(); return testutil.MountTmpfs(t, size) }
func liveHeap() int64                          { return testutil.LiveHeap() }
func rawStallOrigin(t *testing.T) string       { return testutil.StallOrigin(t) }

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
