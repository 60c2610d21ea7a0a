package node

import "github.com/prometheus/client_golang/prometheus"

// peerFalsePosDesc is each peer's predicted false-hit rate, for the
// alert that compares it with the false hits measured
// (contrib/prometheus/alerts.yml).
var peerFalsePosDesc = prometheus.NewDesc("bloomcast_peer_view_false_positive_rate",
	"False-positive rate each peer's digest predicts from its fill and hash functions (fill^k): the expected share of this node's misses sent to the peer in vain (absent: no view).",
	[]string{"peer"}, nil)

// peerFalsePosCollector reports bloomcast_peer_view_false_positive_rate
// at scrape time.
type peerFalsePosCollector struct{ dir *Directory }

func (c *peerFalsePosCollector) Describe(ch chan<- *prometheus.Desc) { ch <- peerFalsePosDesc }

func (c *peerFalsePosCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.dir.status() {
		if s.HasView {
			ch <- prometheus.MustNewConstMetric(peerFalsePosDesc, prometheus.GaugeValue, s.FalsePos, s.Name)
		}
	}
}
