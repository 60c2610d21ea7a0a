package cache

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/httpx"
)

// t0 is the fixed time every freshness test starts from.
var t0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func httpDate(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

func TestParseCacheControl(t *testing.T) {
	cc := parseCacheControl(hdr(
		"Cache-Control", `Max-Age=60, private="Set-Cookie, X-A", no-cache`,
		"Cache-Control", "max-age=5, s-maxage=\"7\"",
	))
	want := map[string]string{"max-age": "60", "private": "Set-Cookie, X-A", "no-cache": "", "s-maxage": "7"}
	if len(cc) != len(want) {
		t.Fatalf("got %v, want %v", cc, want)
	}
	for k, v := range want {
		if cc[k] != v {
			t.Errorf("%s = %q, want %q", k, cc[k], v)
		}
	}
	if d, ok := cc.Duration("max-age"); !ok || d != time.Minute {
		t.Errorf("max-age %v %v", d, ok)
	}
	if d, ok := parseCacheControl(hdr("Cache-Control", "max-age=abc")).Duration("max-age"); !ok || d != 0 {
		t.Errorf("invalid max-age read as %v %v, want 0 true", d, ok)
	}
	if d, _ := parseCacheControl(hdr("Cache-Control", "max-age=99999999999999999999")).Duration("max-age"); d != maxDelta*time.Second {
		t.Errorf("huge max-age %v, want capped at 2^31 s", d)
	}
	if !parseCacheControl(hdr("Pragma", "no-cache")).Has("no-cache") {
		t.Error("Pragma: no-cache without Cache-Control not read as no-cache")
	}
	if parseCacheControl(hdr("Pragma", "no-cache", "Cache-Control", "max-age=1")).Has("no-cache") {
		t.Error("Pragma used although Cache-Control is present")
	}
}

func TestStorable(t *testing.T) {
	lm := httpDate(t0.Add(-10 * time.Hour))
	cases := []struct {
		name   string
		method string
		req    http.Header
		status int
		resp   http.Header
		want   bool
	}{
		{"max-age", "GET", nil, 200, hdr("Cache-Control", "max-age=60"), true},
		{"heuristic status, no info", "GET", nil, 200, hdr(), true},
		{"non-heuristic status without info", "GET", nil, 302, hdr(), false},
		{"non-heuristic status with max-age", "GET", nil, 302, hdr("Cache-Control", "max-age=60"), true},
		{"500 with Expires", "GET", nil, 500, hdr("Expires", httpDate(t0)), true},
		{"HEAD not stored", "HEAD", nil, 200, hdr("Cache-Control", "max-age=60"), false},
		{"POST not stored", "POST", nil, 200, hdr("Cache-Control", "max-age=60"), false},
		{"response no-store", "GET", nil, 200, hdr("Cache-Control", "max-age=60, no-store"), false},
		{"request no-store", "GET", hdr("Cache-Control", "no-store"), 200, hdr("Cache-Control", "max-age=60"), false},
		{"private", "GET", nil, 200, hdr("Cache-Control", "private, max-age=60"), false},
		// RFC 9111 §5.2.2.7: a shared cache must not store the listed
		// fields, "but can store the remainder of the response".
		{"qualified private", "GET", nil, 200, hdr("Cache-Control", `private="X", max-age=60`), true},
		{"empty qualified private", "GET", nil, 200, hdr("Cache-Control", `private="", max-age=60`), false},
		{"no-cache is storable", "GET", nil, 200, hdr("Cache-Control", "no-cache"), true},
		{"authorization", "GET", hdr("Authorization", "Basic x"), 200, hdr("Cache-Control", "max-age=60"), false},
		{"authorization public", "GET", hdr("Authorization", "Basic x"), 200, hdr("Cache-Control", "public, max-age=60"), true},
		{"authorization s-maxage", "GET", hdr("Authorization", "Basic x"), 200, hdr("Cache-Control", "s-maxage=60"), true},
		{"authorization must-revalidate", "GET", hdr("Authorization", "Basic x"), 200, hdr("Cache-Control", "must-revalidate, max-age=9"), true},
		{"vary star", "GET", nil, 200, hdr("Cache-Control", "max-age=60", "Vary", "Accept, *"), false},
		{"vary", "GET", nil, 200, hdr("Cache-Control", "max-age=60", "Vary", "Accept"), true},
		{"partial content", "GET", nil, 206, hdr("Cache-Control", "max-age=60"), false},
		{"not modified", "GET", nil, 304, hdr("Cache-Control", "max-age=60"), false},
		{"informational", "GET", nil, 100, hdr("Cache-Control", "max-age=60"), false},
		// RFC 9111 §7: Set-Cookie "does not inhibit caching".
		{"set-cookie", "GET", nil, 200, hdr("Cache-Control", "max-age=60", "Set-Cookie", "a=b"), true},
		{"set-cookie public", "GET", nil, 200, hdr("Cache-Control", "public, max-age=60", "Set-Cookie", "a=b"), true},
		{"last-modified 404", "GET", nil, 404, hdr("Last-Modified", lm), true},
		// RFC 9111 §5.2.2.3: with must-understand, only a status the cache
		// understands is stored, and the response's no-store is ignored.
		{"must-understand, unknown status", "GET", nil, 299, hdr("Cache-Control", "max-age=60, must-understand"), false},
		{"must-understand, status not understood", "GET", nil, 302, hdr("Cache-Control", "max-age=60, must-understand"), false},
		{"must-understand, no-store", "GET", nil, 200, hdr("Cache-Control", "max-age=60, must-understand, no-store"), true},
		{"must-understand, no-store, heuristic", "GET", nil, 404, hdr("Cache-Control", "no-store, must-understand"), true},
		{"must-understand, no-store, unknown status", "GET", nil, 299, hdr("Cache-Control", "max-age=60, no-store, must-understand"), false},
		{"must-understand, request no-store", "GET", hdr("Cache-Control", "no-store"), 200, hdr("Cache-Control", "max-age=60, must-understand"), false},
		{"must-understand, private", "GET", nil, 200, hdr("Cache-Control", "private, max-age=60, must-understand"), false},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, "http://example.com/", nil)
		if c.req != nil {
			req.Header = c.req
		}
		if got := storable(req, c.status, c.resp); got != c.want {
			t.Errorf("%s: storable = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestFreshnessLifetime(t *testing.T) {
	date := httpDate(t0)
	cases := []struct {
		name   string
		status int
		h      http.Header
		want   time.Duration
	}{
		{"max-age", 200, hdr("Cache-Control", "max-age=60"), time.Minute},
		{"s-maxage beats max-age", 200, hdr("Cache-Control", "max-age=60, s-maxage=5"), 5 * time.Second},
		{"max-age beats Expires", 200, hdr("Cache-Control", "max-age=60", "Date", date, "Expires", httpDate(t0.Add(time.Hour))), time.Minute},
		{"Expires minus Date", 200, hdr("Date", date, "Expires", httpDate(t0.Add(time.Hour))), time.Hour},
		{"Expires in the past", 200, hdr("Date", date, "Expires", httpDate(t0.Add(-time.Hour))), 0},
		{"invalid Expires", 200, hdr("Date", date, "Expires", "0", "Last-Modified", httpDate(t0.Add(-100*time.Hour))), 0},
		{"Expires without Date uses response time", 200, hdr("Expires", httpDate(t0.Add(time.Hour))), time.Hour},
		{"heuristic 10%", 200, hdr("Date", date, "Last-Modified", httpDate(t0.Add(-10*time.Hour))), time.Hour},
		{"heuristic capped", 200, hdr("Date", date, "Last-Modified", httpDate(t0.Add(-1000*time.Hour))), heuristicMax},
		{"heuristic needs cacheable status", 302, hdr("Date", date, "Last-Modified", httpDate(t0.Add(-10*time.Hour))), 0},
		{"heuristic for public", 302, hdr("Cache-Control", "public", "Date", date, "Last-Modified", httpDate(t0.Add(-10*time.Hour))), time.Hour},
		{"future Last-Modified", 200, hdr("Date", date, "Last-Modified", httpDate(t0.Add(time.Hour))), 0},
		{"nothing", 200, hdr("Date", date), 0},
		{"invalid max-age is stale", 200, hdr("Cache-Control", "max-age=-1", "Expires", httpDate(t0.Add(time.Hour))), 0},
	}
	for _, c := range cases {
		if got := freshnessLifetime(c.status, c.h, t0); got != c.want {
			t.Errorf("%s: lifetime %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCurrentAge(t *testing.T) {
	cases := []struct {
		name           string
		h              http.Header
		req, resp, now time.Time
		want           time.Duration
	}{
		{"resident time only", hdr("Date", httpDate(t0)), t0, t0, t0.Add(30 * time.Second), 30 * time.Second},
		{"Age header plus delay", hdr("Age", "100", "Date", httpDate(t0)), t0.Add(-2 * time.Second), t0, t0.Add(10 * time.Second), 112 * time.Second},
		{"apparent age from Date", hdr("Date", httpDate(t0.Add(-50*time.Second))), t0, t0, t0, 50 * time.Second},
		{"Age beats apparent age", hdr("Age", "80", "Date", httpDate(t0.Add(-50*time.Second))), t0, t0, t0, 80 * time.Second},
		{"Date in the future", hdr("Date", httpDate(t0.Add(time.Hour))), t0, t0, t0.Add(time.Second), time.Second},
		{"invalid Age ignored", hdr("Age", "x1"), t0, t0, t0.Add(time.Second), time.Second},
		// RFC 9111 §5.1: a list-based Age is read as its first member;
		// what is then not delta-seconds is ignored.
		{"Age list: first member", hdr("Age", "7200,0"), t0, t0, t0, 7200 * time.Second},
		{"Age list with spaces", hdr("Age", " 7200 , 0"), t0, t0, t0, 7200 * time.Second},
		{"Age list: first is 0", hdr("Age", "0, 7200"), t0, t0, t0, 0},
		{"Age lines: first line", hdr("Age", "7200", "Age", "0"), t0, t0, t0, 7200 * time.Second},
		{"Age lines: first line 0", hdr("Age", "0", "Age", "7200"), t0, t0, t0, 0},
		{"Age with a suffix ignored", hdr("Age", "7200a"), t0, t0, t0, 0},
		{"Age negative ignored", hdr("Age", "-7200"), t0, t0, t0, 0},
		{"Age float ignored", hdr("Age", "7200.0"), t0, t0, t0, 0},
		{"Age too large is 2^31", hdr("Age", "99999999999"), t0, t0, t0, (1 << 31) * time.Second},
	}
	for _, c := range cases {
		if got := currentAge(c.h, c.req, c.resp, c.now); got != c.want {
			t.Errorf("%s: age %v, want %v", c.name, got, c.want)
		}
	}
}

func TestUsable(t *testing.T) {
	entry := func(cc string) *Entry {
		return &Entry{URL: "http://x/", Status: 200, Header: hdr("Cache-Control", cc, "Date", httpDate(t0)), RequestTime: t0, ResponseTime: t0}
	}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	cases := []struct {
		name  string
		resp  string
		req   string
		now   time.Time
		want  bool
		fresh bool
	}{
		{"fresh", "max-age=60", "", at(59), true, true},
		{"exactly expired", "max-age=60", "", at(60), false, false},
		{"stale", "max-age=60", "", at(61), false, false},
		{"request no-cache", "max-age=60", "no-cache", at(1), false, true},
		{"response no-cache", "no-cache, max-age=60", "", at(1), false, false},
		{"request max-age too old", "max-age=60", "max-age=10", at(20), false, true},
		{"request max-age ok", "max-age=60", "max-age=30", at(20), true, true},
		{"request max-age=0", "max-age=60", "max-age=0", at(1), false, true},
		{"min-fresh ok", "max-age=60", "min-fresh=30", at(20), true, true},
		{"min-fresh not met", "max-age=60", "min-fresh=50", at(20), false, true},
		{"max-stale unlimited", "max-age=60", "max-stale", at(1000), true, false},
		{"max-stale within", "max-age=60", "max-stale=30", at(80), true, false},
		{"max-stale beyond", "max-age=60", "max-stale=10", at(80), false, false},
		{"max-stale vs must-revalidate", "max-age=60, must-revalidate", "max-stale", at(80), false, false},
		{"max-stale vs s-maxage", "s-maxage=60", "max-stale", at(80), false, false},
		{"only-if-cached fresh", "max-age=60", "only-if-cached", at(1), true, true},
	}
	for _, c := range cases {
		e := entry(c.resp)
		qcc := parseCacheControl(hdr("Cache-Control", c.req))
		if got := usable(newStored(e), qcc, c.now); got != c.want {
			t.Errorf("%s: usable %v, want %v", c.name, got, c.want)
		}
		if got := e.fresh(c.now); got != c.fresh {
			t.Errorf("%s: Fresh %v, want %v", c.name, got, c.fresh)
		}
	}
}

func TestVary(t *testing.T) {
	resp := hdr("Vary", "Accept-Encoding, accept-language", "Cache-Control", "max-age=60")
	req := hdr("Accept-Encoding", "gzip,  br", "Accept-Language", "en", "Cookie", "x")
	e := &Entry{Header: resp, ReqHeader: varyHeader(resp, req)}
	if _, ok := e.ReqHeader["Cookie"]; ok || len(e.ReqHeader) != 2 {
		t.Fatalf("stored request fields %v, want the two Vary names only", e.ReqHeader)
	}
	cases := []struct {
		name string
		h    http.Header
		want bool
	}{
		{"same", req, true},
		{"normalised whitespace, split lines", hdr("Accept-Encoding", "gzip", "Accept-Encoding", "br", "Accept-Language", "en"), true},
		{"other encoding", hdr("Accept-Encoding", "identity", "Accept-Language", "en"), false},
		{"missing field", hdr("Accept-Encoding", "gzip, br"), false},
		{"unrelated fields differ", hdr("Accept-Encoding", "gzip, br", "Accept-Language", "en", "Cookie", "y"), true},
	}
	for _, c := range cases {
		if got := e.matchesVary(c.h); got != c.want {
			t.Errorf("%s: MatchesVary %v, want %v", c.name, got, c.want)
		}
	}
	absent := &Entry{Header: hdr("Vary", "X-A")}
	if !absent.matchesVary(hdr()) || absent.matchesVary(hdr("X-A", "1")) {
		t.Error("a field absent from both requests must match, present in one must not")
	}
	if (&Entry{Header: hdr("Vary", "*")}).matchesVary(hdr()) {
		t.Error("Vary: * matched")
	}
}

func TestNotModified(t *testing.T) {
	stored := hdr("ETag", `W/"v1"`, "Last-Modified", httpDate(t0))
	cases := []struct {
		name string
		req  http.Header
		want bool
	}{
		{"etag weak match", hdr("If-None-Match", `"v0", "v1"`), true},
		{"etag star", hdr("If-None-Match", "*"), true},
		{"etag differs", hdr("If-None-Match", `"v2"`), false},
		{"etag differs beats IMS", hdr("If-None-Match", `"v2"`, "If-Modified-Since", httpDate(t0)), false},
		{"IMS equal", hdr("If-Modified-Since", httpDate(t0)), true},
		{"IMS older", hdr("If-Modified-Since", httpDate(t0.Add(-time.Hour))), false},
		{"nothing", hdr(), false},
	}
	for _, c := range cases {
		if got := notModified(c.req, stored); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSelectedBy304 checks which stored response a 304 selects for
// update (RFC 9111 §4.3.4): by its strong ETag if it has one, else by its
// Last-Modified, else the one stored.
func TestSelectedBy304(t *testing.T) {
	lm, other := httpDate(t0), httpDate(t0.Add(time.Hour))
	stored := hdr("ETag", `"v1"`, "Last-Modified", lm)
	cases := []struct {
		name   string
		stored http.Header
		h304   http.Header
		want   bool
	}{
		{"strong etag matches", stored, hdr("ETag", `"v1"`), true},
		{"strong etag differs", stored, hdr("ETag", `"v2"`), false},
		{"strong etag differs, Last-Modified matches", stored, hdr("ETag", `"v2"`, "Last-Modified", lm), false},
		{"strong etag matches, Last-Modified differs", stored, hdr("ETag", `"v1"`, "Last-Modified", other), true},
		{"strong etag, stored weak", hdr("ETag", `W/"v1"`), hdr("ETag", `"v1"`), false},
		{"weak etag, Last-Modified matches", stored, hdr("ETag", `W/"v2"`, "Last-Modified", lm), true},
		{"Last-Modified differs", stored, hdr("Last-Modified", other), false},
		{"Last-Modified, none stored", hdr("ETag", `"v1"`), hdr("Last-Modified", lm), false},
		{"no validator", stored, hdr("Cache-Control", "max-age=60"), true},
		{"weak etag alone", stored, hdr("ETag", `W/"v2"`), true},
	}
	for _, c := range cases {
		if got := selectedBy304(c.stored, c.h304); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestStripHopByHop(t *testing.T) {
	h := hdr("Connection", "close, X-Private", "X-Private", "1", "Keep-Alive", "timeout=5",
		"Transfer-Encoding", "chunked", "Proxy-Authorization", "Basic x", "Content-Type", "text/plain", "Upgrade", "h2c")
	stripHopByHop(h)
	if len(h) != 1 || h.Get("Content-Type") != "text/plain" {
		t.Fatalf("after stripping: %v", h)
	}
	v := hdr("Via", "1.0 fred")
	httpx.AddVia(v, 1, 1, "bc")
	if got := v.Get("Via"); got != "1.0 fred, 1.1 bc" {
		t.Fatalf("Via %q", got)
	}
}

func TestKey(t *testing.T) {
	cases := map[string]string{
		"HTTP://Example.COM:80/a?b#frag": "http://example.com/a?b",
		"http://example.com":             "http://example.com/",
		"http://example.com:8080/%7Ex":   "http://example.com:8080/%7Ex",
	}
	for in, want := range cases {
		if got, err := Key(in); err != nil || got != want {
			t.Errorf("Key(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := Key("/relative"); err == nil {
		t.Error("relative URL accepted")
	}
	r, _ := http.NewRequest("HEAD", "http://EXAMPLE.com/x", nil)
	if k, err := requestKey(r); err != nil || k != "http://example.com/x" {
		t.Errorf("requestKey = %q, %v", k, err)
	}
	// A target with a fragment has no key (RFC 9112 §3.2): the key would
	// be cut before it, the request forwarded with it.
	for _, target := range []string{"http://example.com/a#b", "http://example.com/a?q#b"} {
		r, _ := http.NewRequest("GET", target, nil)
		if k, err := requestKey(r); !errors.Is(err, errFragment) {
			t.Errorf("requestKey(%q) = %q, %v; want errFragment", target, k, err)
		}
		r.RequestURI = target
		if k, err := requestKey(r); !errors.Is(err, errFragment) {
			t.Errorf("requestKey of request target %q = %q, %v; want errFragment", target, k, err)
		}
	}
	r.URL.Scheme, r.URL.Host = "", ""
	if _, err := requestKey(r); !errors.Is(err, ErrNotAbsolute) {
		t.Errorf("origin-form request: %v, want ErrNotAbsolute", err)
	}
}

// TestStoredHeader checks the fields a stored response keeps (RFC 9111
// §3.1): all it received, unknown ones included, except those the
// Connection field lists and the hop-by-hop ones (RFC 9110 §7.6.1), the
// proxy authentication fields (§3.1), and the fields a qualified
// no-cache (§5.2.2.4) or private (§5.2.2.7) lists.
func TestStoredHeader(t *testing.T) {
	in := hdr("Cache-Control", `max-age=60, no-cache="X-Nc", private="x-priv, X-Priv2"`,
		"Connection", "a, B", "A", "1", "B", "2", "C", "3", "Keep-Alive", "timeout=5",
		"Transfer-Encoding", "chunked", "Proxy-Authenticate", "Basic", "Proxy-Authentication-Info", "x",
		"X-Nc", "n", "X-Priv", "p", "X-Priv2", "q", "Set-Cookie", "a=b", "Set-Cookie", "c=d",
		"Clear-Site-Data", `"cookies"`, "X-Frame-Options", "deny", "Test-Header", "t", "Www-Authenticate", "Basic")
	got := storedHeader(in)
	for _, k := range []string{"Connection", "A", "B", "Keep-Alive", "Transfer-Encoding", "Proxy-Authenticate",
		"Proxy-Authentication-Info", "X-Nc", "X-Priv", "X-Priv2"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s stored", k)
		}
	}
	for _, k := range []string{"Cache-Control", "C", "Clear-Site-Data", "X-Frame-Options", "Test-Header", "Www-Authenticate"} {
		if got.Get(k) != in.Get(k) {
			t.Errorf("%s: stored %q, want %q", k, got.Get(k), in.Get(k))
		}
	}
	if sc := got.Values("Set-Cookie"); len(sc) != 2 || sc[1] != "c=d" {
		t.Errorf("Set-Cookie stored as %q", sc)
	}
	if in.Get("Connection") == "" || in.Get("X-Nc") == "" {
		t.Error("storedHeader modified its argument")
	}
	// An unqualified no-cache or private lists no field.
	if got := storedHeader(hdr("Cache-Control", "no-cache", "X-A", "1")); got.Get("X-A") != "1" {
		t.Errorf("unqualified no-cache dropped a field: %v", got)
	}
}

// TestFreshnessLifetimeHeuristicAndShared: without explicit freshness
// the lifetime is 10% of the time since Last-Modified (RFC 9111
// §4.2.2); with both max-age and s-maxage a shared cache obeys s-maxage.
func TestFreshnessLifetimeHeuristicAndShared(t *testing.T) {
	date := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("Date", date.Format(http.TimeFormat))
	h.Set("Last-Modified", date.Add(-30*time.Hour).Format(http.TimeFormat))
	if got := freshnessLifetime(200, h, date); got != 3*time.Hour {
		t.Errorf("heuristic lifetime %v, want 3h (10%% of 30h)", got)
	}
	h.Set("Cache-Control", "max-age=600, s-maxage=60")
	if got := freshnessLifetime(200, h, date); got != time.Minute {
		t.Errorf("lifetime %v, want s-maxage's 1m", got)
	}
}
