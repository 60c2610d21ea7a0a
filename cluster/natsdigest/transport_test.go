package natsdigest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/bloomcast/bloomcast/cluster/internal/natstest"
	"github.com/bloomcast/bloomcast/cluster/natsdigest"
	"github.com/bloomcast/bloomcast/node"
)

// node is a cache node serving on loopback with a NATS transport.
type testNode struct {
	*node.Node
	name string
	addr string
	tr   *natsdigest.Transport
}

// startNodes starts nodes named names, each listing all the others as
// peers, with transports to url; manual nodes publish and push only when
// the test says.
func startNodes(t *testing.T, url string, manual bool, poll time.Duration, names ...string) map[string]*testNode {
	t.Helper()
	return startNodesSized(t, url, 1000, manual, poll, names...)
}

// startNodesSized is startNodes with summaries sized for capacity
// objects.
func startNodesSized(t *testing.T, url string, capacity uint64, manual bool, poll time.Duration, names ...string) map[string]*testNode {
	t.Helper()
	lns := map[string]net.Listener{}
	for _, n := range names {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[n] = ln
	}
	out := map[string]*testNode{}
	for _, n := range names {
		var peers []node.PeerConfig
		for _, p := range names {
			if p != n {
				peers = append(peers, node.PeerConfig{Name: p, Proxy: "http://" + lns[p].Addr().String()})
			}
		}
		out[n] = startNodeSized(t, lns[n], url, capacity, manual, poll, n, peers)
	}
	return out
}

func startNode(t *testing.T, ln net.Listener, url string, manual bool, poll time.Duration, name string, peers []node.PeerConfig) *testNode {
	t.Helper()
	return startNodeSized(t, ln, url, 1000, manual, poll, name, peers)
}

func startNodeSized(t *testing.T, ln net.Listener, url string, capacity uint64, manual bool, poll time.Duration, name string, peers []node.PeerConfig) *testNode {
	t.Helper()
	return startNodeLogged(t, ln, url, capacity, manual, poll, name, peers, slog.New(slog.DiscardHandler))
}

// startNodeLogged is startNodeSized with the node logging to log.
func startNodeLogged(t *testing.T, ln net.Listener, url string, capacity uint64, manual bool, poll time.Duration, name string, peers []node.PeerConfig, log *slog.Logger) *testNode {
	t.Helper()
	tr, err := natsdigest.New(natsdigest.Config{URL: url, Logger: failureLog(t, name)})
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.NewNode(node.NodeConfig{Name: name, Capacity: capacity, Peers: peers, Manual: manual,
		PollInterval: poll, Transport: tr, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Serve(ctx, ln, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("node %s: %v", name, err)
		}
	})
	for n.Addr() == "" {
		time.Sleep(time.Millisecond)
	}
	return &testNode{Node: n, name: name, addr: ln.Addr().String(), tr: tr}
}

// waitConnected waits until every node's transport is connected: a node
// starts its transport when it starts serving, and a push before the
// stream is set up fails. On a loaded machine a first connection can time
// out and be retried a second later, hence the generous bound.
func waitConnected(t *testing.T, nodes map[string]*testNode) {
	t.Helper()
	for name, n := range nodes {
		natstest.WaitConnected(t, name, n.tr)
	}
}

