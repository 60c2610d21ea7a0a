package node

// Fault tests of the summary-cache node: a
// peer killed mid-run, a peer restarted, dropped deltas, bad digests and
// slow peers. Every wait is bounded: requests carry contexts with
// timeouts, polling loops give up, and nodes must stop within a bound.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/digest"
)

// faultCtx returns a context that ends after d, or a second before the
// test's deadline if that comes first.
func faultCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	if dl, ok := t.Deadline(); ok {
		if left := time.Until(dl) - time.Second; left < d {
			d = max(left, 100*time.Millisecond)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// faultWait polls cond every 10 ms until it holds or timeout passes.
func faultWait(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx := faultCtx(t, timeout)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// faultStop stops a node and fails the test if it takes longer than d.
func faultStop(t *testing.T, tn *testNode, d time.Duration) {
	t.Helper()
	if tn.cancel == nil {
		return
	}
	tn.cancel()
	tn.cancel = nil
	select {
	case <-tn.done:
	case <-time.After(d):
		t.Errorf("node %s did not stop within %v", tn.ln.Addr(), d)
	}
}

// faultLog is a slog handler that keeps every record.
type faultLog struct {
	mu   sync.Mutex
	recs []faultRecord
}

type faultRecord struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (h *faultLog) Enabled(context.Context, slog.Level) bool { return true }

func (h *faultLog) Handle(_ context.Context, r slog.Record) error {
	c := faultRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		c.attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	h.recs = append(h.recs, c)
	h.mu.Unlock()
	return nil
}

func (h *faultLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *faultLog) WithGroup(string) slog.Handler      { return h }

// count returns the number of records at level or above with message msg
// about peer, and the last one's error attribute.
func (h *faultLog) count(level slog.Level, msg, peer string) (n int, lastErr string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.recs {
		if r.level >= level && r.msg == msg && r.attrs["peer"] == peer {
			n++
			lastErr = r.attrs["err"]
		}
	}
	return n, lastErr
}

// startFaultNode is startNode with the node's operational log going to
// h instead of being discarded.
func startFaultNode(t *testing.T, ln net.Listener, cfg NodeConfig, h slog.Handler) *testNode {
	t.Helper()
	cfg.Logger = slog.New(h)
	tn := startNode(t, ln, nil, cfg)
	// Runs before startNode's cleanup (cleanups run last in, first
	// out), which then finds the node stopped.
	t.Cleanup(func() { faultStop(t, tn, 15*time.Second) })
	return tn
}

// faultListener lets a test kill a node the hard way: the listener and
// every connection it accepted are closed at once, as when the process
// dies.
type faultListener struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (l *faultListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.conns = append(l.conns, c)
	l.mu.Unlock()
	return c, nil
}

func (l *faultListener) kill() {
	l.Listener.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
}

// faultClient sends requests through a node with keep-alive connections.
func faultClient(t *testing.T, tn *testNode) *http.Client {
	proxy, _ := url.Parse(tn.url())
	tr := &http.Transport{Proxy: http.ProxyURL(proxy), MaxIdleConnsPerHost: 16}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// faultFetch gets target with c and returns the body, status and time taken.
func faultFetch(ctx context.Context, c *http.Client, target string) (string, int, time.Duration, error) {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return "", 0, 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", 0, time.Since(start), err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), resp.StatusCode, time.Since(start), err
}

// faultGet is faultFetch that fails the test on an error, a status other
// than 200, a body other than the test origin's, or a wait over limit.
func faultGet(t *testing.T, c *http.Client, origin *testOrigin, path string, limit time.Duration) time.Duration {
	t.Helper()
	body, status, took, err := faultFetch(faultCtx(t, limit+2*time.Second), c, origin.URL+path)
	switch {
	case err != nil:
		t.Fatalf("GET %s: %v after %v", path, err, took)
	case status != http.StatusOK || body != "object "+path:
		t.Fatalf("GET %s: status %d, body %q", path, status, body)
	case took > limit:
		t.Fatalf("GET %s took %v, over the bound of %v", path, took, limit)
	}
	return took
}

func faultKey(t *testing.T, target string) string {
	t.Helper()
	k, err := cache.Key(target)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// faultStatus returns the status of the named peer in d.
func faultStatus(t *testing.T, d *Directory, name string) peerStatus {
	t.Helper()
	for _, s := range d.status() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no peer %q", name)
	return peerStatus{}
}

func faultPeer(t *testing.T, d *Directory, name string) *Peer {
	t.Helper()
	for _, p := range d.Peers() {
		if p.Name() == name {
			return p
		}
	}
	t.Fatalf("no peer %q", name)
	return nil
}

func faultCandidate(d *Directory, key, name string) bool {
	for _, p := range d.Candidates(key) {
		if p.Name() == name {
			return true
		}
	}
	return false
}

func faultMetric(t *testing.T, tn *testNode, sample string) int {
	t.Helper()
	s := tn.metric(t, sample)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("metric %s: %q", sample, s)
	}
	return int(v)
}

// TestFaultPeerKilled kills a peer while clients use another node: every
// request still succeeds within a bound (from the origin when the dead
// peer's digest claimed the object), the dead peer's view expires, and
// after that no request goes to it.
func TestFaultPeerKilled(t *testing.T) {
	origin := newTestOrigin(t)
	lnB := &faultListener{Listener: listen(t, "127.0.0.1:0")}
	lnA, lnC := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	b := startNode(t, lnB, nil, NodeConfig{Manual: true})
	c := startNode(t, lnC, nil, NodeConfig{Manual: true})
	const peerTimeout, expiry = time.Second, time.Second
	logs := &faultLog{}
	a := startFaultNode(t, lnA, NodeConfig{
		Peers:        []PeerConfig{{Name: "b", Proxy: b.url()}, {Name: "c", Proxy: c.url()}},
		PollInterval: 50 * time.Millisecond, PeerExpiry: expiry, PeerTimeout: peerTimeout,
	}, logs)

	bPath := func(i int) string { return fmt.Sprintf("/obj/b/%d", i) }
	cPath := func(i int) string { return fmt.Sprintf("/obj/c/%d", i) }
	for i := range 60 {
		b.get(t, origin.URL+bPath(i))
	}
	for i := range 20 {
		c.get(t, origin.URL+cPath(i))
	}
	b.Publisher().Publish()
	c.Publisher().Publish()
	// a's own polling loop picks both digests up.
	faultWait(t, 5*time.Second, "a's views of b and c", func() bool {
		sb, sc := faultStatus(t, a.Directory(), "b"), faultStatus(t, a.Directory(), "c")
		return sb.Sequence == b.Publisher().stats().Sequence && sc.Sequence == c.Publisher().stats().Sequence
	})
	for i := range 60 {
		if !faultCandidate(a.Directory(), faultKey(t, origin.URL+bPath(i)), "b") {
			t.Fatalf("b's digest does not claim %s", bPath(i))
		}
	}

	// Clients run through a; b dies after the first ten requests.
	client := faultClient(t, a)
	var paths []string
	for i := range 30 {
		paths = append(paths, bPath(i))
		if i < 10 {
			paths = append(paths, cPath(i), fmt.Sprintf("/obj/new/%d", i))
		}
	}
	ctx := faultCtx(t, 10*time.Second)
	var (
		next, done atomic.Int64
		mu         sync.Mutex
		failures   []string
		slowest    time.Duration
		wg         sync.WaitGroup
	)
	killed, killNow := make(chan struct{}), make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(paths) {
					return
				}
				if i == 10 {
					close(killNow)
				}
				if i >= 10 {
					select {
					case <-killed:
					case <-ctx.Done():
						return
					}
				}
				body, status, took, err := faultFetch(ctx, client, origin.URL+paths[i])
				mu.Lock()
				if err != nil || status != http.StatusOK || body != "object "+paths[i] {
					failures = append(failures, fmt.Sprintf("%s: status %d, body %q, err %v", paths[i], status, body, err))
				}
				slowest = max(slowest, took)
				mu.Unlock()
				done.Add(1)
			}
		}()
	}
	select {
	case <-killNow:
	case <-ctx.Done():
		t.Fatal("the clients did not start")
	}
	killedAt := time.Now()
	lnB.kill()
	close(killed)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d requests failed after b was killed:\n%s", len(failures), len(paths), strings.Join(failures, "\n"))
	}
	if done.Load() != int64(len(paths)) {
		t.Fatalf("%d of %d requests done", done.Load(), len(paths))
	}
	// A dead peer refuses connections at once; nothing should come near
	// the peer timeout.
	if slowest > peerTimeout {
		t.Errorf("slowest request took %v (peer timeout %v)", slowest, peerTimeout)
	}
	if time.Since(killedAt) < expiry {
		// Before the expiry, b was still a candidate unless a's own poll
		// found it dead first (the poll runs every 50 ms, and under load it
		// can come before the first request after the kill): either a asked
		// b, got an error and went to the origin, or it knew b unreachable
		// and did not ask.
		if n := faultMetric(t, a, `bloomcast_peer_requests_total{peer="b",result="error"}`); n == 0 {
			if s := faultStatus(t, a.Directory(), "b"); s.Failures == 0 {
				t.Error("no failed request to the dead peer was counted, and a's polls had not found it dead")
			} else {
				t.Logf("a's poll found b dead before any request asked it (%d failed polls)", s.Failures)
			}
		}
	} else {
		t.Logf("the requests after the kill took %v, past the expiry: not checking that b was asked", time.Since(killedAt))
	}
	for i := 10; i < 30; i++ {
		if n := origin.count(bPath(i)); n != 2 {
			t.Errorf("%s: origin asked %d times, want 2 (b, then a after b died)", bPath(i), n)
		}
	}

	// The view expires: b is no longer a candidate.
	faultWait(t, expiry+3*time.Second, "b's view to expire", func() bool {
		return !faultCandidate(a.Directory(), faultKey(t, origin.URL+bPath(45)), "b") &&
			!faultStatus(t, a.Directory(), "b").HasView
	})
	if n, _ := logs.count(slog.LevelWarn, "peer view expired", "b"); n != 1 {
		t.Errorf("%d warnings of b's view expiring, want 1", n)
	}
	if n, _ := logs.count(slog.LevelWarn, "peer digest fetch failed", "b"); n == 0 {
		t.Error("no warning of b's failed digest fetches")
	}
	if s := faultStatus(t, a.Directory(), "b"); s.Failures == 0 || s.LastError == "" {
		t.Errorf("b's status after its death: %+v", s)
	}

	// Something else takes b's address: it must see a's digest polls
	// only, never a request for an object.
	var proxied atomic.Int64
	var polls atomic.Int64
	if ln, err := net.Listen("tcp", lnB.Addr().String()); err != nil {
		t.Logf("b's address was taken, not checking it: %v", err)
	} else {
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.RequestURI, "://") {
				proxied.Add(1)
			} else if r.URL.Path == DigestPath {
				polls.Add(1)
			}
			http.Error(w, "not a bloomcast node", http.StatusServiceUnavailable)
		})}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
	}
	errorsBefore := faultMetric(t, a, `bloomcast_peer_requests_total{peer="b",result="error"}`)
	logBefore := len(a.log.String())
	for i := 30; i < 50; i++ {
		faultGet(t, client, origin, bPath(i), peerTimeout)
		if n := origin.count(bPath(i)); n != 2 {
			t.Errorf("%s: origin asked %d times, want 2", bPath(i), n)
		}
	}
	if n := faultMetric(t, a, `bloomcast_peer_requests_total{peer="b",result="error"}`); n != errorsBefore {
		t.Errorf("requests to b after its view expired: errors %d → %d", errorsBefore, n)
	}
	if n := proxied.Load(); n != 0 {
		t.Errorf("%d object requests reached b's address after its view expired", n)
	}
	if after := a.log.String()[logBefore:]; strings.Contains(after, "CD_SIBLING_HIT/b") {
		t.Errorf("a peer hit at b after its view expired:\n%s", after)
	}
	// The live peer still serves: c's objects come from c.
	hitsBefore := faultMetric(t, a, `bloomcast_peer_requests_total{peer="c",result="hit"}`)
	faultGet(t, client, origin, cPath(15), peerTimeout)
	if origin.count(cPath(15)) != 1 || faultMetric(t, a, `bloomcast_peer_requests_total{peer="c",result="hit"}`) != hitsBefore+1 {
		t.Errorf("c's object not fetched from c: origin asked %d times", origin.count(cPath(15)))
	}
	// a keeps polling b's address (so it would notice b coming back).
	if proxied.Load() == 0 {
		faultWait(t, 2*time.Second, "a to poll b's address", func() bool { return polls.Load() > 0 })
	}
	// The client's transport may hold a connection it dialled and never
	// used; the server counts it as active for its first 5 s
	// (http.Server.Shutdown), which would hold up a's stop.
	client.CloseIdleConnections()
	faultStop(t, a, 5*time.Second)
	faultStop(t, b, 5*time.Second)
}

