package cache

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/squidlog"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// serveProxy runs h's proxy on a loopback listener and returns a client
// that sends every request through it.
func serveProxy(t *testing.T, h *harness) *http.Client {
	t.Helper()
	srv := httptest.NewServer(h.p)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	tr := &http.Transport{Proxy: http.ProxyURL(u), DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// pieceOrigin serves /stream, /chunked and /stall: a header at once, then
// one piece of body each time step is sent a value, with a
// Content-Length of pieces×len(piece) on /stream and none on /chunked.
// /stall sends its header and one piece, then nothing until the client
// goes away. It counts the requests.
type pieceOrigin struct {
	*httptest.Server
	step     chan struct{}
	requests atomic.Int64
}

const (
	testPiece  = "ab"
	testPieces = 5
)

func newPieceOrigin(t *testing.T) *pieceOrigin {
	o := &pieceOrigin{step: make(chan struct{})}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.requests.Add(1)
		h := w.Header()
		h.Set("Cache-Control", "max-age=60")
		h.Set("Content-Type", "text/plain")
		if r.URL.Path == "/stream" {
			h.Set("Content-Length", strconv.Itoa(testPieces*len(testPiece)))
		}
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		rc.Flush()
		if r.URL.Path == "/stall" {
			io.WriteString(w, testPiece)
			rc.Flush()
			<-r.Context().Done()
			return
		}
		for range testPieces {
			select {
			case <-o.step:
			case <-r.Context().Done():
				return
			}
			io.WriteString(w, testPiece)
			rc.Flush()
		}
	}))
	t.Cleanup(o.Close)
	return o
}

// readPiece reads one piece of a streamed body, failing after limit.
func readPiece(body io.Reader, limit time.Duration) (string, error) {
	got := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		b := make([]byte, len(testPiece))
		if _, err := io.ReadFull(body, b); err != nil {
			errc <- err
			return
		}
		got <- string(b)
	}()
	select {
	case s := <-got:
		return s, nil
	case err := <-errc:
		return "", err
	case <-time.After(limit):
		return "", fmt.Errorf("no piece within %v", limit)
	}
}

