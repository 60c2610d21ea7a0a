package node

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// digestServer serves a publisher that can be swapped (a restart) or
// replaced by a fixed answer (a misbehaving peer).
type digestServer struct {
	mu    sync.Mutex
	pub   *Publisher
	fixed func(w http.ResponseWriter, r *http.Request)
	*httptest.Server
}

func newDigestServer(t *testing.T, pub *Publisher) *digestServer {
	s := &digestServer{pub: pub}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		pub, fixed := s.pub, s.fixed
		s.mu.Unlock()
		if fixed != nil {
			fixed(w, r)
			return
		}
		pub.serveHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func newTestDirectory(t *testing.T, clock *fakeClock, peers ...PeerConfig) *Directory {
	t.Helper()
	d, err := newDirectory(directoryConfig{Peers: peers, PollInterval: time.Second, Expiry: 10 * time.Second,
		MaxDigestBytes: 1 << 20, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func candidateNames(ps []*Peer) []string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name())
	}
	return names
}

func TestDirectoryFollowsPublisher(t *testing.T) {
	pub := newTestPublisher(t, 1, 8)
	for i := range 300 {
		pub.Stored(urlKey(i))
	}
	pub.Publish()
	srv := newDigestServer(t, pub)
	clock := testutil.NewClock(time.Unix(1e9, 0))
	d := newTestDirectory(t, clock, PeerConfig{Name: "a", Proxy: srv.URL})
	ctx := context.Background()
	if got := d.Candidates(urlKey(1)); len(got) != 0 {
		t.Fatal("candidates before any digest")
	}
	if err := d.RefreshPeer(ctx, d.Peers()[0]); err != nil {
		t.Fatal(err)
	}
	if got := candidateNames(d.Candidates(urlKey(1))); len(got) != 1 || got[0] != "a" {
		t.Fatalf("candidates for a held key: %v", got)
	}
	absent := 0
	for i := range 1000 {
		if len(d.Candidates(urlKey(100000+i))) > 0 {
			absent++
		}
	}
	if absent > 50 {
		t.Fatalf("%d of 1000 absent keys are candidates", absent)
	}
	// Nothing changed: 304. Then changes arrive as a delta.
	d.RefreshPeer(ctx, d.Peers()[0])
	for i := 300; i < 330; i++ {
		pub.Stored(urlKey(i))
	}
	pub.Publish()
	d.RefreshPeer(ctx, d.Peers()[0])
	s := d.status()[0]
	if s.Full != 1 || s.NotModified != 1 || s.Delta != 1 || s.Sequence != pub.stats().Sequence {
		t.Fatalf("status %+v", s)
	}
	if len(d.Candidates(urlKey(320))) != 1 {
		t.Fatal("a key published in a delta is not a candidate")
	}

	// The peer restarts: its sequences start again and its content
	// differs. The node notices and resynchronises.
	pub2 := newTestPublisher(t, 1, 8)
	for i := range 5 {
		pub2.Stored(urlKey(50000 + i))
	}
	srv.mu.Lock()
	srv.pub = pub2
	srv.mu.Unlock()
	if err := d.RefreshPeer(ctx, d.Peers()[0]); err != nil {
		t.Fatal(err)
	}
	if len(d.Candidates(urlKey(50001))) != 1 || len(d.Candidates(urlKey(1))) != 0 {
		t.Fatal("view not replaced after the peer restarted")
	}

	// The peer goes silent: its view is kept until the expiry, then
	// dropped.
	srv.mu.Lock()
	srv.fixed = func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) }
	srv.mu.Unlock()
	clock.Advance(5 * time.Second)
	if err := d.RefreshPeer(ctx, d.Peers()[0]); err == nil {
		t.Fatal("no error from a failing peer")
	}
	if len(d.Candidates(urlKey(50001))) != 1 {
		t.Fatal("view dropped before the expiry")
	}
	clock.Advance(6 * time.Second)
	if len(d.Candidates(urlKey(50001))) != 0 || d.status()[0].HasView {
		t.Fatal("view kept after the expiry")
	}
}

