package node

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Paths of the node's status page and of the same data as JSON. Like
// /metrics, they answer only clients in NodeConfig.AllowPeers.
const (
	StatusPath     = "/bloomcast/status"
	StatusJSONPath = "/bloomcast/status.json"
)

// statusMinutes is how many minutes the status page's chart spans.
const statusMinutes = 60

// NodeStatus is what a node shows an operator: its status page
// (StatusPath) renders it and StatusJSONPath serves it as JSON; `bloomcast
// status` reads the JSON. Every figure comes from what the node counts
// for its Prometheus metrics, read at one moment (each counter atomically,
// the whole not). docs/STATUS.md describes each field. The zero value
// is the status of a zero Node: nothing counted, no peers.
type NodeStatus struct {
	Time      time.Time        `json:"time"`
	Node      StatusNode       `json:"node"`
	Requests  StatusRequests   `json:"requests"`
	Digest    StatusDigest     `json:"digest"`
	Transport *StatusTransport `json:"transport,omitempty"`
	Peers     []StatusPeer     `json:"peers"`
}

// StatusNode describes the node itself. The zero value describes a
// zero Node.
type StatusNode struct {
	Name          string    `json:"name"`
	Version       string    `json:"version"`
	Started       time.Time `json:"started"`
	UptimeSeconds float64   `json:"uptime_seconds"`
	Listen        string    `json:"listen"`
	Route         Route     `json:"route"`
	// Healthy is what /healthz answers; Unhealthy its reason.
	Healthy     bool   `json:"healthy"`
	Unhealthy   string `json:"unhealthy,omitempty"`
	Objects     int    `json:"cache_objects"`
	Bytes       int64  `json:"cache_bytes"`
	BudgetBytes int64  `json:"cache_budget_bytes"`
}

// StatusCounts are client requests by outcome, as
// bloomcast_requests_total counts them, and those that met a false hit
// (bloomcast_false_hit_requests_total). The zero value counts none.
type StatusCounts struct {
	LocalHits uint64 `json:"local_hits"`
	PeerHits  uint64 `json:"peer_hits"`
	Misses    uint64 `json:"misses"`
	Other     uint64 `json:"other"`
	FalseHits uint64 `json:"false_hit_requests"`
}

// Total returns the number of requests counted.
func (c StatusCounts) Total() uint64 { return c.LocalHits + c.PeerHits + c.Misses + c.Other }

// StatusRatios are shares of all client requests; 0 when there were
// none, as in the zero value.
type StatusRatios struct {
	Local     float64 `json:"local_hit"`
	Peer      float64 `json:"peer_hit"`
	Miss      float64 `json:"miss"`
	FalseHits float64 `json:"false_hit"`
}

// Ratios returns c's outcomes as shares of its requests.
func (c StatusCounts) Ratios() StatusRatios {
	t := float64(c.Total())
	if t == 0 {
		return StatusRatios{}
	}
	return StatusRatios{Local: float64(c.LocalHits) / t, Peer: float64(c.PeerHits) / t,
		Miss: float64(c.Misses) / t, FalseHits: float64(c.FalseHits) / t}
}

// StatusMinute is one minute of client requests; the zero value is the
// minute of the Unix epoch, with none.
type StatusMinute struct {
	Start time.Time `json:"start"`
	StatusCounts
}

// StatusRequests are the node's client requests since it started, over
// the last hour, and minute by minute over the last hour (oldest first;
// the last minute is the current one, still counting). The zero value
// counts none and charts no minutes.
type StatusRequests struct {
	Total         StatusCounts   `json:"total"`
	LastHour      StatusCounts   `json:"last_hour"`
	LastHourRatio StatusRatios   `json:"last_hour_ratio"`
	Minutes       []StatusMinute `json:"minutes"`
}

// StatusDigest describes the digest the node publishes to its peers.
// The zero value describes none published.
type StatusDigest struct {
	Sequence  uint64 `json:"sequence"`
	Codec     string `json:"codec"`
	WireBytes int    `json:"wire_bytes"`
	Keys      uint64 `json:"keys"`
	// BitsPerEntry is the configured m/n, HashFunctions its k (0: the
	// best k for it).
	BitsPerEntry      float64   `json:"bits_per_entry"`
	HashFunctions     int       `json:"hash_functions"`
	Fill              float64   `json:"fill_ratio"`
	FalsePos          float64   `json:"false_positive_rate"`
	PredictedFalsePos float64   `json:"predicted_false_positive_rate"`
	TargetFalsePos    float64   `json:"target_false_positive_rate"`
	Published         time.Time `json:"published"`
	AgeSeconds        float64   `json:"age_seconds"`
	MaxAgeSeconds     float64   `json:"max_age_seconds"`
	Pending           uint64    `json:"pending_changes"`
	Capacity          uint64    `json:"capacity"`
	Resizes           uint64    `json:"resizes"`
	// Full is set once Keys has reached Capacity: the next growth
	// resizes the summary.
	Full bool `json:"full"`
}

