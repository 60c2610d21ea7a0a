package replay_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/sim/replay"
)

// sampleLog holds access.log lines in Squid's native format, as Squid
// and the node write them, with the lines ParseAccessLog must skip.
const sampleLog = `1700000000.123     12 10.0.0.1 TCP_MISS/200 1234 GET http://example.com/a - HIER_DIRECT/93.184.216.34 text/html
1700000000.200      3 10.0.0.2 TCP_HIT/200 999 GET http://example.com/a - HIER_NONE/- text/html
1700000001.000     40 10.0.0.3 TCP_MISS/200 5000 GET http://example.org/b?x=1 - HIER_DIRECT/1.2.3.4 image/png
1700000001.500      1 10.0.0.1 TCP_MEM_HIT/304 250 GET http://example.org/b?x=1 - HIER_NONE/- -
1700000002.000      8 10.0.0.1 TCP_MISS/200 77 POST http://example.com/form - HIER_DIRECT/93.184.216.34 text/html
1700000002.100    100 10.0.0.4 TCP_TUNNEL/200 4000 CONNECT example.com:443 - HIER_DIRECT/93.184.216.34 -
1700000002.200      5 10.0.0.2 TCP_MISS/404 300 GET http://example.com/missing - HIER_DIRECT/93.184.216.34 text/html
1700000002.300      0 10.0.0.2 TCP_MISS_ABORTED/000 0 GET http://example.com/c - HIER_DIRECT/93.184.216.34 -
not a log line

1700000003.000      2 10.0.0.4 TCP_MISS/200 notanumber GET http://example.com/d - HIER_DIRECT/1.2.3.4 text/html
1700000003.100      2 10.0.0.4 TCP_MISS/200 10 GET ftp://example.com/e - HIER_DIRECT/1.2.3.4 text/plain
1700000004.000      6 10.0.0.4 TCP_MISS/200 4321 GET http://example.net/z - HIER_DIRECT/5.6.7.8 text/plain
`

