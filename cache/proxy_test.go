package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/originclient"
	"github.com/bloomcast/bloomcast/internal/squidlog"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// origin is a test origin server that counts the requests per path.
type origin struct {
	*httptest.Server
	mu     sync.Mutex
	counts map[string]int
	last   http.Header // the last request's header
}

func (o *origin) count(path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.counts[path]
}

// newOrigin starts the test origin; its Date fields come from clock.
func newOrigin(t *testing.T, clock *fakeClock) *origin {
	o := &origin{counts: map[string]int{}}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.counts[r.URL.Path]++
		o.last = r.Header.Clone()
		o.mu.Unlock()
		h := w.Header()
		h.Set("Date", httpDate(clock.Now()))
		switch r.URL.Path {
		case "/fresh":
			h.Set("Cache-Control", "max-age=60")
			h.Set("ETag", `"v1"`)
			h.Set("Content-Type", "text/plain")
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			if r.Method == http.MethodPost {
				io.WriteString(w, "posted")
				return
			}
			io.WriteString(w, "fresh")
		case "/turns-nostore":
			h.Set("ETag", `"t"`)
			if r.Header.Get("If-None-Match") != "" {
				h.Set("Cache-Control", "no-store")
				w.WriteHeader(http.StatusNotModified)
				return
			}
			h.Set("Cache-Control", "max-age=1")
			io.WriteString(w, "t")
		case "/create":
			h.Set("Location", "/made")
			w.WriteHeader(http.StatusCreated)
		case "/nostore":
			h.Set("Cache-Control", "no-store")
			io.WriteString(w, "secret")
		case "/vary":
			h.Set("Cache-Control", "max-age=60")
			h.Set("Vary", "Accept-Language")
			io.WriteString(w, "lang="+r.Header.Get("Accept-Language"))
		case "/big":
			h.Set("Cache-Control", "max-age=60")
			w.Write(bytes.Repeat([]byte("x"), 20000))
		case "/chunked":
			h.Set("Cache-Control", "max-age=60")
			n := 100
			if r.URL.RawQuery == "big" {
				n = 20000
			}
			for i := 0; i < n; i += 50 {
				w.Write(bytes.Repeat([]byte("y"), 50))
				w.(http.Flusher).Flush()
			}
		case "/hop":
			h.Set("Cache-Control", "max-age=60")
			h.Set("Connection", "X-Hop")
			h.Set("X-Hop", "1")
			h.Set("Keep-Alive", "timeout=5")
			io.WriteString(w, "hop")
		default:
			h.Set("Cache-Control", "max-age=60")
			fmt.Fprintf(w, "body of %s", r.URL.Path)
		}
	}))
	t.Cleanup(o.Close)
	return o
}

// harness is a proxy over a memory store with a fake clock and a checked
// observer, logging to a buffer.
type harness struct {
	t     *testing.T
	p     *Proxy
	clock *fakeClock
	obs   *checkObserver
	log   *syncBuffer
	store Store
	recs  []*Record
	mu    sync.Mutex
}

func newHarness(t *testing.T, store Store, obs *checkObserver, edit func(*Config)) *harness {
	h := &harness{t: t, clock: testutil.NewClock(time.Now().Truncate(time.Second)), obs: obs, log: &syncBuffer{}}
	if store == nil {
		h.obs = newCheckObserver(t)
		store, _ = NewMemory(MemoryConfig{MaxBytes: 1 << 20, Observer: h.obs})
	}
	h.store = store
	cfg := Config{
		Store: store, AccessLog: h.log, Logger: quietLogger(), Now: h.clock.Now, Via: "test-proxy",
		MaxObjectBytes: 10000,
		OnRequest: func(r *Record) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.recs = append(h.recs, r)
		},
	}
	if edit != nil {
		edit(&cfg)
	}
	p, err := NewProxy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.p = p
	return h
}

// do sends one request through the proxy; kv are request header fields.
func (h *harness) do(method, url string, kv ...string) *http.Response {
	h.t.Helper()
	req := httptest.NewRequest(method, url, nil)
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Add(kv[i], kv[i+1])
	}
	rec := httptest.NewRecorder()
	h.p.ServeHTTP(rec, req)
	return rec.Result()
}

func (h *harness) lastCode() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.recs[len(h.recs)-1]
	return r.Code + "/" + fmt.Sprint(r.Status) + " " + r.Hierarchy
}

func body(r *http.Response) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