// StatusTransport describes the digest transport (NodeConfig.Transport).
// The zero value is an unnamed transport, disconnected, that carried
// nothing.
type StatusTransport struct {
	Name      string `json:"name"`
	Connected bool   `json:"connected"`
	Sent      uint64 `json:"messages_sent"`
	Received  uint64 `json:"messages_received"`
	Dropped   uint64 `json:"messages_dropped"`
}

// Peer states in StatusPeer.State.
const (
	PeerStateOK       = "ok"        // the last fetch succeeded and a view is held
	PeerStateFailing  = "failing"   // the last fetch failed
	PeerStateNoDigest = "no digest" // no view held: none fetched yet, or it expired
)

// StatusPeer describes one peer as this node sees it. The zero value is
// an unnamed peer with no state, no view and no requests.
type StatusPeer struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol"`
	// State is PeerStateOK, PeerStateFailing or PeerStateNoDigest.
	State       string  `json:"state"`
	HasView     bool    `json:"has_view"`
	Sequence    uint64  `json:"sequence"`
	AgeSeconds  float64 `json:"age_seconds"`
	WireBytes   int     `json:"wire_bytes"`
	HeldBytes   int     `json:"held_bytes"`
	Form        string  `json:"form,omitempty"`
	Fill        float64 `json:"fill_ratio"`
	FalsePos    float64 `json:"predicted_false_hit_rate"`
	Unreachable bool    `json:"unreachable"`
	// Hits, FalseHits and Errors are the requests sent to the peer, by
	// result (bloomcast_peer_requests_total); MeasuredFalseHitRate is
	// FalseHits per local miss (the requests that consulted the peers'
	// digests: misses and peer hits), the figure FalsePos predicts.
	Hits                 uint64  `json:"hits"`
	FalseHits            uint64  `json:"false_hits"`
	Errors               uint64  `json:"errors"`
	MeasuredFalseHitRate float64 `json:"measured_false_hit_rate"`
	Failures             int     `json:"consecutive_failures"`
	LastError            string  `json:"last_error,omitempty"`
	SinceAnswerSeconds   float64 `json:"since_answer_seconds"`
	// Transport is how the peer's digest last reached this node:
	// "push" (the digest transport) or "http" (polling).
	Transport   string `json:"transport"`
	Full        uint64 `json:"full_fetches"`
	Delta       uint64 `json:"delta_fetches"`
	NotModified uint64 `json:"not_modified"`
	Pushed      uint64 `json:"pushed"`
}

// Status returns the node's status: the data of its status page.
func (n *Node) Status() NodeStatus {
	now := n.now()
	st := NodeStatus{Time: now}
	if n.metrics == nil { // a zero Node
		return st
	}
	s := n.Stats()
	m := n.metrics
	budget := n.cfg.MemoryBytes
	if n.cfg.DiskDir != "" {
		budget = n.cfg.DiskBytes
	}
	reason := n.unhealthy()
	st.Node = StatusNode{Name: n.cfg.Name, Version: n.version(), Started: m.status.started,
		UptimeSeconds: now.Sub(m.status.started).Seconds(), Listen: n.listenAddr(), Route: n.cfg.Route,
		Healthy: reason == "", Unhealthy: reason,
		Objects: n.store.Len(), Bytes: n.store.Bytes(), BudgetBytes: budget}

	st.Requests.Total = StatusCounts{LocalHits: s.LocalHits, PeerHits: s.PeerHits, Misses: s.Misses,
		Other: s.Other, FalseHits: s.FalseHitRequests}
	st.Requests.Minutes = m.status.minutes.last(now)
	for _, mi := range st.Requests.Minutes {
		h := &st.Requests.LastHour
		h.LocalHits += mi.LocalHits
		h.PeerHits += mi.PeerHits
		h.Misses += mi.Misses
		h.Other += mi.Other
		h.FalseHits += mi.FalseHits
	}
	st.Requests.LastHourRatio = st.Requests.LastHour.Ratios()

	p := n.publisher.Stats()
	st.Digest = StatusDigest{Sequence: p.Sequence, Codec: p.Codec, WireBytes: p.DigestBytes, Keys: p.Keys,
		BitsPerEntry: n.cfg.BitsPerEntry, HashFunctions: n.cfg.HashFunctions, Fill: p.Fill, FalsePos: p.FalsePos,
		PredictedFalsePos: p.PredictedFalsePos, TargetFalsePos: p.TargetFalsePos,
		Published: p.Published, AgeSeconds: n.publisher.now().Sub(p.Published).Seconds(),
		MaxAgeSeconds: n.publisherMaxAge().Seconds(), Pending: p.Pending, Capacity: p.Capacity,
		Resizes: p.Resizes, Full: p.Capacity > 0 && p.Keys >= p.Capacity}

	if t := n.cfg.Transport; t != nil {
		st.Transport = &StatusTransport{Name: t.Name(), Connected: t.Connected(),
			Sent: s.TransportSent, Received: s.TransportReceived}
		if dc, ok := t.(DropCounter); ok {
			st.Transport.Dropped = dc.Dropped()
		}
	}

	for _, ps := range n.directory.Status() {
		hits, falseHits, errs := m.status.peerAsks(ps.Name)
		sp := StatusPeer{Name: ps.Name, Protocol: ps.Protocol, HasView: ps.HasView, Sequence: ps.Sequence,
			AgeSeconds: ps.Age.Seconds(), WireBytes: ps.Bytes, HeldBytes: ps.HeldBytes, Form: string(ps.Form),
			Fill: ps.Fill, FalsePos: ps.FalsePos, Unreachable: ps.Unreachable,
			Hits: hits, FalseHits: falseHits, Errors: errs,
			Failures: ps.Failures, LastError: ps.LastError, SinceAnswerSeconds: ps.SinceAnswer.Seconds(),
			Transport: "http", Full: ps.Full, Delta: ps.Delta, NotModified: ps.NotModified, Pushed: ps.Pushed}
		if lookups := s.Misses + s.PeerHits; lookups > 0 {
			sp.MeasuredFalseHitRate = float64(falseHits) / float64(lookups)
		}
		if ps.Pushed > 0 && (st.Transport == nil || st.Transport.Connected) {
			sp.Transport = "push"
		}
		switch {
		case ps.Failures > 0 || ps.Unreachable:
			sp.State = PeerStateFailing
		case !ps.HasView:
			sp.State = PeerStateNoDigest
		default:
			sp.State = PeerStateOK
		}
		st.Peers = append(st.Peers, sp)
	}
	return st
}

