package cache

import (
	"bufio"
	"io"
	"net"
	"net/http"
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