// TestProxyStreamsMiss has an origin send its header and then its body
// one piece at a time, each only once the client received the one
// before: the client gets the header before any byte of body exists and
// each piece while the origin holds back the next, with a Content-Length
// and without one (chunked); and the response is stored once complete.
func TestProxyStreamsMiss(t *testing.T) {
	o := newPieceOrigin(t)
	h := newHarness(t, nil, nil, nil)
	c := serveProxy(t, h)
	for i, path := range []string{"/stream", "/chunked"} {
		resp, err := c.Get(o.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || resp.Header.Get("X-Cache") != "MISS from test-proxy" {
			t.Fatalf("%s: %d, X-Cache %q", path, resp.StatusCode, resp.Header.Get("X-Cache"))
		}
		for j := range testPieces {
			o.step <- struct{}{} // the origin sends piece j only now
			if p, err := readPiece(resp.Body, 10*time.Second); err != nil || p != testPiece {
				t.Fatalf("%s: piece %d: %q, %v", path, j, p, err)
			}
		}
		if rest, err := io.ReadAll(resp.Body); err != nil || len(rest) != 0 {
			t.Fatalf("%s: after the pieces: %q, %v", path, rest, err)
		}
		resp.Body.Close()
		waitFor(t, 10*time.Second, "the request's end", func() bool { return strings.Count(h.log.String(), "\n") == i+1 })
		key, _ := Key(o.URL + path)
		e, ok := h.store.Get(key)
		if !ok || string(e.Body) != strings.Repeat(testPiece, testPieces) || e.Header.Get("Content-Length") != "10" {
			t.Fatalf("%s: stored %v %+v", path, ok, e)
		}
	}
	if n := o.requests.Load(); n != 2 {
		t.Errorf("origin asked %d times", n)
	}
}

// TestProxyReadTimeout has an origin send its header and a piece of body
// and then stall: past the read timeout the client's response is cut off
// (it never takes the piece for a whole body), the access log says
// TCP_MISS_TIMEDOUT, the operational log warns, and nothing is stored.
// An origin that stalls before its header gets 504.
func TestProxyReadTimeout(t *testing.T) {
	o := newPieceOrigin(t)
	logs := &syncBuffer{}
	h := newHarness(t, nil, nil, func(c *Config) {
		c.ReadTimeout = 300 * time.Millisecond
		c.Logger = slog.New(slog.NewTextHandler(logs, nil))
	})
	c := serveProxy(t, h)
	start := time.Now()
	resp, err := c.Get(o.URL + "/stall")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || string(b) != testPiece {
		t.Fatalf("stalled body: %q, %v; want the piece and an error", b, err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 10*time.Second {
		t.Errorf("cut after %v, want the 300ms read timeout", d)
	}
	waitFor(t, 10*time.Second, "the access log line", func() bool { return strings.Contains(h.log.String(), "TCP_MISS_TIMEDOUT/200") })
	if !strings.Contains(logs.String(), "cache: response body timed out") {
		t.Errorf("no warning logged: %s", logs.String())
	}
	key, _ := Key(o.URL + "/stall")
	if _, ok := h.store.Get(key); ok {
		t.Error("a body cut by the read timeout was stored")
	}

	silent := rawStallOrigin(t)
	resp, err = c.Get(silent + "/silent")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("origin silent before its header: %d, want 504", resp.StatusCode)
	}
}

// TestProxyCollapsedStream sends one request and, once its response
// header is in, ten more for the same URL: the origin is asked once, and
// every client receives each piece of the body while the origin holds
// back the next (the followers read the body the first request is
// receiving). The followers are logged as hits, the first as a miss.
func TestProxyCollapsedStream(t *testing.T) {
	o := newPieceOrigin(t)
	h := newHarness(t, nil, nil, nil)
	c := serveProxy(t, h)
	target := o.URL + "/chunked"
	key, _ := Key(target)
	const followers = 10
	type result struct {
		client int
		piece  string
		err    error
	}
	results := make(chan result, (followers+1)*(testPieces+1))
	ends := make(chan string, followers+1)
	var wg sync.WaitGroup
	client := func(i int) {
		defer wg.Done()
		resp, err := c.Get(target)
		if err != nil {
			results <- result{i, "", err}
			return
		}
		defer resp.Body.Close()
		for range testPieces {
			p, err := readPiece(resp.Body, 10*time.Second)
			results <- result{i, p, err}
			if err != nil {
				return
			}
		}
		// Read to the end, as a client does: one that closes its body at
		// the last piece, before the chunked body's last chunk, leaves the
		// proxy an exchange nobody wants, and it stores nothing.
		if rest, err := io.ReadAll(resp.Body); err != nil || len(rest) != 0 {
			ends <- fmt.Sprintf("client %d after the pieces: %q, %v", i, rest, err)
		}
	}
	wg.Add(1)
	go client(0)
	var s *inflight
	waitFor(t, 10*time.Second, "the first response's stream", func() bool {
		h.p.flightMu.Lock()
		defer h.p.flightMu.Unlock()
		f := h.p.flights[key]
		if f == nil {
			return false
		}
		select {
		case <-f.ready:
			s = f.stream
			return true
		default:
			return false
		}
	})
	if s == nil {
		t.Fatal("the first request published no stream")
	}
	for i := 1; i <= followers; i++ {
		wg.Add(1)
		go client(i)
	}
	waitFor(t, 10*time.Second, "the followers", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.attached == followers
	})
	for i := range testPieces {
		o.step <- struct{}{}
		for range followers + 1 {
			r := <-results
			if r.err != nil || r.piece != testPiece {
				t.Fatalf("piece %d, client %d: %q, %v", i, r.client, r.piece, r.err)
			}
		}
	}
	wg.Wait()
	close(ends)
	for e := range ends {
		t.Error(e)
	}
	if n := o.requests.Load(); n != 1 {
		t.Errorf("%d concurrent requests made %d origin requests, want 1", followers+1, n)
	}
	waitFor(t, 10*time.Second, "the access log", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.recs) == followers+1
	})
	hits := strings.Count(h.log.String(), "TCP_MEM_HIT/200")
	misses := strings.Count(h.log.String(), "TCP_MISS/200")
	if hits != followers || misses != 1 {
		t.Errorf("logged %d hits and %d misses, want %d and 1:\n%s", hits, misses, followers, h.log.String())
	}
	if e, ok := h.store.Get(key); !ok || string(e.Body) != strings.Repeat(testPiece, testPieces) {
		t.Errorf("stored %v %+v", ok, e)
	}
}