// publisherMaxAge is the publisher's maximum digest age, as
// Node.unhealthy reads it.
func (n *Node) publisherMaxAge() time.Duration {
	p := n.publisher
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cfg.MaxAge
}

// version is NodeConfig.Version, or the main module's version.
func (n *Node) version() string {
	if n.cfg.Version != "" {
		return n.cfg.Version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "unknown"
}

// statusCounters are what the status page needs beyond the metrics:
// when the node was built, its requests minute by minute, and the
// requests to each peer by result (bloomcast_peer_requests_total counts
// them too, but a CounterVec is not read back).
type statusCounters struct {
	started time.Time
	minutes minuteRing
	peers   sync.Map // peer name → *[3]atomic.Uint64: hit, false hit, error
}

// peer counts one request to the peer named name.
func (c *statusCounters) peer(name string, o PeerOutcome) {
	v, _ := c.peers.LoadOrStore(name, new([3]atomic.Uint64))
	a := v.(*[3]atomic.Uint64)
	switch o {
	case PeerHit:
		a[0].Add(1)
	case PeerFalseHit:
		a[1].Add(1)
	default:
		a[2].Add(1)
	}
}

// peerAsks returns the requests to the peer named name by result.
func (c *statusCounters) peerAsks(name string) (hits, falseHits, errs uint64) {
	v, ok := c.peers.Load(name)
	if !ok {
		return 0, 0, 0
	}
	a := v.(*[3]atomic.Uint64)
	return a[0].Load(), a[1].Load(), a[2].Load()
}

// minuteRing counts client requests per minute over the last
// statusMinutes minutes: slot i holds the minute whose Unix minute is i
// modulo statusMinutes, and is cleared when a later minute takes it.
type minuteRing struct {
	mu    sync.Mutex
	slots [statusMinutes]minuteSlot
}

type minuteSlot struct {
	minute int64 // Unix minute
	counts StatusCounts
}

// add counts one request that arrived at t.
func (r *minuteRing) add(t time.Time, outcome string, falseHit bool) {
	if t.IsZero() {
		t = time.Now()
	}
	m := t.Unix() / 60
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &r.slots[slot(m)]
	if s.minute != m {
		if s.minute > m { // older than the ring holds
			return
		}
		*s = minuteSlot{minute: m}
	}
	switch outcome {
	case OutcomeLocalHit:
		s.counts.LocalHits++
	case OutcomePeerHit:
		s.counts.PeerHits++
	case OutcomeMiss:
		s.counts.Misses++
	default:
		s.counts.Other++
	}
	if falseHit {
		s.counts.FalseHits++
	}
}

// last returns the statusMinutes minutes up to now's, oldest first.
func (r *minuteRing) last(now time.Time) []StatusMinute {
	cur := now.Unix() / 60
	out := make([]StatusMinute, statusMinutes)
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range out {
		m := cur - statusMinutes + 1 + int64(i)
		out[i].Start = time.Unix(m*60, 0).UTC()
		if s := r.slots[slot(m)]; s.minute == m {
			out[i].StatusCounts = s.counts
		}
	}
	return out
}

// slot returns the ring's slot of Unix minute m.
func slot(m int64) int64 { return (m%statusMinutes + statusMinutes) % statusMinutes }
