package node

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// echoServer accepts TCP connections on loopback and sends back what it
// reads, closing its side when the client closes its own.
func echoServer(t *testing.T) (addr string, port uint16) {
	t.Helper()
	ln := listen(t, "127.0.0.1:0")
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String(), uint16(ln.Addr().(*net.TCPAddr).Port)
}

// connect opens a CONNECT tunnel through the node and returns the
// connection, the reader over it and the status line.
func connect(t *testing.T, node, target string) (net.Conn, *bufio.Reader, string) {
	t.Helper()
	c, err := net.Dial("tcp", node)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		io.Copy(io.Discard, resp.Body)
	}
	return c, br, resp.Status
}

// TestNodeTunnel: CONNECT to an allowed port carries bytes unchanged both
// ways, passes on a half close, is logged TCP_TUNNEL/200 with the bytes
// and counted in /metrics; other ports get 403.
func TestNodeTunnel(t *testing.T) {
	echo, port := echoServer(t)
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{Name: "a", ConnectPorts: []uint16{443, port}})
	c, br, status := connect(t, ln.Addr().String(), echo)
	if status != "200 Connection established" {
		t.Fatalf("CONNECT: %q", status)
	}
	payload := make([]byte, 1<<20)
	rand.Read(payload)
	go func() {
		c.Write(payload)
		c.(*net.TCPConn).CloseWrite()
	}()
	got, err := io.ReadAll(br)
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("echoed %d bytes (err %v), want the %d sent back unchanged", len(got), err, len(payload))
	}
	c.Close()
	line := fmt.Sprintf("TCP_TUNNEL/200 %d CONNECT %s - HIER_DIRECT/127.0.0.1 -", len(payload), echo)
	waitFor(t, 5*time.Second, "the tunnel's log line", func() bool { return strings.Contains(n.log.String(), line) })
	if up := n.metric(t, `bloomcast_tunnel_bytes_total{direction="client_to_server"}`); up != strconv.FormatFloat(float64(len(payload)), 'g', -1, 64) {
		t.Fatalf("client_to_server bytes %q", up)
	}
	if down := n.metric(t, `bloomcast_tunnel_bytes_total{direction="server_to_client"}`); down != strconv.FormatFloat(float64(len(payload)), 'g', -1, 64) {
		t.Fatalf("server_to_client bytes %q", down)
	}

	// Another port: 403, logged as denied.
	_, other := echoServer(t)
	if _, _, status := connect(t, ln.Addr().String(), "127.0.0.1:"+strconv.Itoa(int(other))); !strings.HasPrefix(status, "403") {
		t.Fatalf("CONNECT to port %d: %q", other, status)
	}
	waitFor(t, 5*time.Second, "the refusal's log line", func() bool {
		return strings.Contains(n.log.String(), "TCP_DENIED/403 ") && strings.Contains(n.log.String(), fmt.Sprintf("CONNECT 127.0.0.1:%d ", other))
	})
	if got := n.metric(t, `bloomcast_tunnels_total{result="denied"}`); got != "1" {
		t.Fatalf("denied %q", got)
	}
	if got := n.metric(t, `bloomcast_tunnels_total{result="tunnelled"}`); got != "1" {
		t.Fatalf("tunnelled %q", got)
	}
	// A server that is not there: 502.
	dead := listen(t, "127.0.0.1:0")
	deadAddr := dead.Addr().String()
	dead.Close()
	nDead := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{ConnectPorts: []uint16{uint16(dead.Addr().(*net.TCPAddr).Port)}})
	if _, _, status := connect(t, nDead.ln.Addr().String(), deadAddr); !strings.HasPrefix(status, "502") {
		t.Fatalf("CONNECT to a closed port: %q", status)
	}
	if n.Store().Len() != 0 {
		t.Fatalf("a tunnel stored %d objects", n.Store().Len())
	}
}

// TestNodeTunnelClients: only allowed clients may tunnel.
func TestNodeTunnelClients(t *testing.T) {
	echo, port := echoServer(t)
	ln := listen(t, "127.0.0.1:0")
	startNode(t, ln, nil, NodeConfig{ConnectPorts: []uint16{port}, AllowClients: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	if _, _, status := connect(t, ln.Addr().String(), echo); !strings.HasPrefix(status, "403") {
		t.Fatalf("CONNECT from a client not allowed: %q", status)
	}
}

// TestNodeTunnelTLS: an HTTPS request goes through the tunnel to a TLS
// server on loopback, twice, and nothing is cached.
func TestNodeTunnelTLS(t *testing.T) {
	hits := 0
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("Cache-Control", "max-age=3600")
		io.WriteString(w, "secret "+r.URL.Path)
	}))
	defer srv.Close()
	port := uint16(srv.Listener.Addr().(*net.TCPAddr).Port)
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{ConnectPorts: []uint16{port}})
	tr := srv.Client().Transport.(*http.Transport).Clone()
	proxy, _ := url.Parse(n.url())
	tr.Proxy = http.ProxyURL(proxy)
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for i := range 2 {
		resp, err := client.Get(srv.URL + "/page")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "secret /page" {
			t.Fatalf("request %d: %q", i, b)
		}
		tr.CloseIdleConnections()
	}
	if hits != 2 || n.Store().Len() != 0 {
		t.Fatalf("origin asked %d times, %d stored", hits, n.Store().Len())
	}
	waitFor(t, 5*time.Second, "two tunnel log lines", func() bool { return strings.Count(n.log.String(), "TCP_TUNNEL/200") == 2 })
}