// switchOrigin answers with a raw response while mode is "serve", closes
// each connection at once after reading its request in mode "drop", and
// reads requests without answering in mode "stall".
func switchOrigin(t *testing.T, mode *atomic.Value, respond func(*http.Request) string) string {
	return rawServer(t, func(c net.Conn, br *bufio.Reader, req *http.Request) bool {
		switch mode.Load() {
		case "drop":
			return false
		case "stall":
			io.Copy(io.Discard, br)
			return false
		}
		_, err := io.WriteString(c, respond(req))
		return err == nil
	})
}

// TestProxyStaleIfUnreachable stores responses, lets them go stale, and
// makes the origin unreachable three ways (the connection dropped, the
// origin silent past the read timeout, the connection refused): a stale
// response is served with its Age and logged TCP_REFRESH_FAIL_OLD, unless
// must-revalidate, proxy-revalidate, no-cache or s-maxage forbids it, or
// the request says no-cache: 504, logged TCP_REFRESH_FAIL_ERR (RFC 9111
// §4.2.4, §5.2.2.2).
func TestProxyStaleIfUnreachable(t *testing.T) {
	ccs := map[string]string{
		"/plain":            "max-age=60",
		"/etag":             "max-age=60",
		"/must-revalidate":  "max-age=60, must-revalidate",
		"/proxy-revalidate": "max-age=60, proxy-revalidate",
		"/no-cache":         "max-age=60, no-cache",
		"/s-maxage":         "s-maxage=60",
	}
	h := newHarness(t, nil, nil, func(c *Config) { c.ReadTimeout = 200 * time.Millisecond })
	var mode atomic.Value
	mode.Store("serve")
	respond := func(r *http.Request) string {
		etag := ""
		if r.URL.Path == "/etag" {
			etag = "ETag: \"e\"\r\n"
		}
		return "HTTP/1.1 200 OK\r\nDate: " + httpDate(h.clock.Now()) + "\r\nCache-Control: " + ccs[r.URL.Path] +
			"\r\n" + etag + "Content-Length: 6\r\n\r\nstored"
	}
	origins := map[string]string{"drop": switchOrigin(t, &mode, respond), "stall": switchOrigin(t, &mode, respond)}
	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", httpDate(h.clock.Now()))
		w.Header().Set("Cache-Control", ccs[r.URL.Path])
		io.WriteString(w, "stored")
	}))
	origins["refuse"] = refused.URL
	for _, o := range origins {
		for path := range ccs {
			if r := h.do("GET", o+path); r.StatusCode != 200 {
				t.Fatalf("storing %s: %d", path, r.StatusCode)
			}
		}
	}
	mode.Store("drop") // for the first, and "stall" for the second, as the mode is shared
	refused.Close()
	h.clock.Advance(2 * time.Minute)
	for how, o := range origins {
		if how == "stall" {
			mode.Store("stall")
		}
		for path := range ccs {
			r := h.do("GET", o+path)
			b := body(r)
			switch path {
			case "/plain", "/etag":
				if r.StatusCode != 200 || b != "stored" || r.Header.Get("Age") != "120" ||
					r.Header.Get("X-Cache") != "STALE from test-proxy" || !strings.HasPrefix(h.lastCode(), "TCP_REFRESH_FAIL_OLD/200") {
					t.Errorf("%s %s: %d %q, Age %q, X-Cache %q, %s; want the stale response", how, path, r.StatusCode, b,
						r.Header.Get("Age"), r.Header.Get("X-Cache"), h.lastCode())
				}
				if r.Header.Get("Warning") != "" {
					t.Errorf("%s %s: Warning %q (obsolete, RFC 9111 §5.5)", how, path, r.Header.Get("Warning"))
				}
			default:
				if r.StatusCode != http.StatusGatewayTimeout || !strings.HasPrefix(h.lastCode(), "TCP_REFRESH_FAIL_ERR/504") {
					t.Errorf("%s %s: %d, %s; want 504", how, path, r.StatusCode, h.lastCode())
				}
			}
		}
		if r := h.do("GET", o+"/plain", "Cache-Control", "no-cache"); r.StatusCode != http.StatusGatewayTimeout {
			t.Errorf("%s, request no-cache: %d, want 504", how, r.StatusCode)
		}
	}
}