// TestFaultPeerDownAskedOnce kills a peer whose digest claims the objects
// clients then ask for: the first request finds it down (a refused
// connection) and goes to the origin, and the node asks the peer nothing
// more until a digest poll reaches it again, long before its view would
// expire; once a poll does, the peer is asked again.
func TestFaultPeerDownAskedOnce(t *testing.T) {
	origin := newTestOrigin(t)
	lnB := &faultListener{Listener: listen(t, "127.0.0.1:0")}
	b := startNode(t, lnB, nil, NodeConfig{Manual: true})
	a := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Manual: true, PeerTimeout: time.Second,
		Peers: []PeerConfig{{Name: "b", Proxy: b.url()}}})
	ctx := faultCtx(t, 10*time.Second)
	path := func(i int) string { return fmt.Sprintf("/obj/down/%d", i) }
	for i := range 10 {
		b.get(t, origin.URL+path(i))
	}
	b.Publisher().Publish()
	if err := a.Directory().RefreshPeer(ctx, a.Directory().Peers()[0]); err != nil {
		t.Fatal(err)
	}
	lnB.kill()
	faultStop(t, b, 5*time.Second)
	client := faultClient(t, a)
	for i := range 10 {
		faultGet(t, client, origin, path(i), time.Second)
		if n := origin.count(path(i)); n != 2 {
			t.Errorf("%s: the origin served it %d times, want 2", path(i), n)
		}
	}
	if n := faultMetric(t, a, `bloomcast_peer_requests_total{peer="b",result="error"}`); n != 1 {
		t.Errorf("the down peer was asked %d times, want once", n)
	}
	if !faultStatus(t, a.Directory(), "b").HasView {
		t.Error("the down peer's view was dropped before its expiry")
	}
	// A failed poll keeps it out; a poll that reaches it brings it back.
	if err := a.Directory().RefreshPeer(ctx, a.Directory().Peers()[0]); err == nil {
		t.Fatal("a poll of the down peer succeeded")
	}
	b2 := startNode(t, listen(t, lnB.Addr().String()), nil, NodeConfig{Manual: true})
	b2.get(t, origin.URL+path(20))
	b2.Publisher().Publish()
	if faultCandidate(a.Directory(), faultKey(t, origin.URL+path(20)), "b") {
		t.Fatal("the peer is a candidate again before a poll reached it")
	}
	if err := a.Directory().RefreshPeer(ctx, a.Directory().Peers()[0]); err != nil {
		t.Fatal(err)
	}
	faultGet(t, client, origin, path(20), time.Second)
	if n := origin.count(path(20)); n != 1 {
		t.Errorf("after the peer came back, the origin served its object %d times, want 1 (a peer hit)", n)
	}
}

