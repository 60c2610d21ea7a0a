package node

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/nodestatus"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// rawExchange sends req on a new connection to addr, as written, and
// returns the responses read until the node closes the connection or
// wantResponses have arrived and then nothing more for linger, and
// whether the node closed it.
func rawExchange(t *testing.T, addr, req string, wantResponses int, linger time.Duration) (resps []*http.Response, bodies []string, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() { _, _ = io.WriteString(c, req) }() // a big request is refused before it is all sent
	br := bufio.NewReader(c)
	for {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if len(resps) >= wantResponses {
			if linger == 0 {
				return resps, bodies, false
			}
			_ = c.SetReadDeadline(time.Now().Add(linger))
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return resps, bodies, false
			}
			return resps, bodies, true // EOF or reset: closed
		}
		b, _ := io.ReadAll(resp.Body)
		resps, bodies = append(resps, resp), append(bodies, string(b))
	}
}

// accessLines returns the access log's lines, checking that each is
// within MaxAccessLogLine and has Squid's ten fields.
func accessLines(t *testing.T, log *syncBuffer) []string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n") {
		if l == "" {
			continue
		}
		if len(l)+1 > cache.MaxAccessLogLine {
			t.Errorf("access-log line of %d bytes", len(l)+1)
		}
		if n := len(strings.Fields(l)); n != 10 {
			t.Errorf("access-log line of %d fields: %.200q", n, l)
		}
		lines = append(lines, l)
	}
	return lines
}

// waitLogged waits for an access-log line containing every one of parts.
func waitLogged(t *testing.T, log *syncBuffer, parts ...string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, l := range accessLines(t, log) {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(l, p)
			}
			if all {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no access-log line with %q in:\n%.2000s", parts, log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNodeUserinfoNeverShared: a request URL with userinfo is refused
// 400 before anything is forwarded (RFC 9110 §4.2.4), and logged without
// it; a request with Authorization gets its reply, which the next client
// without credentials never sees (RFC 9111 §3.5); the password appears
// in no log, error or metric. Two clients of one node, an origin that
// echoes Authorization with max-age=600 and no public.
func TestNodeUserinfoNeverShared(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Cache-Control", "max-age=600")
		fmt.Fprintf(w, "auth=%s", r.Header.Get("Authorization"))
	}))
	t.Cleanup(origin.Close)
	var slogged syncBuffer
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{Logger: slog.New(slog.NewTextHandler(&slogged, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	host := strings.TrimPrefix(origin.URL, "http://")

	// Alice puts her credentials in the URL.
	resps, bodies, _ := rawExchange(t, ln.Addr().String(),
		"GET http://alice:secret@"+host+"/auth HTTP/1.1\r\nHost: "+host+"\r\n\r\n", 1, 0)
	if len(resps) != 1 || resps[0].StatusCode != http.StatusBadRequest {
		t.Fatalf("userinfo: %v %q", resps, bodies)
	}
	if strings.Contains(bodies[0], "secret") || strings.Contains(bodies[0], "alice") {
		t.Errorf("error echoes the userinfo: %q", bodies[0])
	}
	waitLogged(t, n.log, "NONE/400", "GET http://"+host+"/auth ")

	// Alice sends Authorization, as she should.
	proxy := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(n.url()))}, Timeout: 10 * time.Second}
	req, _ := http.NewRequest(http.MethodGet, origin.URL+"/auth", nil)
	req.SetBasicAuth("alice", "secret")
	resp, err := proxy.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(string(b), "auth=Basic ") {
		t.Fatalf("alice got %q", b)
	}

	// Bob sends nothing, twice: the origin's answers to him, never alice's.
	for i := range 2 {
		body, resp := n.get(t, origin.URL+"/auth")
		if body != "auth=" {
			t.Fatalf("bob's request %d got %q (%s)", i, body, resp.Header.Get("X-Cache"))
		}
	}
	mu.Lock()
	if len(seen) != 2 || seen[0] == "" || seen[1] != "" {
		t.Errorf("the origin saw Authorization %q, want alice's then bob's none (the userinfo request never forwarded)", seen)
	}
	mu.Unlock()
	resp, err = http.Get(n.url() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for what, text := range map[string]string{"access log": n.log.String(), "log": slogged.String(), "metrics": string(mb)} {
		if strings.Contains(text, "secret") || strings.Contains(text, "alice:") {
			t.Errorf("the %s holds the userinfo:\n%s", what, text)
		}
	}
}