// TestProxyNotModifiedValidators answers a conditional request from the
// store with a 304 that carries the stored ETag and the other fields a
// 200 would have (RFC 9110 §15.4.5), and no body fields.
func TestProxyNotModifiedValidators(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	lm := httpDate(time.Now().Add(-time.Hour))
	exp := httpDate(time.Now().Add(time.Hour))
	o := rawOrigin(t, func(*http.Request) string {
		return "HTTP/1.1 200 OK\r\nDate: " + httpDate(h.clock.Now()) + "\r\nCache-Control: max-age=600\r\n" +
			"ETag: \"abcdef\"\r\nLast-Modified: " + lm + "\r\nExpires: " + exp + "\r\nVary: Accept-Language\r\n" +
			"Content-Location: /here\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nbody"
	})
	h.do("GET", o+"/v")
	for _, cond := range [][]string{{"If-None-Match", `"abcdef"`}, {"If-Modified-Since", lm}} {
		r := h.do("GET", o+"/v", cond...)
		if r.StatusCode != http.StatusNotModified || h.lastCode() != "TCP_IMS_HIT/304 HIER_NONE" {
			t.Fatalf("%s: %d %s", cond[0], r.StatusCode, h.lastCode())
		}
		for k, want := range map[string]string{"ETag": `"abcdef"`, "Last-Modified": lm, "Expires": exp,
			"Vary": "Accept-Language", "Content-Location": "/here", "Cache-Control": "max-age=600"} {
			if got := r.Header.Get(k); got != want {
				t.Errorf("%s: 304 %s = %q, want %q", cond[0], k, got, want)
			}
		}
		if r.Header.Get("Date") == "" || r.Header.Get("Content-Type") != "" {
			t.Errorf("%s: 304 Date %q, Content-Type %q", cond[0], r.Header.Get("Date"), r.Header.Get("Content-Type"))
		}
	}
}

// TestProxyInterimNeverCached has an origin send interim responses (100
// Continue, and 103 Early Hints with fields of their own) before its
// 200: the 103 is passed on to the client as it arrives, with its
// fields, and the 200 relayed and stored without them; a second request
// is a hit with no interim response (RFC 9110 §15.2: a 1xx is interim;
// RFC 9111 §3: only final responses are stored).
func TestProxyInterimNeverCached(t *testing.T) {
	var served atomic.Int64
	origin := rawOrigin(t, func(*http.Request) string {
		served.Add(1)
		return "HTTP/1.1 100 Continue\r\n\r\n" +
			"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\nCache-Control: no-store\r\n\r\n" +
			"HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nfinal"
	})
	h := newHarness(t, nil, nil, nil)
	c := serveProxy(t, h)
	url := origin + "/interim"
	get := func() (*http.Response, []string) {
		var interim []string
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
				interim = append(interim, fmt.Sprint(code, " ", h.Get("Link"), " ", h.Get("Cache-Control")))
				return nil
			}})
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		r, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return r, interim
	}
	r, interim := get()
	if r.StatusCode != 200 || body(r) != "final" || r.Header.Get("Link") != "" || r.Header.Get("Cache-Control") != "max-age=60" {
		t.Fatalf("first: %d, Link %q, Cache-Control %q", r.StatusCode, r.Header.Get("Link"), r.Header.Get("Cache-Control"))
	}
	if len(interim) != 1 || interim[0] != "103 </style.css>; rel=preload no-store" {
		t.Errorf("interim responses relayed: %q, want the 103", interim)
	}
	waitFor(t, 10*time.Second, "the first request's end", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.recs) == 1
	})
	key, _ := Key(url)
	e, ok := h.store.Get(key)
	if !ok || e.Status != 200 || e.Header.Get("Link") != "" || e.Header.Get("Cache-Control") != "max-age=60" {
		t.Fatalf("stored: %v %+v", ok, e)
	}
	r, interim = get()
	if r.StatusCode != 200 || body(r) != "final" || served.Load() != 1 || !strings.HasPrefix(h.lastCode(), squidlog.CodeMemHit) {
		t.Fatalf("second: %d, origin asked %d times, %s", r.StatusCode, served.Load(), h.lastCode())
	}
	if len(interim) != 0 {
		t.Errorf("a hit sent interim responses %q", interim)
	}
}

