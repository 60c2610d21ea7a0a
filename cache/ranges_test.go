package cache

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// TestParseRange checks single byte ranges against an 11-byte
// representation (RFC 9110 §14.1.2): the three forms, clipping, the
// unsatisfiable ones (§14.1.1), and the values the proxy ignores.
func TestParseRange(t *testing.T) {
	cases := []struct {
		v           string
		size        int64
		first, last int64
		verdict     rangeVerdict
	}{
		{"bytes=0-1", 11, 0, 1, rangePartial},
		{"bytes=1-", 11, 1, 10, rangePartial},
		{"bytes=-1", 11, 10, 10, rangePartial},
		{"bytes=-20", 11, 0, 10, rangePartial},
		{"bytes=5-100", 11, 5, 10, rangePartial},
		{"bytes=10-10", 11, 10, 10, rangePartial},
		{"Bytes=2-3", 11, 2, 3, rangePartial},
		{"bytes= 2-3 ,", 11, 2, 3, rangePartial},
		{"bytes=3-99999999999999999999999", 11, 3, 10, rangePartial},
		{"bytes=11-", 11, 0, 0, rangeUnsatisfiable},
		{"bytes=11-20", 11, 0, 0, rangeUnsatisfiable},
		{"bytes=99999999999999999999999-", 11, 0, 0, rangeUnsatisfiable},
		{"bytes=-0", 11, 0, 0, rangeUnsatisfiable},
		{"bytes=0-1,3-4", 11, 0, 0, rangeIgnored}, // several ranges: the whole response
		{"bytes=3-2", 11, 0, 0, rangeIgnored},
		{"bytes=-", 11, 0, 0, rangeIgnored},
		{"bytes=a-b", 11, 0, 0, rangeIgnored},
		{"bytes=+1-2", 11, 0, 0, rangeIgnored},
		{"bytes=1--2", 11, 0, 0, rangeIgnored},
		{"bytes=", 11, 0, 0, rangeIgnored},
		{"items=0-1", 11, 0, 0, rangeIgnored},
		{"bytes 0-1", 11, 0, 0, rangeIgnored},
		{"bytes=0-1", 0, 0, 0, rangeIgnored}, // an empty representation has no bytes to name
	}
	for _, c := range cases {
		br, v := parseRange(c.v, c.size)
		if v != c.verdict || v == rangePartial && (br.first != c.first || br.last != c.last) {
			t.Errorf("parseRange(%q, %d) = %v %d, want [%d, %d] %d", c.v, c.size, br, v, c.first, c.last, c.verdict)
		}
	}
}

// TestIfRangeHolds checks If-Range (RFC 9110 §13.1.5): a strong
// entity-tag equal to the stored one, or an HTTP-date equal to a strong
// Last-Modified (§8.8.2.2: at least a second before Date).
func TestIfRangeHolds(t *testing.T) {
	lm := httpDate(t0.Add(-time.Hour))
	stored := hdr("ETag", `"v1"`, "Last-Modified", lm, "Date", httpDate(t0))
	cases := []struct {
		v      string
		stored http.Header
		want   bool
	}{
		{`"v1"`, stored, true},
		{`"v2"`, stored, false},
		{`W/"v1"`, stored, false},
		{`"v1"`, hdr("ETag", `W/"v1"`), false},
		{lm, stored, true},
		{httpDate(t0.Add(-time.Hour + time.Second)), stored, false},
		{lm, hdr("Last-Modified", lm, "Date", lm), false}, // a weak Last-Modified
		{lm, hdr("Last-Modified", lm), false},
		{"yesterday", stored, false},
	}
	for _, c := range cases {
		if got := ifRangeHolds(c.v, c.stored, t0); got != c.want {
			t.Errorf("If-Range %q against %v: %v, want %v", c.v, c.stored, got, c.want)
		}
	}
}

// FuzzParseRange checks that any Range value gives a range within the
// representation, or none.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-1", "bytes=-5", "bytes=3-", "bytes=1-2,4-5", "bytes=9-1", "bytes=-0"} {
		f.Add(s, int64(10))
	}
	f.Fuzz(func(t *testing.T, v string, size int64) {
		br, verdict := parseRange(v, size)
		switch verdict {
		case rangePartial:
			if br.first < 0 || br.first > br.last || br.last >= size {
				t.Fatalf("parseRange(%q, %d) = %v outside the representation", v, size, br)
			}
		case rangeUnsatisfiable, rangeIgnored:
			if br != (byteRange{}) {
				t.Fatalf("parseRange(%q, %d) = %v with verdict %d", v, size, br, verdict)
			}
		default:
			t.Fatalf("verdict %d", verdict)
		}
	})
}

