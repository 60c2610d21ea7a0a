package node

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/icp"
	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// Outcomes of a client request, the label values of
// bloomcast_requests_total.
const (
	outcomeLocalHit = "local_hit" // answered from this node's cache
	outcomePeerHit  = "peer_hit"  // fetched from a peer's cache
	outcomeMiss     = "miss"      // fetched from the origin
	outcomeOther    = "other"     // refused, failed, or not a cacheable method
)

// nodeMetrics are a node's Prometheus metrics, in a registry of its own
// (no process-wide registry: two nodes in one process, as in the
// simulations, keep separate counts).
type nodeMetrics struct {
	registry  *prometheus.Registry
	peerAsks  *prometheus.CounterVec
	digestIn  *prometheus.CounterVec
	digestOut *prometheus.CounterVec
	// health: peer digest fetch failures and the publication loop's
	// (node_health.go)
	peerFetchFailures *prometheus.CounterVec
	publishFailures   prometheus.Counter
	// peerSeries is held (read) to count for a peer by name and
	// (write) by a reload that drops the series of the peers it
	// removes, so that a request to one, in flight across the reload,
	// does not bring them back.
	peerSeries sync.RWMutex
	// digest messages and their bytes by transport and direction
	// (node_push.go)
	digestMessages, digestMessageBytes *prometheus.CounterVec
	// httpIn and httpOut are their http children, resolved once: a
	// summary cache at a low threshold counts one per digest fetch.
	httpIn, httpOut [2]prometheus.Counter // messages, bytes
	// counts are the plain counters behind Node.Stats; the request
	// metrics read them at scrape time (requestCollector), so a request
	// is counted once.
	counts nodeCounters
	// status is what the status page counts besides (status.go).
	status statusCounters
}

func newNodeMetrics(n *Node) *nodeMetrics {
	m := &nodeMetrics{registry: prometheus.NewRegistry()}
	m.status.started = n.now()
	m.peerAsks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bloomcast_peer_requests_total",
		Help: "Requests to peers with only-if-cached, by peer and result: hit, false_hit (504: the summary erred), error.",
	}, []string{"peer", "result"})
	m.digestIn = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bloomcast_digest_in_bytes_total", Help: "Digest bytes fetched from peers, by codec and kind (full, delta).",
	}, []string{"codec", "kind"})
	m.digestOut = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bloomcast_digest_out_bytes_total", Help: "Digest bytes served to peers, by codec and kind (full, delta, squid).",
	}, []string{"codec", "kind"})
	m.registry.MustRegister(&requestCollector{c: &m.counts}, m.peerAsks, m.digestIn, m.digestOut, &icpCollector{node: n})
	gauge := func(name, help string, f func() float64) {
		m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
	}
	gauge("bloomcast_client_connections", "Client connections open (peers' included), at most NodeConfig.MaxConnections (serve --max-connections).",
		func() float64 { return float64(n.connsOpen.Load()) })
	gauge("bloomcast_cache_objects", "Objects in the cache.", func() float64 { return float64(n.store.Len()) })
	gauge("bloomcast_cache_bytes", "Accounted bytes in the cache.", func() float64 { return float64(n.store.Bytes()) })
	gauge("bloomcast_filter_keys", "Keys in the counting filter.", func() float64 { return float64(n.publisher.stats().Keys) })
	gauge("bloomcast_filter_fill_ratio", "Fraction of bits set in the published digest.", func() float64 { return n.publisher.stats().Fill })
	gauge("bloomcast_filter_false_positive_rate", "False-positive rate of the published digest, estimated from its fill.",
		func() float64 { return n.publisher.stats().FalsePos })
	gauge("bloomcast_digest_sequence", "Sequence number of the published digest.", func() float64 { return float64(n.publisher.stats().Sequence) })
	gauge("bloomcast_digest_bytes", "Size of the published full digest.", func() float64 { return float64(n.publisher.stats().DigestBytes) })
	gauge("bloomcast_digest_age_seconds",
		"Seconds since the current digest was published: changes made since then (bloomcast_digest_pending_changes) reach peers at the next publication.",
		func() float64 { return n.publisher.now().Sub(n.publisher.stats().Published).Seconds() })
	gauge("bloomcast_digest_pending_changes", "Stores and evictions not yet in the published digest.",
		func() float64 { return float64(n.publisher.stats().Pending) })
	m.registry.MustRegister(&peerCollector{dir: n.directory}, &peerFalsePosCollector{dir: n.directory})
	if s := n.static; s != nil {
		for i, kind := range []string{"full", "delta"} {
			m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "bloomcast_static_digest_publications_total",
				Help:        "Static digest publications (--full-digests static), by kind: full (a new ribbon) or delta.",
				ConstLabels: prometheus.Labels{"kind": kind}}, func() float64 {
				full, deltas := s.stats()
				return float64([2]uint64{full, deltas}[i])
			}))
		}
		gauge("bloomcast_static_digest_saved_bytes", "Bytes the static digest publications saved against the Bloom digest's publications they are held to (negative while they cost more).",
			func() float64 { return float64(s.saved()) })
	}
	m.registerHealth(n)
	m.registerMemory(n)
	m.registerTransport(n.cfg.Transport)
	m.registerSummary(n)
	return m
}