func TestDirectoryRefusesBadDigests(t *testing.T) {
	pub := newTestPublisher(t, 1, 8)
	pub.Stored(urlKey(1))
	srv := newDigestServer(t, pub)
	clock := testutil.NewClock(time.Unix(1e9, 0))
	d := newTestDirectory(t, clock, PeerConfig{Name: "a", Proxy: srv.URL})
	ctx := context.Background()
	if err := d.RefreshPeer(ctx, d.Peers()[0]); err != nil {
		t.Fatal(err)
	}
	good, _ := pub.respond("", 0)
	bad := map[string]func(w http.ResponseWriter, r *http.Request){
		"corrupt": func(w http.ResponseWriter, r *http.Request) {
			b := append([]byte(nil), good.Body...)
			b[len(b)/2] ^= 1
			w.Write(b)
		},
		"truncated": func(w http.ResponseWriter, r *http.Request) { w.Write(good.Body[:len(good.Body)-9]) },
		"oversized announced": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(2<<20))
			w.Write(make([]byte, 100))
		},
		"oversized streamed": func(w http.ResponseWriter, r *http.Request) {
			w.(http.Flusher).Flush()
			w.Write(make([]byte, 1<<20+10))
		},
		"not a digest": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>hello</html>")) },
	}
	for name, h := range bad {
		srv.mu.Lock()
		srv.fixed = h
		srv.mu.Unlock()
		if err := d.RefreshPeer(ctx, d.Peers()[0]); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if len(d.Candidates(urlKey(1))) != 1 {
			t.Errorf("%s: the good view was lost", name)
		}
	}
	if s := d.status()[0]; s.Refused < 4 || s.LastError == "" {
		t.Errorf("status %+v", s)
	}
}

func TestDirectorySquidPeer(t *testing.T) {
	sd, _ := squid.New(1000, 5)
	for i := range 100 {
		sd.Add(squid.GET, urlKey(i))
	}
	body, _ := sd.MarshalBinary()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != squidDigestPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/cache-digest")
		w.Write(body)
	}))
	defer srv.Close()
	clock := testutil.NewClock(time.Unix(1e9, 0))
	d := newTestDirectory(t, clock, PeerConfig{Name: "squid", Proxy: srv.URL, Protocol: Squid})
	if err := d.RefreshPeer(context.Background(), d.Peers()[0]); err != nil {
		t.Fatal(err)
	}
	if len(d.Candidates(urlKey(7))) != 1 {
		t.Fatal("a key in the Squid digest is not a candidate")
	}
	// Squid's canonical form: an upper-case host is the same object.
	if len(d.Candidates("http://origin.test/object/7")) != 1 {
		t.Fatal("canonical key not found")
	}
}

// TestSquidPeerRevalidated: a Squid's digest has no ETag; the node asks
// again with If-Modified-Since its Last-Modified, as Squid answers 304
// until it rebuilds its digest (hourly), and takes the new digest when
// it has. The peer here serves its digest with http.ServeContent, which
// answers If-Modified-Since as Squid does. Before, every poll fetched
// the whole digest.
func TestSquidPeerRevalidated(t *testing.T) {
	digestOf := func(from int) []byte {
		sd, _ := squid.New(1000, 5)
		for i := range 100 {
			sd.Add(squid.GET, urlKey(from+i))
		}
		b, _ := sd.MarshalBinary()
		return b
	}
	var mu sync.Mutex
	body, built := digestOf(0), time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	var full atomic.Int64
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b, lm := body, built
		mu.Unlock()
		w.Header().Set("Content-Type", "application/cache-digest")
		w.Header().Set("Expires", lm.Add(time.Hour).Format(http.TimeFormat))
		cw := &countingWriter{ResponseWriter: w}
		http.ServeContent(cw, r, "", lm, bytes.NewReader(b))
		if cw.n > 0 {
			full.Add(1)
		}
	}))
	defer peer.Close()
	tn := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Peers: []PeerConfig{{Name: "squid", Proxy: peer.URL, Protocol: Squid}}})
	d := tn.directory
	p := d.Peers()[0]
	ctx := context.Background()
	// The node's first poll, as it starts, then three more.
	waitFor(t, 5*time.Second, "the first poll", func() bool { return d.status()[0].HasView })
	for range 3 {
		if err := d.RefreshPeer(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if s := d.status()[0]; full.Load() != 1 || s.Full != 1 || s.NotModified != 3 || len(d.Candidates(urlKey(7))) != 1 {
		t.Fatalf("3 polls of an unchanged Squid digest: %d sent whole, status %+v", full.Load(), s)
	}
	mu.Lock()
	body, built = digestOf(5000), built.Add(time.Hour)
	mu.Unlock()
	if err := d.RefreshPeer(ctx, p); err != nil {
		t.Fatal(err)
	}
	if s := d.status()[0]; full.Load() != 2 || s.Full != 2 || len(d.Candidates(urlKey(5007))) != 1 {
		t.Fatalf("after the Squid's rebuild: %d sent whole, status %+v", full.Load(), s)
	}
}

// countingWriter counts the body bytes written through it.
type countingWriter struct {
	http.ResponseWriter
	n int
}

func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += n
	return n, err
}