func TestProxyHitAfterMissAndRevalidation(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	o := newOrigin(t, h.clock)
	url := o.URL + "/fresh"

	r := h.do("GET", url)
	if r.StatusCode != 200 || body(r) != "fresh" || r.Header.Get("X-Cache") != "MISS from test-proxy" {
		t.Fatalf("miss: %d %q %v", r.StatusCode, body(r), r.Header)
	}
	if got := h.lastCode(); got != "TCP_MISS/200 HIER_DIRECT" {
		t.Fatalf("miss logged %s", got)
	}
	if !strings.Contains(r.Header.Get("Via"), "1.1 test-proxy") || !strings.Contains(o.last.Get("Via"), "1.1 test-proxy") {
		t.Fatalf("Via missing: response %q, request %q", r.Header.Get("Via"), o.last.Get("Via"))
	}

	h.clock.Advance(10 * time.Second)
	r = h.do("GET", url)
	if r.StatusCode != 200 || body(r) != "fresh" || o.count("/fresh") != 1 || r.Header.Get("X-Cache") != "HIT from test-proxy" {
		t.Fatalf("hit: %d, origin saw %d requests, %v", r.StatusCode, o.count("/fresh"), r.Header)
	}
	if age := r.Header.Get("Age"); age != "10" && age != "11" {
		t.Fatalf("Age %q, want 10 (or 11 with the origin's Date rounding)", age)
	}
	if got := h.lastCode(); got != "TCP_MEM_HIT/200 HIER_NONE" {
		t.Fatalf("hit logged %s", got)
	}

	// HEAD is answered from the stored GET.
	r = h.do("HEAD", url)
	if r.StatusCode != 200 || body(r) != "" || r.Header.Get("Content-Length") != "5" || o.count("/fresh") != 1 {
		t.Fatalf("HEAD: %d %q CL=%q, origin %d", r.StatusCode, body(r), r.Header.Get("Content-Length"), o.count("/fresh"))
	}

	// The client's own conditional request is answered 304 from the cache.
	r = h.do("GET", url, "If-None-Match", `"v1"`)
	if r.StatusCode != 304 || o.count("/fresh") != 1 || h.lastCode() != "TCP_IMS_HIT/304 HIER_NONE" {
		t.Fatalf("conditional hit: %d, %s", r.StatusCode, h.lastCode())
	}

	// Stale: revalidated with If-None-Match, the 304 freshens the entry.
	h.clock.Advance(time.Minute)
	r = h.do("GET", url)
	if r.StatusCode != 200 || body(r) != "fresh" || o.count("/fresh") != 2 || o.last.Get("If-None-Match") != `"v1"` {
		t.Fatalf("revalidation: %d %q, origin %d, INM %q", r.StatusCode, body(r), o.count("/fresh"), o.last.Get("If-None-Match"))
	}
	if got := h.lastCode(); got != "TCP_REFRESH_UNMODIFIED/200 HIER_DIRECT" {
		t.Fatalf("revalidation logged %s", got)
	}
	r = h.do("GET", url)
	if o.count("/fresh") != 2 || h.lastCode() != "TCP_MEM_HIT/200 HIER_NONE" || r.Header.Get("Age") != "0" && r.Header.Get("Age") != "1" {
		t.Fatalf("after revalidation: origin %d, %s, Age %q", o.count("/fresh"), h.lastCode(), r.Header.Get("Age"))
	}

	// The client's no-cache forces validation with the origin.
	h.do("GET", url, "Cache-Control", "no-cache")
	if o.count("/fresh") != 3 {
		t.Fatalf("no-cache request not forwarded")
	}

	// An unsafe method invalidates the stored response (RFC 9111 §4.4).
	req := httptest.NewRequest("POST", url, strings.NewReader("data"))
	h.p.ServeHTTP(httptest.NewRecorder(), req)
	if _, ok := h.store.Get(url); ok || h.store.Len() != 0 {
		t.Fatal("POST did not invalidate the stored response")
	}
	h.obs.matches(h.store)

	lines := strings.Split(strings.TrimSpace(h.log.String()), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d access log lines, want 8:\n%s", len(lines), h.log)
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) != 10 || f[2] != "192.0.2.1" {
			t.Fatalf("access log line %q", l)
		}
	}
	if !strings.Contains(lines[1], " TCP_MEM_HIT/200 ") || !strings.Contains(lines[1], " GET "+url+" - HIER_NONE/- text/plain") {
		t.Fatalf("hit line %q", lines[1])
	}
}

func TestProxyOnlyIfCached(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	o := newOrigin(t, h.clock)
	url := o.URL + "/p"
	r := h.do("GET", url, "Cache-Control", "only-if-cached")
	if r.StatusCode != http.StatusGatewayTimeout || o.count("/p") != 0 {
		t.Fatalf("only-if-cached miss: %d, origin %d", r.StatusCode, o.count("/p"))
	}
	if got := h.lastCode(); got != "TCP_MISS/504 HIER_NONE" {
		t.Fatalf("logged %s", got)
	}
	h.do("GET", url)
	r = h.do("GET", url, "Cache-Control", "only-if-cached")
	if r.StatusCode != 200 || body(r) != "body of /p" || o.count("/p") != 1 {
		t.Fatalf("only-if-cached hit: %d", r.StatusCode)
	}
	r = h.do("HEAD", url, "Cache-Control", "only-if-cached")
	if r.StatusCode != 200 || o.count("/p") != 1 {
		t.Fatalf("only-if-cached HEAD hit: %d", r.StatusCode)
	}
	h.clock.Advance(61 * time.Second)
	r = h.do("GET", url, "Cache-Control", "only-if-cached")
	if r.StatusCode != http.StatusGatewayTimeout || o.count("/p") != 1 {
		t.Fatalf("only-if-cached stale: %d, origin %d", r.StatusCode, o.count("/p"))
	}
	r = h.do("GET", url, "Cache-Control", "only-if-cached, max-stale")
	if r.StatusCode != 200 {
		t.Fatalf("only-if-cached with max-stale: %d", r.StatusCode)
	}
	if _, ok := h.p.Lookup(url); ok {
		t.Fatal("Lookup returned a stale entry")
	}
}