// TestNodeLogsNoQuery: a client's query (a session id, a token) reaches
// the origin but neither log: the access log writes the URL cut after
// its "?", as Squid does by default (strip_query_terms), and so does the
// operational log, in its url field and in the error of a failed
// forward, which Go's client writes with the whole URL; a 60 KiB query
// does not make that line 60 KiB.
func TestNodeLogsNoQuery(t *testing.T) {
	origin := newTestOrigin(t) // answers "object <path>"
	var slogged syncBuffer
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{Logger: slog.New(slog.NewTextHandler(&slogged, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	closed := listen(t, "127.0.0.1:0")
	closedHost := closed.Addr().String()
	closed.Close()

	if body, _ := n.get(t, origin.URL+"/account?session=SECRET1&x=y"); body != "object /account" {
		t.Fatalf("got %q", body)
	}
	waitLogged(t, n.log, "TCP_MISS/200", "GET "+origin.URL+"/account? ")
	long := "SECRET2" + strings.Repeat("a", 60<<10)
	if _, resp := n.get(t, "http://"+closedHost+"/x?token="+long); resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("to a closed port: %s", resp.Status)
	}
	waitLogged(t, n.log, "TCP_MISS/502", "GET http://"+closedHost+"/x? ")
	waitFor(t, 5*time.Second, "the failed forward logged", func() bool { return strings.Contains(slogged.String(), "forwarding failed") })
	for what, text := range map[string]string{"access log": n.log.String(), "log": slogged.String()} {
		if strings.Contains(text, "SECRET") {
			t.Errorf("the %s holds the query:\n%.2000s", what, text)
		}
	}
	for _, l := range strings.Split(slogged.String(), "\n") {
		if len(l) > 3*cache.MaxAccessLogLine {
			t.Errorf("a log line of %d bytes: %.200s", len(l), l)
		}
	}
}

// TestNodePeerUserinfoNotShown: a peer configured with userinfo in its
// URL is named by its host alone where its failures show: the log, the
// status JSON (and so the page and `bloomcast status`) and /metrics. Go's
// client masks the password in its errors ("u:***@host"), not the user.
func TestNodePeerUserinfoNotShown(t *testing.T) {
	closed := listen(t, "127.0.0.1:0")
	peerHost := closed.Addr().String()
	closed.Close()
	var slogged syncBuffer
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{Logger: slog.New(slog.NewTextHandler(&slogged, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Peers: []PeerConfig{{Proxy: "http://peeruser:peerpass@" + peerHost}}})
	n.Directory().Refresh(context.Background()) // fails: nothing listens there
	_, status := getBody(t, n.url()+nodestatus.JSONPath)
	_, metrics := getBody(t, n.url()+"/metrics")
	for what, text := range map[string]string{"log": slogged.String(), "status": status, "metrics": metrics} {
		if strings.Contains(text, "peeruser") || strings.Contains(text, "peerpass") {
			t.Errorf("the %s holds the peer's userinfo:\n%.3000s", what, text)
		}
	}
	if !strings.Contains(status, "connection refused") || !strings.Contains(status, "http://"+peerHost+"/") {
		t.Errorf("status lacks the peer's error:\n%s", status)
	}
}

// TestNodeFragmentRefused: a request target with a fragment is refused
// 400 before anything is looked up or forwarded (RFC 9112 §3.2, RFC 9110
// §4.2.5), and logged NONE/400. Were it forwarded, Go's server having
// left the fragment in the path ("/obj/1%23evil") or the query, the
// response to another resource would be stored under the key of /obj/1
// (cache.Key cuts the fragment) and served to its next client.
func TestNodeFragmentRefused(t *testing.T) {
	origin := newTestOrigin(t) // answers "object <path>", max-age=3600
	host := strings.TrimPrefix(origin.URL, "http://")
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{})
	for _, target := range []string{"/obj/1#evil", "/obj/1?q#evil"} {
		resps, bodies, _ := rawExchange(t, ln.Addr().String(),
			"GET http://"+host+target+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n", 1, 0)
		if len(resps) != 1 || resps[0].StatusCode != http.StatusBadRequest {
			t.Errorf("GET http://%s%s: %v %q, want 400", host, target, resps, bodies)
		}
		waitLogged(t, n.log, "NONE/400", "GET http://"+host+target[:strings.IndexAny(target, "?#")+1]+" ")
	}
	if c := origin.count("/obj/1#evil") + origin.count("/obj/1"); c != 0 {
		t.Errorf("the origin was asked %d times for the targets with a fragment", c)
	}
	if body, resp := n.get(t, origin.URL+"/obj/1"); body != "object /obj/1" {
		t.Errorf("GET /obj/1 got %q (X-Cache %q)", body, resp.Header.Get("X-Cache"))
	}
}

// TestNodeMaxForwardsOptionsTrace: a TRACE or OPTIONS with Max-Forwards:
// 0 is answered by the node as its final recipient, never forwarded (RFC
// 9110 §7.6.2): OPTIONS with 200 and Allow (§9.3.7), TRACE with 200 and
// the request as received, as message/http, less Authorization,
// Proxy-Authorization and Cookie (§9.3.8); logged TCP_MISS/200, as Squid
// logs its TRACE answer. With another Max-Forwards they are forwarded
// with one less; other methods' Max-Forwards is forwarded as it came.
func TestNodeMaxForwardsOptionsTrace(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{} // method → the Max-Forwards the origin got
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method] = append(seen[r.Method], r.Header.Get("Max-Forwards"))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(origin.Close)
	host := strings.TrimPrefix(origin.URL, "http://")
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{})
	send := func(method, maxForwards, fields string) (*http.Response, string) {
		t.Helper()
		resps, bodies, _ := rawExchange(t, ln.Addr().String(), method+" "+origin.URL+"/ HTTP/1.1\r\nHost: "+host+
			"\r\nMax-Forwards: "+maxForwards+"\r\n"+fields+"Connection: close\r\n\r\n", 1, 0)
		if len(resps) != 1 {
			t.Fatalf("%s with Max-Forwards: %s: %d responses", method, maxForwards, len(resps))
		}
		return resps[0], bodies[0]
	}

	resp, _ := send("OPTIONS", "0", "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Allow"), "GET") {
		t.Errorf("OPTIONS with Max-Forwards: 0: %d, Allow %q; want 200 and the methods", resp.StatusCode, resp.Header.Get("Allow"))
	}
	waitLogged(t, n.log, "TCP_MISS/200", "OPTIONS "+origin.URL+"/ ", "HIER_NONE")
	resp, body := send("TRACE", "0", "Authorization: Basic c2VjcmV0\r\nProxy-Authorization: Basic c2VjcmV0\r\nCookie: s=secret\r\nX-Probe: 1\r\n")
	want := "TRACE " + origin.URL + "/ HTTP/1.1\r\nHost: " + host + "\r\n"
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "message/http" || !strings.HasPrefix(body, want) ||
		!strings.Contains(body, "\r\nMax-Forwards: 0\r\n") || !strings.Contains(body, "\r\nX-Probe: 1\r\n") || !strings.HasSuffix(body, "\r\n\r\n") {
		t.Errorf("TRACE with Max-Forwards: 0: %d %q, body %q; want 200, message/http, the request", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if strings.Contains(body, "c2VjcmV0") || strings.Contains(body, "secret") {
		t.Errorf("the TRACE answer echoes credentials: %q", body)
	}
	waitLogged(t, n.log, "TCP_MISS/200", "TRACE "+origin.URL+"/ ", "HIER_NONE")
	mu.Lock()
	if len(seen) != 0 {
		t.Errorf("OPTIONS and TRACE with Max-Forwards: 0 reached the origin: %v", seen)
	}
	mu.Unlock()

	send("OPTIONS", "5", "")
	send("TRACE", "1", "")
	send("POST", "0", "Content-Length: 0\r\n")
	mu.Lock()
	defer mu.Unlock()
	for method, want := range map[string]string{"OPTIONS": "4", "TRACE": "0", "POST": "0"} {
		if got := seen[method]; len(got) != 1 || got[0] != want {
			t.Errorf("%s forwarded with Max-Forwards %q, want %q", method, got, want)
		}
	}
}

// TestNodeStatusEndpointsAllowed: /metrics answers only AllowPeers, and
// refuses others with 403, logged TCP_DENIED/403; /healthz answers
// anyone, with its reason only to AllowPeers and a fixed "unhealthy" to
// others.
func TestNodeStatusEndpointsAllowed(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	others := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	n := startNode(t, ln, nil, NodeConfig{AllowPeers: others})
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(n.url() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, _ := get("/metrics"); st != http.StatusForbidden {
		t.Fatalf("/metrics to a client outside --allow-peers: %d", st)
	}
	waitLogged(t, n.log, "TCP_DENIED/403", "GET /metrics ")
	if st, body := get("/healthz"); st != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", st, body)
	}
	down := errors.New("cache: peer directory: boom at 10.1.2.3")
	n.loopDown.Store(&down)
	if st, body := get("/healthz"); st != http.StatusServiceUnavailable || body != "unhealthy\n" {
		t.Fatalf("/healthz unhealthy, to others: %d %q", st, body)
	}
	cfg := n.cfg
	cfg.AllowPeers = loopback
	if _, err := n.Reconfigure(cfg); err != nil {
		t.Fatal(err)
	}
	if st, body := get("/healthz"); st != http.StatusServiceUnavailable || !strings.Contains(body, "boom at 10.1.2.3") {
		t.Fatalf("/healthz unhealthy, to a peer: %d %q", st, body)
	}
	if st, body := get("/metrics"); st != 200 || !strings.Contains(body, "bloomcast_cache_objects") {
		t.Fatalf("/metrics to a peer: %d %.300q", st, body)
	}
	if st, _ := get("/no-such-thing"); st != http.StatusNotFound {
		t.Fatalf("unknown path: %d", st)
	}
	waitLogged(t, n.log, "NONE/404", "GET /no-such-thing ")
}

// TestNodeOwnAddressNotForwarded: a client in AllowClients but not in
// AllowPeers that asks the node to proxy a request to the node's own
// address, however spelt, is answered by the node under its own rules
// (403 for the peers' endpoints, /healthz without its reason): forwarded,
// the request would come back from loopback, which AllowPeers holds. A
// name the node cannot tell is its own is forwarded, comes back with the
// node's Via entry and is refused as a loop; a CONNECT to the node's own
// address is refused.
func TestNodeOwnAddressNotForwarded(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	self := &http.Client{Transport: &http.Transport{ // "alias.test" resolves to the node
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, ln.Addr().String())
		}}}
	n := startNode(t, ln, nil, NodeConfig{Client: self, ConnectPorts: []uint16{uint16(port)},
		AllowClients: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		AllowPeers:   []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	})
	down := errors.New("boom at 10.1.2.3")
	n.loopDown.Store(&down)
	dial := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext
	proxied := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dial,
		DisableKeepAlives: true, Proxy: http.ProxyURL(mustURL(n.url()))}}
	authorities := []string{fmt.Sprint("127.0.0.1:", port), fmt.Sprint("localhost:", port), fmt.Sprint("LocalHost.:", port),
		fmt.Sprint("a.localhost:", port), fmt.Sprint("[::ffff:127.0.0.1]:", port), fmt.Sprint("0.0.0.0:", port),
		fmt.Sprint("127.0.0.1:0", port), fmt.Sprint("alias.test:", port)}
	paths := []string{"/metrics", nodestatus.Path, nodestatus.JSONPath, DigestPath, squidDigestPath, "/healthz"}
	for _, a := range authorities {
		for _, path := range paths {
			resp, err := proxied.Get("http://" + a + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want, body := http.StatusForbidden, ""
			if path == "/healthz" && a != fmt.Sprint("alias.test:", port) {
				want, body = http.StatusServiceUnavailable, "unhealthy\n"
			}
			if resp.StatusCode != want || body != "" && string(b) != body {
				t.Errorf("%s%s through the node from 127.0.0.2 (not in AllowPeers): %d %.80q, want %d", a, path, resp.StatusCode, b, want)
			}
		}
	}
	waitLogged(t, n.log, "TCP_DENIED/403", "GET http://LocalHost.:"+fmt.Sprint(port)+"/metrics ")
	connect := fmt.Sprint("localhost:", port)
	resps, _, _ := rawExchange(t, ln.Addr().String(), "CONNECT "+connect+" HTTP/1.1\r\nHost: "+connect+"\r\n\r\n", 1, 0)
	if len(resps) != 1 || resps[0].StatusCode != http.StatusForbidden {
		t.Errorf("CONNECT to the node's own address, a port in ConnectPorts: %d responses, want one 403", len(resps))
	}
}

