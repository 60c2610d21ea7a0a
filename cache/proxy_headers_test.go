package cache

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// rawOrigin serves, for every request, the raw HTTP/1.1 response that
// respond returns for it, byte for byte, so that tests can send fields
// net/http would not let a handler send (Connection, Transfer-Encoding).
func rawOrigin(t *testing.T, respond func(r *http.Request) string) string {
	t.Helper()
	return rawServer(t, func(c net.Conn, _ *bufio.Reader, req *http.Request) bool {
		io.Copy(io.Discard, req.Body)
		_, err := io.WriteString(c, respond(req))
		return err == nil
	})
}

// rawServer accepts connections on a loopback port and hands each request
// read from them to serve, with the connection and its reader, until
// serve returns false or the client goes; it returns the server's URL.
func rawServer(t *testing.T, serve func(c net.Conn, br *bufio.Reader, req *http.Request) bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil || !serve(c, br, req) {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestProxyStoresHeaderFields has an origin send a chunked response with
// Set-Cookie, fields named in Connection, proxy authentication fields
// and a field listed by a qualified no-cache. The response is stored
// (RFC 9111 §7: Set-Cookie does not inhibit caching; a chunked body is
// stored decoded, RFC 9112 §7.1), with every field except those RFC 9111
// §3.1 and §5.2.2.4 keep out; the client of the miss gets its cookie; a
// hit is served with the stored fields but without Set-Cookie, as Squid
// serves hits, and with a Content-Length; a revalidation passes on the
// cookie of the origin's 304.
func TestProxyStoresHeaderFields(t *testing.T) {
	var served atomic.Int64
	url := rawOrigin(t, func(r *http.Request) string {
		served.Add(1)
		date := "Date: " + httpDate(time.Now()) + "\r\n"
		if r.URL.Path == "/revalidated" {
			if r.Header.Get("If-None-Match") == `"r"` {
				return "HTTP/1.1 304 Not Modified\r\n" + date + "ETag: \"r\"\r\nCache-Control: max-age=0\r\nSet-Cookie: fresh=1\r\n\r\n"
			}
			return "HTTP/1.1 200 OK\r\n" + date + "ETag: \"r\"\r\nCache-Control: max-age=0\r\nSet-Cookie: first=1\r\nContent-Length: 2\r\n\r\nok"
		}
		return "HTTP/1.1 200 OK\r\n" + date +
			"Cache-Control: max-age=3600, no-cache=\"X-Nc\"\r\n" +
			"Content-Type: text/plain\r\nConnection: a, b\r\nA: 1\r\nB: 2\r\nC: 3\r\n" +
			"Proxy-Authenticate: Basic realm=\"up\"\r\nX-Nc: n\r\nX-Frame-Options: deny\r\n" +
			"Set-Cookie: session=alice\r\nSet-Cookie: theme=dark\r\n" +
			"Transfer-Encoding: chunked\r\n\r\n" +
			"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
	})
	h := newHarness(t, nil, nil, nil)
	r := h.do("GET", url+"/cookie")
	if b := body(r); r.StatusCode != 200 || b != "hello world" || len(r.Header.Values("Set-Cookie")) != 2 {
		t.Fatalf("miss: %d %q, Set-Cookie %q", r.StatusCode, b, r.Header.Values("Set-Cookie"))
	}
	key, _ := Key(url + "/cookie")
	e, ok := h.store.Get(key)
	if !ok {
		t.Fatal("response with Set-Cookie and Transfer-Encoding not stored")
	}
	if string(e.Body) != "hello world" || e.Header.Get("Content-Length") != "11" {
		t.Errorf("stored body %q, Content-Length %q", e.Body, e.Header.Get("Content-Length"))
	}
	for _, k := range []string{"Connection", "A", "B", "Transfer-Encoding", "Proxy-Authenticate", "X-Nc"} {
		if v, ok := e.Header[k]; ok {
			t.Errorf("stored %s: %q", k, v)
		}
	}
	for k, want := range map[string]string{"C": "3", "X-Frame-Options": "deny", "Content-Type": "text/plain", "Set-Cookie": "session=alice"} {
		if got := e.Header.Get(k); got != want {
			t.Errorf("stored %s = %q, want %q", k, got, want)
		}
	}

	r = h.do("GET", url+"/cookie")
	if b := body(r); b != "hello world" || served.Load() != 1 || !strings.HasPrefix(h.lastCode(), squidlog.CodeMemHit) {
		t.Fatalf("second request: %q, origin asked %d times, %s", b, served.Load(), h.lastCode())
	}
	if sc := r.Header.Values("Set-Cookie"); len(sc) != 0 {
		t.Errorf("hit hands on another client's cookie: %q", sc)
	}
	if r.Header.Get("C") != "3" || r.Header.Get("X-Nc") != "" || r.Header.Get("Content-Length") != "11" {
		t.Errorf("hit header: %v", r.Header)
	}

	h.do("GET", url+"/revalidated")
	h.clock.Advance(time.Second)
	r = h.do("GET", url+"/revalidated")
	if sc := r.Header.Values("Set-Cookie"); h.lastCode() != "TCP_REFRESH_UNMODIFIED/200 HIER_DIRECT" || len(sc) != 1 || sc[0] != "fresh=1" {
		t.Errorf("revalidated: %s, Set-Cookie %q, want the 304's", h.lastCode(), sc)
	}
}

// TestProxyResponseHeadLimit: a response head over
// originclient.MaxResponseHeaderBytes (64 KiB, Squid's
// reply_header_max_size) is refused, as Squid refuses it: the client
// gets 502, logged TCP_MISS/502 and in one line of the operational log,
// and nothing is stored, so the next request asks the origin again. A
// head of 60 KiB is relayed and stored.
func TestProxyResponseHeadLimit(t *testing.T) {
	var served atomic.Int64
	pad := strings.Repeat("p", 1000)
	url := rawOrigin(t, func(r *http.Request) string {
		served.Add(1)
		fields := 60 // of about 1 KiB each
		if r.URL.Path == "/large" {
			fields = 2048
		}
		var b strings.Builder
		b.WriteString("HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 5\r\n")
		for i := range fields {
			fmt.Fprintf(&b, "X-Pad-%d: %s\r\n", i, pad)
		}
		b.WriteString("\r\nsmall")
		return b.String()
	})
	var logged syncBuffer
	h := newHarness(t, nil, nil, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&logged, nil)) })
	client := frontClient(t, h)
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := client.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp, body(resp)
	}
	for i := range 2 {
		if resp, _ := get("/large"); resp.StatusCode != http.StatusBadGateway || !strings.HasPrefix(h.lastCode(), "TCP_MISS/502 ") {
			t.Errorf("request %d, a 2 MiB head: %d, logged %s; want 502", i, resp.StatusCode, h.lastCode())
		}
	}
	if n := served.Load(); n != 2 {
		t.Errorf("the origin was asked %d times for the 2 MiB head, want 2 (nothing stored)", n)
	}
	lines := strings.Split(strings.TrimSuffix(logged.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "exceeded") || !strings.Contains(lines[1], "exceeded") {
		t.Errorf("operational log, want one line per refused head:\n%s", logged.String())
	}
	for i, want := range []string{"MISS", "HIT"} {
		if resp, b := get("/within"); resp.StatusCode != http.StatusOK || b != "small" || !strings.HasPrefix(resp.Header.Get("X-Cache"), want) {
			t.Errorf("request %d, a 60 KiB head: %d %q, X-Cache %q; want 200, %s", i, resp.StatusCode, b, resp.Header.Get("X-Cache"), want)
		}
	}
}