func TestProxyVaryAndNoStore(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	o := newOrigin(t, h.clock)
	url := o.URL + "/vary"
	steps := []struct {
		lang, want string
		origin     int
	}{{"en", "lang=en", 1}, {"en", "lang=en", 1}, {"fr", "lang=fr", 2}, {"fr", "lang=fr", 2}, {"en", "lang=en", 3}}
	for i, s := range steps {
		r := h.do("GET", url, "Accept-Language", s.lang)
		if got := body(r); got != s.want || o.count("/vary") != s.origin {
			t.Fatalf("step %d: %q, origin %d; want %q, %d", i, got, o.count("/vary"), s.want, s.origin)
		}
	}
	for range 2 {
		if r := h.do("GET", o.URL+"/nostore"); body(r) != "secret" {
			t.Fatal("no-store body")
		}
	}
	if o.count("/nostore") != 2 || h.store.Len() != 1 {
		t.Fatalf("no-store: origin %d, store %d", o.count("/nostore"), h.store.Len())
	}
	// A request with Authorization is answered but its response not stored.
	h.do("GET", o.URL+"/auth", "Authorization", "Basic eDp5")
	if _, ok := h.store.Get(o.URL + "/auth"); ok {
		t.Fatal("response to an authorized request stored")
	}
}

func TestProxyObjectSizeLimit(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	o := newOrigin(t, h.clock)
	for _, c := range []struct {
		path   string
		size   int
		stored bool
	}{{"/big", 20000, false}, {"/chunked?big", 20000, false}, {"/chunked", 100, true}} {
		r := h.do("GET", o.URL+c.path)
		if n := len(body(r)); n != c.size {
			t.Fatalf("%s: %d bytes relayed, want %d", c.path, n, c.size)
		}
		e, ok := h.store.Get(o.URL + c.path)
		if ok != c.stored {
			t.Fatalf("%s: stored %v, want %v", c.path, ok, c.stored)
		}
		if ok && (len(e.Body) != c.size || e.Header.Get("Content-Length") != fmt.Sprint(c.size)) {
			t.Fatalf("%s: stored %d bytes, Content-Length %q", c.path, len(e.Body), e.Header.Get("Content-Length"))
		}
	}
}

func TestProxyHopByHopAndErrors(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	o := newOrigin(t, h.clock)
	r := h.do("GET", o.URL+"/hop", "Proxy-Connection", "keep-alive", "Connection", "X-Secret", "X-Secret", "1", "X-Keep", "2")
	if r.Header.Get("X-Hop") != "" || r.Header.Get("Keep-Alive") != "" || body(r) != "hop" {
		t.Fatalf("hop-by-hop response fields relayed: %v", r.Header)
	}
	if o.last.Get("X-Secret") != "" || o.last.Get("Proxy-Connection") != "" || o.last.Get("X-Keep") != "2" {
		t.Fatalf("request fields: %v", o.last)
	}
	if e, _ := h.store.Get(o.URL + "/hop"); e == nil || e.Header.Get("X-Hop") != "" {
		t.Fatal("hop-by-hop field stored")
	}

	if r := h.do("CONNECT", "http://example.com:443"); r.StatusCode != http.StatusNotImplemented {
		t.Fatalf("CONNECT: %d", r.StatusCode)
	}
	if r := h.do("GET", "/origin-form"); r.StatusCode != http.StatusBadRequest {
		t.Fatalf("origin-form: %d", r.StatusCode)
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	if r := h.do("GET", closed.URL+"/x"); r.StatusCode != http.StatusBadGateway {
		t.Fatalf("unreachable origin: %d", r.StatusCode)
	}
	if r := h.do("GET", closed.URL+"/x", "Cache-Control", "only-if-cached"); r.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("only-if-cached to an unreachable origin: %d", r.StatusCode)
	}
}

