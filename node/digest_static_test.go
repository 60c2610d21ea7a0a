package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

// putObjects stores objects from..to-1 of origin in n's cache, as if it
// had fetched them: fresh for an hour, with the origin's body.
func putObjects(t *testing.T, n *testNode, origin string, from, to int) {
	t.Helper()
	now := time.Now()
	for i := from; i < to; i++ {
		h := http.Header{"Cache-Control": {"max-age=3600"}, "Content-Type": {"text/plain"}}
		e := &cache.Entry{URL: fmt.Sprintf("%s/obj/%d", origin, i), Status: http.StatusOK, Header: h,
			Body: fmt.Appendf(nil, "object /obj/%d", i), RequestTime: now, ResponseTime: now}
		if err := n.Store().Put(e); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNodesStaticDigests: three nodes with static full digests route a
// miss to the peer that holds the object, follow their peers with
// deltas after the first whole frame, stop routing an object its peer
// removed, and report the views' bytes and rates.
func TestNodesStaticDigests(t *testing.T) {
	for _, full := range []FullDigests{FullDigestsStatic, FullDigestsStaticXOR} {
		t.Run(string(full), func(t *testing.T) { testNodesStaticDigests(t, full) })
	}
}

func testNodesStaticDigests(t *testing.T, full FullDigests) {
	origin := newTestOrigin(t)
	lnA, lnB, lnC := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	cfg := func(peers ...PeerConfig) NodeConfig {
		// Manual: only the test publishes and polls, so the counts of
		// whole frames and deltas below are exact.
		return NodeConfig{FullDigests: full, Manual: true, Peers: peers}
	}
	a := startNode(t, lnA, nil, cfg(PeerConfig{Name: "b", Proxy: "http://" + lnB.Addr().String()},
		PeerConfig{Name: "c", Proxy: "http://" + lnC.Addr().String()}))
	b := startNode(t, lnB, nil, cfg(PeerConfig{Name: "a", Proxy: "http://" + lnA.Addr().String()}))
	c := startNode(t, lnC, nil, cfg(PeerConfig{Name: "a", Proxy: "http://" + lnA.Addr().String()}))
	ctx := context.Background()
	obj := func(i int) string { return fmt.Sprintf("%s/obj/%d", origin.URL, i) }
	putObjects(t, b, origin.URL, 0, 200)
	putObjects(t, c, origin.URL, 1000, 1200)
	for _, n := range []*testNode{b, c} {
		if err := n.Publisher().Publish(); err != nil {
			t.Fatal(err)
		}
	}
	a.Directory().Refresh(ctx)
	for i, st := range a.Directory().status() {
		if !st.HasView || st.Form != peerViewsStatic || st.Full != 1 || st.Delta != 0 || st.HeldBytes <= 0 ||
			!(st.FalsePos > 0 && st.FalsePos < 0.01) || st.Sequence != []*testNode{b, c}[i].Publisher().stats().Sequence {
			t.Fatalf("a's view of %s: %+v", st.Name, st)
		}
	}
	wantForm := map[FullDigests]digest.StaticForm{FullDigestsStatic: digest.StaticAddedRemoved, FullDigestsStaticXOR: digest.StaticXOR}[full]
	for _, p := range a.Directory().Peers() {
		p.mu.RLock()
		v := p.view
		p.mu.RUnlock()
		if v == nil || v.static == nil || v.static.Form() != wantForm {
			t.Fatalf("a's view of %s is not a static digest of form %v", p.Name(), wantForm)
		}
	}
	st := a.Directory().status()[0]
	if got := a.metric(t, `bloomcast_peer_view_bytes{form="static",peer="b"}`); got != fmt.Sprint(st.HeldBytes) {
		t.Fatalf("bloomcast_peer_view_bytes: %q, status %d", got, st.HeldBytes)
	}
	if help := a.metric(t, "# HELP bloomcast_peer_view_bytes"); !strings.Contains(help, "static") {
		t.Errorf("bloomcast_peer_view_bytes's help does not name the static form it reports: %q", help)
	}
	if got := a.metric(t, `bloomcast_peer_view_false_positive_rate{peer="b"}`); got == "" || got == "0" {
		t.Fatalf("bloomcast_peer_view_false_positive_rate: %q", got)
	}
	for _, i := range []int{3, 1005} {
		if body, _ := a.get(t, obj(i)); body != fmt.Sprintf("object /obj/%d", i) || origin.count(fmt.Sprintf("/obj/%d", i)) != 0 {
			t.Fatalf("object %d: body %q, origin asked %d times", i, body, origin.count(fmt.Sprintf("/obj/%d", i)))
		}
	}
	if log := a.log.String(); !strings.Contains(log, "CD_SIBLING_HIT/b") || !strings.Contains(log, "CD_SIBLING_HIT/c") {
		t.Fatalf("access log of a:\n%s", log)
	}

	// b adds objects and removes one; a follows with a delta.
	putObjects(t, b, origin.URL, 200, 210)
	b.Store().Delete(obj(7))
	if err := b.Publisher().Publish(); err != nil {
		t.Fatal(err)
	}
	a.Directory().Refresh(ctx)
	st = a.Directory().status()[0]
	if st.Full != 1 || st.Delta != 1 || st.Sequence != b.Publisher().stats().Sequence || st.Form != peerViewsStatic {
		t.Fatalf("a's view of b after a delta: %+v", st)
	}
	if full, deltas := b.static.stats(); full != 1 || deltas != 1 {
		t.Fatalf("b's static publications: %d whole, %d deltas", full, deltas)
	}
	// The node's memory counts its static publications and its peers'
	// static views. b's 209 keys are in its publisher: as the ribbon's
	// keys (16 bytes each) or, in a whole frame without a ribbon, as
	// the added filter's ones (at least log2(1/ε), 11 bits, each).
	held := b.static.heldBytes()
	if views := int64(b.Directory().status()[0].HeldBytes); held < 209*11/8 ||
		b.fixedBytes(false) != b.publisher.heldBytes()+b.squid.heldBytes()+held+views {
		t.Fatalf("b's fixed bytes %d: static publications %d, view of a %d", b.fixedBytes(false), held, views)
	}
	if got := b.metric(t, `bloomcast_static_digest_saved_bytes`); got != fmt.Sprint(b.static.saved()) || b.static.saved() == 0 {
		t.Fatalf("bloomcast_static_digest_saved_bytes: %q, saved %d", got, b.static.saved())
	}
	if got := b.metric(t, `bloomcast_digest_out_bytes_total{codec="static",kind="delta"}`); got == "" {
		t.Fatal("b counted no static delta served")
	}
	for kind, want := range map[string]string{"full": "1", "delta": "1"} {
		if got := b.metric(t, `bloomcast_static_digest_publications_total{kind="`+kind+`"}`); got != want {
			t.Fatalf("bloomcast_static_digest_publications_total{kind=%q}: %q", kind, got)
		}
	}
	if body, _ := a.get(t, obj(205)); body != "object /obj/205" || origin.count("/obj/205") != 0 {
		t.Fatal("an object published in a delta was not fetched from b")
	}
	// The removed object is in b's removed filter: a asks the origin.
	if p := candidateNames(a.Directory().Candidates(obj(7))); len(p) != 0 {
		t.Fatalf("removed object routed to %v", p)
	}
	if body, _ := a.get(t, obj(7)); body != "object /obj/7" || origin.count("/obj/7") != 1 {
		t.Fatalf("removed object: %q, origin asked %d times", body, origin.count("/obj/7"))
	}
	// Nothing published since: 304.
	a.Directory().Refresh(ctx)
	if st := a.Directory().status()[0]; st.NotModified != 1 || st.Delta != 1 || st.Full != 1 {
		t.Fatalf("a's view of b after no change: %+v", st)
	}

	// Two publications between two polls: both deltas in one response.
	for k := range 2 {
		putObjects(t, b, origin.URL, 300+10*k, 310+10*k)
		if err := b.Publisher().Publish(); err != nil {
			t.Fatal(err)
		}
		if k == 0 { // a static publication is made when a peer asks
			if _, err := b.static.respond("", 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	a.Directory().Refresh(ctx)
	if st := a.Directory().status()[0]; st.Full != 1 || st.Delta != 2 || st.Resync != 0 || st.Sequence != b.Publisher().stats().Sequence {
		t.Fatalf("a's view of b after two publications: %+v", st)
	}
	if !a.Directory().status()[0].HasView || len(a.Directory().Candidates(obj(315))) != 1 {
		t.Fatal("object of the first of two deltas not routed")
	}
}

// TestNodesStaticMixed: a node with static digests and one with Bloom
// digests interoperate: each holds the other's digest as a Bloom one,
// since the Bloom node neither asks for nor serves static digests; and a
// static node's peer that lost its view's base resyncs with a full fetch.
func TestNodesStaticMixed(t *testing.T) {
	origin := newTestOrigin(t)
	lnA, lnB := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	a := startNode(t, lnA, nil, NodeConfig{FullDigests: FullDigestsStatic, Manual: true,
		Peers: []PeerConfig{{Name: "b", Proxy: "http://" + lnB.Addr().String()}}})
	b := startNode(t, lnB, nil, NodeConfig{Manual: true,
		Peers: []PeerConfig{{Name: "a", Proxy: "http://" + lnA.Addr().String()}}})
	ctx := context.Background()
	obj := func(i int) string { return fmt.Sprintf("%s/obj/%d", origin.URL, i) }
	putObjects(t, a, origin.URL, 0, 50)
	putObjects(t, b, origin.URL, 100, 150)
	for _, n := range []*testNode{a, b} {
		if err := n.Publisher().Publish(); err != nil {
			t.Fatal(err)
		}
	}
	a.Directory().Refresh(ctx)
	b.Directory().Refresh(ctx)
	if st := a.Directory().status()[0]; st.Form != string(PeerViewsDecoded) || st.Full != 1 {
		t.Fatalf("static node's view of the Bloom node: %+v", st)
	}
	if st := b.Directory().status()[0]; st.Form != string(PeerViewsDecoded) || st.Full != 1 {
		t.Fatalf("Bloom node's view of the static node: %+v", st)
	}
	if body, _ := a.get(t, obj(120)); body != "object /obj/120" || origin.count("/obj/120") != 0 {
		t.Fatal("static node did not fetch from the Bloom node")
	}
	if body, _ := b.get(t, obj(20)); body != "object /obj/20" || origin.count("/obj/20") != 0 {
		t.Fatal("Bloom node did not fetch from the static node")
	}
	// Deltas both ways.
	putObjects(t, a, origin.URL, 50, 55)
	putObjects(t, b, origin.URL, 150, 155)
	for _, n := range []*testNode{a, b} {
		if err := n.Publisher().Publish(); err != nil {
			t.Fatal(err)
		}
	}
	a.Directory().Refresh(ctx)
	b.Directory().Refresh(ctx)
	for _, st := range []peerStatus{a.Directory().status()[0], b.Directory().status()[0]} {
		if st.Delta != 1 || st.Resync != 0 || st.Form != string(PeerViewsDecoded) {
			t.Fatalf("%s after a delta: %+v", st.Name, st)
		}
	}

	// A static view whose base the peer no longer keeps: a third node,
	// c, holds a's static digest, and more than staticHistory static
	// publications of a pass before c asks again: c gets a whole frame.
	lnC := listen(t, "127.0.0.1:0")
	c := startNode(t, lnC, nil, NodeConfig{FullDigests: FullDigestsStatic, Manual: true,
		Peers: []PeerConfig{{Name: "a", Proxy: "http://" + lnA.Addr().String()}}})
	c.Directory().Refresh(ctx)
	for k := range staticHistory + 2 {
		putObjects(t, a, origin.URL, 1000+k, 1001+k)
		if err := a.Publisher().Publish(); err != nil {
			t.Fatal(err)
		}
		if _, err := a.static.respond("", 0); err != nil {
			t.Fatal(err)
		}
	}
	c.Directory().Refresh(ctx)
	st := c.Directory().status()[0]
	if st.Form != peerViewsStatic || st.Full != 2 || st.Delta != 0 || st.Sequence != a.Publisher().stats().Sequence {
		t.Fatalf("c's view of a after the history passed it: %+v", st)
	}
	if len(c.Directory().Candidates(obj(1010))) != 1 {
		t.Fatal("c does not route an object of a's")
	}
}

// TestStaticDigestNegotiation: the digest endpoint of a node with static
// digests answers by the Accept field, with Vary: Accept; an If-None-Match
// of the current static entity tag gets 304, and a request of a node
// without static digests gets a Bloom digest whatever it asks.
func TestStaticDigestNegotiation(t *testing.T) {
	lnA, lnB := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	a := startNode(t, lnA, nil, NodeConfig{FullDigests: FullDigestsStatic, Manual: true})
	b := startNode(t, lnB, nil, NodeConfig{Manual: true})
	get := func(url, accept, inm string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url+DigestPath, nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for _, c := range []struct {
		url, accept, want string
	}{
		{a.url(), "", digestContentType},
		{a.url(), staticAccept, staticContentType},
		{a.url(), staticContentType + ";q=0, */*", digestContentType},
		{a.url(), "text/html, " + strings.ToUpper(staticContentType) + " ; q=0.9", staticContentType},
		{b.url(), staticAccept, digestContentType},
	} {
		resp := get(c.url, c.accept, "")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != c.want {
			t.Errorf("Accept %q: %s, %q", c.accept, resp.Status, resp.Header.Get("Content-Type"))
		}
		if c.url == a.url() && resp.Header.Get("Vary") != "Accept" {
			t.Errorf("Accept %q: Vary %q", c.accept, resp.Header.Get("Vary"))
		}
	}
	etag := get(a.url(), staticAccept, "").Header.Get("ETag")
	if resp := get(a.url(), staticAccept, etag); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match %s: %s", etag, resp.Status)
	}
	// The Bloom digest's tag is another.
	if resp := get(a.url(), "", etag); resp.StatusCode != http.StatusOK {
		t.Fatalf("Bloom digest with the static tag: %s", resp.Status)
	}
}

// TestStaticHostilePeer: a peer answering with damaged or oversized
// static frames is refused with a one-line error, and the node keeps
// no view of it and does not panic.
func TestStaticHostilePeer(t *testing.T) {
	sp, err := digest.NewStaticPublisher(digest.StaticConfig{Rate: 1.0 / 256, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]hashing.Hash128, 500)
	for i := range keys {
		keys[i] = hashing.SumStringSeed(fmt.Sprint(i), 1)
	}
	whole, full, err := sp.Publish(1, keys)
	if err != nil || !full {
		t.Fatal(full, err)
	}
	delta, full, err := sp.Publish(2, keys[:490])
	if err != nil || full {
		t.Fatal(full, err)
	}
	flipped := append([]byte(nil), whole...)
	flipped[len(flipped)/2] ^= 1
	many := make([]byte, 0, len(delta)*(maxStaticFrames+1))
	for range maxStaticFrames + 1 {
		many = append(many, delta...)
	}
	for _, c := range []struct {
		name string
		body []byte
		max  int64
		want string
	}{
		{"flipped bit", flipped, 0, "checksum"},
		{"cut short", whole[:len(whole)-5], 0, "digest"},
		{"trailing bytes", append(append([]byte(nil), whole...), 1, 2, 3), 0, "static frame 1"},
		{"delta and no view", delta, 0, "static delta does not follow"},
		{"too many frames", append(append([]byte(nil), whole...), many...), 0, "frames"},
		{"over MaxDigestBytes", whole, int64(len(whole) - 1), "limit"},
		{"a frame of another type", append(append([]byte(nil), whole...), mustEnvelope(t)...), 0, "of type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", staticContentType, len(c.body))
			peerURL := rawPeer(t, head, c.body)
			d, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "evil", Proxy: peerURL}}, FullDigests: FullDigestsStatic,
				MaxDigestBytes: c.max, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			err = d.RefreshPeer(context.Background(), d.Peers()[0])
			if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one line with %q", err, c.want)
			}
			if st := d.status()[0]; st.HasView || st.Failures != 1 {
				t.Fatalf("status %+v", st)
			}
			if len(d.Candidates("http://x/")) != 0 {
				t.Fatal("a refused peer is a candidate")
			}
		})
	}
	// A node without static digests refuses a static frame it did not ask for.
	peerURL := rawPeer(t, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", len(whole)), whole)
	d, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "evil", Proxy: peerURL}}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.RefreshPeer(context.Background(), d.Peers()[0]); !errors.Is(err, digest.ErrCorrupt) {
		t.Fatalf("static frame to a Bloom node: %v", err)
	}
}

