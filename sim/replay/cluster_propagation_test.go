package replay_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/node"
	"github.com/bloomcast/bloomcast/sim/replay"
)

// TestReplayClusterPolling: with a poll interval, every node polls every
// peer once per interval of trace time, so the digest messages are two
// per poll, and a publication reaches its last peer within one interval.
func TestReplayClusterPolling(t *testing.T) {
	const nodes, interval = 3, 5 * time.Second
	tr, err := replay.SyntheticTrace(replay.SyntheticConfig{Proxies: nodes, Requests: 3000, Objects: 400, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	mode, _ := replay.ParseMode("sc-1%-16b-comp-delta")
	res, err := replay.ReplayCluster(replay.ClusterConfig{Trace: tr, Modes: []replay.Mode{mode}, PollInterval: interval})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	// Polls at phases in [0, interval) plus whole intervals, up to the
	// last request's time.
	rounds := int(r.TraceSeconds/interval.Seconds()) + 1
	pairs := nodes * (nodes - 1)
	polls := r.DigestMessages / 2
	if r.Transport != node.TransportHTTP || polls < uint64((rounds-1)*pairs) || polls > uint64(rounds*pairs) {
		t.Fatalf("transport %q, %d polls over %.0f s of trace (want %d to %d)", r.Transport, polls, r.TraceSeconds, (rounds-1)*pairs, rounds*pairs)
	}
	if r.Propagated == 0 || r.PropagationMax > interval || r.PropagationMean <= 0 || r.PropagationMean > r.PropagationMax {
		t.Fatalf("%d publications propagated, mean %v, max %v (want at most %v)", r.Propagated, r.PropagationMean, r.PropagationMax, interval)
	}
	if r.FullFetches+r.DeltaFetches == 0 || r.DigestMessageBytes == 0 {
		t.Fatalf("%d digests fetched, %d bytes", r.FullFetches+r.DeltaFetches, r.DigestMessageBytes)
	}
	row := report.NewClusterReport(replay.ClusterConfig{Trace: tr}, res).Results[0]
	if row.Transport != "http" || row.DigestMessagesPerMin <= 0 || row.PropagationMaxSeconds > interval.Seconds() {
		t.Fatalf("report row: %+v", row)
	}
}

// TestReplayClusterPollsBeforeRequest: the polls due between two requests
// are made before the second, which finds the first's object through the
// digest polled meanwhile. They were made after it, so an hour after node
// 0 cached and published the object, node 1 still went to the origin.
func TestReplayClusterPollsBeforeRequest(t *testing.T) {
	const log = `1000.000 5 10.0.0.1 TCP_MISS/200 1000 GET http://a.example/1 - DIRECT/1.2.3.4 text/html
4600.000 5 10.0.0.2 TCP_MISS/200 1000 GET http://a.example/1 - DIRECT/1.2.3.4 text/html
`
	tr, err := replay.ParseAccessLog(strings.NewReader(log), 2)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Requests[0].Proxy == tr.Requests[1].Proxy {
		t.Fatalf("both clients at node %d; the test needs two nodes", tr.Requests[0].Proxy)
	}
	mode, _ := replay.ParseMode("sc-1%-16b-comp-delta")
	res, err := replay.ReplayCluster(replay.ClusterConfig{Trace: tr, Modes: []replay.Mode{mode}, PollInterval: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.RemoteHits != 1 || r.Misses != 1 {
		t.Errorf("%d remote hits, %d misses; want the second request a remote hit", r.RemoteHits, r.Misses)
	}
}

// TestReplayClusterTraceSecondsUnordered: an access.log whose lines are
// not in time order lasts from its first request to its latest, not to
// its last line's (which made the duration negative and the per-minute
// digest rates vanish).
func TestReplayClusterTraceSecondsUnordered(t *testing.T) {
	const log = `1000.000 5 10.0.0.1 TCP_MISS/200 100 GET http://a.example/1 - DIRECT/1.2.3.4 text/html
1060.000 5 10.0.0.2 TCP_MISS/200 100 GET http://a.example/2 - DIRECT/1.2.3.4 text/html
900.000 5 10.0.0.1 TCP_MISS/200 100 GET http://a.example/1 - DIRECT/1.2.3.4 text/html
`
	tr, err := replay.ParseAccessLog(strings.NewReader(log), 2)
	if err != nil {
		t.Fatal(err)
	}
	none, err := replay.ParseMode("none")
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.ReplayCluster(replay.ClusterConfig{Trace: tr, Modes: []replay.Mode{none}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].TraceSeconds; got != 60 {
		t.Errorf("TraceSeconds = %g, want 60", got)
	}
}

func TestReplayClusterTransportAndPoll(t *testing.T) {
	tr, err := replay.SyntheticTrace(replay.SyntheticConfig{Proxies: 2, Requests: 10})
	if err != nil {
		t.Fatal(err)
	}
	_, err = replay.ReplayCluster(replay.ClusterConfig{Trace: tr, PollInterval: time.Second,
		Transport: func(int, string) (node.DigestTransport, error) { return nil, nil }})
	if !errors.Is(err, replay.ErrTrace) {
		t.Fatalf("poll interval and transport: %v", err)
	}
}
