package node

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/nodestatus"
)

// TestStatusPage runs two nodes and an origin on loopback, makes a
// peer hit and a false hit at a, and reads a's status as JSON and as
// HTML; then stops b and sees it marked failing; a client outside
// AllowPeers is refused both.
func TestStatusPage(t *testing.T) {
	origin := newTestOrigin(t)
	lnA, lnB := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	peer := func(name string, ln net.Listener) PeerConfig {
		return PeerConfig{Name: name, Proxy: "http://" + ln.Addr().String()}
	}
	// Manual: the test publishes and polls itself, so that no background
	// publication of b's or poll by a replaces a's view of b between the
	// deletion at b and the false hit it is meant to cause.
	a := startNode(t, lnA, nil, NodeConfig{Name: "node-a", Version: "v9.9.9-test", Peers: []PeerConfig{peer("b", lnB)}, Manual: true})
	b := startNode(t, lnB, nil, NodeConfig{Name: "node-b", Peers: []PeerConfig{peer("a", lnA)}, Manual: true})
	ctx := context.Background()
	for _, p := range []string{"/obj/1", "/obj/2"} {
		b.get(t, origin.URL+p)
	}
	b.Publisher().Publish()
	a.Directory().Refresh(ctx)
	a.get(t, origin.URL+"/obj/1") // peer hit
	a.get(t, origin.URL+"/obj/1") // local hit
	key, _ := cache.Key(origin.URL + "/obj/2")
	b.Store().Delete(key)
	a.get(t, origin.URL+"/obj/2") // false hit at b, then a miss
	a.Publisher().Publish()

	code, body := getBody(t, a.url()+nodestatus.JSONPath)
	if code != http.StatusOK {
		t.Fatalf("%s: %d %s", nodestatus.JSONPath, code, body)
	}
	var st nodestatus.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.Node.Name != "node-a" || st.Node.Version != "v9.9.9-test" || st.Node.Listen != lnA.Addr().String() ||
		st.Node.Objects != 2 || st.Node.BudgetBytes != 8<<20 || !st.Node.Healthy || st.Node.UptimeSeconds <= 0 {
		t.Fatalf("node: %+v", st.Node)
	}
	want := nodestatus.Counts{LocalHits: 1, PeerHits: 1, Misses: 1, FalseHits: 1}
	if st.Requests.Total != want || st.Requests.LastHour != want {
		t.Fatalf("requests: total %+v, last hour %+v, want %+v", st.Requests.Total, st.Requests.LastHour, want)
	}
	if len(st.Requests.Minutes) != statusMinutes || st.Requests.Minutes[statusMinutes-1].Total() == 0 &&
		st.Requests.Minutes[statusMinutes-2].Total() == 0 {
		t.Fatalf("minutes: %d, the last two empty", len(st.Requests.Minutes))
	}
	if r := st.Requests.LastHourRatio; r.Peer != 1.0/3 || r.FalseHits != 1.0/3 {
		t.Fatalf("ratios: %+v", r)
	}
	if d := st.Digest; d.Sequence == 0 || d.Keys != 2 || d.WireBytes == 0 || d.Capacity != 1000 ||
		d.BitsPerEntry != 16 || d.PredictedFalsePos <= 0 || d.Pending != 0 || d.MaxAgeSeconds != 300 {
		t.Fatalf("digest: %+v", d)
	}
	if len(st.Peers) != 1 {
		t.Fatalf("peers: %+v", st.Peers)
	}
	p := st.Peers[0]
	if p.Name != "b" || p.State != nodestatus.PeerStateOK || !p.HasView || p.Protocol != "bloomcast" || p.Hits != 1 ||
		p.FalseHits != 1 || p.MeasuredFalseHitRate != 0.5 || p.FalsePos <= 0 || p.WireBytes == 0 || p.Transport != "http" {
		t.Fatalf("peer b: %+v", p)
	}

	if v := a.metric(t, `bloomcast_peer_view_false_positive_rate{peer="b"}`); v == "" || v == "0" {
		t.Fatalf("bloomcast_peer_view_false_positive_rate of b: %q", v)
	}
	resp, err := http.Get(a.url() + nodestatus.Path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct, csp := resp.Header.Get("Content-Type"), resp.Header.Get("Content-Security-Policy"); ct != "text/html; charset=utf-8" ||
		!strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
		resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("page headers: %q, %q, X-Frame-Options %q", ct, csp, resp.Header.Get("X-Frame-Options"))
	}
	_, page := getBody(t, a.url()+nodestatus.Path)
	for _, s := range []string{"bloomcast node node-a", "v9.9.9-test", `data-peer="b"`, `<rect class="peer"`, `<rect class="local"`,
		`<rect class="miss"`, `class="ok"`} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	for _, s := range []string{"http://", "https://", "src=", "FAILING"} { // self-contained; nothing failing yet
		if i := strings.Index(page, s); i >= 0 {
			t.Errorf("page has %q: %s", s, page[max(0, i-80):min(len(page), i+80)])
		}
	}

	// b stops: a's next poll fails, and the page says so.
	b.stop()
	if err := a.Directory().RefreshPeer(ctx, a.Directory().Peers()[0]); err == nil {
		t.Fatal("refresh of a stopped peer succeeded")
	}
	_, body = getBody(t, a.url()+nodestatus.JSONPath)
	st = nodestatus.Status{}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if p := st.Peers[0]; p.State != nodestatus.PeerStateFailing || p.LastError == "" || p.Failures != 1 {
		t.Fatalf("stopped peer: %+v", p)
	}
	_, page = getBody(t, a.url()+nodestatus.Path)
	for _, s := range []string{`<tr class="failing" data-peer="b">`, "FAILING", "1 of 1 peers failing: b"} {
		if !strings.Contains(page, s) {
			t.Errorf("page with b stopped lacks %q", s)
		}
	}

	// Outside AllowPeers: refused, as /metrics is.
	a.allowPeers.Store(&[]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")})
	for _, path := range []string{nodestatus.Path, nodestatus.JSONPath, "/metrics"} {
		if code, _ := getBody(t, a.url()+path); code != http.StatusForbidden {
			t.Errorf("%s outside AllowPeers: %d", path, code)
		}
	}
}

// TestMinuteRing counts requests in their minutes and forgets those
// older than an hour.
func TestMinuteRing(t *testing.T) {
	var r minuteRing
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r.add(t0, outcomeLocalHit, false)
	r.add(t0.Add(10*time.Second), outcomePeerHit, true)
	r.add(t0.Add(time.Minute), outcomeMiss, false)
	got := r.last(t0.Add(time.Minute))
	if len(got) != statusMinutes || got[statusMinutes-1].Misses != 1 ||
		got[statusMinutes-2].Counts != (nodestatus.Counts{LocalHits: 1, PeerHits: 1, FalseHits: 1}) ||
		!got[statusMinutes-1].Start.Equal(t0.Truncate(time.Minute).Add(time.Minute)) {
		t.Fatalf("last minutes: %+v", got[statusMinutes-2:])
	}
	// An hour on, the first minute's slot is reused.
	r.add(t0.Add(time.Hour), outcomeOther, false)
	got = r.last(t0.Add(time.Hour))
	var sum nodestatus.Counts
	for _, m := range got {
		sum.LocalHits += m.LocalHits
		sum.Misses += m.Misses
		sum.Other += m.Other
	}
	if sum != (nodestatus.Counts{Misses: 1, Other: 1}) {
		t.Fatalf("an hour on: %+v", sum)
	}
	// A request older than the ring holds is not counted.
	r.add(t0, outcomeLocalHit, false)
	if got := r.last(t0.Add(time.Hour)); got[0].LocalHits != 0 {
		t.Fatalf("old request counted: %+v", got[0])
	}
}

// TestStatusOfNewNode reads what a node's status page shows, without
// serving it: a node with one peer it has not yet polled.
func TestStatusOfNewNode(t *testing.T) {
	n, err := NewNode(NodeConfig{
		Name: "cache1", Version: "v1.0.0", Capacity: 1000,
		Peers:  []PeerConfig{{Name: "cache2", Proxy: "http://127.0.0.1:3129"}},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	st := n.status()
	var b strings.Builder
	fmt.Fprintln(&b, st.Node.Name, st.Node.Version, st.Node.Healthy, st.Node.BudgetBytes>>20, "MiB")
	fmt.Fprintln(&b, "digest capacity", st.Digest.Capacity, "bits per entry", st.Digest.BitsPerEntry)
	fmt.Fprintln(&b, "minutes charted", len(st.Requests.Minutes))
	for _, p := range st.Peers {
		fmt.Fprintln(&b, "peer", p.Name, p.Protocol, p.State)
	}
	const want = `cache1 v1.0.0 true 256 MiB
digest capacity 1000 bits per entry 16
minutes charted 60
peer cache2 bloomcast no digest
`
	if got := b.String(); got != want {
		t.Errorf("status:\n%s\nwant:\n%s", got, want)
	}
}