// outcome classifies a finished request.
func outcome(r *cache.Record) string {
	switch {
	case r.Hierarchy == squidlog.HierCDSiblingHit || r.Hierarchy == squidlog.HierSiblingHit:
		return outcomePeerHit
	case strings.Contains(r.Code, "HIT") || r.Code == squidlog.CodeRefreshUnmodified:
		return outcomeLocalHit
	case r.Hierarchy == squidlog.HierDirect:
		return outcomeMiss
	}
	return outcomeOther
}

func (m *nodeMetrics) request(r *cache.Record) {
	m.counts.request(outcome(r), r.Bytes)
	m.status.minutes.add(r.Time, outcome(r), r.FalseHits > 0)
	if r.FalseHits > 0 {
		m.counts.falseHitRequests.Add(1)
	}
}

// requestCollector reports the client requests, their bytes by outcome,
// the requests that met a false hit and the digests pushed to the node,
// from the node's counters.
type requestCollector struct{ c *nodeCounters }

var (
	requestsDesc = prometheus.NewDesc("bloomcast_requests_total",
		"Client requests by outcome: local_hit, peer_hit, miss, other.", []string{"outcome"}, nil)
	responseBytesDesc = prometheus.NewDesc("bloomcast_response_bytes_total",
		"Bytes sent to clients, by outcome.", []string{"outcome"}, nil)
	digestsPushedDesc = prometheus.NewDesc("bloomcast_digests_pushed_total",
		"Digests delivered by the digest transport and applied to a peer's view, by kind: full or delta.", []string{"kind"}, nil)
	falseHitRequestsDesc = prometheus.NewDesc("bloomcast_false_hit_requests_total",
		"Client requests that met at least one false hit (a peer whose summary or ICP reply said maybe answered 504), whatever their outcome.", nil, nil)
)

func (rc *requestCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- requestsDesc
	ch <- responseBytesDesc
	ch <- falseHitRequestsDesc
	ch <- digestsPushedDesc
}

func (rc *requestCollector) Collect(ch chan<- prometheus.Metric) {
	c := rc.c
	for _, o := range []struct {
		name    string
		n, size *atomic.Uint64
	}{
		{outcomeLocalHit, &c.localHits, &c.localHitBytes}, {outcomePeerHit, &c.peerHits, &c.peerHitBytes},
		{outcomeMiss, &c.misses, &c.missBytes}, {outcomeOther, &c.other, &c.otherBytes},
	} {
		if n := o.n.Load(); n > 0 { // as a CounterVec would: outcomes seen
			ch <- prometheus.MustNewConstMetric(requestsDesc, prometheus.CounterValue, float64(n), o.name)
			ch <- prometheus.MustNewConstMetric(responseBytesDesc, prometheus.CounterValue, float64(o.size.Load()), o.name)
		}
	}
	ch <- prometheus.MustNewConstMetric(falseHitRequestsDesc, prometheus.CounterValue, float64(c.falseHitRequests.Load()))
	ch <- prometheus.MustNewConstMetric(digestsPushedDesc, prometheus.CounterValue, float64(c.pushedFull.Load()), "full")
	ch <- prometheus.MustNewConstMetric(digestsPushedDesc, prometheus.CounterValue, float64(c.pushedDelta.Load()), "delta")
}

// Metrics returns the node's Prometheus metrics, the ones its /metrics
// serves (docs/NODE.md lists them): a program that embeds a node reads
// its numbers here, by the names an operator's dashboards use. A zero
// Node has none.
func (n *Node) Metrics() prometheus.Gatherer {
	if n.metrics == nil {
		return prometheus.NewRegistry()
	}
	return n.metrics.registry
}