// TestOwnAuthority: the authorities that reach the node's listener, on
// a wildcard, a loopback and another address.
func TestOwnAuthority(t *testing.T) {
	var iface string // an address of this host's, not loopback, if it has one
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if p, ok := a.(*net.IPNet); ok && !p.IP.IsLoopback() {
				iface = p.IP.String()
			}
		}
	}
	for _, c := range []struct {
		listen, host, port, scheme string
		want                       bool
	}{
		{"[::]:3128", "127.0.0.1", "3128", "http", true},
		{"[::]:3128", "::1", "3128", "http", true},
		{"[::]:3128", "localhost", "3128", "http", true},
		{"[::]:3128", iface, "3128", "http", iface != ""},
		{"[::]:3128", "192.0.2.1", "3128", "http", false},
		{"[::]:3128", "127.0.0.1", "3129", "http", false},
		{"[::]:3128", "example.com", "3128", "http", false},
		{"0.0.0.0:80", "127.0.0.1", "", "http", true},
		{"0.0.0.0:80", "127.0.0.1", "", "https", false},
		{"0.0.0.0:443", "127.0.0.1", "", "https", true},
		{"127.0.0.1:3128", "127.0.0.1", "03128", "http", true},
		{"127.0.0.1:3128", "0.0.0.0", "3128", "http", true},
		{"127.0.0.1:3128", "LOCALHOST.", "3128", "http", true},
		{"127.0.0.1:3128", "127.0.0.2", "3128", "http", false},
		{"127.0.0.1:3128", "::1", "3128", "http", false},
		{"10.0.0.5:3128", "10.0.0.5", "3128", "http", true},
		{"10.0.0.5:3128", "localhost", "3128", "http", false},
		{"10.0.0.5:3128", "127.0.0.1", "3128", "http", false},
	} {
		n := &Node{}
		ap := netip.MustParseAddrPort(c.listen)
		n.listening.Store(&ap)
		if got := n.ownAuthority(c.host, c.port, c.scheme); got != c.want {
			t.Errorf("listening on %s: %s://%s port %q is the node's own: %v, want %v", c.listen, c.scheme, c.host, c.port, got, c.want)
		}
	}
}

