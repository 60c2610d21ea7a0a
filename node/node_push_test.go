package node

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
)

// memTransport records the messages a node publishes; Start and Close do
// nothing, and it is connected unless down is set.
type memTransport struct {
	mu      sync.Mutex
	sent    []DigestMessage
	down    atomic.Bool   // Connected reports false
	dropped atomic.Uint64 // what Dropped reports
}

func (m *memTransport) Name() string { return "mem" }
func (m *memTransport) Start(context.Context, string, func(DigestMessage)) error {
	return nil
}
func (m *memTransport) Publish(_ context.Context, d DigestMessage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, d)
	return nil
}
func (m *memTransport) Connected() bool { return !m.down.Load() }
func (m *memTransport) Close() error    { return nil }
func (m *memTransport) Dropped() uint64 { return m.dropped.Load() }

func (m *memTransport) messages() []DigestMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.sent)
}

// TestPushIntervalCoalesces: with a PushInterval, k publications made
// within one interval after a push are held and then pushed as one
// delta, which brings a peer's view from the last pushed publication to
// the newest.
func TestPushIntervalCoalesces(t *testing.T) {
	const interval, k = 30 * time.Second, 5
	var mu sync.Mutex
	now := time.Unix(1e9, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	tr := &memTransport{}
	cfg := NodeConfig{Name: "a", Manual: true, Transport: tr, PushInterval: interval, Now: clock,
		Logger: slog.New(slog.DiscardHandler)}
	testNodeDefaults(&cfg)
	n, err := NewNode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	peer, err := newDirectory(directoryConfig{Peers: []PeerConfig{{Name: "a", Proxy: "http://127.0.0.1:1"}},
		PollInterval: time.Hour, Logger: slog.New(slog.DiscardHandler), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pub := n.Publisher()
	var keys []string
	for i := range 300 { // a full digest larger than the delta to come
		keys = append(keys, "http://example.com/old/"+strconv.Itoa(i))
		pub.Stored(keys[i])
	}
	if err := pub.Publish(); err != nil {
		t.Fatal(err)
	}
	if pushed, due, err := n.pushIfDue(ctx); !pushed || !due.IsZero() || err != nil {
		t.Fatalf("first publication: pushed %v, due %v, %v (want pushed at once)", pushed, due, err)
	}
	for i := range k {
		key := "http://example.com/" + strconv.Itoa(i)
		keys = append(keys, key)
		pub.Stored(key)
		if err := pub.Publish(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		now = now.Add(interval / (2 * k))
		mu.Unlock()
		pushed, due, err := n.pushIfDue(ctx)
		if pushed || err != nil || !due.Equal(time.Unix(1e9, 0).Add(interval)) {
			t.Fatalf("publication %d within the interval: pushed %v, due %v, %v (want held until %v)", i, pushed, due, err, time.Unix(1e9, 0).Add(interval))
		}
	}
	mu.Lock()
	now = time.Unix(1e9, 0).Add(interval)
	mu.Unlock()
	if pushed, due, err := n.pushIfDue(ctx); !pushed || !due.IsZero() || err != nil {
		t.Fatalf("at the interval's end: pushed %v, due %v, %v", pushed, due, err)
	}
	if pushed, due, err := n.pushIfDue(ctx); pushed || !due.IsZero() || err != nil {
		t.Fatalf("nothing new: pushed %v, due %v, %v", pushed, due, err)
	}
	msgs := tr.messages()
	newest := pub.stats().Sequence
	if len(msgs) != 2 || msgs[0].Delta || !msgs[1].Delta || msgs[1].Sequence != newest || msgs[1].Sequence-msgs[0].Sequence != k {
		t.Fatalf("%d messages %+v (want a full digest, then one delta to sequence %d covering %d publications)", len(msgs), msgs, newest, k)
	}
	for _, m := range msgs {
		if err := peer.receive(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if st := peer.status(); len(st) != 1 || !st[0].HasView || st[0].Sequence != newest {
		t.Fatalf("peer's view: %+v (want sequence %d)", st, newest)
	}
	for _, key := range keys {
		if len(peer.Candidates(key)) != 1 {
			t.Fatalf("peer's view lacks %s", key)
		}
	}
	if s := n.stats(); s.TransportSent != 2 {
		t.Fatalf("TransportSent %d, want 2", s.TransportSent)
	}
}

// TestPushIntervalTimerAndFlush: a serving node pushes a held
// publication when its interval ends, without another publication to
// wake it, and pushes one still held when it stops.
func TestPushIntervalTimerAndFlush(t *testing.T) {
	for _, stop := range []bool{false, true} {
		tr := &memTransport{}
		interval := 150 * time.Millisecond
		if stop {
			interval = time.Hour
		}
		tn := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Name: "a", Transport: tr, PushInterval: interval})
		pub := tn.Publisher()
		waitMessages := func(want int) []DigestMessage {
			t.Helper()
			deadline := time.Now().Add(5 * time.Second)
			for {
				if msgs := tr.messages(); len(msgs) >= want || time.Now().After(deadline) {
					return msgs
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		waitMessages(1)
		pub.Stored("http://example.com/x")
		if err := pub.Publish(); err != nil {
			t.Fatal(err)
		}
		tn.kickPush() // as the publication loop does
		newest := pub.stats().Sequence
		if stop {
			tn.stop()
		}
		msgs := waitMessages(2)
		if len(msgs) != 2 || msgs[1].Sequence != newest {
			t.Fatalf("stop %v: %d messages %+v (want the held publication %d pushed)", stop, len(msgs), msgs, newest)
		}
	}
}

func TestPushIntervalChecked(t *testing.T) {
	for _, iv := range []time.Duration{-time.Second, time.Microsecond} {
		cfg := NodeConfig{Name: "a", PushInterval: iv, Logger: slog.New(slog.DiscardHandler)}
		testNodeDefaults(&cfg)
		if _, err := NewNode(cfg); !errors.Is(err, cache.ErrConfig) {
			t.Errorf("PushInterval %v: %v (want ErrConfig)", iv, err)
		}
	}
}

// TestTransportConnectedMetric: /metrics says whether the digest
// transport is connected and how many messages it dropped, labelled with
// its name; a node without one has no such series.
func TestTransportConnectedMetric(t *testing.T) {
	tr := &memTransport{}
	n := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Name: "a", Transport: tr})
	const series = `bloomcast_digest_transport_connected{transport="mem"}`
	for _, down := range []bool{false, true, false} {
		tr.down.Store(down)
		_, text := getBody(t, n.url()+"/metrics")
		if v, want := metricValue(t, text, series), map[bool]float64{false: 1, true: 0}[down]; v != want {
			t.Errorf("down %v: %s = %v, want %v", down, series, v, want)
		}
	}
	tr.dropped.Store(3)
	_, text := getBody(t, n.url()+"/metrics")
	if v := metricValue(t, text, `bloomcast_digest_transport_dropped_total{transport="mem"}`); v != 3 {
		t.Errorf("bloomcast_digest_transport_dropped_total = %v, want 3", v)
	}
	plain := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Name: "b"})
	if _, text := getBody(t, plain.url()+"/metrics"); strings.Contains(text, "bloomcast_digest_transport_") {
		t.Error("a node without a transport exports bloomcast_digest_transport_ series")
	}
}
