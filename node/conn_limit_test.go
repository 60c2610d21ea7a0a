package node

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
)

// TestNodeMaxConnections: with MaxConnections open (idle, sending
// nothing), the next client is not served until one of them closes; then
// it is, the open connections are counted in /metrics' gauge, and the
// node warned that it was at the limit.
func TestNodeMaxConnections(t *testing.T) {
	const limit = 3
	var logged syncBuffer
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{MaxConnections: limit, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	addr := ln.Addr().String()
	idle := make([]net.Conn, limit)
	for i := range idle {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idle[i] = c
	}
	waitFor(t, 5*time.Second, "the idle connections accepted", func() bool { return n.connsOpen.Load() == limit })

	next, err := net.Dial("tcp", addr) // the kernel's backlog takes it
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if _, err := fmt.Fprintf(next, "GET /healthz HTTP/1.1\r\nHost: node\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(next)
	next.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	line, err := br.ReadString('\n')
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || line != "" {
		t.Fatalf("a connection over the limit was served: %q, %v", line, err)
	}
	if got := n.connsOpen.Load(); got != limit {
		t.Fatalf("%d connections open, want %d", got, limit)
	}
	waitFor(t, 5*time.Second, "the warning", func() bool { return strings.Contains(logged.String(), "at the connection limit") })

	idle[0].Close()
	next.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("once a connection closed: %v, %v", resp, err)
	}
	resp.Body.Close()
	if got := gatheredGauge(t, n.Node, "bloomcast_client_connections"); got != limit {
		t.Errorf("bloomcast_client_connections %v, want %d", got, limit)
	}
	if _, err := NewNode(NodeConfig{MaxConnections: -1}); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("MaxConnections -1: %v", err)
	}
}

// gatheredGauge reads a gauge without labels from the node's registry.
func gatheredGauge(t *testing.T, n *Node, name string) float64 {
	t.Helper()
	families, err := n.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no %s in the node's metrics", name)
	return 0
}