// TestNodeRefusalsLogged: every request the node refuses, for its
// client, its port, its size or its form, whether the handler or Go's
// server refuses it, gets one access-log line in Squid's form, none over
// MaxAccessLogLine.
func TestNodeRefusalsLogged(t *testing.T) {
	origin := newTestOrigin(t)
	host := strings.TrimPrefix(origin.URL, "http://")
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{})
	deniedLn := listen(t, "127.0.0.1:0")
	denied := startNode(t, deniedLn, nil, NodeConfig{AllowClients: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	long := strings.Repeat("a", 100<<10)
	huge := strings.Repeat("b", 1<<20)
	cases := []struct {
		name   string
		node   *testNode
		req    string
		status int
		log    []string
	}{
		{"client not allowed", denied, "GET " + origin.URL + "/obj/1 HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
			403, []string{"TCP_DENIED/403", "GET " + origin.URL + "/obj/1 "}},
		{"CONNECT, client not allowed", denied, "CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
			403, []string{"TCP_DENIED/403", "CONNECT " + host + " "}},
		{"CONNECT to a port not allowed", n, "CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
			403, []string{"TCP_DENIED/403", "CONNECT " + host + " "}},
		{"userinfo", n, "GET http://u:pw@" + host + "/x HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
			400, []string{"NONE/400", "GET " + origin.URL + "/x "}},
		{"not a proxy request", n, "GET /index.html HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
			404, []string{"NONE/404", "GET /index.html "}},
		{"URL of 100 KiB", n, "GET " + origin.URL + "/" + long + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
			414, []string{"NONE/414", "GET " + origin.URL + "/aaaa"}},
		{"URL of 1 MiB", n, "GET " + origin.URL + "/" + huge + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
			414, []string{"NONE/414", "GET " + origin.URL + "/bbbb"}},
		{"URL just over the limit", n, "GET " + origin.URL + "/" + long[:64<<10] + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
			414, []string{"NONE/414", "GET " + origin.URL + "/aaaa"}},
		{"a header of 1 MiB", n, "GET " + origin.URL + "/h1 HTTP/1.1\r\nHost: " + host + "\r\nX-Big: " + huge + "\r\n\r\n",
			431, []string{"NONE/431", "GET " + origin.URL + "/h1 "}},
		{"headers just over the limit", n, "GET " + origin.URL + "/h2 HTTP/1.1\r\nHost: " + host + "\r\nX-Big: " + long[:64<<10] + "\r\n\r\n",
			431, []string{"NONE/431", "GET " + origin.URL + "/h2 "}},
		{"two Content-Lengths", n, "POST " + origin.URL + "/p HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
			400, []string{"NONE/400", "POST " + origin.URL + "/p "}},
		{"unknown transfer coding", n, "POST " + origin.URL + "/p2 HTTP/1.1\r\nHost: " + host + "\r\nTransfer-Encoding: rot13\r\n\r\n",
			501, []string{"NONE/501", "POST " + origin.URL + "/p2 "}},
		{"no request line", n, "\x16\x03\x01 hello\r\n\r\n",
			400, []string{"NONE/400", " - error:invalid-request "}},
	}
	for _, c := range cases {
		start := time.Now()
		resps, _, _ := rawExchange(t, c.node.ln.Addr().String(), c.req, 1, 0)
		if len(resps) == 0 || resps[0].StatusCode != c.status {
			t.Errorf("%s: %v, want %d", c.name, resps, c.status)
			continue
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: answered after %v", c.name, d)
		}
		waitLogged(t, c.node.log, c.log...)
	}
	if origin.count("/obj/1")+origin.count("/x")+origin.count("/h2")+origin.count("/p") != 0 {
		t.Error("a refused request reached the origin")
	}
}

// TestNodeRequestHeadLimit: a head within MaxRequestHeaderBytes is
// served, one over it refused, at a limit set smaller than the default.
func TestNodeRequestHeadLimit(t *testing.T) {
	origin := newTestOrigin(t)
	host := strings.TrimPrefix(origin.URL, "http://")
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{MaxRequestHeaderBytes: 4 << 10})
	line := "GET " + origin.URL + "/obj/1 HTTP/1.1\r\n"
	rest := "Host: " + host + "\r\nX-Pad: "
	pad := 4<<10 - len(line) - len(rest) - 4
	for _, c := range []struct {
		pad    int
		status int
	}{{pad, 200}, {pad + 1, 431}, {pad + 3000, 431}} {
		resps, _, _ := rawExchange(t, ln.Addr().String(), line+rest+strings.Repeat("p", c.pad)+"\r\n\r\n", 1, 0)
		if len(resps) != 1 || resps[0].StatusCode != c.status {
			t.Errorf("head of %d bytes: %v, want %d", len(line+rest)+c.pad+4, resps, c.status)
		}
	}
	if _, err := NewNode(NodeConfig{MaxRequestHeaderBytes: 100}); err == nil {
		t.Error("a 100-byte head limit accepted")
	}
	_ = n
}