// TestFaultPeerRestarted restarts a peer with an empty cache: the node
// resynchronises with one full digest, then applies deltas again.
func TestFaultPeerRestarted(t *testing.T) {
	origin := newTestOrigin(t)
	lnA, lnB := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	b := startNode(t, lnB, nil, NodeConfig{Manual: true})
	a := startNode(t, lnA, nil, NodeConfig{Manual: true, PeerTimeout: time.Second,
		Peers: []PeerConfig{{Name: "b", Proxy: b.url()}}})
	ctx := faultCtx(t, 10*time.Second)
	refresh := func() {
		t.Helper()
		if err := a.Directory().RefreshPeer(ctx, a.Directory().Peers()[0]); err != nil {
			t.Fatal(err)
		}
	}
	path := func(gen, i int) string { return fmt.Sprintf("/obj/gen%d/%d", gen, i) }
	for i := range 10 {
		b.get(t, origin.URL+path(1, i))
	}
	b.Publisher().Publish()
	refresh()
	for i := 10; i < 15; i++ {
		b.get(t, origin.URL+path(1, i))
	}
	b.Publisher().Publish()
	refresh()
	before := a.Directory().status()[0]
	if before.Full != 1 || before.Delta != 1 || before.Sequence != b.Publisher().stats().Sequence {
		t.Fatalf("before the restart: %+v", before)
	}
	client := faultClient(t, a)
	faultGet(t, client, origin, path(1, 12), time.Second) // a peer hit, and a keep-alive connection to b

	// b restarts on its address with an empty memory cache: its
	// sequences start again.
	faultStop(t, b, 5*time.Second)
	b2 := startNode(t, listen(t, lnB.Addr().String()), nil, NodeConfig{Manual: true})
	for i := range 5 {
		b2.get(t, origin.URL+path(2, i))
	}
	b2.Publisher().Publish()
	if b2.Publisher().stats().Sequence >= before.Sequence {
		t.Fatalf("test setup: the restarted peer is at sequence %d, not below %d", b2.Publisher().stats().Sequence, before.Sequence)
	}
	refresh()
	st := a.Directory().status()[0]
	if st.Full != before.Full+1 || st.Delta != before.Delta || st.Sequence != b2.Publisher().stats().Sequence {
		t.Fatalf("after the restart, want one more full digest at b2's sequence %d: %+v", b2.Publisher().stats().Sequence, st)
	}
	if faultCandidate(a.Directory(), faultKey(t, origin.URL+path(1, 3)), "b") {
		t.Error("an object the restarted peer no longer holds is still claimed")
	}
	faultGet(t, client, origin, path(2, 3), time.Second)
	if origin.count(path(2, 3)) != 1 {
		t.Errorf("object of the restarted peer fetched from the origin (%d times)", origin.count(path(2, 3)))
	}

	// Deltas resume.
	for i := 5; i < 10; i++ {
		b2.get(t, origin.URL+path(2, i))
	}
	b2.Publisher().Publish()
	refresh()
	st2 := a.Directory().status()[0]
	if st2.Delta != st.Delta+1 || st2.Full != st.Full || st2.Sequence != b2.Publisher().stats().Sequence {
		t.Fatalf("the next publication did not arrive as a delta: %+v", st2)
	}
	faultGet(t, client, origin, path(2, 7), time.Second)
	if origin.count(path(2, 7)) != 1 {
		t.Errorf("object published in the delta fetched from the origin (%d times)", origin.count(path(2, 7)))
	}
}

