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
	v, _ := sum(gather(t, n), name, labels...)
	return v
}

func gather(t testing.TB, n *node.Node) []*dto.MetricFamily {
	t.Helper()
	families, err := n.Metrics().Gather()
	if err != nil {
		t.Fatal(err)
	}
	return families
}

// sample is metric, reporting whether any sample matched.
func sample(n *node.Node, name string, labels ...string) (float64, bool, error) {
	families, err := n.Metrics().Gather()
	if err != nil {
		return 0, false, err
	}
	v, found := sum(families, name, labels...)
	return v, found, nil
}

// sum adds the samples of families' metric name that have labels, and
// reports whether there was one.
func sum(families []*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	var total float64
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
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue() // a sample is one or the other
		}
	}
	return total, found
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
	has                                      bool
	sequence                                 uint64
	full, delta, notModified, pushed, resync uint64
}

// polled counts the digest answers the view took from polls.
func (v view) polled() uint64 { return v.full + v.delta + v.notModified }

func peerView(t testing.TB, n *node.Node, peer string) view {
	t.Helper()
	families := gather(t, n)
	seq, has := sum(families, "bloomcast_peer_view_sequence", "peer", peer)
	count := func(result string) uint64 {
		v, _ := sum(families, "bloomcast_peer_digests_total", "peer", peer, "result", result)
		return uint64(v)
	}
	return view{has: has, sequence: uint64(seq), full: count("full"), delta: count("delta"), notModified: count("not_modified"),
		pushed: count("pushed"), resync: count("resync")}
}

// polledDigests counts the full digests and deltas n fetched over HTTP
// and applied, from all its peers.
func polledDigests(t testing.TB, n *node.Node) float64 {
	families := gather(t, n)
	full, _ := sum(families, "bloomcast_peer_digests_total", "result", "full")
	delta, _ := sum(families, "bloomcast_peer_digests_total", "result", "delta")
	return full + delta
}