// TestNodeContentLengthWithChunked: a request with both Content-Length
// and Transfer-Encoding is forwarded by its chunked framing alone, and
// the client's connection is closed after the response, so the request
// pipelined behind it is never served (RFC 9112 §6.1).
func TestNodeContentLengthWithChunked(t *testing.T) {
	type got struct {
		te     []string
		cl     int64
		clHdr  string
		body   string
		path   string
		method string
	}
	var mu sync.Mutex
	var seen []got
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, got{r.TransferEncoding, r.ContentLength, r.Header.Get("Content-Length"), string(b), r.URL.Path, r.Method})
		mu.Unlock()
		fmt.Fprintf(w, "got %q", b)
	}))
	t.Cleanup(origin.Close)
	host := strings.TrimPrefix(origin.URL, "http://")
	ln := listen(t, "127.0.0.1:0")
	startNode(t, ln, nil, NodeConfig{})
	req := "POST " + origin.URL + "/upload HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5\r\nhello\r\n0\r\n\r\n" +
		"GET " + origin.URL + "/smuggled HTTP/1.1\r\nHost: " + host + "\r\n\r\n"
	resps, bodies, closed := rawExchange(t, ln.Addr().String(), req, 1, 5*time.Second)
	if len(resps) != 1 || !closed {
		t.Fatalf("%d responses (%q), closed %v; want one, then the connection closed", len(resps), bodies, closed)
	}
	if resps[0].StatusCode != 200 || bodies[0] != `got "hello"` || !resps[0].Close {
		t.Errorf("response %d %q, Connection: close %v", resps[0].StatusCode, bodies[0], resps[0].Close)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0].path != "/upload" || seen[0].clHdr != "" || seen[0].cl != -1 ||
		len(seen[0].te) != 1 || seen[0].te[0] != "chunked" {
		t.Errorf("the origin saw %+v, want one chunked POST without Content-Length", seen)
	}
}