func TestDirectoryConfig(t *testing.T) {
	for _, pc := range []PeerConfig{{Proxy: "ftp://x"}, {Proxy: "http://"}, {Proxy: "http://h:1", DigestURL: "::"}} {
		if _, err := newDirectory(directoryConfig{Peers: []PeerConfig{pc}}); err == nil {
			t.Errorf("%+v: no error", pc)
		}
	}
	if _, err := ParseProtocol("icp"); err == nil {
		t.Error("ParseProtocol(icp): no error")
	}
}

// TestDirectoryPatchesCountingDigest: a peer that publishes counting
// filter digests has each delta applied in place to the counters the
// node already holds, and answers by the patched view.
func TestDirectoryPatchesCountingDigest(t *testing.T) {
	c := counting.Config{M: 1 << 14, K: 4, Seed: 5}
	base := counting.MustNew(c)
	for i := range 200 {
		base.AddString(urlKey(i))
	}
	next := base.Clone()
	for i := 200; i < 220; i++ {
		next.AddString(urlKey(i))
	}
	next.RemoveString(urlKey(0))
	full, err := digest.Encode(&digest.Digest{Sequence: 1, Counting: base}, digest.Auto)
	if err != nil {
		t.Fatal(err)
	}
	delta, err := digest.Diff(&digest.Digest{Sequence: 1, Counting: base}, &digest.Digest{Sequence: 2, Counting: next}, digest.Auto)
	if err != nil {
		t.Fatal(err)
	}
	srv := newDigestServer(t, nil)
	var served atomic.Int32
	srv.fixed = func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) == 1 {
			w.Write(full)
			return
		}
		w.Write(delta)
	}
	clock := testutil.NewClock(time.Unix(1e9, 0))
	d := newTestDirectory(t, clock, PeerConfig{Name: "a", Proxy: srv.URL})
	p := d.Peers()[0]
	for range 2 {
		if err := d.RefreshPeer(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	p.mu.RLock()
	v := p.view
	p.mu.RUnlock()
	if v.patcher == nil || v.digest.Counting == nil || v.seq != 2 {
		t.Fatalf("view %+v: not a counting digest patched in place", v)
	}
	if s := d.status()[0]; s.Full != 1 || s.Delta != 1 {
		t.Fatalf("status %+v", s)
	}
	if !slices.Equal(v.digest.Counting.Counters(), next.Counters()) {
		t.Fatal("the patched counters differ from the peer's")
	}
	if len(d.Candidates(urlKey(210))) != 1 || len(d.Candidates(urlKey(5))) != 1 {
		t.Fatal("a key the peer holds is not a candidate")
	}
}

// TestSetLookup: a peer with a lookup is a candidate exactly when the
// lookup says so, without a fetched view and without expiring; nil
// returns it to its view, which it has not.
func TestSetLookup(t *testing.T) {
	now := time.Unix(1e9, 0)
	d, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "a", Proxy: "http://127.0.0.1:1"}, {Name: "b", Proxy: "http://127.0.0.1:2"}},
		Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	a, b := d.Peers()[0], d.Peers()[1]
	setLookup(b, func(key string) bool { return key == "http://x/in" })
	now = now.Add(24 * time.Hour) // past any expiry
	if got := d.Candidates("http://x/in"); len(got) != 1 || got[0] != b {
		t.Errorf("in: %v", got)
	}
	if got := d.Candidates("http://x/out"); len(got) != 0 {
		t.Errorf("out: %v", got)
	}
	b.unreachableNow()
	if got := d.Candidates("http://x/in"); len(got) != 0 {
		t.Errorf("unreachable peer a candidate: %v", got)
	}
	setLookup(b, nil)
	setLookup(nil, nil) // ignored
	if got := d.Candidates("http://x/in"); len(got) != 0 || a.view != nil {
		t.Errorf("after setLookup(nil): %v", got)
	}
}