func TestProxyRouterSource(t *testing.T) {
	var seen atomic.Value
	clock := testutil.NewClock(time.Now())
	o := newOrigin(t, clock)
	h := newHarness(t, nil, nil, func(c *Config) {
		c.Now = clock.Now
		c.Router = RouterFunc(func(f *Forward) (*http.Response, Source, error) {
			seen.Store(f.Key)
			resp, err := originclient.New(nil, nil).Do(f.Request)
			return resp, Source{Hierarchy: squidlog.HierCDSiblingHit, Host: "peer1"}, err
		})
	})
	h.do("GET", strings.Replace(o.URL, "http://", "HTTP://", 1)+"/r")
	if seen.Load() != o.URL+"/r" {
		t.Fatalf("router saw key %v", seen.Load())
	}
	if !strings.Contains(h.log.String(), " CD_SIBLING_HIT/peer1 ") {
		t.Fatalf("log %q", h.log)
	}
	if _, ok := h.p.Lookup(o.URL + "/r"); !ok {
		t.Fatal("Lookup missed a fresh entry")
	}
}

// TestProxyOverTheWire runs the proxy as a server and sends absolute-form
// requests to it with a client configured to use it as its proxy.
func TestProxyOverTheWire(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	o := newOrigin(t, h.clock)
	ps := httptest.NewServer(h.p)
	defer ps.Close()
	pu, _ := http.NewRequest("GET", ps.URL, nil)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu.URL)}}
	defer client.CloseIdleConnections()
	for i, want := range []string{"MISS", "HIT"} {
		resp, err := client.Get(o.URL + "/wire")
		if err != nil {
			t.Fatal(err)
		}
		if b := body(resp); b != "body of /wire" || !strings.HasPrefix(resp.Header.Get("X-Cache"), want) {
			t.Fatalf("request %d: %q, X-Cache %q", i, b, resp.Header.Get("X-Cache"))
		}
		resp.Body.Close()
	}
	if o.count("/wire") != 1 {
		t.Fatalf("origin saw %d requests", o.count("/wire"))
	}
}

// TestProxyConcurrentObserver sends concurrent requests through a proxy
// whose store is too small for them all, and checks the Observer contract
// (run with -race).
func TestProxyConcurrentObserver(t *testing.T) {
	clock := testutil.NewClock(time.Now())
	o := newOrigin(t, clock)
	for _, kind := range []string{"memory", "disk"} {
		t.Run(kind, func(t *testing.T) {
			obs := newCheckObserver(t)
			var store Store
			if kind == "memory" {
				store, _ = NewMemory(MemoryConfig{MaxBytes: 8000, Observer: obs})
			} else {
				store, _ = OpenDisk(DiskConfig{Dir: t.TempDir(), MaxBytes: 8000, Observer: obs, Logger: quietLogger()})
			}
			defer store.Close()
			h := newHarness(t, store, obs, func(c *Config) { c.AccessLog, c.Now = io.Discard, clock.Now })
			h.clock = clock
			var wg sync.WaitGroup
			for g := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 40 {
						url := fmt.Sprintf("%s/obj%d", o.URL, (i*7+g*3)%25)
						switch i % 5 {
						case 3:
							h.do("HEAD", url)
						case 4:
							req := httptest.NewRequest("DELETE", url, nil)
							h.p.ServeHTTP(httptest.NewRecorder(), req)
						default:
							if r := h.do("GET", url); r.StatusCode != 200 {
								t.Errorf("GET %s: %d", url, r.StatusCode)
							}
						}
						if i%10 == 0 {
							h.clock.Advance(7 * time.Second)
						}
					}
				}()
			}
			wg.Wait()
			obs.matches(store)
			if obs.stored == 0 || obs.evicted == 0 {
				t.Fatalf("stored %d evicted %d", obs.stored, obs.evicted)
			}
		})
	}
}