// TestNodeSlowHeadClosed: a client that sends its request head a byte at
// a time (slowloris) has its connection closed once the head has taken
// 10 s, the server's ReadHeaderTimeout.
func TestNodeSlowHeadClosed(t *testing.T) {
	t.Parallel()
	ln := listen(t, "127.0.0.1:0")
	startNode(t, ln, nil, NodeConfig{})
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	if _, err := io.WriteString(c, "GET http://127.0.0.1:1/ HTTP/1.1\r\n"); err != nil {
		t.Fatal(err)
	}
	closed := make(chan time.Duration, 1)
	go func() {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, _ = c.Read(make([]byte, 1))
		closed <- time.Since(start)
	}()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case d := <-closed:
			if d < 9*time.Second || d > 20*time.Second {
				t.Fatalf("closed after %v, want about 10 s", d)
			}
			return
		case <-tick.C:
			_, _ = io.WriteString(c, "X") // a header line that never ends
		}
	}
}

// TestNodeSlowBodyBounded: a request body is read under the read
// timeout, which each byte moves on, and a body the node does not read
// is not waited for. A client refused by address that sends a body of
// 100000 bytes a byte at a time gets its 403 at once and its connection
// closed within bodyWait, as does a request to the node's own endpoints;
// a forwarded body whose bytes come more often than the read timeout
// reaches the origin whole, though it takes longer than bodyWait; one
// that stops is cut off after the read timeout, and the client's
// connection with it.
func TestNodeSlowBodyBounded(t *testing.T) {
	t.Parallel()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err == nil {
			fmt.Fprintf(w, "%d bytes", len(b))
		}
	}))
	t.Cleanup(origin.Close)
	host := strings.TrimPrefix(origin.URL, "http://")
	ln := listen(t, "127.0.0.1:0")
	startNode(t, ln, nil, NodeConfig{ReadTimeout: 3 * time.Second, AllowClients: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	const wait = 10 * time.Second
	for _, c := range []struct {
		name, from, head string
		send             int
		every            time.Duration
		want             string
		answer, close    time.Duration // at most
	}{
		{"refused", "127.0.0.2", "POST http://127.0.0.1:1/x HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Length: 100000\r\n\r\n",
			100000, 200 * time.Millisecond, "403 Forbidden", 2 * time.Second, 5 * time.Second},
		{"the node's own", "127.0.0.1", "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n",
			100000, 200 * time.Millisecond, "200 OK ok\n", 2 * time.Second, 5 * time.Second},
		{"forwarded, trickling", "127.0.0.1", "POST " + origin.URL + "/up HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 10\r\nConnection: close\r\n\r\n",
			10, 200 * time.Millisecond, "200 OK 10 bytes", wait, wait},
		{"forwarded, stalled", "127.0.0.1", "POST " + origin.URL + "/up HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 100\r\n\r\n",
			5, 100 * time.Millisecond, "", wait, 6 * time.Second},
	} {
		answer, answered, closed := slowBody(t, ln.Addr().String(), c.from, c.head, c.send, c.every, wait)
		t.Logf("%s: %q after %v, closed after %v", c.name, answer, answered.Round(time.Millisecond), closed.Round(time.Millisecond))
		if !strings.HasPrefix(answer, c.want) || c.want == "" && strings.HasPrefix(answer, "200") {
			t.Errorf("%s: answered %q, want %q", c.name, answer, c.want)
		}
		if answered > c.answer || closed > c.close {
			t.Errorf("%s: answered after %v, closed after %v, want within %v and %v", c.name, answered, closed, c.answer, c.close)
		}
	}
}

// slowBody sends head on a connection from local address from, then a
// body byte every interval until it has sent send of them. It returns
// the response (status and body, "" when none came) and when it came,
// and when the node closed the connection (wait when it did not), each
// measured from the head.
func slowBody(t *testing.T, addr, from, head string, send int, every, wait time.Duration) (answer string, answered, closed time.Duration) {
	t.Helper()
	c, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}).Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_ = c.SetReadDeadline(start.Add(wait))
		br := bufio.NewReader(c)
		if resp, err := http.ReadResponse(br, nil); err == nil {
			b, _ := io.ReadAll(resp.Body)
			answer = resp.Status + " " + string(b)
		}
		answered = time.Since(start)
		_, _ = io.Copy(io.Discard, br)
		closed = time.Since(start)
	}()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for sent := 0; ; {
		select {
		case <-ended:
			return answer, answered, closed
		case <-tick.C:
			if sent < send {
				_, _ = c.Write([]byte{'x'})
				sent++
			}
		}
	}
}