// TestProxyCollapsedLeaderLeaves has the client of the forwarded request
// go away after the first piece while three collapsed requests read on:
// the exchange goes on for them, each gets the whole body, and it is
// stored, from one origin request.
func TestProxyCollapsedLeaderLeaves(t *testing.T) {
	o := newPieceOrigin(t)
	h := newHarness(t, nil, nil, nil)
	c := serveProxy(t, h)
	target := o.URL + "/stream"
	key, _ := Key(target)
	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	req, _ := http.NewRequestWithContext(ctx, "GET", target, nil)
	lead, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	s := waitForStream(t, h.p, key)
	const followers = 3
	bodies := make(chan string, followers)
	for range followers {
		go func() {
			resp, err := c.Get(target)
			if err != nil {
				bodies <- err.Error()
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			bodies <- fmt.Sprint(string(b), err)
		}()
	}
	waitFor(t, 10*time.Second, "the followers", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.attached == followers
	})
	o.step <- struct{}{}
	if p, err := readPiece(lead.Body, 10*time.Second); err != nil || p != testPiece {
		t.Fatalf("first piece: %q, %v", p, err)
	}
	leave()
	lead.Body.Close()
	for range testPieces - 1 {
		o.step <- struct{}{}
	}
	want := strings.Repeat(testPiece, testPieces) + "<nil>"
	for range followers {
		if b := <-bodies; b != want {
			t.Fatalf("follower got %q, want %q", b, want)
		}
	}
	if e, ok := h.store.Get(key); !ok || string(e.Body) != strings.Repeat(testPiece, testPieces) {
		t.Errorf("stored %v %+v", ok, e)
	}
	if n := o.requests.Load(); n != 1 {
		t.Errorf("origin asked %d times", n)
	}
}

// TestProxyCollapsedPastMaxObject has a body of unknown length grow past
// MaxObjectBytes while a collapsed request reads it: the proxy holds no
// more of it, so the follower is cut off (its body ends in an error, never
// taken for a whole one), the first client gets all of it, and nothing is
// stored.
func TestProxyCollapsedPastMaxObject(t *testing.T) {
	step := make(chan struct{})
	const piece = 6000 // MaxObjectBytes is 10000: the second piece takes the body past it
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.WriteHeader(200)
		rc := http.NewResponseController(w)
		rc.Flush()
		for range 3 {
			select {
			case <-step:
			case <-r.Context().Done():
				return
			}
			w.Write(bytes.Repeat([]byte("x"), piece))
			rc.Flush()
		}
	}))
	t.Cleanup(o.Close)
	h := newHarness(t, nil, nil, nil)
	c := serveProxy(t, h)
	key, _ := Key(o.URL + "/big")
	lead, err := c.Get(o.URL + "/big")
	if err != nil {
		t.Fatal(err)
	}
	s := waitForStream(t, h.p, key)
	followed := make(chan string, 1)
	go func() {
		resp, err := c.Get(o.URL + "/big")
		if err != nil {
			followed <- err.Error()
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		followed <- fmt.Sprint(len(b) <= piece, " ", err != nil)
	}()
	waitFor(t, 10*time.Second, "the follower", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.attached == 1
	})
	leadBody := make(chan int, 1)
	go func() {
		b, _ := io.ReadAll(lead.Body)
		leadBody <- len(b)
	}()
	for range 3 {
		step <- struct{}{}
	}
	if got := <-followed; got != "true true" {
		t.Errorf("follower: at most the first piece, an error: %s", got)
	}
	if n := <-leadBody; n != 3*piece {
		t.Errorf("first client got %d bytes, want %d", n, 3*piece)
	}
	waitFor(t, 10*time.Second, "the access log", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.recs) == 2
	})
	if _, ok := h.store.Get(key); ok {
		t.Error("a body past MaxObjectBytes was stored")
	}
}

