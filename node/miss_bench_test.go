package node

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// missBenchBytes is the body of the miss benchmarks' objects: the small
// objects of the memory fill beside Squid (bench/cmd/fill).
const missBenchBytes = 100

// fixedOrigin is a loopback origin that answers every GET with the same
// cacheable 100-byte response, reading requests and writing responses
// on its own with next to no allocation, so that a benchmark's
// allocs/op are the node's (and its HTTP client's), not the origin's.
type fixedOrigin struct {
	ln   net.Listener
	resp []byte
	wg   sync.WaitGroup

	mu     sync.Mutex
	conns  []net.Conn // closed with the listener: the node keeps its idle ones open
	closed bool
}

func newRawOrigin(tb testing.TB) *fixedOrigin {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	body := bytes.Repeat([]byte("x"), missBenchBytes)
	o := &fixedOrigin{ln: ln, resp: fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nCache-Control: max-age=86400\r\n"+
		"Content-Type: application/octet-stream\r\nDate: %s\r\nContent-Length: %d\r\n\r\n%s",
		time.Now().UTC().Format(http.TimeFormat), len(body), body)}
	o.wg.Add(1)
	go o.accept()
	tb.Cleanup(func() {
		ln.Close()
		o.mu.Lock()
		o.closed = true
		for _, c := range o.conns {
			c.Close()
		}
		o.mu.Unlock()
		o.wg.Wait()
	})
	return o
}

func (o *fixedOrigin) accept() {
	defer o.wg.Done()
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := o.ln.Accept()
		if err != nil {
			return
		}
		o.mu.Lock()
		if o.closed {
			c.Close()
		}
		o.conns = append(o.conns, c)
		o.mu.Unlock()
		conns.Add(1)
		go func() {
			defer conns.Done()
			defer c.Close()
			o.serve(c)
		}()
	}
}

// serve answers each request on c (a GET has no body: its header ends
// at the first empty line) until the client closes c.
func (o *fixedOrigin) serve(c net.Conn) {
	br := bufio.NewReaderSize(c, 4096)
	for {
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(bytes.TrimRight(line, "\r\n")) == 0 {
				break
			}
		}
		if _, err := c.Write(o.resp); err != nil {
			return
		}
	}
}

// BenchmarkNodeMiss is one miss through the node's handler (allow-list,
// proxy, routing straight to a loopback origin, the relay, storing the
// response, metrics), a distinct URL each time, with no access log and a
// 64 MiB memory store that, once full, evicts an object for each one it
// stores. allocs/op and B/op are the garbage a miss leaves for the
// collector (besides the object stored), which sets how often it runs
// when the heap is near the soft memory limit; they include net/http's
// client (the outbound request and response) but not its server.
func BenchmarkNodeMiss(b *testing.B) {
	n, origin := newMissBenchNode(b)
	h := n.Handler()
	w := testutil.NewDiscardWriter()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		clear(w.Hdr)
		w.Status, w.N = 0, 0
		r := newMissRequest(origin, i)
		b.StartTimer()
		h.ServeHTTP(w, r)
		if w.Status != http.StatusOK || w.N != missBenchBytes {
			b.Fatalf("status %d, %d bytes", w.Status, w.N)
		}
	}
	b.StopTimer()
	if st := n.stats(); st.LocalHits != 0 {
		b.Fatalf("%d hits in distinct URLs", st.LocalHits)
	}
}

// newMissBenchNode returns a node (not serving) with a 64 MiB memory
// store, and the origin its misses go to.
func newMissBenchNode(tb testing.TB) (*Node, string) {
	tb.Helper()
	o := newRawOrigin(tb)
	n, err := NewNode(NodeConfig{Name: "bench", MemoryBytes: 64 << 20, Capacity: 100000, Manual: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	return n, o.ln.Addr().String()
}

// newMissRequest is the proxy request for the i-th distinct object of
// origin, as net/http's server hands it to the handler.
func newMissRequest(origin string, i int) *http.Request {
	target := fmt.Sprintf("http://%s/assets/%08d.js", origin, i)
	r, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		panic(err)
	}
	r.RequestURI, r.RemoteAddr = target, "127.0.0.1:40000"
	r.Header.Set("User-Agent", "bench")
	return r
}

// maxAllocsPerMiss bounds the allocations of one miss of a small object
// (107 when it was set): the garbage per miss sets how often the
// collector runs near the soft memory limit, so that a change that adds
// to it shows here rather than as a slower fill.
const maxAllocsPerMiss = 115

func TestAllocsPerMiss(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	n, origin := newMissBenchNode(t)
	h := n.Handler()
	w := testutil.NewDiscardWriter()
	reqs := make([]*http.Request, 101) // AllocsPerRun calls once more than asked, to warm up
	for i := range reqs {
		reqs[i] = newMissRequest(origin, i)
	}
	i := 0
	allocs := testing.AllocsPerRun(len(reqs)-1, func() {
		clear(w.Hdr)
		w.Status, w.N = 0, 0
		h.ServeHTTP(w, reqs[i])
		i++
		if w.Status != http.StatusOK || w.N != missBenchBytes {
			t.Fatalf("status %d, %d bytes", w.Status, w.N)
		}
	})
	t.Logf("%.0f allocations per miss", allocs)
	if allocs > maxAllocsPerMiss {
		t.Errorf("%.0f allocations per miss, want at most %d", allocs, maxAllocsPerMiss)
	}
}