// TestFaultDroppedDeltas covers the ways a node can fall out of step with
// a peer's publications: more of them missed than the peer keeps as
// delta bases (it sends the full digest), a delta from the wrong base (a
// delta lost on the way: sequence gap → resynchronise), and a delta whose
// base has the right sequence but another checksum (a peer that
// restarted and overtook the node's sequence).
func TestFaultDroppedDeltas(t *testing.T) {
	origin := newTestOrigin(t)
	ctx := faultCtx(t, 10*time.Second)

	t.Run("beyond history", func(t *testing.T) {
		lnA, lnB := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
		b := startNode(t, lnB, nil, NodeConfig{Manual: true})
		a := startNode(t, lnA, nil, NodeConfig{Manual: true, Peers: []PeerConfig{{Name: "b", Proxy: b.url()}}})
		peer := a.Directory().Peers()[0]
		for i := range 10 {
			b.get(t, fmt.Sprintf("%s/obj/h/%d", origin.URL, i))
		}
		b.Publisher().Publish()
		if err := a.Directory().RefreshPeer(ctx, peer); err != nil {
			t.Fatal(err)
		}
		// b publishes 20 times (its history keeps 16) while a does not
		// poll.
		for i := 10; i < 30; i++ {
			b.get(t, fmt.Sprintf("%s/obj/h/%d", origin.URL, i))
			b.Publisher().Publish()
		}
		if err := a.Directory().RefreshPeer(ctx, peer); err != nil {
			t.Fatal(err)
		}
		st := a.Directory().status()[0]
		if st.Full != 2 || st.Delta != 0 || st.Sequence != b.Publisher().stats().Sequence {
			t.Fatalf("after missing 20 publications, want a second full digest: %+v", st)
		}
		for i := range 30 {
			if !faultCandidate(a.Directory(), faultKey(t, fmt.Sprintf("%s/obj/h/%d", origin.URL, i)), "b") {
				t.Fatalf("object %d not claimed after the full digest", i)
			}
		}
		b.get(t, origin.URL+"/obj/h/30")
		b.Publisher().Publish()
		if err := a.Directory().RefreshPeer(ctx, peer); err != nil {
			t.Fatal(err)
		}
		if st := a.Directory().status()[0]; st.Delta != 1 || st.Full != 2 || st.Sequence != b.Publisher().stats().Sequence {
			t.Fatalf("deltas did not resume: %+v", st)
		}
	})

	// The other cases put a digest server that misbehaves on purpose in
	// front of publishers.
	start := func(t *testing.T, srv *digestServer) (*testNode, *Peer) {
		a := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Manual: true,
			Peers: []PeerConfig{{Name: "p", Proxy: srv.URL}}})
		return a, a.Directory().Peers()[0]
	}

	t.Run("sequence gap", func(t *testing.T) {
		pub := newTestPublisher(t, 1, 16)
		srv := newDigestServer(t, pub)
		a, peer := start(t, srv)
		pub.Stored(urlKey(1))
		pub.Publish()
		if err := a.Directory().RefreshPeer(ctx, peer); err != nil {
			t.Fatal(err)
		}
		held := a.Directory().status()[0].Sequence
		pub.Stored(urlKey(2))
		pub.Publish()
		pub.Stored(urlKey(3))
		pub.Publish()
		// The delta from the held sequence is lost: asked for it, the
		// server sends the one from the next.
		srv.mu.Lock()
		srv.fixed = func(w http.ResponseWriter, r *http.Request) {
			since, _ := strconv.ParseUint(r.URL.Query().Get("since"), 10, 64)
			if since == 0 {
				pub.serveHTTP(w, r)
				return
			}
			resp, err := pub.respond("", since+1)
			if err != nil || !resp.Delta {
				http.Error(w, "test server: no delta", http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", deltaContentType)
			w.Write(resp.Body)
		}
		srv.mu.Unlock()
		if err := a.Directory().RefreshPeer(ctx, peer); err != nil {
			t.Fatal(err)
		}
		st := a.Directory().status()[0]
		if st.Resync != 1 || st.Full != 2 || st.Delta != 0 || st.Sequence != pub.stats().Sequence || st.Sequence == held {
			t.Fatalf("a delta from the wrong base, want a resync with a full digest: %+v", st)
		}
		if !faultCandidate(a.Directory(), urlKey(3), "p") {
			t.Fatal("the full digest after the resync is not the view")
		}
	})

	t.Run("base checksum mismatch", func(t *testing.T) {
		pub := newTestPublisher(t, 1, 16)
		srv := newDigestServer(t, pub)
		a, peer := start(t, srv)
		for i := range 5 {
			pub.Stored(urlKey(i))
		}
		pub.Publish()
		if err := a.Directory().RefreshPeer(ctx, peer); err != nil {
			t.Fatal(err)
		}
		held := a.Directory().status()[0].Sequence
		// The peer restarts with other content and publishes past the
		// held sequence: it has a publication of that number, but not
		// the same one, so its delta's base checksum differs.
		pub2 := newTestPublisher(t, 1, 16)
		for i := 100; pub2.stats().Sequence < held+2; i++ {
			pub2.Stored(urlKey(i))
			pub2.Publish()
		}
		if r, _ := pub2.respond("", held); !r.Delta {
			t.Fatal("test setup: the restarted publisher has no delta from the held sequence")
		}
		srv.mu.Lock()
		srv.pub = pub2
		srv.mu.Unlock()
		if err := a.Directory().RefreshPeer(ctx, peer); err != nil {
			t.Fatal(err)
		}
		st := a.Directory().status()[0]
		if st.Resync != 1 || st.Full != 2 || st.Delta != 0 || st.Sequence != pub2.stats().Sequence {
			t.Fatalf("a delta for another base, want a resync with a full digest: %+v", st)
		}
		if faultCandidate(a.Directory(), urlKey(1), "p") || !faultCandidate(a.Directory(), urlKey(100), "p") {
			t.Fatal("the view is not the restarted peer's")
		}
	})
}

// TestFaultBadDigests has a peer serve corrupt, truncated, oversized and
// otherwise unusable digests: each is refused and logged, the node keeps
// its last good view of the peer and keeps serving clients, and a good
// digest is accepted again afterwards.
func TestFaultBadDigests(t *testing.T) {
	origin := newTestOrigin(t)
	b := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Manual: true})
	srv := newDigestServer(t, b.Publisher())
	logs := &faultLog{}
	const maxDigest = 64 << 10
	a := startFaultNode(t, listen(t, "127.0.0.1:0"), NodeConfig{Manual: true, MaxDigestBytes: maxDigest, PeerTimeout: time.Second,
		Peers: []PeerConfig{{Name: "b", Proxy: b.url(), DigestURL: srv.URL + DigestPath}}}, logs)
	ctx := faultCtx(t, 10*time.Second)
	peer := a.Directory().Peers()[0]
	obj := func(i int) string { return fmt.Sprintf("/obj/%d", i) }
	for i := range 20 {
		b.get(t, origin.URL+obj(i))
	}
	b.Publisher().Publish()
	if err := a.Directory().RefreshPeer(ctx, peer); err != nil {
		t.Fatal(err)
	}
	good := a.Directory().status()[0]
	full, _ := b.Publisher().respond("", 0)
	// b publishes once more, so that a delta is due.
	b.get(t, origin.URL+obj(20))
	b.Publisher().Publish()
	delta, _ := b.Publisher().respond("", good.Sequence)
	if !delta.Delta {
		t.Fatal("test setup: no delta")
	}
	bigFilter, err := bloom.New(bloom.Config{M: 1 << 22, K: 4})
	if err != nil {
		t.Fatal(err)
	}
	bomb, err := digest.Encode(&digest.Digest{Sequence: good.Sequence + 5, Bloom: bigFilter}, digest.Fast)
	if err != nil {
		t.Fatal(err)
	}
	if len(bomb) >= maxDigest {
		t.Fatalf("test setup: the compressed empty digest is %d bytes", len(bomb))
	}
	flip := func(b []byte) []byte {
		b = append([]byte(nil), b...)
		b[len(b)/2] ^= 0x10
		return b
	}
	write := func(body []byte) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) { w.Write(body) }
	}
	bad := []struct {
		name    string
		serve   func(w http.ResponseWriter, r *http.Request)
		refused bool // counted as refused (a response that was read and rejected)
		// resync: a delta that does not decode is answered by fetching
		// the full digest, which this peer answers as badly.
		resync bool
	}{
		{"corrupt full", write(flip(full.Body)), true, false},
		{"truncated full", write(full.Body[:len(full.Body)-9]), true, false},
		{"corrupt delta", write(flip(delta.Body)), true, true},
		{"truncated delta", write(delta.Body[:len(delta.Body)/2]), true, true},
		{"oversized announced", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(4*maxDigest))
			w.WriteHeader(http.StatusOK)
			w.Write(make([]byte, 1024)) // then the connection closes
		}, true, false},
		{"oversized streamed", func(w http.ResponseWriter, r *http.Request) {
			w.(http.Flusher).Flush()
			w.Write(make([]byte, maxDigest+1))
		}, true, false},
		{"decodes too large", write(bomb), true, false},
		{"not a digest", write([]byte("<html>maintenance</html>")), true, false},
		{"server error", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}, false, false},
	}
	client := faultClient(t, a)
	served := 0
	for i, c := range bad {
		before := a.Directory().status()[0]
		warned, _ := logs.count(slog.LevelWarn, "peer digest fetch failed", "b")
		srv.mu.Lock()
		srv.fixed = c.serve
		srv.mu.Unlock()
		if err := a.Directory().RefreshPeer(ctx, peer); err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		st := a.Directory().status()[0]
		if !st.HasView || st.Sequence != good.Sequence || st.Full != good.Full || st.Delta != good.Delta {
			t.Errorf("%s: the last good view was lost or changed: %+v", c.name, st)
		}
		fetches := uint64(1)
		if c.resync {
			fetches = 2
		}
		if c.refused && st.Refused != before.Refused+fetches || st.Resync != before.Resync+fetches-1 {
			t.Errorf("%s: refused %d → %d, resync %d → %d", c.name, before.Refused, st.Refused, before.Resync, st.Resync)
		}
		if st.LastError == "" || st.Failures != before.Failures+1 {
			t.Errorf("%s: status %+v", c.name, st)
		}
		if n, msg := logs.count(slog.LevelWarn, "peer digest fetch failed", "b"); n != warned+1 {
			t.Errorf("%s: %d warnings logged, want 1", c.name, n-warned)
		} else {
			t.Logf("%s: logged %q", c.name, msg)
		}
		if !faultCandidate(a.Directory(), faultKey(t, origin.URL+obj(i)), "b") {
			t.Errorf("%s: b is no longer a candidate for an object it holds", c.name)
		}
		// The node keeps serving: an object in b's last good digest comes
		// from b, a new one from the origin.
		faultGet(t, client, origin, obj(i), 2*time.Second)
		if origin.count(obj(i)) != 1 {
			t.Errorf("%s: %s fetched from the origin, not from b", c.name, obj(i))
		}
		served++
		faultGet(t, client, origin, fmt.Sprintf("/obj/new/%d", i), 2*time.Second)
	}
	if got := faultMetric(t, a, `bloomcast_requests_total{outcome="peer_hit"}`); got != served {
		t.Errorf("peer hits %d, want %d", got, served)
	}
	// The peer mends: the delta from the last good view applies.
	srv.mu.Lock()
	srv.fixed = nil
	srv.mu.Unlock()
	if err := a.Directory().RefreshPeer(ctx, peer); err != nil {
		t.Fatal(err)
	}
	if st := a.Directory().status()[0]; st.Delta != good.Delta+1 || st.Sequence != b.Publisher().stats().Sequence || st.Failures != 0 {
		t.Fatalf("after the peer mended: %+v", st)
	}
}