// TestFrameType: decode dispatches on the structure type read from a
// frame's header, and on none for a body that is not a bloomcast frame
// or too short to say.
func TestFrameType(t *testing.T) {
	frame := func(typ envelope.Type) []byte {
		b, err := envelope.AppendHeader(nil, &envelope.Header{Type: typ}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c := range []struct {
		name string
		body []byte
		want envelope.Type
	}{
		{"bloom", frame(envelope.TypeBloom), envelope.TypeBloom},
		{"delta", frame(envelope.TypeDelta), envelope.TypeDelta},
		{"static", frame(envelope.TypeStatic), envelope.TypeStatic},
		{"header cut before the type", frame(envelope.TypeStatic)[:6], 0},
		{"not a frame", []byte("Squid digest, not a bloomcast frame"), 0},
		{"empty", nil, 0},
	} {
		if got := frameType(c.body); got != c.want {
			t.Errorf("%s: frameType = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRefreshAfterPollInFlight: a refresh begun after a publication ends
// on that publication even when a poll begun before it is still in
// flight (as a node's first poll of a peer may be when the peer
// publishes). The peer answers the earlier request with the old digest
// only once the refresh is under way or half a second has passed: two
// polls of one peer at once would both ask from no view, and the newer
// digest, stored second, would be dropped.
func TestRefreshAfterPollInFlight(t *testing.T) {
	pub := newTestPublisher(t, 1, 8)
	pub.Stored(urlKey(1))
	pub.Publish()
	old, err := pub.respond("", 0)
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan struct{})
	var requests atomic.Int32
	srv := newDigestServer(t, pub)
	srv.mu.Lock()
	srv.fixed = func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			select {
			case <-second:
			case <-time.After(500 * time.Millisecond):
			}
			w.Header().Set("ETag", old.ETag)
			_, _ = w.Write(old.Body)
			return
		}
		close(second)
		time.Sleep(100 * time.Millisecond) // the old answer is stored first
		pub.serveHTTP(w, r)
	}
	srv.mu.Unlock()
	d := newTestDirectory(t, testutil.NewClock(time.Unix(1e9, 0)), PeerConfig{Name: "a", Proxy: srv.URL})
	ctx := context.Background()
	polled := make(chan error, 1)
	go func() { polled <- d.RefreshPeer(ctx, d.Peers()[0]) }()
	waitFor(t, 5*time.Second, "the first poll to reach the peer", func() bool { return requests.Load() == 1 })

	pub.Stored(urlKey(2))
	pub.Publish()
	if err := d.RefreshPeer(ctx, d.Peers()[0]); err != nil {
		t.Fatal(err)
	}
	if err := <-polled; err != nil {
		t.Fatal(err)
	}
	if s := d.status()[0]; s.Sequence != pub.stats().Sequence || len(d.Candidates(urlKey(2))) != 1 {
		t.Fatalf("after the refresh: view of sequence %d, the peer's is %d; key 2 a candidate: %v",
			s.Sequence, pub.stats().Sequence, len(d.Candidates(urlKey(2))) == 1)
	}
}

// TestCorruptDeltaResyncs: a peer whose deltas arrive corrupt (a byte
// changed on the way: the frame's checksum fails) while its full digest
// is sound is resynchronised at once, by every view form: the node
// fetches the full digest, as for a delta made for another base. Before,
// the view stayed at the old publication until it expired.
func TestCorruptDeltaResyncs(t *testing.T) {
	for _, views := range []PeerViews{PeerViewsDecoded, PeerViewsCompressed} {
		pub := newTestPublisher(t, 1, 8)
		for i := range 300 {
			pub.Stored(urlKey(i))
		}
		pub.Publish()
		srv := newDigestServer(t, pub)
		srv.fixed = func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("since") == "" {
				pub.serveHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			pub.serveHTTP(rec, r)
			body := rec.Body.Bytes()
			if len(body) > 0 {
				body[len(body)-1] ^= 0x40
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(body)
		}
		clock := testutil.NewClock(time.Unix(1e9, 0))
		d, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "a", Proxy: srv.URL}}, PollInterval: time.Second,
			Expiry: 10 * time.Second, MaxDigestBytes: 1 << 20, Now: clock.Now, PeerViews: views})
		if err != nil {
			t.Fatal(err)
		}
		ctx, p := context.Background(), d.Peers()[0]
		if err := d.RefreshPeer(ctx, p); err != nil {
			t.Fatal(err)
		}
		for i := 300; i < 340; i++ {
			pub.Stored(urlKey(i))
		}
		pub.Publish()
		err = d.RefreshPeer(ctx, p)
		if s := d.status()[0]; err != nil || s.Sequence != pub.sequence() || s.Resync != 1 || len(d.Candidates(urlKey(320))) != 1 {
			t.Fatalf("%s views after a corrupt delta: %v, status %+v, publisher at %d", views, err, s, pub.sequence())
		}
	}
}