// store adds keys to n's digest as its store would, publishes and
// pushes.
func (n *testNode) store(t *testing.T, keys ...string) {
	t.Helper()
	for _, k := range keys {
		n.Publisher().Stored(k)
	}
	if err := n.Publisher().Publish(); err != nil {
		t.Fatal(err)
	}
	if err := n.PushDigest(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// waitViews waits until every node's view of every other is at that
// node's published sequence, or fails after a minute naming who lags.
func waitViews(t *testing.T, nodes map[string]*testNode) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		lag := lagging(nodes)
		if lag == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute: %s", lag)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lagging names a node's view that is not at its peer's sequence, or "".
func lagging(nodes map[string]*testNode) string {
	for name, n := range nodes {
		for _, peer := range n.Directory().Peers() {
			p := nodes[peer.Name()]
			if p == nil {
				continue
			}
			seq, has, err := sample(n.Node, "bloomcast_peer_view_sequence", "peer", peer.Name())
			if err != nil {
				return err.Error()
			}
			want, _, err := sample(p.Node, "bloomcast_digest_sequence")
			if err != nil {
				return err.Error()
			}
			if !has || seq != want {
				return fmt.Sprintf("%s's view of %s: has view %t, sequence %v, want %v", name, peer.Name(), has, seq, want)
			}
		}
	}
	return ""
}

func TestPushedViews(t *testing.T) {
	srv := natstest.New(t)
	nodes := startNodes(t, srv.URL, true, time.Hour, "a", "b", "c")
	waitConnected(t, nodes)
	a, b, c := nodes["a"], nodes["b"], nodes["c"]
	a.store(t) // the empty first digest, full
	b.store(t)
	c.store(t)
	waitViews(t, nodes)
	for i := range 5 {
		a.store(t, fmt.Sprintf("http://origin/a/%d", i))
		waitViews(t, nodes)
	}
	for _, key := range []string{"http://origin/a/0", "http://origin/a/4"} {
		for _, x := range []*testNode{b, c} {
			if got := x.Directory().Candidates(key); len(got) != 1 || got[0].Name() != "a" {
				t.Fatalf("%s: candidates for %s: %v", x.name, key, got)
			}
		}
	}
	if v := peerView(t, b.Node, "a"); v.pushed != 6 || v.polled() != 0 {
		t.Fatalf("b's view of a: %+v (want 6 pushed, none polled)", v)
	}
	// b received a's 6 publications and c's first, each once: as deltas
	// or, while a's digest is nearly empty and a full digest is smaller
	// than the deltas since the last one, as full digests.
	full, delta := metric(t, b.Node, "bloomcast_digests_pushed_total", "kind", "full"), metric(t, b.Node, "bloomcast_digests_pushed_total", "kind", "delta")
	if full+delta != 7 || full < 2 {
		t.Fatalf("b's pushed full %v, delta %v (want 7 in all, 2 full at least)", full, delta)
	}
	sent := metric(t, a.Node, "bloomcast_digest_messages_total", "transport", "nats", "direction", "out")
	served := metric(t, a.Node, "bloomcast_digest_out_bytes_total", "kind", "full") + metric(t, a.Node, "bloomcast_digest_out_bytes_total", "kind", "delta")
	if sent != 6 || served != 0 {
		t.Fatalf("a sent %v messages, served %v bytes of digests over HTTP (want 6 and 0)", sent, served)
	}
	metrics := get(t, "http://"+b.addr+"/metrics")
	for _, want := range []string{`bloomcast_digest_messages_total{direction="in",transport="nats"} 7`, `bloomcast_digest_messages_total{direction="out",transport="nats"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Fatalf("b's /metrics lacks %s:\n%s", want, grep(metrics, "bloomcast_digest_message"))
		}
	}

	// A node that starts late reads every peer's current digest from
	// the stream: a's full digest and its deltas, b's and c's.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var peers []node.PeerConfig
	for _, x := range []*testNode{a, b, c} {
		peers = append(peers, node.PeerConfig{Name: x.name, Proxy: "http://" + x.addr})
	}
	d := startNode(t, ln, srv.URL, true, time.Hour, "d", peers)
	waitViews(t, map[string]*testNode{"a": a, "b": b, "c": c, "d": d})
	if got := d.Directory().Candidates("http://origin/a/3"); len(got) != 1 || got[0].Name() != "a" {
		t.Fatalf("late node's candidates: %v", got)
	}
	polled, pushed := polledDigests(t, d.Node), metric(t, d.Node, "bloomcast_digests_pushed_total", "kind", "full")
	if polled != 0 || pushed != 3 {
		t.Fatalf("late node: %v digests polled, %v full digests pushed (want 0 and 3: each peer's last)", polled, pushed)
	}
}

// TestFullReplacesDeltas: once the deltas since the last full digest
// would outweigh one, the node pushes the full digest, and the stream
// keeps only it and what follows.
func TestFullReplacesDeltas(t *testing.T) {
	srv := natstest.New(t)
	nodes := startNodes(t, srv.URL, true, time.Hour, "a", "b")
	waitConnected(t, nodes)
	a := nodes["a"]
	a.store(t)
	nodes["b"].store(t)
	full := metric(t, a.Node, "bloomcast_digest_bytes")
	i := 0
	for metric(t, a.Node, "bloomcast_digest_message_bytes_total", "transport", "nats", "direction", "out") < 3*full {
		keys := make([]string, 20)
		for j := range keys {
			keys[j] = fmt.Sprintf("http://origin/%d", i)
			i++
		}
		a.store(t, keys...)
	}
	waitViews(t, nodes)
	js := jetStream(t, srv.URL)
	stream, err := js.Stream(context.Background(), natsdigest.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(context.Background(), jetstream.WithSubjectFilter(a.tr.Subject("a")))
	if err != nil {
		t.Fatal(err)
	}
	held := info.State.Subjects[a.tr.Subject("a")]
	sent := metric(t, a.Node, "bloomcast_digest_messages_total", "transport", "nats", "direction", "out")
	if held == 0 || float64(held) >= sent {
		t.Fatalf("stream holds %d of a's %v messages: no full digest replaced the older ones", held, sent)
	}
	first, err := stream.GetLastMsgForSubject(context.Background(), a.tr.Subject("a"))
	if err != nil {
		t.Fatal(err)
	}
	if first.Header.Get(natsdigest.SequenceHeader) == "" {
		t.Fatal("no sequence header")
	}
	// A node joining now gets a full digest and fewer deltas than a sent.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := startNode(t, ln, srv.URL, true, time.Hour, "c", []node.PeerConfig{{Name: "a", Proxy: "http://" + a.addr}})
	waitViews(t, map[string]*testNode{"a": a, "c": c})
	full, delta := metric(t, c.Node, "bloomcast_digests_pushed_total", "kind", "full"), metric(t, c.Node, "bloomcast_digests_pushed_total", "kind", "delta")
	if full != 1 || delta+1 != float64(held) {
		t.Fatalf("late node got %v full and %v deltas; the stream held %d", full, delta, held)
	}
}

// TestUnreachableFallsBackToPolling: with no server at the URL the
// transport is not connected, and nodes poll each other over HTTP.
func TestUnreachableFallsBackToPolling(t *testing.T) {
	natstest.Require(t)
	url, err := natstest.FreeURL()
	if err != nil {
		t.Fatal(err)
	}
	nodes := startNodes(t, url, false, 20*time.Millisecond, "a", "b")
	a, b := nodes["a"], nodes["b"]
	if a.tr.Connected() {
		t.Fatal("connected to nothing")
	}
	a.Publisher().Stored("http://origin/x")
	if err := a.Publisher().Publish(); err != nil {
		t.Fatal(err)
	}
	waitViews(t, nodes)
	if v := peerView(t, b.Node, "a"); v.pushed != 0 || v.full == 0 {
		t.Fatalf("b's view of a: %+v (want polled, not pushed)", v)
	}
	if err := a.PushDigest(context.Background()); err == nil {
		t.Fatal("push with no server succeeded")
	}
}

func TestConfig(t *testing.T) {
	for _, cfg := range []natsdigest.Config{
		{}, {URL: "http://127.0.0.1:4222"}, {URL: "nats://127.0.0.1:4222", Subject: "a.*"},
		{URL: "nats://127.0.0.1:4222", Stream: "a.b"}, {URL: "nats://127.0.0.1:4222", Subject: "x", AliveSubject: "x"},
		{URL: "nats://127.0.0.1:4222", Replicas: 7}, {URL: "nats://127.0.0.1:4222", MaxDigestBytes: -1},
	} {
		if _, err := natsdigest.New(cfg); !errors.Is(err, natsdigest.ErrConfig) {
			t.Errorf("New(%+v): %v, want ErrConfig", cfg, err)
		}
	}
	var zero natsdigest.Transport
	if err := zero.Start(context.Background(), "a", func(node.DigestMessage) {}); !errors.Is(err, natsdigest.ErrConfig) {
		t.Errorf("zero Transport's Start: %v", err)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestResyncOverHTTP: a delta whose base is not the receiver's view (here
// one from another publisher under a's name, as from a restarted a) makes
// the receiver fetch a's full digest over HTTP.
func TestResyncOverHTTP(t *testing.T) {
	srv := natstest.New(t)
	nodes := startNodes(t, srv.URL, true, time.Hour, "a", "b")
	waitConnected(t, nodes)
	a, b := nodes["a"], nodes["b"]
	a.store(t, "http://origin/1")
	b.store(t)
	waitViews(t, nodes)

	// A node of its own, never started: its publisher's history is not a's.
	restarted, err := node.NewNode(node.NodeConfig{Name: "a", Capacity: 1000, Manual: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	other := restarted.Publisher()
	first := uint64(metric(t, restarted, "bloomcast_digest_sequence"))
	other.Stored("http://origin/elsewhere")
	if err := other.Publish(); err != nil {
		t.Fatal(err)
	}
	seq, frame := deltaSince(t, restarted, first)
	tr, err := natsdigest.New(natsdigest.Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(context.Background(), "intruder", func(node.DigestMessage) {}); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Publish(context.Background(), node.DigestMessage{Node: "a", Sequence: seq, Delta: true, Frame: frame}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		v := peerView(t, b.Node, "a")
		if v.resync == 1 && v.full == 1 && float64(v.sequence) == metric(t, a.Node, "bloomcast_digest_sequence") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("b's view of a a minute after a delta of another base: %+v", v)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := b.Directory().Candidates("http://origin/1"); len(got) != 1 {
		t.Fatalf("after the resync b's candidates for a's key: %v", got)
	}
}

// jetStream connects a client of its own to the server at url, for
// reading the stream as the transports leave it; the test closes it.
func jetStream(t *testing.T, url string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// failureLog returns a logger whose lines the test prints if it fails
// (a transport that never connects says why there), and drops
// otherwise; lines logged after the test are dropped too.
func failureLog(t *testing.T, name string) *slog.Logger {
	var mu sync.Mutex
	var buf bytes.Buffer
	done := false
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if t.Failed() && buf.Len() > 0 {
			t.Logf("%s's transport logged:\n%s", name, buf.String())
		}
		done = true
	})
	return slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			buf.Write(p)
		}
		return len(p), nil
	}), nil))
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// deltaSince asks n's digest endpoint, as a peer on loopback would, for
// the delta since its publication since, and returns the sequence it
// answers and the frame.
func deltaSince(t *testing.T, n *node.Node, since uint64) (uint64, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, node.DigestPath+"?since="+strconv.FormatUint(since, 10), nil)
	req.RemoteAddr = "127.0.0.1:1"
	rec := httptest.NewRecorder()
	n.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/x-bloomcast-delta" {
		t.Fatalf("delta since %d: %d %s %q", since, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes())
	}
	seq, err := strconv.ParseUint(rec.Header().Get("X-Bloomcast-Sequence"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return seq, rec.Body.Bytes()
}