func (m *nodeMetrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// peerCollector reports each peer's view at scrape time.
type peerCollector struct{ dir *Directory }

var (
	peerAgeDesc = prometheus.NewDesc("bloomcast_peer_view_age_seconds",
		"Age of each peer's digest as held here (absent: no view).", []string{"peer"}, nil)
	peerFillDesc = prometheus.NewDesc("bloomcast_peer_view_fill_ratio",
		"Fraction of bits set in each peer's digest.", []string{"peer"}, nil)
	peerSeqDesc = prometheus.NewDesc("bloomcast_peer_view_sequence",
		"Sequence number of each peer's digest.", []string{"peer"}, nil)
	peerDigestsDesc = prometheus.NewDesc("bloomcast_peer_digests_total",
		"Digest answers from each peer, by result: full and delta (polled and applied to the view), not_modified (304), pushed (applied from the digest transport), resync (a delta made for another base or that did not decode, or a static digest too large, answered by fetching the full digest) and refused (a body over the size limit or cut short).",
		[]string{"peer", "result"}, nil)
	peerBytesDesc = prometheus.NewDesc("bloomcast_peer_view_bytes",
		"Memory each peer's view holds, by form: decoded (the bit array) or compressed (the coded pieces, their index and the decoded pieces cached; serve --peer-views), or static (a static digest's ribbon and the positions of its filters' ones; serve --full-digests).",
		[]string{"peer", "form"}, nil)
)

func (c *peerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- peerAgeDesc
	ch <- peerFillDesc
	ch <- peerSeqDesc
	ch <- peerBytesDesc
	ch <- peerDigestsDesc
}

func (c *peerCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.dir.status() {
		for _, r := range []struct {
			result string
			n      uint64
		}{{"full", s.Full}, {"delta", s.Delta}, {"not_modified", s.NotModified}, {"pushed", s.Pushed}, {"resync", s.Resync}, {"refused", s.Refused}} {
			ch <- prometheus.MustNewConstMetric(peerDigestsDesc, prometheus.CounterValue, float64(r.n), s.Name, r.result)
		}
		if !s.HasView {
			continue
		}
		ch <- prometheus.MustNewConstMetric(peerAgeDesc, prometheus.GaugeValue, s.Age.Seconds(), s.Name)
		ch <- prometheus.MustNewConstMetric(peerFillDesc, prometheus.GaugeValue, s.Fill, s.Name)
		ch <- prometheus.MustNewConstMetric(peerSeqDesc, prometheus.GaugeValue, float64(s.Sequence), s.Name)
		ch <- prometheus.MustNewConstMetric(peerBytesDesc, prometheus.GaugeValue, float64(s.HeldBytes), s.Name, s.Form)
	}
}

// icpCollector reports the ICP client's and server's traffic at scrape
// time, from their own counters (icp.Traffic), so that the metrics and
// Node.Stats cannot disagree.
type icpCollector struct{ node *Node }

var (
	icpMessagesDesc = prometheus.NewDesc("bloomcast_icp_messages_total",
		"ICP messages sent and received, by role (client: queries this node sent and the replies to them; server: queries it answered).",
		[]string{"role", "direction"}, nil)
	icpBytesDesc = prometheus.NewDesc("bloomcast_icp_bytes_total",
		"ICP message bytes (UDP payload) sent and received, by role.", []string{"role", "direction"}, nil)
	icpUnansweredDesc = prometheus.NewDesc("bloomcast_icp_queries_unanswered_total",
		"ICP queries the node left unanswered because they came faster than its reply budgets (10 ICP_OP_DENIED a second, and --icp-replies replies a second, 10,000 by default): a flood, or queries with forged sources.",
		nil, nil)
)

func (c *icpCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- icpMessagesDesc
	ch <- icpBytesDesc
	ch <- icpUnansweredDesc
}

func (c *icpCollector) Collect(ch chan<- prometheus.Metric) {
	var client icp.Traffic
	if cl := c.node.icpClientOrNil(); cl != nil {
		client = cl.Stats().Traffic
	}
	emitTraffic(ch, "client", client)
	server := c.node.icpServer.Stats()
	emitTraffic(ch, "server", server.Traffic)
	ch <- prometheus.MustNewConstMetric(icpUnansweredDesc, prometheus.CounterValue, float64(server.Unanswered))
}

func emitTraffic(ch chan<- prometheus.Metric, role string, t icp.Traffic) {
	for _, v := range []struct {
		desc      *prometheus.Desc
		value     uint64
		direction string
	}{
		{icpMessagesDesc, t.MessagesSent, "sent"}, {icpMessagesDesc, t.MessagesReceived, "received"},
		{icpBytesDesc, t.BytesSent, "sent"}, {icpBytesDesc, t.BytesReceived, "received"},
	} {
		ch <- prometheus.MustNewConstMetric(v.desc, prometheus.CounterValue, float64(v.value), role, v.direction)
	}
}
