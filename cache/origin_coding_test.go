package cache

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/originclient"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// TestOriginTransferCodings has a hostile origin send bodies in each
// transfer coding the node decodes: the client gets the decoded body, the
// second request is a hit with the same body, and the origin is asked
// once. The last case's Transfer-Encoding spans two fields.
func TestOriginTransferCodings(t *testing.T) {
	const text = "the quick brown fox jumps over the lazy dog, again and again and again"
	head := "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Type: text/plain\r\n"
	for _, c := range []struct {
		name  string
		raw   string
		close bool
	}{
		{"gzip+chunked", head + "Transfer-Encoding: gzip, chunked\r\n\r\n" + testutil.Chunked(testutil.Gzipped(t, text), 7), false},
		{"x-gzip+chunked", head + "Transfer-Encoding: X-Gzip,chunked\r\n\r\n" + testutil.Chunked(testutil.Gzipped(t, text), 1000), false},
		{"deflate(zlib)+chunked", head + "Transfer-Encoding: deflate, chunked\r\n\r\n" + testutil.Chunked(testutil.Zlibbed(t, text), 5), false},
		{"deflate(raw)+chunked", head + "Transfer-Encoding: deflate, chunked\r\n\r\n" + testutil.Chunked(testutil.Deflated(t, text), 5), false},
		{"gzip close-delimited", head + "Transfer-Encoding: gzip\r\n\r\n" + testutil.Gzipped(t, text), true},
		{"gzip over Content-Length", head + "Content-Length: 3\r\nTransfer-Encoding: gzip\r\n\r\n" + testutil.Gzipped(t, text), true},
		{"gzip+deflate+chunked", head + "Transfer-Encoding: gzip\r\nTransfer-Encoding: deflate, chunked\r\n\r\n" + testutil.Chunked(testutil.Zlibbed(t, testutil.Gzipped(t, text)), 9), false},
		{"compress+chunked", head + "Transfer-Encoding: compress, chunked\r\n\r\n" + testutil.Chunked(string(testutil.UnixCompress([]byte(text), 16, true, false)), 6), false},
		{"x-compress close-delimited", head + "Transfer-Encoding: x-compress\r\n\r\n" + string(testutil.UnixCompress([]byte(text), 9, false, false)), true},
		{"compress+gzip+chunked", head + "Transfer-Encoding: compress, gzip, chunked\r\n\r\n" + testutil.Chunked(testutil.Gzipped(t, string(testutil.UnixCompress([]byte(text), 12, true, true))), 11), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := testutil.NewRawOrigin(t, func(*http.Request) (string, bool) { return c.raw, c.close })
			h := newHarness(t, nil, nil, nil)
			for i, want := range []string{"MISS", "HIT"} {
				r := h.do("GET", o.URL+"/coded")
				if got := body(r); r.StatusCode != 200 || got != text || !strings.HasPrefix(r.Header.Get("X-Cache"), want) {
					t.Fatalf("request %d: %d %q %v, want 200 %q %s", i, r.StatusCode, got, r.Header, text, want)
				}
				if te := r.Header.Get("Transfer-Encoding"); te != "" {
					t.Errorf("request %d: Transfer-Encoding %q reached the client", i, te)
				}
			}
			if n := o.Reqs.Load(); n != 1 {
				t.Errorf("origin asked %d times", n)
			}
			key, _ := Key(o.URL + "/coded")
			e, ok := h.store.Get(key)
			if !ok || string(e.Body) != text || e.Header.Get("Content-Length") != fmt.Sprint(len(text)) || e.Header.Get("Transfer-Encoding") != "" {
				t.Errorf("stored %v %q %v", ok, e.Body, e.Header)
			}
		})
	}
}

// TestOriginFramingOneConnection sends a keep-alive sequence of
// responses on one origin connection, each framed differently, to the
// origin router: every response is read right and the origin accepts a
// single connection.
func TestOriginFramingOneConnection(t *testing.T) {
	const text = "decoded after interim responses"
	o := testutil.NewRawOrigin(t, func(req *http.Request) (string, bool) {
		switch req.URL.Path {
		case "/length":
			return "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nlength", false
		case "/trailers":
			return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n" +
				"4;a=b;c=\"d\"\r\nchun\r\n3 \r\nked\r\n0\r\nX-Sum: 1\r\nX-Other: 2\r\n\r\n", false
		case "/head":
			return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false
		case "/head-coded":
			return "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", false
		case "/304":
			return "HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\nTransfer-Encoding: chunked\r\n\r\n", false
		case "/204":
			return "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", false
		case "/interim":
			return "HTTP/1.1 100 Continue\r\n\r\n" +
				"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n" +
				"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 99\r\n\r\n" + testutil.Chunked(testutil.Gzipped(t, text), 4), false
		}
		return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false
	})
	router := Direct(nil)
	for _, c := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/length", 200, "length"},
		{"GET", "/trailers", 200, "chunked"},
		{"HEAD", "/head", 200, ""},
		{"GET", "/length", 200, "length"},
		{"HEAD", "/head-coded", 200, ""},
		{"GET", "/304", 304, ""},
		{"GET", "/204", 204, ""},
		{"GET", "/interim", 200, text},
		{"GET", "/trailers", 200, "chunked"},
		{"GET", "/interim", 200, text},
		{"GET", "/length", 200, "length"},
	} {
		req, _ := http.NewRequest(c.method, o.URL+c.path, nil)
		resp, _, err := router.Route(&Forward{Request: req})
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != c.status || string(b) != c.body {
			t.Fatalf("%s %s: %d %q %v, want %d %q", c.method, c.path, resp.StatusCode, b, err, c.status, c.body)
		}
		if c.path == "/trailers" && resp.Trailer.Get("X-Sum") != "1" {
			t.Errorf("trailer %v", resp.Trailer)
		}
	}
	if n := o.Conns.Load(); n != 1 {
		t.Errorf("origin accepted %d connections, want 1", n)
	}
}