// TestProxyUnknownTransferCoding has an origin send a body in a transfer
// coding the node does not decode (identity, a made-up one, chunked
// before another, a coding with parameters): it cannot tell what the body
// is, so it answers 502 and stores nothing, as Squid does. Chunked, gzip,
// deflate and compress bodies are stored decoded
// (TestProxyStoresHeaderFields, TestOriginTransferCodings).
func TestProxyUnknownTransferCoding(t *testing.T) {
	for _, te := range []string{"compress;bits=16, chunked", "identity", "identity, chunked", "br, chunked", "gzip;q=1, chunked", "chunked, gzip", "chunked, chunked", "made-up, chunked", "gzip, made-up, chunked"} {
		o := rawOrigin(t, func(*http.Request) string {
			return "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nTransfer-Encoding: " + te + "\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
		})
		h := newHarness(t, nil, nil, nil)
		if r := h.do("GET", o+"/te"); r.StatusCode != http.StatusBadGateway {
			t.Errorf("Transfer-Encoding: %s: %d, want 502", te, r.StatusCode)
		}
		key, _ := Key(o + "/te")
		if _, ok := h.store.Get(key); ok {
			t.Errorf("Transfer-Encoding: %s: stored", te)
		}
	}
}

// waitForStream waits until the miss of key in flight through p has its
// response and returns the stream that requests collapsed onto it read.
func waitForStream(t *testing.T, p *Proxy, key string) *inflight {
	t.Helper()
	var s *inflight
	waitFor(t, 10*time.Second, "the first response's stream", func() bool {
		p.flightMu.Lock()
		defer p.flightMu.Unlock()
		if f := p.flights[key]; f != nil {
			select {
			case <-f.ready:
				s = f.stream
				return true
			default:
			}
		}
		return false
	})
	return s
}

// TestRelayBufferBytes: a body known to be small is relayed through a
// buffer its size (at least 512 bytes, so that an empty body's read still
// makes progress), others through 32 KiB.
func TestRelayBufferBytes(t *testing.T) {
	for _, c := range []struct {
		length int64
		want   int
	}{{-1, 32 << 10}, {0, 512}, {100, 512}, {4096, 4096}, {32 << 10, 32 << 10}, {1 << 30, 32 << 10}} {
		if got := relayBufferBytes(c.length); got != c.want {
			t.Errorf("relayBufferBytes(%d) = %d, want %d", c.length, got, c.want)
		}
	}
}

// TestProxyAnnouncedLengthNotAllocated has an origin announce bodies of
// MaxObjectBytes (4 MiB by default) and send ten bytes of each: the proxy
// allocates for the bytes that arrive, not for the length a server
// claims, and grows a body's array to exactly its length.
func TestProxyAnnouncedLengthNotAllocated(t *testing.T) {
	const n, announced = 16, DefaultMaxObjectBytes
	release := make(chan struct{})
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Content-Length", strconv.Itoa(announced))
		io.WriteString(w, "0123456789")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(o.Close)
	t.Cleanup(func() { close(release) })
	store, _ := NewMemory(MemoryConfig{MaxBytes: 64 << 20})
	c := serveProxy(t, newHarness(t, store, nil, func(c *Config) { c.MaxObjectBytes = announced }))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var started sync.WaitGroup
	bodies := make(chan io.Closer, n)
	for i := range n {
		started.Add(1)
		go func() {
			defer started.Done()
			resp, err := c.Get(fmt.Sprintf("%s/obj/%d", o.URL, i))
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.ReadFull(resp.Body, make([]byte, 10))
			bodies <- resp.Body
		}()
	}
	started.Wait()
	runtime.GC()
	runtime.ReadMemStats(&after)
	close(bodies)
	for b := range bodies {
		b.Close()
	}
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("live heap grew by %.1f MiB with %d responses in flight, 10 bytes of each received", float64(grew)/(1<<20), n)
	if grew > 16<<20 {
		t.Errorf("live heap grew by %.1f MiB for %d bytes received: announced lengths allocated before the bytes arrive",
			float64(grew)/(1<<20), n*10)
	}
}