func TestProxyDiskStoreHit(t *testing.T) {
	clock := testutil.NewClock(time.Now())
	o := newOrigin(t, clock)
	dir := t.TempDir()
	d, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 20, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, d, newCheckObserver(t), func(c *Config) { c.Now = clock.Now })
	h.do("GET", o.URL+"/d")
	d.Close()
	// A restarted node serves the object from disk.
	d2, err := OpenDisk(DiskConfig{Dir: dir, MaxBytes: 1 << 20, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	h2 := newHarness(t, d2, newCheckObserver(t), func(c *Config) { c.Now = clock.Now })
	if r := h2.do("GET", o.URL+"/d"); body(r) != "body of /d" || h2.lastCode() != "TCP_HIT/200 HIER_NONE" || o.count("/d") != 1 {
		t.Fatalf("after restart: %s, origin %d", h2.lastCode(), o.count("/d"))
	}
}

func TestNewProxyConfig(t *testing.T) {
	if _, err := NewProxy(Config{}); err == nil {
		t.Error("no store accepted")
	}
	m, _ := NewMemory(MemoryConfig{MaxBytes: 1})
	if _, err := NewProxy(Config{Store: m, MaxObjectBytes: -1}); err == nil {
		t.Error("negative MaxObjectBytes accepted")
	}
	for _, d := range []time.Duration{-time.Second, time.Microsecond} {
		if _, err := NewProxy(Config{Store: m, ReadTimeout: d}); !errors.Is(err, ErrConfig) {
			t.Errorf("ReadTimeout %v: %v, want ErrConfig", d, err)
		}
	}
}

func TestProxyInvalidation(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	o := newOrigin(t, h.clock)
	// A revalidation whose 304 forbids storing removes the entry.
	h.do("GET", o.URL+"/turns-nostore")
	h.clock.Advance(2 * time.Second)
	if r := h.do("GET", o.URL+"/turns-nostore"); body(r) != "t" || h.lastCode() != "TCP_REFRESH_UNMODIFIED/200 HIER_DIRECT" {
		t.Fatalf("revalidation: %s", h.lastCode())
	}
	if _, ok := h.store.Get(o.URL + "/turns-nostore"); ok {
		t.Fatal("entry kept after a 304 with no-store")
	}
	// A successful POST invalidates its Location on the same host.
	h.do("GET", o.URL+"/made")
	h.do("OPTIONS", o.URL+"/made")
	if _, ok := h.store.Get(o.URL + "/made"); !ok {
		t.Fatal("a safe method invalidated the entry")
	}
	req := httptest.NewRequest("POST", o.URL+"/create", strings.NewReader("x"))
	h.p.ServeHTTP(httptest.NewRecorder(), req)
	if _, ok := h.store.Get(o.URL + "/made"); ok {
		t.Fatal("Location not invalidated")
	}
	h.obs.matches(h.store)
}

// TestProxyInvalidationSameOriginOnly: a successful POST invalidates the
// URI its response's Location or Content-Location names only when it has
// the target's origin, scheme, host and port (RFC 9111 §4.4), compared
// as keys write them: "HTTP://EXAMPLE.com:80" is http://example.com's,
// https://example.com is another. The router sends every request to one
// origin, so that the target can be http://example.com on its default
// port.
func TestProxyInvalidationSameOriginOnly(t *testing.T) {
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set(q.Get("field"), q.Get("uri"))
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(o.Close)
	oc := originclient.New(nil, nil)
	t.Cleanup(oc.CloseIdleConnections)
	h := newHarness(t, nil, nil, func(c *Config) {
		c.Router = RouterFunc(func(f *Forward) (*http.Response, Source, error) {
			f.Request.URL.Host = strings.TrimPrefix(o.URL, "http://")
			resp, err := oc.Do(f.Request)
			return resp, Source{Hierarchy: squidlog.HierDirect}, err
		})
	})
	client := frontClient(t, h)
	cases := []struct {
		uri, key    string
		invalidated bool
	}{
		{"https://example.com/x", "https://example.com/x", false},         // another scheme
		{"http://example.com:8080/x", "http://example.com:8080/x", false}, // another port
		{"http://www.example.com/x", "http://www.example.com/x", false},   // another host
		{"HTTP://EXAMPLE.com:80/x", "http://example.com/x", true},
		{"/x", "http://example.com/x", true},
	}
	for _, field := range []string{"Location", "Content-Location"} {
		for _, c := range cases {
			now := h.clock.Now()
			if err := h.store.Put(&Entry{URL: c.key, Status: 200, Header: http.Header{"Cache-Control": {"max-age=600"}},
				Body: []byte("stored"), RequestTime: now, ResponseTime: now}); err != nil {
				t.Fatal(err)
			}
			target := "http://example.com/create?" + url.Values{"field": {field}, "uri": {c.uri}}.Encode()
			resp, err := client.Post(target, "text/plain", strings.NewReader("x"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("POST %s: %d", target, resp.StatusCode)
			}
			if _, ok := h.store.Get(c.key); ok == c.invalidated {
				t.Errorf("%s: %s after a POST to http://example.com/: stored %v, want %v", field, c.uri, ok, !c.invalidated)
			}
		}
	}
	h.obs.matches(h.store)
}

// TestProxyMustUnderstand: a response with must-understand is stored
// only when the cache understands its status code (RFC 9111 §5.2.2.3):
// a 299 with max-age is forwarded every time, never served from the
// store; a 200 with must-understand and no-store is stored, the no-store
// being for caches that do not understand must-understand.
func TestProxyMustUnderstand(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	var served sync.Map // path → *atomic.Int64
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := served.LoadOrStore(r.URL.Path, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
		w.Header().Set("Date", httpDate(h.clock.Now()))
		if r.URL.Path == "/299" {
			w.Header().Set("Cache-Control", "max-age=600, must-understand")
			w.WriteHeader(299)
		} else {
			w.Header().Set("Cache-Control", "max-age=600, must-understand, no-store")
		}
		io.WriteString(w, "body of "+r.URL.Path)
	}))
	t.Cleanup(o.Close)
	client := frontClient(t, h)
	for _, c := range []struct {
		path   string
		status int
		asked  int64
	}{{"/299", 299, 2}, {"/200", 200, 1}} {
		for range 2 {
			resp, err := client.Get(o.URL + c.path)
			if err != nil {
				t.Fatal(err)
			}
			if b := body(resp); resp.StatusCode != c.status || b != "body of "+c.path {
				t.Errorf("%s: %d %q", c.path, resp.StatusCode, b)
			}
			resp.Body.Close()
		}
		n, _ := served.Load(c.path)
		if got := n.(*atomic.Int64).Load(); got != c.asked {
			t.Errorf("%s with must-understand: the origin was asked %d times for 2 requests, want %d", c.path, got, c.asked)
		}
	}
}