// faultSlowPeer is a fake peer whose digest claims every object (a publisher
// holding keys the test chooses) but whose proxy answers only after a
// delay; its digest endpoint can be made to stall too.
type faultSlowPeer struct {
	pub        *Publisher
	delay      time.Duration
	stallDig   atomic.Bool
	release    chan struct{}
	digestSeen chan struct{}
	seenOnce   sync.Once
	asked      atomic.Int64
	url        string
}

func newFaultSlowPeer(t *testing.T, delay time.Duration) *faultSlowPeer {
	s := &faultSlowPeer{pub: newTestPublisher(t, 1, 16), delay: delay, release: make(chan struct{}), digestSeen: make(chan struct{})}
	srv := &http.Server{Handler: s}
	ln := listen(t, "127.0.0.1:0")
	go srv.Serve(ln)
	s.url = "http://" + ln.Addr().String()
	t.Cleanup(func() {
		s.unstall()
		srv.Close()
	})
	return s
}

func (s *faultSlowPeer) unstall() {
	select {
	case <-s.release:
	default:
		close(s.release)
	}
}

func (s *faultSlowPeer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.Contains(r.RequestURI, "://") {
		if s.stallDig.Load() {
			s.seenOnce.Do(func() { close(s.digestSeen) })
			select {
			case <-s.release:
			case <-r.Context().Done():
				return
			}
		}
		s.pub.serveHTTP(w, r)
		return
	}
	s.asked.Add(1)
	select {
	case <-time.After(s.delay):
	case <-r.Context().Done():
		return
	}
	http.Error(w, "slow peer: not cached", http.StatusGatewayTimeout)
}