// TestProxyRangeFromStore sends Range requests for a stored complete
// response (RFC 9111 §3.4 lets a cache answer them; RFC 9110 §14.2,
// §15.3.7, §15.5.17): a single range is a 206 hit with Content-Range,
// several ranges get the whole 200, an unsatisfiable range a 416 with
// "bytes */11", and If-Range decides between 206 and 200 (§13.1.5). A
// Range on a miss is forwarded as sent and the 206 is not stored; on a
// stale stored response the cache revalidates the whole response and
// answers the range from it.
func TestProxyRangeFromStore(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	var mu sync.Mutex
	var ranges []string // the Range of every request the origin saw
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ranges = append(ranges, r.Header.Get("Range"))
		mu.Unlock()
		w.Header().Set("Date", httpDate(h.clock.Now()))
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", httpDate(h.clock.Now().Add(-time.Hour)))
		w.Header().Set("Content-Type", "text/plain")
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		// ServeContent answers Range itself, as an origin would.
		http.ServeContent(w, r, "", time.Time{}, strings.NewReader("0123456789A"))
	}))
	t.Cleanup(o.Close)
	originRanges := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), ranges...)
	}

	// A miss with a Range: forwarded as sent, the 206 relayed, not stored.
	r := h.do("GET", o.URL+"/r", "Range", "bytes=0-1")
	if r.StatusCode != 206 || body(r) != "01" || originRanges()[0] != "bytes=0-1" {
		t.Fatalf("miss with Range: %d, origin saw Range %q", r.StatusCode, originRanges())
	}
	key, _ := Key(o.URL + "/r")
	if _, ok := h.store.Get(key); ok {
		t.Fatal("a 206 was stored")
	}
	h.do("GET", o.URL+"/r") // stores the complete response
	lm := httpDate(h.clock.Now().Add(-time.Hour))

	cases := []struct {
		kv                 []string
		status             int
		body, contentRange string
	}{
		{[]string{"Range", "bytes=0-1"}, 206, "01", "bytes 0-1/11"},
		{[]string{"Range", "bytes=1-"}, 206, "123456789A", "bytes 1-10/11"},
		{[]string{"Range", "bytes=-1"}, 206, "A", "bytes 10-10/11"},
		{[]string{"Range", "bytes=0-1, 5-6"}, 200, "0123456789A", ""},
		{[]string{"Range", "bytes=11-"}, 416, "", "bytes */11"},
		{[]string{"Range", "bytes=2-3", "If-Range", `"v1"`}, 206, "23", "bytes 2-3/11"},
		{[]string{"Range", "bytes=2-3", "If-Range", `"v0"`}, 200, "0123456789A", ""},
		{[]string{"Range", "bytes=2-3", "If-Range", `W/"v1"`}, 200, "0123456789A", ""},
		{[]string{"Range", "bytes=2-3", "If-Range", lm}, 206, "23", "bytes 2-3/11"},
		{[]string{"Range", "bytes=2-3", "If-None-Match", `"v1"`}, 304, "", ""},
	}
	for _, c := range cases {
		r := h.do("GET", o.URL+"/r", c.kv...)
		b := body(r)
		if r.StatusCode != c.status || b != c.body || r.Header.Get("Content-Range") != c.contentRange {
			t.Errorf("%q: %d %q Content-Range %q, want %d %q %q", c.kv, r.StatusCode, b, r.Header.Get("Content-Range"), c.status, c.body, c.contentRange)
		}
		if cl := r.Header.Get("Content-Length"); c.status != 304 && cl != strconv.Itoa(len(b)) {
			t.Errorf("%q: Content-Length %q for %d bytes", c.kv, cl, len(b))
		}
		if !strings.HasPrefix(h.lastCode(), squidlog.CodeMemHit+"/") && !strings.HasPrefix(h.lastCode(), squidlog.CodeIMSHit+"/") {
			t.Errorf("%q: logged %s, want a hit", c.kv, h.lastCode())
		}
	}
	if r := h.do("HEAD", o.URL+"/r", "Range", "bytes=0-1"); r.StatusCode != 200 {
		t.Errorf("HEAD with Range: %d, want 200 (Range is defined for GET only)", r.StatusCode)
	}
	if n := len(originRanges()); n != 2 {
		t.Fatalf("origin asked %d times, want 2", n)
	}

	// Stale: revalidated without the Range (304), the range served from the store.
	h.clock.Advance(2 * time.Minute)
	r = h.do("GET", o.URL+"/r", "Range", "bytes=3-4")
	if r.StatusCode != 206 || body(r) != "34" || h.lastCode() != "TCP_REFRESH_UNMODIFIED/206 HIER_DIRECT" {
		t.Errorf("stale with Range: %d, %s", r.StatusCode, h.lastCode())
	}
	if got := originRanges(); len(got) != 3 || got[2] != "" {
		t.Errorf("revalidation sent Range %q", got)
	}
}
