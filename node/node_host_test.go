package node

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/nodestatus"
)

// hostGet sends "GET path" in origin form with the Host field host, as
// a browser sends it to a page's own name, and returns the status and
// body.
func hostGet(t *testing.T, addr, path, host string) (int, string) {
	t.Helper()
	resps, bodies, _ := rawExchange(t, addr, "GET "+path+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n", 1, 0)
	if len(resps) != 1 {
		t.Fatalf("GET %s with Host %s: no response", path, host)
	}
	return resps[0].StatusCode, bodies[0]
}

// TestNodeOperatorEndpointsOwnHost: a web page that points its own name
// at the node's address (DNS rebinding) reads the node through the
// operator's browser, from the operator's address, with its own name in
// Host. The operator's endpoints answer only a Host that is an address,
// localhost or a name under it, the node's --name, or an --allow-host
// name; the others get 403 naming the flag, and /healthz keeps its
// reason to itself. The digests answer any Host: peers name the node as
// they reach it.
func TestNodeOperatorEndpointsOwnHost(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	n := startNode(t, ln, nil, NodeConfig{Name: "b", AllowHosts: []string{"cache.example.net"}})
	down := errors.New("boom at 10.1.2.3")
	n.loopDown.Store(&down)

	operator := []string{"/metrics", nodestatus.Path, nodestatus.JSONPath}
	foreign := []string{"evil.example:" + port, "evil.example", "127.0.0.1.evil.example:" + port,
		"localhost.evil.example", "cache.example.net.evil.example", "b.evil.example:" + port}
	for _, host := range foreign {
		for _, path := range operator {
			if status, body := hostGet(t, addr, path, host); status != http.StatusForbidden || !strings.Contains(body, "--allow-host") {
				t.Errorf("%s with Host %s: %d %.100q, want 403 naming --allow-host", path, host, status, body)
			}
		}
		if status, body := hostGet(t, addr, "/healthz", host); status != http.StatusServiceUnavailable || body != "unhealthy\n" {
			t.Errorf("/healthz with Host %s: %d %.60q, want 503 \"unhealthy\"", host, status, body)
		}
		for _, path := range []string{DigestPath, squidDigestPath} {
			if status, body := hostGet(t, addr, path, host); status != http.StatusOK {
				t.Errorf("peer endpoint %s with Host %s: %d %.60q, want 200", path, host, status, body)
			}
		}
	}
	waitLogged(t, n.log, "127.0.0.1 TCP_DENIED/403", "GET /metrics ")

	own := []string{addr, "127.0.0.1", "[::1]:" + port, "[::1]", "::1", "localhost", "localhost:" + port,
		"LocalHost.", "status.localhost:" + port, "cache.example.net:" + port, "CACHE.Example.NET.", "b:" + port, "b"}
	for _, host := range own {
		for _, path := range operator {
			if status, body := hostGet(t, addr, path, host); status != http.StatusOK {
				t.Errorf("%s with Host %s: %d %.100q, want 200", path, host, status, body)
			}
		}
		if status, body := hostGet(t, addr, "/healthz", host); status != http.StatusServiceUnavailable || !strings.Contains(body, "boom at 10.1.2.3") {
			t.Errorf("/healthz with Host %s: %d %.60q, want 503 with the reason", host, status, body)
		}
	}

	// A reload allows another name at once, and forgets the old one.
	if _, err := n.Reconfigure(NodeConfig{Name: "b", AllowHosts: []string{"evil.example"}}); err != nil {
		t.Fatal(err)
	}
	if status, _ := hostGet(t, addr, "/metrics", "evil.example:"+port); status != http.StatusOK {
		t.Errorf("/metrics with Host evil.example after the reload allowed it: %d, want 200", status)
	}
	if status, _ := hostGet(t, addr, "/metrics", "cache.example.net"); status != http.StatusForbidden {
		t.Errorf("/metrics with Host cache.example.net after the reload dropped it: %d, want 403", status)
	}
}

// TestNodeAllowHostsChecked: an AllowHosts entry that is not a host name
// (a port, a URL, white space, empty) is a configuration error.
func TestNodeAllowHostsChecked(t *testing.T) {
	for _, h := range []string{"", "node.example:3128", "http://node.example", "a b", ".example", "[::1]"} {
		_, err := NewNode(NodeConfig{Listen: "127.0.0.1:0", AllowHosts: []string{h}, Logger: quietLogger()})
		if !errors.Is(err, cache.ErrConfig) || !strings.Contains(err.Error(), "allowed host") {
			t.Errorf("AllowHosts %q: %v, want a configuration error", h, err)
		}
	}
	n, err := NewNode(NodeConfig{Listen: "127.0.0.1:0", AllowHosts: []string{"node1.example.com", "node1.", "10.0.0.1"}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Store().Close(); err != nil {
		t.Fatal(err)
	}
}