func TestParseAccessLog(t *testing.T) {
	tr, err := replay.ParseAccessLog(strings.NewReader(sampleLog), 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []replay.Request{
		{Proxy: 0, Client: 0, URL: "http://example.com/a", Size: 1234, Time: 0},
		{Proxy: 1, Client: 1, URL: "http://example.com/a", Size: 1234, Time: 0.077}, // an object keeps its first size
		{Proxy: 0, Client: 2, URL: "http://example.org/b?x=1", Size: 5000, Time: 0.877},
		{Proxy: 0, Client: 0, URL: "http://example.org/b?x=1", Size: 5000, Time: 1.377},
		{Proxy: 1, Client: 3, URL: "http://example.net/z", Size: 4321, Time: 3.877},
	}
	if len(tr.Requests) != len(want) {
		t.Fatalf("requests: %+v", tr.Requests)
	}
	for i, r := range tr.Requests {
		w := want[i]
		if r.Proxy != w.Proxy || r.Client != w.Client || r.URL != w.URL || r.Size != w.Size || r.Time < w.Time-1e-6 || r.Time > w.Time+1e-6 {
			t.Errorf("request %d: %+v, want %+v", i, r, w)
		}
	}
	if tr.SkippedMethod != 2 || tr.SkippedStatus != 2 || tr.Malformed != 3 {
		t.Errorf("skipped: method %d, status %d, malformed %d", tr.SkippedMethod, tr.SkippedStatus, tr.Malformed)
	}
	if tr.Proxies != 2 || tr.Clients != 4 || tr.Objects != 3 || tr.UniqueBytes != 1234+5000+4321 {
		t.Errorf("trace: %d proxies, %d clients, %d objects, %d bytes", tr.Proxies, tr.Clients, tr.Objects, tr.UniqueBytes)
	}
	if _, err := replay.ParseAccessLog(strings.NewReader(""), 0); err == nil {
		t.Error("0 proxies accepted")
	}
	if _, err := replay.ParseAccessLog(strings.NewReader(strings.Repeat("x", 2<<20)), 1); err == nil {
		t.Error("a 2 MiB line accepted")
	}
}

func TestSyntheticTrace(t *testing.T) {
	cfg := replay.SyntheticConfig{Proxies: 3, Requests: 20000, Objects: 2000, Seed: 5}
	a, err := replay.SyntheticTrace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := replay.SyntheticTrace(cfg)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different traces")
	}
	cfg.Seed = 6
	if c, _ := replay.SyntheticTrace(cfg); reflect.DeepEqual(a.Requests, c.Requests) {
		t.Fatal("seeds 5 and 6 give the same trace")
	}
	if len(a.Requests) != 20000 || a.Proxies != 3 || a.Clients != 48 {
		t.Fatalf("trace: %d requests, %d proxies, %d clients", len(a.Requests), a.Proxies, a.Clients)
	}
	// Popularity, sizes and locality: each proxy's most requested objects
	// are popular; proxies share some of their hot objects, not all.
	counts := make([]map[string]int, 3)
	for i := range counts {
		counts[i] = map[string]int{}
	}
	for _, r := range a.Requests {
		if r.Proxy != r.Client%3 || r.Size < 64 || r.Size > 256<<10 || !strings.HasPrefix(r.URL, "https://") {
			t.Fatalf("request %+v", r)
		}
		counts[r.Proxy][r.URL]++
	}
	hot := func(m map[string]int) map[string]bool {
		out := map[string]bool{}
		for u, c := range m {
			if c >= 20 {
				out[u] = true
			}
		}
		return out
	}
	h0, h1 := hot(counts[0]), hot(counts[1])
	shared := 0
	for u := range h0 {
		if h1[u] {
			shared++
		}
	}
	if len(h0) < 10 || shared == 0 || shared == len(h0) {
		t.Errorf("hot objects: %d at proxy 0, %d at proxy 1, %d shared", len(h0), len(h1), shared)
	}
	// Churn: objects beyond the catalogue were born during the trace.
	if a.Objects <= 1000 || a.Objects > 2000+int(0.05*20000*1.3) || a.UniqueBytes <= 0 {
		t.Errorf("%d objects, %d bytes", a.Objects, a.UniqueBytes)
	}
	cfg.Churn = -1
	cfg.Shift = -1
	still, err := replay.SyntheticTrace(cfg)
	if err != nil || still.Objects > 2000 {
		t.Errorf("without churn: %d objects, %v", still.Objects, err)
	}
	for _, bad := range []replay.SyntheticConfig{{Proxies: -1}, {Requests: -1}, {Zipf: -1}, {Churn: 1}, {Proxies: 4, Clients: 2}, {MinSize: 10, MaxSize: 5}} {
		if _, err := replay.SyntheticTrace(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// FuzzParseAccessLog feeds the parser arbitrary logs: it must not panic,
// and whatever it accepts must be replayable (a proxy in range, a size
// within bounds, an http(s) URL).
func FuzzParseAccessLog(f *testing.F) {
	f.Add(sampleLog, 2)
	f.Add("1e308 0 c TCP_MISS/200 99999999999999 GET http://h/ - - -\n", 1)
	f.Add("NaN 0 c TCP_MISS/200 1 GET http://h/ - - -\n-Inf 0 c X/304 1 GET https://h/x - - -\n", 3)
	f.Fuzz(func(t *testing.T, log string, proxies int) {
		proxies = proxies%replay.MaxProxies + 1
		if proxies < 1 {
			proxies += replay.MaxProxies
		}
		tr, err := replay.ParseAccessLog(strings.NewReader(log), proxies)
		if err != nil {
			return
		}
		var unique int64
		sizes := map[string]int64{}
		for _, r := range tr.Requests {
			u, err := url.Parse(r.URL)
			if r.Proxy < 0 || r.Proxy >= proxies || r.Size < 0 || r.Size > replay.MaxLogObjectBytes ||
				err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" { // url.Parse lower-cases the scheme
				t.Fatalf("unreplayable request %+v", r)
			}
			if s, ok := sizes[r.URL]; !ok {
				sizes[r.URL] = r.Size
				unique += r.Size
			} else if s != r.Size {
				t.Fatalf("%s has sizes %d and %d", r.URL, s, r.Size)
			}
		}
		if tr.Objects != len(sizes) || tr.UniqueBytes != unique {
			t.Fatalf("%d objects, %d bytes; counted %d, %d", tr.Objects, tr.UniqueBytes, len(sizes), unique)
		}
	})
}