// TestFaultSlowPeer has a peer answer object requests after longer than
// the node's PeerTimeout: the node gives up on it within about the
// timeout and goes on to the next candidate or the origin. A peer whose
// digest endpoint stalls delays no client request.
func TestFaultSlowPeer(t *testing.T) {
	origin := newTestOrigin(t)
	const peerTimeout = 300 * time.Millisecond
	slow := newFaultSlowPeer(t, 3*time.Second)
	b := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Manual: true})
	a := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Manual: true, PeerTimeout: peerTimeout,
		Peers: []PeerConfig{{Name: "slow", Proxy: slow.url}, {Name: "b", Proxy: b.url()}}})
	obj := func(i int) string { return fmt.Sprintf("/obj/%d", i) }
	for i := range 40 {
		slow.pub.Stored(faultKey(t, origin.URL+obj(i)))
	}
	slow.pub.Publish()
	for i := range 10 {
		b.get(t, origin.URL+obj(i))
	}
	b.Publisher().Publish()
	ctx := faultCtx(t, 10*time.Second)
	a.Directory().Refresh(ctx)
	for _, s := range a.Directory().status() {
		if !s.HasView {
			t.Fatalf("no view of %s: %+v", s.Name, s)
		}
	}
	client := faultClient(t, a)
	// Bound: the peer timeout plus slack for a loaded machine under -race,
	// well short of the slow peer's 3 s.
	const bound = peerTimeout + 1200*time.Millisecond

	// Claimed by both, held by b: slow times out, b serves it.
	took := faultGet(t, client, origin, obj(3), bound)
	if took < peerTimeout {
		t.Errorf("answered in %v: the slow peer was not asked first", took)
	}
	if origin.count(obj(3)) != 1 || !strings.Contains(a.log.String(), "CD_SIBLING_HIT/b") {
		t.Errorf("not served by b after the slow peer timed out (origin asked %d times):\n%s", origin.count(obj(3)), a.log)
	}
	// Claimed by slow only: slow times out, then the origin.
	faultGet(t, client, origin, obj(25), bound)
	if origin.count(obj(25)) != 1 {
		t.Errorf("origin asked %d times for an object only the slow peer claimed", origin.count(obj(25)))
	}
	if n := faultMetric(t, a, `bloomcast_peer_requests_total{peer="slow",result="error"}`); n != 2 || slow.asked.Load() != 2 {
		t.Errorf("slow peer: %d errors counted, asked %d times; want 2", n, slow.asked.Load())
	}

	// The slow peer's digest endpoint stalls while a refreshes; clients
	// are not held up by it.
	slow.stallDig.Store(true)
	refreshed := make(chan error, 1)
	go func() { refreshed <- a.Directory().RefreshPeer(ctx, faultPeer(t, a.Directory(), "slow")) }()
	select {
	case <-slow.digestSeen:
	case <-ctx.Done():
		t.Fatal("the digest request never reached the slow peer")
	}
	for i := 100; i < 105; i++ {
		faultGet(t, client, origin, obj(i), time.Second) // claimed by neither: straight to the origin
	}
	faultGet(t, client, origin, obj(7), bound) // slow, then b
	if origin.count(obj(7)) != 1 {
		t.Errorf("object held by b fetched from the origin during the stalled refresh")
	}
	select {
	case err := <-refreshed:
		t.Fatalf("the stalled refresh returned early: %v", err)
	default:
	}
	slow.unstall()
	select {
	case err := <-refreshed:
		if err != nil {
			t.Errorf("refresh after the stall: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the refresh did not finish after the stall ended")
	}
}