// TestProxyCollapsedForwarding sends 100 concurrent requests for one URL
// that is not stored: the origin is asked once, and every client gets
// the response (Squid's collapsed_forwarding). A response that cannot be
// stored releases the waiting requests as soon as its header is known,
// and each is forwarded on its own.
func TestProxyCollapsedForwarding(t *testing.T) {
	var hits sync.Map // path → *atomic.Int64
	release := make(chan struct{})
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := hits.LoadOrStore(r.URL.Path, new(atomic.Int64))
		if c.(*atomic.Int64).Add(1) == 1 {
			<-release // the first request waits until every other has joined it
		}
		if r.URL.Path == "/nostore" {
			w.Header().Set("Cache-Control", "no-store")
		} else {
			w.Header().Set("Cache-Control", "max-age=60")
		}
		fmt.Fprintf(w, "body of %s", r.URL.Path)
	}))
	t.Cleanup(o.Close)
	count := func(path string) int64 {
		c, ok := hits.Load(path)
		if !ok {
			return 0
		}
		return c.(*atomic.Int64).Load()
	}
	for _, c := range []struct {
		path       string
		originHits int64
	}{{"/one", 1}, {"/nostore", 100}} {
		h := newHarness(t, nil, nil, nil)
		release = make(chan struct{})
		var wg sync.WaitGroup
		bodies := make([]string, 100)
		for i := range bodies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := h.do("GET", o.URL+c.path)
				bodies[i] = fmt.Sprint(r.StatusCode, " ", body(r))
			}()
		}
		key, _ := Key(o.URL + c.path)
		deadline := time.Now().Add(20 * time.Second)
		for {
			h.p.flightMu.Lock()
			f := h.p.flights[key]
			joined := f != nil && f.followers == 99
			h.p.flightMu.Unlock()
			if joined {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the 99 other requests did not join the first", c.path)
			}
			time.Sleep(time.Millisecond)
		}
		close(release)
		wg.Wait()
		for i, b := range bodies {
			if b != "200 body of "+c.path {
				t.Fatalf("%s: client %d got %q", c.path, i, b)
			}
		}
		if n := count(c.path); n != c.originHits {
			t.Errorf("%s: 100 concurrent requests made %d origin requests, want %d", c.path, n, c.originHits)
		}
		if len(h.p.flights) != 0 {
			t.Errorf("%s: %d flights left", c.path, len(h.p.flights))
		}
	}
}

// TestProxyIgnoresCDNCacheControl checks that CDN-Cache-Control, which
// RFC 9213 addresses to CDNs (its §2: caches that are not part of one
// ignore it), changes nothing in this forward proxy: Cache-Control alone
// decides, and the field is passed on.
func TestProxyIgnoresCDNCacheControl(t *testing.T) {
	var hits sync.Map
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := hits.LoadOrStore(r.URL.Path, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
		switch r.URL.Path {
		case "/cdn-nostore":
			w.Header().Set("Cache-Control", "max-age=60")
			w.Header().Set("CDN-Cache-Control", "no-store")
		case "/cdn-maxage":
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("CDN-Cache-Control", "max-age=60")
		}
		io.WriteString(w, r.URL.Path)
	}))
	t.Cleanup(o.Close)
	h := newHarness(t, nil, nil, nil)
	for _, c := range []struct {
		path string
		want int64 // origin requests for two client requests
	}{{"/cdn-nostore", 1}, {"/cdn-maxage", 2}} {
		for range 2 {
			r := h.do("GET", o.URL+c.path)
			if body(r) != c.path || r.Header.Get("CDN-Cache-Control") == "" {
				t.Fatalf("%s: %q, CDN-Cache-Control %q", c.path, body(r), r.Header.Get("CDN-Cache-Control"))
			}
		}
		n, _ := hits.Load(c.path)
		if got := n.(*atomic.Int64).Load(); got != c.want {
			t.Errorf("%s: origin asked %d times, want %d", c.path, got, c.want)
		}
	}
}

