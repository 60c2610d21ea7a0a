package natsdigest_test

import (
	"slices"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/bloomcast/bloomcast/node"
)

// metric sums the samples of n's metric name whose labels include the
// pairs in labels (name, value, name, value, ...), as a dashboard would
// read them: a node's numbers are its Prometheus metrics.
func metric(t testing.TB, n *node.Node, name string, labels ...string) float64 {
	t.Helper()
	v, _, err := sample(n, name, labels...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sample is metric, reporting whether any sample matched.
func sample(n *node.Node, name string, labels ...string) (float64, bool, error) {
	families, err := n.Metrics().Gather()
	if err != nil {
		return 0, false, err
	}
	var sum float64
	found := false
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if !hasLabels(m.GetLabel(), labels) {
				continue
			}
			found = true
			switch {
			case m.GetCounter() != nil:
				sum += m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				sum += m.GetGauge().GetValue()
			}
		}
	}
	return sum, found, nil
}

func hasLabels(have []*dto.LabelPair, want []string) bool {
	for i := 0; i+1 < len(want); i += 2 {
		if !slices.ContainsFunc(have, func(l *dto.LabelPair) bool { return l.GetName() == want[i] && l.GetValue() == want[i+1] }) {
			return false
		}
	}
	return true
}

// view is what n's metrics say of its view of peer: whether it holds
// one, its sequence, and how it was kept up to date.
type view struct {
	has                                              bool
	sequence                                         uint64
	full, delta, notModified, pushed, resync, polled uint64
}

func peerView(t testing.TB, n *node.Node, peer string) view {
	t.Helper()
	seq, has, err := sample(n, "bloomcast_peer_view_sequence", "peer", peer)
	if err != nil {
		t.Fatal(err)
	}
	count := func(result string) uint64 {
		return uint64(metric(t, n, "bloomcast_peer_digests_total", "peer", peer, "result", result))
	}
	v := view{has: has, sequence: uint64(seq), full: count("full"), delta: count("delta"), notModified: count("not_modified"),
		pushed: count("pushed"), resync: count("resync")}
	v.polled = v.full + v.delta + v.notModified
	return v
}

// polledDigests counts the full digests and deltas n fetched over HTTP
// and applied, from all its peers.
func polledDigests(t testing.TB, n *node.Node) float64 {
	return metric(t, n, "bloomcast_peer_digests_total", "result", "full") + metric(t, n, "bloomcast_peer_digests_total", "result", "delta")
}