// TestNodeTunnelTimeouts: a tunnel idle for TunnelIdle is closed, and so
// is a busy one at TunnelLifetime.
func TestNodeTunnelTimeouts(t *testing.T) {
	echo, port := echoServer(t)
	ln := listen(t, "127.0.0.1:0")
	startNode(t, ln, nil, NodeConfig{ConnectPorts: []uint16{port}, TunnelIdle: 200 * time.Millisecond, TunnelLifetime: time.Second})
	c, br, _ := connect(t, ln.Addr().String(), echo)
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle tunnel: read %v, want EOF", err)
	}
	if el := time.Since(start); el < 150*time.Millisecond || el > 3*time.Second {
		t.Fatalf("idle tunnel closed after %v, want about 200ms", el)
	}

	// Busy both ways every 50 ms: kept open past TunnelIdle, closed at
	// TunnelLifetime.
	c, br, _ = connect(t, ln.Addr().String(), echo)
	start = time.Now()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var err error
	for err == nil {
		if _, err = c.Write([]byte("x")); err != nil {
			break
		}
		_, err = br.ReadByte()
		time.Sleep(50 * time.Millisecond)
	}
	if el := time.Since(start); el < 800*time.Millisecond || el > 3*time.Second {
		t.Fatalf("busy tunnel closed after %v (%v), want about 1s", el, err)
	}
}

// TestNodeDenyDestinations has a node deny 127.0.0.0/8 and its clients
// ask for an origin and a CONNECT on 127.0.0.1, and for 169.254.169.254
// (denied by default, DefaultDenyDestinations): 403 each, logged
// TCP_DENIED/403, neither the origin nor the echo server reached. The
// check is on the address dialled, so "localhost" is denied as
// 127.0.0.1 is. A node given an empty list connects to anything.
func TestNodeDenyDestinations(t *testing.T) {
	var asked atomic.Int64
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		io.WriteString(w, "internal")
	}))
	t.Cleanup(origin.Close)
	_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
	echo, echoPort := echoServer(t)
	ln := listen(t, "127.0.0.1:0")
	deny := append(DefaultDenyDestinations(), netip.MustParsePrefix("127.0.0.0/8"))
	n := startNode(t, ln, nil, NodeConfig{ConnectPorts: []uint16{echoPort}, DenyDestinations: deny})
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(n.url())), DisableKeepAlives: true}}
	for _, target := range []string{origin.URL + "/a", "http://localhost:" + port + "/b", "http://169.254.169.254/latest/meta-data/"} {
		resp, err := c.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %s, want 403", target, resp.Status)
		}
	}
	if _, _, status := connect(t, ln.Addr().String(), echo); !strings.HasPrefix(status, "403") {
		t.Errorf("CONNECT %s: %q, want 403", echo, status)
	}
	waitFor(t, 5*time.Second, "four refusals in the access log", func() bool {
		return strings.Count(n.log.String(), "TCP_DENIED/403 ") == 4
	})
	if a := asked.Load(); a != 0 {
		t.Errorf("the denied origin was asked %d times", a)
	}
	if got := n.metric(t, `bloomcast_tunnels_total{result="denied"}`); got != "1" {
		t.Errorf("tunnels denied: %q, want 1", got)
	}

	ln = listen(t, "127.0.0.1:0")
	open := startNode(t, ln, nil, NodeConfig{DenyDestinations: []netip.Prefix{}})
	c = &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(open.url())), DisableKeepAlives: true}}
	resp, err := c.Get(origin.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || asked.Load() != 1 {
		t.Errorf("a node that denies nothing: %s, origin asked %d times", resp.Status, asked.Load())
	}
}