// TestProxyConditionalOnStale sends a client's If-None-Match for a stale
// stored response: the proxy validates its own response with its own
// validator (RFC 9111 §4.3.1) and answers the client from the freshened
// one (§4.3.2): 304 when the client's tag matches, the full 200 when not.
func TestProxyConditionalOnStale(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	o := newOrigin(t, h.clock)
	url := o.URL + "/fresh"
	h.do("GET", url)
	h.clock.Advance(2 * time.Minute)
	r := h.do("GET", url, "If-None-Match", `"v1"`)
	if r.StatusCode != 304 || o.count("/fresh") != 2 || o.last.Get("If-None-Match") != `"v1"` {
		t.Fatalf("stale, client's tag matches: %d, origin %d, INM sent %q", r.StatusCode, o.count("/fresh"), o.last.Get("If-None-Match"))
	}
	if got := h.lastCode(); got != "TCP_REFRESH_UNMODIFIED/304 HIER_DIRECT" {
		t.Errorf("logged %s", got)
	}
	h.clock.Advance(2 * time.Minute)
	r = h.do("GET", url, "If-None-Match", `"v0"`)
	if r.StatusCode != 200 || body(r) != "fresh" || o.count("/fresh") != 3 || o.last.Get("If-None-Match") != `"v1"` {
		t.Fatalf("stale, client's tag differs: %d, origin %d, INM sent %q", r.StatusCode, o.count("/fresh"), o.last.Get("If-None-Match"))
	}
	// Freshened: the next conditional request is answered from the cache.
	r = h.do("GET", url, "If-None-Match", `"v1"`)
	if r.StatusCode != 304 || o.count("/fresh") != 3 {
		t.Fatalf("fresh again: %d, origin %d", r.StatusCode, o.count("/fresh"))
	}
	// A Range or another precondition is forwarded as the client sent it.
	h.clock.Advance(2 * time.Minute)
	h.do("GET", url, "If-Match", `"v1"`)
	if o.last.Get("If-Match") != `"v1"` || o.last.Get("If-None-Match") != "" {
		t.Fatalf("If-Match request forwarded with %v", o.last)
	}
}

// TestProxyRevalidationOtherValidator: a 304 to the cache's validation
// that carries another strong ETag than the stored response's, or, with
// none, another Last-Modified, selects no stored response (RFC 9111
// §4.3.4). The stored body is not served under the 304's validator: the
// request is forwarded again as the client sent it, and the client gets,
// and the cache stores, the origin's current response, logged
// TCP_REFRESH_MODIFIED. A background revalidation (stale-while-revalidate)
// that gets such a 304 removes the stored response. A GET with a body is
// not validated, so it gets the current response too. The origin answers
// every conditional request 304 with its current validator.
func TestProxyRevalidationOtherValidator(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	lm1, lm2 := httpDate(h.clock.Now().Add(-time.Hour)), httpDate(h.clock.Now().Add(-time.Minute))
	var changed atomic.Bool
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := w.Header()
		f.Set("Date", httpDate(h.clock.Now()))
		f.Set("Cache-Control", "max-age=60")
		if r.URL.Path == "/swr" {
			f.Set("Cache-Control", "max-age=60, stale-while-revalidate=600")
		}
		body, etag, lm := "one", `"v1"`, lm1
		if changed.Load() {
			body, etag, lm = "two", `"v2"`, lm2
		}
		if r.URL.Path == "/lm" {
			f.Set("Last-Modified", lm)
		} else {
			f.Set("ETag", etag)
		}
		if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(o.Close)
	client := frontClient(t, h)
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := client.Get(o.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp, body(resp)
	}
	for _, path := range []string{"/etag", "/lm", "/swr"} {
		get(path)
	}
	changed.Store(true)
	h.clock.Advance(2 * time.Minute)
	for _, c := range []struct{ path, field, want string }{{"/etag", "ETag", `"v2"`}, {"/lm", "Last-Modified", lm2}} {
		resp, b := get(c.path)
		if b != "two" || resp.Header.Get(c.field) != c.want || h.lastCode() != "TCP_REFRESH_MODIFIED/200 HIER_DIRECT" {
			t.Errorf("%s after a 304 with %s %s: %q with %s %q, logged %s; want the origin's current response",
				c.path, c.field, c.want, b, c.field, resp.Header.Get(c.field), h.lastCode())
		}
		if resp, b = get(c.path); b != "two" || !strings.HasPrefix(resp.Header.Get("X-Cache"), "HIT") {
			t.Errorf("%s then: %q, X-Cache %q; want the stored current response", c.path, b, resp.Header.Get("X-Cache"))
		}
	}
	// A GET with a body is forwarded as sent, not validated: a 304 that
	// selects nothing could not be followed by the request again, whose
	// body the first attempt read.
	changed.Store(false)
	get("/body")
	changed.Store(true)
	h.clock.Advance(2 * time.Minute)
	req, err := http.NewRequest(http.MethodGet, o.URL+"/body", strings.NewReader("q=1"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if b := body(resp); resp.StatusCode != http.StatusOK || b != "two" || resp.Header.Get("ETag") != `"v2"` {
		t.Errorf("a GET with a body after the object changed: %d %q with ETag %q; want 200 %q with \"v2\"",
			resp.StatusCode, b, resp.Header.Get("ETag"), "two")
	}
	resp.Body.Close()
	if _, b := get("/swr"); b != "one" {
		t.Fatalf("/swr within stale-while-revalidate: %q, want the stale stored response", b)
	}
	h.p.bg.Wait()
	key, _ := Key(o.URL + "/swr")
	if _, ok := h.store.Get(key); ok {
		t.Error("/swr kept after a background revalidation's 304 for another validator")
	}
	h.obs.matches(h.store)
}

// TestProxyStaleIfError serves a stored response past its freshness when
// the origin fails (a 503, then a refused connection) within the
// response's stale-if-error (RFC 5861 §4), logs TCP_REFRESH_FAIL_OLD,
// and passes the 503 on when must-revalidate forbids serving stale (RFC
// 9111 §4.2.4), answering a refused connection with 504 then.
func TestProxyStaleIfError(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	var failing atomic.Bool
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Date", httpDate(h.clock.Now()))
		w.Header().Set("ETag", `"e"`)
		if strings.HasPrefix(r.URL.Path, "/strict") {
			w.Header().Set("Cache-Control", "max-age=60, stale-if-error=300, must-revalidate")
		} else {
			w.Header().Set("Cache-Control", "max-age=60, stale-if-error=300")
		}
		io.WriteString(w, "stored "+r.URL.Path)
	}))
	t.Cleanup(o.Close)
	h.do("GET", o.URL+"/sie")
	h.do("GET", o.URL+"/strict")
	h.do("GET", o.URL+"/strict-refused")
	failing.Store(true)
	h.clock.Advance(2 * time.Minute) // 60 s stale
	r := h.do("GET", o.URL+"/sie")
	if r.StatusCode != 200 || body(r) != "stored /sie" || h.lastCode() != "TCP_REFRESH_FAIL_OLD/200 HIER_DIRECT" {
		t.Fatalf("503 within stale-if-error: %d, %s", r.StatusCode, h.lastCode())
	}
	if r = h.do("GET", o.URL+"/strict"); r.StatusCode != 503 {
		t.Errorf("must-revalidate: %d, want the origin's 503", r.StatusCode)
	}
	o.Close() // now the connection is refused
	if r = h.do("GET", o.URL+"/sie"); r.StatusCode != 200 || body(r) != "stored /sie" {
		t.Errorf("refused connection within stale-if-error: %d", r.StatusCode)
	}
	if r = h.do("GET", o.URL+"/strict-refused"); r.StatusCode != http.StatusGatewayTimeout || h.lastCode() != "TCP_REFRESH_FAIL_ERR/504 HIER_NONE" {
		t.Errorf("must-revalidate, refused connection: %d, %s; want 504", r.StatusCode, h.lastCode())
	}
	h.clock.Advance(5 * time.Minute) // 360 s stale
	// Beyond stale-if-error a refused connection still leaves the node
	// disconnected, when RFC 9111 §4.2.4 lets it serve stale.
	if r = h.do("GET", o.URL+"/sie"); r.StatusCode != 200 || h.lastCode() != "TCP_REFRESH_FAIL_OLD/200 HIER_NONE" {
		t.Errorf("beyond stale-if-error, refused connection: %d, %s; want the stale 200", r.StatusCode, h.lastCode())
	}
}