// TestOriginCorruptCoding: a gzip body whose checksum is wrong, or that
// is cut, or that has bytes after it, and a compress body with a bad
// header or a code no encoder writes, reach the client cut short, are
// logged and are not stored.
func TestOriginCorruptCoding(t *testing.T) {
	const text = "a body whose coding breaks"
	z := []byte(testutil.Gzipped(t, text))
	bad := bytes.Clone(z)
	bad[len(bad)-5] ^= 0xff // the CRC-32
	lzw := testutil.UnixCompress([]byte(text), 16, true, false)
	for _, c := range []struct{ name, coding, body string }{
		{"checksum", "gzip", testutil.Chunked(string(bad), 8)},
		{"truncated", "gzip", testutil.Chunked(string(z[:len(z)-6]), 8)},
		{"trailing", "gzip", testutil.Chunked(string(z)+"junk", 8)},
		{"not gzip", "gzip", testutil.Chunked("plain text, not gzip", 8)},
		{"bad chunk", "gzip", "zz\r\n" + string(z) + "\r\n0\r\n\r\n"},
		{"not compress", "compress", testutil.Chunked("plain text, not compress", 8)},
		{"compress header", "compress", testutil.Chunked("\x1f\x9d\x91"+string(lzw[3:]), 8)},
		{"compress code", "compress", testutil.Chunked(string(lzw)+"\xff\xff", 8)},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := testutil.NewRawOrigin(t, func(*http.Request) (string, bool) {
				return "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nTransfer-Encoding: " + c.coding + ", chunked\r\n\r\n" + c.body, false
			})
			var logs syncBuffer
			h := newHarness(t, nil, nil, func(cfg *Config) { cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
			resp, err := frontClient(t, h).Get(o.URL + "/bad")
			if err == nil {
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil {
					t.Errorf("corrupt body served whole: %d %q", resp.StatusCode, b)
				}
			}
			key, _ := Key(o.URL + "/bad")
			if _, ok := h.store.Get(key); ok {
				t.Error("stored")
			}
			if !strings.Contains(logs.String(), "transfer coding") {
				t.Errorf("not logged: %s", logs.String())
			}
		})
	}
}

// TestOriginCodingBomb: 10 MiB of zeros gzip'd into 10 KiB stream
// through the node to a client on a real socket in bounded memory, and
// are not stored (the limit is 10000 bytes).
func TestOriginCodingBomb(t *testing.T) {
	bomb := string(testutil.GzipBomb(t, 10))
	o := testutil.NewRawOrigin(t, func(*http.Request) (string, bool) {
		return "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + testutil.Chunked(bomb, 4096), false
	})
	h := newHarness(t, nil, nil, nil)
	client := frontClient(t, h)
	var n int64
	used := testutil.Allocated(func() {
		resp, err := client.Get(o.URL + "/bomb")
		if err != nil {
			t.Fatal(err)
		}
		n, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
	})
	if n != 10<<20 {
		t.Errorf("client got %d bytes, want %d", n, 10<<20)
	}
	if used > 4<<20 {
		t.Errorf("allocated %d bytes for a 10 MiB decoded body", used)
	}
	key, _ := Key(o.URL + "/bomb")
	if _, ok := h.store.Get(key); ok {
		t.Error("stored")
	}
	t.Logf("allocated %d KiB", used>>10)
}

// frontClient serves h's proxy on a loopback socket and returns a client
// that uses it.
func frontClient(t *testing.T, h *harness) *http.Client {
	front := httptest.NewServer(h.p)
	t.Cleanup(front.Close)
	frontURL, err := url.Parse(front.URL)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(frontURL), DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestOriginTLSCoding: an https origin that speaks HTTP/1.1 has its gzip
// body decoded too; one that speaks HTTP/2 is reached over HTTP/2.
func TestOriginTLSCoding(t *testing.T) {
	const text = "over TLS"
	h2 := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Proto)
	}))
	h2.EnableHTTP2 = true
	h2.StartTLS()
	defer h2.Close()
	roots := x509.NewCertPool()
	roots.AddCert(h2.Certificate())
	router := Direct(originclient.New(&tls.Config{RootCAs: roots}, nil))

	// An HTTP/1.1-only origin: the test server's certificate without h2.
	cfg := h2.TLS.Clone()
	cfg.NextProtos = []string{"http/1.1"}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"+testutil.Chunked(testutil.Gzipped(t, text), 3))
				}
			}()
		}
	}()
	for _, c := range []struct{ url, want string }{
		{"https://" + ln.Addr().String() + "/", text},
		{h2.URL + "/", "HTTP/2.0"},
	} {
		req, _ := http.NewRequest("GET", c.url, nil)
		resp, _, err := router.Route(&Forward{Request: req})
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(b) != c.want {
			t.Errorf("%s: %q %v, want %q", c.url, b, err, c.want)
		}
	}
}
