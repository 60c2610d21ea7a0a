package cache

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// TestProxyStaleWhileRevalidate checks stale-while-revalidate (RFC 5861
// §3): within the window a stale response is served at once (logged
// TCP_STALE_HIT) and revalidated in the background once, however many
// requests it answers meanwhile; the background 304 freshens it
// (TCP_ASYNC_HIT), a background 200 replaces it (TCP_ASYNC_MISS). Past
// the window, or when must-revalidate (RFC 9111 §4.2.4) or the request's
// max-age (§5.2.1.1) forbids serving stale, the client waits for the
// revalidation.
func TestProxyStaleWhileRevalidate(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	var (
		mu      sync.Mutex
		counts  = map[string]int{}
		gate    = make(chan struct{}) // closed: revalidations may answer
		gateOn  atomic.Bool
		version atomic.Int64
	)
	version.Store(1)
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		counts[r.URL.Path]++
		mu.Unlock()
		if gateOn.Load() {
			<-gate
		}
		w.Header().Set("Date", httpDate(h.clock.Now()))
		cc := "max-age=60, stale-while-revalidate=120"
		if r.URL.Path == "/strict" {
			cc += ", must-revalidate"
		}
		w.Header().Set("Cache-Control", cc)
		etag := `"v1"`
		if r.URL.Path == "/changing" {
			etag = `"v` + string(rune('0'+version.Load())) + `"`
		}
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, r.URL.Path+" "+etag)
	}))
	t.Cleanup(o.Close)
	count := func(path string) int {
		mu.Lock()
		defer mu.Unlock()
		return counts[path]
	}
	for _, p := range []string{"/swr", "/strict"} {
		h.do("GET", o.URL+p)
	}
	h.clock.Advance(90 * time.Second) // 30 s stale, within the 120 s window

	gateOn.Store(true)
	for i := range 10 {
		r := h.do("GET", o.URL+"/swr")
		if b := body(r); b != `/swr "v1"` || h.lastCode() != "TCP_STALE_HIT/200 HIER_NONE" || !strings.HasPrefix(r.Header.Get("X-Cache"), "STALE") {
			t.Fatalf("request %d within the window: %q, %s, X-Cache %q", i, b, h.lastCode(), r.Header.Get("X-Cache"))
		}
	}
	close(gate)
	h.p.bg.Wait()
	gateOn.Store(false)
	if n := count("/swr"); n != 2 {
		t.Fatalf("10 stale requests made %d origin requests, want 1 miss and 1 revalidation", n)
	}
	if got := strings.Count(h.log.String(), "TCP_ASYNC_HIT/304"); got != 1 {
		t.Errorf("%d TCP_ASYNC_HIT/304 lines, want 1:\n%s", got, h.log.String())
	}
	if r := h.do("GET", o.URL+"/swr"); body(r) == "" || !strings.HasPrefix(h.lastCode(), squidlog.CodeMemHit) {
		t.Errorf("after the background 304: %s, want a fresh hit", h.lastCode())
	}

	// A request that wants no more than 10 s of age is not served stale.
	h.clock.Advance(90 * time.Second)
	h.do("GET", o.URL+"/swr", "Cache-Control", "max-age=10")
	if got := h.lastCode(); got != "TCP_REFRESH_UNMODIFIED/200 HIER_DIRECT" || count("/swr") != 3 {
		t.Errorf("request max-age=10: %s, origin %d", got, count("/swr"))
	}
	// Past the window: revalidated before it is served.
	h.clock.Advance(200 * time.Second)
	h.do("GET", o.URL+"/swr")
	if got := h.lastCode(); got != "TCP_REFRESH_UNMODIFIED/200 HIER_DIRECT" || count("/swr") != 4 {
		t.Errorf("past the window: %s, origin %d", got, count("/swr"))
	}
	// must-revalidate forbids serving it stale.
	h.do("GET", o.URL+"/strict")
	if got := h.lastCode(); got != "TCP_REFRESH_UNMODIFIED/200 HIER_DIRECT" {
		t.Errorf("must-revalidate: %s", got)
	}

	// A background 200 replaces the stored response.
	h.do("GET", o.URL+"/changing")
	h.clock.Advance(90 * time.Second)
	version.Store(2)
	if r := h.do("GET", o.URL+"/changing"); body(r) != `/changing "v1"` || h.lastCode() != "TCP_STALE_HIT/200 HIER_NONE" {
		t.Fatalf("changing, stale: %s", h.lastCode())
	}
	h.p.bg.Wait()
	if r := h.do("GET", o.URL+"/changing"); body(r) != `/changing "v2"` || !strings.HasPrefix(h.lastCode(), squidlog.CodeMemHit) {
		t.Errorf("after the background 200: %s", h.lastCode())
	}
	if !strings.Contains(h.log.String(), "TCP_ASYNC_MISS/200") {
		t.Errorf("no TCP_ASYNC_MISS/200 line:\n%s", h.log.String())
	}
	h.obs.matches(h.store)
}

// TestStaleWhileRevalidateRules checks which stale responses may be
// served while revalidated (RFC 5861 §3; RFC 9111 §4.2.4, §5.2).
func TestStaleWhileRevalidateRules(t *testing.T) {
	now := t0.Add(90 * time.Second)
	entry := func(cc string) *storedEntry {
		return newStored(&Entry{Status: 200, Header: hdr("Cache-Control", cc, "Date", httpDate(t0)), RequestTime: t0, ResponseTime: t0})
	}
	cases := []struct {
		cc, qcc string
		want    bool
	}{
		{"max-age=60, stale-while-revalidate=60", "", true},
		{"max-age=60, stale-while-revalidate=29", "", false},
		{"max-age=100, stale-while-revalidate=60", "", false}, // fresh: a plain hit, not this
		{"max-age=60", "", false},
		{"max-age=60, stale-while-revalidate=60, must-revalidate", "", false},
		{"max-age=60, stale-while-revalidate=60, proxy-revalidate", "", false},
		{"s-maxage=60, stale-while-revalidate=60", "", false},
		{"max-age=60, stale-while-revalidate=60, no-cache", "", false},
		{`max-age=60, stale-while-revalidate=60, no-cache="X-A"`, "", true},
		{"max-age=60, stale-while-revalidate=60", "no-cache", false},
		{"max-age=60, stale-while-revalidate=60", "min-fresh=1", false},
		{"max-age=60, stale-while-revalidate=60", "max-age=80", false},
		{"max-age=60, stale-while-revalidate=60", "max-age=100", true},
	}
	for _, c := range cases {
		if got := staleWhileRevalidate(entry(c.cc), parseCacheControl(hdr("Cache-Control", c.qcc)), now); got != c.want {
			t.Errorf("%q, request %q: %v, want %v", c.cc, c.qcc, got, c.want)
		}
	}
}