// TestProxyDenyDestinations has a proxy deny 127.0.0.0/8 and ask it for
// an origin on 127.0.0.1, by address and by the name localhost, which
// resolves to it: 403, logged TCP_DENIED/403 and in one line of the
// operational log, the origin never asked. The check is on the address
// dialled, after resolution. Without the prefix, the same origin answers.
func TestProxyDenyDestinations(t *testing.T) {
	var served atomic.Int64
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("Cache-Control", "max-age=600")
		io.WriteString(w, "secret")
	}))
	t.Cleanup(o.Close)
	_, port, _ := net.SplitHostPort(o.Listener.Addr().String())
	var logged syncBuffer
	h := newHarness(t, nil, nil, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logged, nil))
		c.DenyDestinations = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.0/8")}
	})
	client := frontClient(t, h)
	for _, target := range []string{o.URL + "/a", "http://localhost:" + port + "/b"} {
		resp, err := client.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.HasPrefix(h.lastCode(), "TCP_DENIED/403 ") {
			t.Errorf("%s: %d, logged %s; want 403, TCP_DENIED/403", target, resp.StatusCode, h.lastCode())
		}
	}
	if n := served.Load(); n != 0 {
		t.Errorf("a denied origin was asked %d times", n)
	}
	if got := strings.Count(logged.String(), "cache: destination denied"); got != 2 {
		t.Errorf("operational log: %d lines of denial, want 2:\n%s", got, logged.String())
	}
	open := frontClient(t, newHarness(t, nil, nil, nil))
	resp, err := open.Get(o.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	if b := body(resp); resp.StatusCode != http.StatusOK || b != "secret" {
		t.Errorf("without DenyDestinations: %d %q", resp.StatusCode, b)
	}
}
