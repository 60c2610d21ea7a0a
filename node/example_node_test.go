package node_test

import (
	"bytes"
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

	"github.com/bloomcast/bloomcast/node"
)

// lockedBuffer is an access log that the node writes from its request
// goroutines and the example reads after the node stops.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Example_peerHit starts two nodes in-process on loopback. B caches an
// object and publishes its digest; A fetches B's digest and then answers a
// request for that object from B instead of the origin.
func Example_peerHit() {
	var originRequests int
	var originMu sync.Mutex
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		originMu.Lock()
		originRequests++
		originMu.Unlock()
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprintf(w, "object %s", r.URL.Path)
	}))
	defer origin.Close()

	lnA, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	lnB, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	logA := &lockedBuffer{}
	// Manual: the example publishes and refreshes by hand instead of
	// waiting for the background loops.
	a, err := node.NewNode(node.NodeConfig{
		Name: "a", MemoryBytes: 1 << 20, Capacity: 1000, Manual: true, Logger: quiet, AccessLog: logA,
		Peers: []node.PeerConfig{{Name: "b", Proxy: "http://" + lnB.Addr().String()}},
	})
	if err != nil {
		panic(err)
	}
	b, err := node.NewNode(node.NodeConfig{
		Name: "b", MemoryBytes: 1 << 20, Capacity: 1000, Manual: true, Logger: quiet,
		Peers: []node.PeerConfig{{Name: "a", Proxy: "http://" + lnA.Addr().String()}},
	})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, s := range []struct {
		n  *node.Node
		ln net.Listener
	}{{a, lnA}, {b, lnB}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.n.Serve(ctx, s.ln, nil); err != nil {
				fmt.Println("serve:", err)
			}
		}()
	}

	get := func(node net.Listener, target string) (string, string) {
		proxy, _ := url.Parse("http://" + node.Addr().String())
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}}
		resp, err := c.Get(target)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body), strings.Join(resp.Header.Values("X-Cache"), ", ")
	}

	object := origin.URL + "/logo.png"
	body, xcache := get(lnB, object) // B fetches from the origin and stores
	fmt.Printf("via b: %q, X-Cache: %s\n", body, xcache)

	if err := b.Publisher().Publish(); err != nil { // B's digest now holds the object
		panic(err)
	}
	a.Directory().Refresh(ctx) // A fetches B's digest

	body, xcache = get(lnA, object) // a miss at A that B's digest says B holds
	fmt.Printf("via a: %q, X-Cache: %s\n", body, xcache)
	originMu.Lock()
	fmt.Println("origin requests:", originRequests)
	originMu.Unlock()

	cancel()
	wg.Wait() // the nodes have stopped: A's access log is complete
	for _, line := range strings.Split(strings.TrimSpace(logA.String()), "\n") {
		f := strings.Fields(line)
		fmt.Println("a's access log:", f[3], f[8]) // code/status, hierarchy/peer
	}
	families, err := a.Metrics().Gather()
	if err != nil {
		panic(err)
	}
	for _, f := range families {
		if f.GetName() != "bloomcast_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			fmt.Printf("a's requests, %s: %v\n", m.GetLabel()[0].GetValue(), m.GetCounter().GetValue())
		}
	}
	// Output:
	// via b: "object /logo.png", X-Cache: MISS from b
	// via a: "object /logo.png", X-Cache: HIT from b, MISS from a
	// origin requests: 1
	// a's access log: TCP_MISS/200 CD_SIBLING_HIT/b
	// a's requests, peer_hit: 1
}