// TestProxyClientCannotPurge: a stored response stays stored when a
// client's own request keeps the origin's new response from being stored
// (no-cache with no-store, or Authorization) or when the client goes away
// before the new response is whole: otherwise any client could remove
// any object. A new response that the origin itself marks no-store
// supersedes the stored one, which is removed.
func TestProxyClientCannotPurge(t *testing.T) {
	var mode atomic.Value
	mode.Store("full")
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load() {
		case "full":
			w.Header().Set("Cache-Control", "max-age=600")
			io.WriteString(w, "v1")
		case "stall":
			w.Header().Set("Cache-Control", "max-age=600")
			w.Header().Set("Content-Length", "10")
			io.WriteString(w, "v")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "no-store":
			w.Header().Set("Cache-Control", "no-store")
			io.WriteString(w, "v2")
		}
	}))
	t.Cleanup(o.Close)
	h := newHarness(t, nil, nil, nil)
	c := serveProxy(t, h)
	target := o.URL + "/obj"
	key, _ := Key(target)
	get := func(kv ...string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, target, nil)
		for i := 0; i+1 < len(kv); i += 2 {
			req.Header.Set(kv[i], kv[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body(resp)
	}
	stored := func(after string) {
		t.Helper()
		if _, ok := h.store.Get(key); !ok {
			t.Fatalf("after %s: the stored response was removed", after)
		}
	}
	get()
	stored("a miss")
	get("Cache-Control", "no-cache, no-store")
	stored("a request with no-cache, no-store")
	get("Cache-Control", "no-cache", "Authorization", "Basic dTpw")
	stored("a request with no-cache and Authorization")

	mode.Store("stall")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel() // away before the body is whole
	resp.Body.Close()
	waitFor(t, 10*time.Second, "the abandoned request's log line", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.recs) == 4
	})
	stored("a client that went away before the new response was whole")

	mode.Store("no-store")
	get("Cache-Control", "no-cache")
	if _, ok := h.store.Get(key); ok {
		t.Error("a new response the origin marks no-store left the old one stored")
	}
}