// TestFaultSlowDigestKeepsOthers runs the node's own polling loop with a
// peer whose digest endpoint stalls for longer than the expiry: the
// other peer, which answers every poll, must keep its view.
func TestFaultSlowDigestKeepsOthers(t *testing.T) {
	origin := newTestOrigin(t)
	slow := newFaultSlowPeer(t, 3*time.Second)
	b := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Manual: true})
	b.get(t, origin.URL+"/obj/1")
	b.Publisher().Publish()
	const expiry = 500 * time.Millisecond
	slow.stallDig.Store(true)
	logs := &faultLog{}
	a := startFaultNode(t, listen(t, "127.0.0.1:0"), NodeConfig{PollInterval: 50 * time.Millisecond, PeerExpiry: expiry,
		PeerTimeout: 300 * time.Millisecond,
		Peers:       []PeerConfig{{Name: "slow", Proxy: slow.url}, {Name: "b", Proxy: b.url()}}}, logs)
	key := faultKey(t, origin.URL+"/obj/1")
	faultWait(t, 3*time.Second, "a's view of b", func() bool { return faultCandidate(a.Directory(), key, "b") })
	select {
	case <-slow.digestSeen:
	case <-time.After(3 * time.Second):
		t.Fatal("the slow peer's digest was never asked for")
	}
	end := time.Now().Add(3 * expiry)
	for time.Now().Before(end) {
		if !faultCandidate(a.Directory(), key, "b") {
			t.Fatalf("b's view was dropped while only the other peer's digest stalled: %+v", faultStatus(t, a.Directory(), "b"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n, _ := logs.count(slog.LevelWarn, "peer view expired", "b"); n != 0 {
		t.Errorf("b's view expired %d times", n)
	}
	slow.unstall()
	faultStop(t, a, 5*time.Second)
}
