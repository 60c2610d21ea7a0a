package node

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcast/bloomcast/internal/nodestatus"
)

// statusMinutes is how many minutes the status page's chart spans.
const statusMinutes = 60

// status returns the node's status: the data of its status page.
func (n *Node) status() nodestatus.Status {
	now := n.now()
	st := nodestatus.Status{Time: now}
	if n.metrics == nil { // a zero Node
		return st
	}
	s := n.stats()
	m := n.metrics
	budget := n.cfg.MemoryBytes
	if n.cfg.DiskDir != "" {
		budget = n.cfg.DiskBytes
	}
	reason := n.unhealthy()
	st.Node = nodestatus.Node{Name: n.cfg.Name, Version: n.version(), Started: m.status.started,
		UptimeSeconds: now.Sub(m.status.started).Seconds(), Listen: n.listenAddr(), Route: string(n.cfg.Route),
		Healthy: reason == "", Unhealthy: reason,
		Objects: n.store.Len(), Bytes: n.store.Bytes(), BudgetBytes: budget}

	st.Requests.Total = nodestatus.Counts{LocalHits: s.LocalHits, PeerHits: s.PeerHits, Misses: s.Misses,
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

	p := n.publisher.stats()
	st.Digest = nodestatus.Digest{Sequence: p.Sequence, Codec: p.Codec, WireBytes: p.DigestBytes, Keys: p.Keys,
		BitsPerEntry: n.cfg.BitsPerEntry, HashFunctions: n.cfg.HashFunctions, Fill: p.Fill, FalsePos: p.FalsePos,
		PredictedFalsePos: p.PredictedFalsePos, TargetFalsePos: p.TargetFalsePos,
		Published: p.Published, AgeSeconds: n.publisher.now().Sub(p.Published).Seconds(),
		MaxAgeSeconds: n.publisherMaxAge().Seconds(), Pending: p.Pending, Capacity: p.Capacity,
		Resizes: p.Resizes, Full: p.Capacity > 0 && p.Keys >= p.Capacity}

	if t := n.cfg.Transport; t != nil {
		st.Transport = &nodestatus.Transport{Name: t.Name(), Connected: t.Connected(),
			Sent: s.TransportSent, Received: s.TransportReceived}
		if dc, ok := t.(DropCounter); ok {
			st.Transport.Dropped = dc.Dropped()
		}
	}

	for _, ps := range n.directory.status() {
		hits, falseHits, errs := m.status.peerAsks(ps.Name)
		sp := nodestatus.Peer{Name: ps.Name, Protocol: ps.Protocol, HasView: ps.HasView, Sequence: ps.Sequence,
			AgeSeconds: ps.Age.Seconds(), WireBytes: ps.Bytes, HeldBytes: ps.HeldBytes, Form: ps.Form,
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
			sp.State = nodestatus.PeerStateFailing
		case !ps.HasView:
			sp.State = nodestatus.PeerStateNoDigest
		default:
			sp.State = nodestatus.PeerStateOK
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
func (c *statusCounters) peer(name string, o peerOutcome) {
	// Load first: LoadOrStore's arguments would allocate on every call.
	v, ok := c.peers.Load(name)
	if !ok {
		v, _ = c.peers.LoadOrStore(name, new([3]atomic.Uint64))
	}
	a := v.(*[3]atomic.Uint64)
	switch o {
	case peerOutcomeHit:
		a[0].Add(1)
	case peerOutcomeFalseHit:
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
	counts nodestatus.Counts
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
	case outcomeLocalHit:
		s.counts.LocalHits++
	case outcomePeerHit:
		s.counts.PeerHits++
	case outcomeMiss:
		s.counts.Misses++
	default:
		s.counts.Other++
	}
	if falseHit {
		s.counts.FalseHits++
	}
}

// last returns the statusMinutes minutes up to now's, oldest first.
func (r *minuteRing) last(now time.Time) []nodestatus.Minute {
	cur := now.Unix() / 60
	out := make([]nodestatus.Minute, statusMinutes)
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range out {
		m := cur - statusMinutes + 1 + int64(i)
		out[i].Start = time.Unix(m*60, 0).UTC()
		if s := r.slots[slot(m)]; s.minute == m {
			out[i].Counts = s.counts
		}
	}
	return out
}

// slot returns the ring's slot of Unix minute m.
func slot(m int64) int64 { return (m%statusMinutes + statusMinutes) % statusMinutes }