// TestGrowAppend: a body grows by doubling, never past its known length,
// so that a whole body fills its array exactly.
func TestGrowAppend(t *testing.T) {
	for _, c := range []struct {
		length          int64
		pieces, wantCap int
	}{{-1, 10, 16 * 1000}, {10000, 10, 10000}, {5000, 5, 5000}, {100000, 10, 16 * 1000}} {
		body := make([]byte, 0, min(max(c.length, 0), 1000))
		for range c.pieces {
			body = growAppend(body, bytes.Repeat([]byte("x"), 1000), c.length)
		}
		if len(body) != c.pieces*1000 || cap(body) != c.wantCap {
			t.Errorf("length %d, %d pieces: len %d cap %d, want %d and %d", c.length, c.pieces, len(body), cap(body), c.pieces*1000, c.wantCap)
		}
	}
}

// TestProxyCollapsedStalledLeader has the client whose miss fetches a
// 16 MiB object never read (a 4 KiB receive buffer): a request collapsed
// onto the miss still gets the whole object at once, the origin is asked
// once, and the object is stored. The body is collected from the origin
// at its pace, not at the slowest client's.
func TestProxyCollapsedStalledLeader(t *testing.T) {
	const size = 16 << 20
	var asked atomic.Int64
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Content-Length", strconv.Itoa(size))
		chunk := make([]byte, 64<<10)
		for range size / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(o.Close)
	store, _ := NewMemory(MemoryConfig{MaxBytes: 64 << 20})
	h := newHarness(t, store, nil, func(c *Config) { c.MaxObjectBytes = 32 << 20 })
	srv := httptest.NewServer(h.p)
	t.Cleanup(srv.Close)
	stalled, err := testutil.DialSmallReceiveBuffer(t, srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stalled.Close() })
	host := strings.TrimPrefix(o.URL, "http://")
	if _, err := io.WriteString(stalled, "GET "+o.URL+"/big HTTP/1.1\r\nHost: "+host+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	key, _ := Key(o.URL + "/big")
	waitForStream(t, h.p, key)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, o.URL+"/big", nil)
	u, _ := url.Parse(srv.URL)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), DisableKeepAlives: true}}
	start := time.Now()
	resp, err := c.Do(req)
	got := int64(0)
	if err == nil {
		got, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if err != nil || got != size || asked.Load() != 1 {
		t.Fatalf("a request collapsed onto a stalled client's miss: %d of %d bytes in %v, err %v, origin asked %d times",
			got, size, time.Since(start).Round(time.Millisecond), err, asked.Load())
	}
	// The follower may have its last byte a moment before the filler
	// stores the object.
	waitFor(t, 10*time.Second, "the object stored while its first client stalls", func() bool {
		_, ok := store.Get(key)
		return ok
	})
}

// TestProxyReadTimeoutAfterUpload has a client upload a body for longer
// than the read timeout, a piece every 100 ms for 900 ms against 300 ms:
// the origin, which answers once it has the whole body, is not cut as
// silent while the body is still being sent (Squid starts read_timeout
// once the request is sent).
func TestProxyReadTimeoutAfterUpload(t *testing.T) {
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, strconv.Itoa(len(b)))
	}))
	t.Cleanup(o.Close)
	c := serveProxy(t, newHarness(t, nil, nil, func(c *Config) { c.ReadTimeout = 300 * time.Millisecond }))
	pr, pw := io.Pipe()
	go func() {
		for range 9 {
			time.Sleep(100 * time.Millisecond)
			pw.Write([]byte("0123456789"))
		}
		pw.Close()
	}()
	resp, err := c.Post(o.URL+"/upload", "text/plain", pr)
	if err != nil {
		t.Fatal(err)
	}
	if b := body(resp); resp.StatusCode != http.StatusOK || b != "90" {
		t.Errorf("a 900 ms upload through a proxy of 300 ms read timeout: %d %q; want 200 \"90\"", resp.StatusCode, b)
	}
}