// TestNodeTunnelToSelfRefused: a CONNECT to the node's own port under a
// name that resolves to its address (the host's name, which the literal
// checks cannot know) is refused 403, logged TCP_DENIED/403, by the
// address dialled. Opened, the tunnel would carry the client's requests
// to the node from the node's own address, which --allow-peers holds,
// without Via: /metrics and the status pages to a client that is not a
// peer, and tunnels in tunnels, two connections each.
func TestNodeTunnelToSelfRefused(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip("no host name:", err)
	}
	addrs, err := net.LookupHost(host)
	if err != nil || len(addrs) == 0 {
		t.Skipf("the host name %q does not resolve: %v", host, err)
	}
	addr, err := netip.ParseAddr(addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(addr.String(), "0"))
	if err != nil {
		t.Skipf("cannot listen on %s, the address of %q: %v", addr, host, err)
	}
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	self := netip.PrefixFrom(addr, addr.BitLen())
	n := startNode(t, ln, nil, NodeConfig{ConnectPorts: []uint16{443, port},
		AllowClients: []netip.Prefix{self}, AllowPeers: []netip.Prefix{self}})
	target := net.JoinHostPort(host, strconv.Itoa(int(port)))
	c, br, status := connect(t, ln.Addr().String(), target)
	if status != "403 Forbidden" {
		fmt.Fprintf(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
		line, _ := br.ReadString('\n')
		t.Fatalf("CONNECT %s, the node's own address: %s; /metrics through it: %q", target, status, line)
	}
	waitLogged(t, n.log, "TCP_DENIED/403", "CONNECT "+target+" ")
}

// TestNodeTunnelLogBounded: a CONNECT to a 20 KB host name, which the
// client chose, does not make a 40 KB line of the operational log (the
// target, and the dial error that names it again): both are cut.
func TestNodeTunnelLogBounded(t *testing.T) {
	var slogged syncBuffer
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{Logger: slog.New(slog.NewTextHandler(&slogged, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	target := strings.Repeat("a", 20000) + ".invalid:443"
	resps, _, _ := rawExchange(t, ln.Addr().String(), "CONNECT "+target+" HTTP/1.1\r\nHost: x:443\r\n\r\n", 1, 0)
	if len(resps) != 1 || resps[0].StatusCode != http.StatusBadGateway {
		t.Fatalf("CONNECT to a 20 KB name: %v, want 502", resps)
	}
	waitLogged(t, n.log, "NONE/502", "CONNECT aaaa")
	waitFor(t, 5*time.Second, "the failed CONNECT logged", func() bool { return strings.Contains(slogged.String(), "CONNECT failed") })
	for _, l := range strings.Split(slogged.String(), "\n") {
		if len(l) > 4<<10 {
			t.Errorf("a log line of %d bytes: %.200s", len(l), l)
		}
	}
}

// TestNodeStopTunnels: a node that stops gives its CONNECT tunnels the
// grace its other requests get: one whose client ends it within the
// grace carries its bytes to the end, one still open after it is closed,
// and Serve returns only when both are over, each with its access-log
// line. (Go's server leaves hijacked connections alone on Shutdown: Serve
// returned at once, both tunnels still copying, their lines not written.)
func TestNodeStopTunnels(t *testing.T) {
	echo, port := echoServer(t)
	ln := listen(t, "127.0.0.1:0")
	tn := startNode(t, ln, nil, NodeConfig{ConnectPorts: []uint16{port}})
	short, shortR, _ := connect(t, ln.Addr().String(), echo)
	long, longR, status := connect(t, ln.Addr().String(), echo)
	if !strings.HasPrefix(status, "200") {
		t.Fatalf("CONNECT: %q", status)
	}
	start := time.Now()
	tn.cancel()
	tn.cancel = nil
	time.Sleep(time.Second)
	// Within the grace, the tunnel still carries bytes, and ends when
	// its client closes.
	fmt.Fprint(short, "ping")
	if b := make([]byte, 4); func() error { _, err := io.ReadFull(shortR, b); return err }() != nil || string(b) != "ping" {
		t.Fatalf("a tunnel 1 s into the grace: read %q", b)
	}
	short.(*net.TCPConn).CloseWrite()
	if _, err := io.ReadAll(shortR); err != nil {
		t.Fatalf("the tunnel ended by its client: %v", err)
	}
	select {
	case err := <-tn.done:
		t.Fatalf("Serve returned (%v) %v after the stop, a tunnel still open", err, time.Since(start))
	case <-time.After(time.Second):
	}
	select {
	case err := <-tn.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve still running 20 s after the stop")
	}
	if took := time.Since(start); took < 9*time.Second {
		t.Errorf("Serve returned %v after the stop, within the 10 s grace", took)
	}
	long.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(longR); err != nil {
		t.Errorf("the tunnel open past the grace: %v, want closed", err)
	}
	if got := strings.Count(tn.log.String(), "TCP_TUNNEL/200"); got != 2 {
		t.Errorf("%d TCP_TUNNEL lines, want 2:\n%s", got, tn.log.String())
	}
}