// FuzzRefusalConnScan: refusalConn follows the lines of what a client
// sends the same way whatever the reads it arrives in, and keeps of the
// last request line at most its buffer.
func FuzzRefusalConnScan(f *testing.F) {
	f.Add([]byte("GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\nPOST /y HTTP/1.1\r\n"), 7)
	f.Add([]byte("X-A: b\nGET "+strings.Repeat("a", 600)), 300)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		var whole, split refusalConn
		whole.scan(b)
		if cut < 0 {
			cut = -cut
		}
		if len(b) > 0 {
			cut %= len(b) + 1
		} else {
			cut = 0
		}
		split.scan(b[:cut])
		split.scan(b[cut:])
		if whole.lineLen != split.lineLen || whole.reqLen != split.reqLen ||
			whole.line != split.line && whole.lineLen > 0 || whole.req != split.req {
			t.Fatalf("one read and two differ: %d/%d %d/%d", whole.lineLen, split.lineLen, whole.reqLen, split.reqLen)
		}
		if whole.reqLen > len(whole.req) || whole.reqLen > 0 && !isRequestLine(whole.req[:whole.reqLen]) {
			t.Fatalf("request line kept: %q", whole.req[:whole.reqLen])
		}
	})
}

// TestNodeOperatorEndpointsNotThroughProxy: node A's client at
// 127.0.0.2, allowed by A but by neither node as a peer, asks A to proxy
// node B's /metrics, status pages and /healthz. B sees A's address
// (127.0.0.1), which its AllowPeers holds, and the request's Via: it
// refuses the operator's endpoints (403, TCP_DENIED/403) and gives
// /healthz without its reason. B's digest stays open to what comes
// through a proxy (Squid fetches it so), and a direct request from
// 127.0.0.1 reads /metrics.
func TestNodeOperatorEndpointsNotThroughProxy(t *testing.T) {
	peersOnly := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	lnB := listen(t, "127.0.0.1:0")
	b := startNode(t, lnB, nil, NodeConfig{Name: "b", AllowPeers: peersOnly})
	down := errors.New("boom at 10.1.2.3")
	b.loopDown.Store(&down)
	lnA := listen(t, "127.0.0.1:0")
	a := startNode(t, lnA, nil, NodeConfig{Name: "a", AllowPeers: peersOnly,
		AllowClients: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	dial := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext
	viaA := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dial,
		DisableKeepAlives: true, Proxy: http.ProxyURL(mustURL(a.url()))}}
	for path, want := range map[string]int{
		"/metrics": http.StatusForbidden, nodestatus.Path: http.StatusForbidden, nodestatus.JSONPath: http.StatusForbidden,
		"/healthz": http.StatusServiceUnavailable, DigestPath: http.StatusOK,
	} {
		resp, err := viaA.Get(b.url() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || path == "/healthz" && string(body) != "unhealthy\n" {
			t.Errorf("B's %s through A: %d %.60q, want %d", path, resp.StatusCode, body, want)
		}
	}
	waitLogged(t, b.log, "127.0.0.1 TCP_DENIED/403", "GET /metrics ")

	// A proxy told not to send Via (Squid's "via off") still says it
	// relayed the request in X-Forwarded-For (Squid's default) or
	// Forwarded.
	for _, field := range []string{"X-Forwarded-For: 127.0.0.2", "Forwarded: for=127.0.0.2"} {
		for _, path := range []string{"/metrics", nodestatus.Path, nodestatus.JSONPath, "/healthz"} {
			resps, bodies, _ := rawExchange(t, lnB.Addr().String(),
				"GET "+path+" HTTP/1.1\r\nHost: b\r\n"+field+"\r\nConnection: close\r\n\r\n", 1, 0)
			want := http.StatusForbidden
			if path == "/healthz" {
				want = http.StatusServiceUnavailable
			}
			if len(resps) != 1 || resps[0].StatusCode != want || path == "/healthz" && bodies[0] != "unhealthy\n" {
				t.Errorf("B's %s with %s: %v %.60q, want %d", path, field, resps, bodies, want)
			}
		}
	}
	resp, err := http.Get(b.url() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("B's /metrics asked directly from 127.0.0.1: %s", resp.Status)
	}
}

// TestNodeSlowReaderClosed: a client that asks for a 16 MiB object and
// takes no byte of it (a 4 KiB receive buffer, never read) has its
// connection closed once WriteTimeout passes without a write going
// through, and the request ends, logged; before, it held the
// connection and the handler for as long as it stayed connected. A
// client that reads gets the object whole.
func TestNodeSlowReaderClosed(t *testing.T) {
	const size = 16 << 20
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Write(make([]byte, size))
	}))
	t.Cleanup(origin.Close)
	ln := listen(t, "127.0.0.1:0")
	n := startNode(t, ln, nil, NodeConfig{MaxObjectBytes: 32 << 20, MemoryBytes: 64 << 20, WriteTimeout: 500 * time.Millisecond})
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(n.url())), DisableKeepAlives: true}, Timeout: 10 * time.Second}
	for i := range 2 { // a miss, then a hit
		resp, err := c.Get(origin.URL + "/big")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || got != size {
			t.Fatalf("request %d, read at once: %d bytes, %v", i, got, err)
		}
	}
	stalled, err := testutil.DialSmallReceiveBuffer(t, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stalled.Close() })
	host := strings.TrimPrefix(origin.URL, "http://")
	before := strings.Count(n.log.String(), "GET "+origin.URL+"/big ")
	io.WriteString(stalled, "GET "+origin.URL+"/big HTTP/1.1\r\nHost: "+host+"\r\n\r\n")
	waitFor(t, 10*time.Second, "the stalled request's end in the access log", func() bool {
		return strings.Count(n.log.String(), "GET "+origin.URL+"/big ") == before+1
	})
}