// mustEnvelope returns a valid frame that is not a static digest: a
// Bloom digest.
func mustEnvelope(t *testing.T) []byte {
	t.Helper()
	pub, err := newPublisher(publisherConfig{Filter: counting.Config{N: 100, P: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := pub.respond("", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !envelope.Sniff(r.Body) {
		t.Fatal("not a frame")
	}
	return r.Body
}

func TestFullDigestsConfig(t *testing.T) {
	for s, want := range map[string]FullDigests{"": FullDigestsBloom, "bloom": FullDigestsBloom, "static": FullDigestsStatic, "static-xor": FullDigestsStaticXOR} {
		if got, err := ParseFullDigests(s); err != nil || got != want {
			t.Errorf("%q: %q, %v", s, got, err)
		}
	}
	if _, err := ParseFullDigests("xor"); !errors.Is(err, cache.ErrConfig) || err.Error() != `cache: invalid configuration: full digests "xor" (want bloom, static or static-xor)` {
		t.Errorf("xor: %v", err)
	}
	if _, err := NewNode(NodeConfig{FullDigests: "ribbon", Logger: quietLogger()}); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("NewNode of full digests ribbon: %v", err)
	}
	for _, full := range []FullDigests{FullDigestsStatic, FullDigestsStaticXOR} {
		_, err := NewNode(NodeConfig{FullDigests: full, Transport: &memTransport{}, Logger: quietLogger()})
		if !errors.Is(err, cache.ErrConfig) || !strings.Contains(err.Error(), "HTTP only") {
			t.Errorf("NewNode of %s digests and a transport: %v", full, err)
		}
	}
}

// FuzzApplyStatic: a response body of static frames, applied to no view
// and to a view of a whole frame, is refused or gives a view; it never
// panics, and a refused body leaves nothing changed.
func FuzzApplyStatic(f *testing.F) {
	sp, err := digest.NewStaticPublisher(digest.StaticConfig{Rate: 1.0 / 16, Seed: 3})
	if err != nil {
		f.Fatal(err)
	}
	keys := make([]hashing.Hash128, 100)
	for i := range keys {
		keys[i] = hashing.SumStringSeed(fmt.Sprint(i), 3)
	}
	whole, _, err := sp.Publish(1, keys)
	if err != nil {
		f.Fatal(err)
	}
	d1, _, err := sp.Publish(2, keys[:95])
	if err != nil {
		f.Fatal(err)
	}
	d2, _, err := sp.Publish(3, keys[:90])
	if err != nil {
		f.Fatal(err)
	}
	lim := envelope.Limits{MaxPayload: 1 << 20}
	base, _, err := applyStatic(nil, whole, lim)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(whole)
	f.Add(append(append([]byte(nil), d1...), d2...))
	f.Add(append(append([]byte(nil), whole...), d1...))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, old := range []*digest.StaticView{nil, base} {
			v, _, err := applyStatic(old, body, lim)
			if (err == nil) == (v == nil) {
				t.Fatalf("view %v, error %v", v != nil, err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}
		}
		if base.Sequence() != 1 || !base.ContainsHash(keys[99]) {
			t.Fatal("the base view changed")
		}
	})
}

// TestStaticResyncOnGap: a delta that does not follow the view (a
// publication missed) is answered with a full fetch, counted as a
// resync, and the view reaches the peer's state.
func TestStaticResyncOnGap(t *testing.T) {
	sp, err := digest.NewStaticPublisher(digest.StaticConfig{Rate: 1.0 / 256, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]hashing.Hash128, 1000)
	for i := range keys {
		keys[i] = hashing.SumStringSeed(fmt.Sprint(i), 9)
	}
	whole1, _, err := sp.Publish(1, keys[:900])
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sp.Publish(2, keys[:950]); err != nil {
		t.Fatal(err)
	}
	gap, full, err := sp.Publish(3, keys)
	if err != nil || full {
		t.Fatal(full, err)
	}
	whole3, err := sp.Whole()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	body, asked := whole1, []string{}
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r.URL.RawQuery)
		b := body
		if r.URL.Query().Get("since") != "" {
			b = gap // follows 2, not the view's 1
		}
		w.Header().Set("Content-Type", staticContentType)
		_, _ = w.Write(b)
	}))
	defer peer.Close()
	d, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "p", Proxy: peer.URL}}, FullDigests: FullDigestsStatic, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	p := d.Peers()[0]
	if err := d.RefreshPeer(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	body = whole3
	mu.Unlock()
	if err := d.RefreshPeer(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	st := d.status()[0]
	if st.Full != 2 || st.Delta != 0 || st.Resync != 1 || st.Sequence != 3 || st.Form != peerViewsStatic {
		t.Fatalf("status %+v (asked %q)", st, asked)
	}
	if len(d.Candidates("999")) != 1 || len(asked) != 3 || asked[1] != "since=1" || asked[2] != "" {
		t.Fatalf("asked %q", asked)
	}
}

// TestStaticTooLargeFallsBack: a peer's static digest that would hold
// more than MaxDigestBytes is refused, and the node asks that peer for
// Bloom digests from then on, at once. A view holds the ribbon and the
// ones of its two filters: at 1000 objects and ε = 4.6·10^-4 about 1.7
// KB, within the limit of 2400 bytes; after 600 objects more, a delta
// whose 600 bits set (about 1.9 bytes each) would make it about 2.8 KB,
// past it (the Bloom digest, 16 000 bits, is held in 2 KB). The limit
// lies midway between what the Bloom view and the grown static view
// hold.
func TestStaticTooLargeFallsBack(t *testing.T) {
	origin := newTestOrigin(t)
	lnA, lnB := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	logs := &syncBuffer{}
	a := startNode(t, lnA, nil, NodeConfig{FullDigests: FullDigestsStatic, Manual: true, MaxDigestBytes: 2400,
		Peers:  []PeerConfig{{Name: "b", Proxy: "http://" + lnB.Addr().String()}},
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	b := startNode(t, lnB, nil, NodeConfig{FullDigests: FullDigestsStatic, Manual: true})
	putObjects(t, b, origin.URL, 0, 1000)
	if err := b.Publisher().Publish(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := a.Directory().RefreshPeer(ctx, a.Directory().Peers()[0]); err != nil {
		t.Fatal(err)
	}
	st := a.Directory().status()[0]
	if st.Form != peerViewsStatic || st.Full != 1 || st.HeldBytes > 2<<10 || st.Sequence != b.Publisher().stats().Sequence {
		t.Fatalf("a's view of b at 1000 objects: %+v", st)
	}
	putObjects(t, b, origin.URL, 1000, 1600)
	if err := b.Publisher().Publish(); err != nil {
		t.Fatal(err)
	}
	a.Directory().Refresh(ctx)
	st = a.Directory().status()[0]
	if st.Form != string(PeerViewsDecoded) || st.Full != 2 || st.Resync != 1 || st.Refused != 1 || st.Sequence != b.Publisher().stats().Sequence {
		t.Fatalf("a's view of b at 1600 objects: %+v", st)
	}
	if !strings.Contains(logs.String(), `msg="peer digest resync" peer=b reason="node: static digest too large: `) {
		t.Errorf("no resync logged for the static digest too large:\n%s", logs)
	}
	if body, _ := a.get(t, origin.URL+"/obj/1500"); body != "object /obj/1500" || origin.count("/obj/1500") != 0 {
		t.Fatal("a does not route to b through its Bloom digest")
	}
	putObjects(t, b, origin.URL, 1600, 1610)
	if err := b.Publisher().Publish(); err != nil {
		t.Fatal(err)
	}
	a.Directory().Refresh(ctx)
	if st := a.Directory().status()[0]; st.Form != string(PeerViewsDecoded) || st.Delta != 1 || st.Resync != 1 {
		t.Fatalf("a's view of b after a publication: %+v", st)
	}
}

// TestStaticCorruptDeltaResyncs: a static delta that does not decode (a
// byte changed on the way) is answered with a full fetch, counted as a
// resync, as a Bloom delta's is, and the view reaches the peer's state.
func TestStaticCorruptDeltaResyncs(t *testing.T) {
	sp, err := digest.NewStaticPublisher(digest.StaticConfig{Rate: 1.0 / 256, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]hashing.Hash128, 1000)
	for i := range keys {
		keys[i] = hashing.SumStringSeed(fmt.Sprint(i), 9)
	}
	whole1, _, err := sp.Publish(1, keys[:950])
	if err != nil {
		t.Fatal(err)
	}
	delta, full, err := sp.Publish(2, keys)
	if err != nil || full {
		t.Fatal(full, err)
	}
	corrupt := append([]byte(nil), delta...)
	corrupt[len(corrupt)/2] ^= 0x10
	whole2, err := sp.Whole()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	body := whole1
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		b := body
		if r.URL.Query().Get("since") != "" {
			b = corrupt
		}
		w.Header().Set("Content-Type", staticContentType)
		_, _ = w.Write(b)
	}))
	defer peer.Close()
	d, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "p", Proxy: peer.URL}}, FullDigests: FullDigestsStatic, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	p := d.Peers()[0]
	if err := d.RefreshPeer(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	body = whole2
	mu.Unlock()
	err = d.RefreshPeer(context.Background(), p)
	if st := d.status()[0]; err != nil || st.Resync != 1 || st.Sequence != 2 || len(d.Candidates("999")) != 1 {
		t.Fatalf("after a corrupt delta: %v, status %+v", err, st)
	}
}
