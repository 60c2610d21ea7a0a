package node

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/storefail"
)

// publishState is the node's publication loop's last outcome.
type publishState struct {
	mu      sync.Mutex
	lastErr error // the last publication's error; nil once one succeeds
}

// publishLoop is the node's publication loop: [Publisher.run], except
// that a failed publication does not end it. The failure is logged at
// error level (once, until a publication succeeds again, which is logged
// too), counted in bloomcast_digest_publication_failures_total, and the
// publication is retried at the next tick; meanwhile the digest ages, and
// /healthz answers 503 once it is overdue.
func (n *Node) publishLoop(ctx context.Context) error {
	return n.publisher.loop(ctx, n.growIfDue, n.afterPublish)
}

// afterPublish records, counts and logs one attempt of publishLoop, and
// lets the loop go on.
func (n *Node) afterPublish(published bool, err error) error {
	n.publishing.mu.Lock()
	was := n.publishing.lastErr
	if err != nil || published {
		n.publishing.lastErr = err
	}
	n.publishing.mu.Unlock()
	if published {
		n.kickPush()
	}
	switch {
	case err != nil:
		n.metrics.publishFailures.Inc()
		if was == nil {
			n.log.Error("digest publication failed; retrying", "proxy", n.listenAddr(), "err", err)
		}
	case was != nil && published:
		n.log.Info("digest publication recovered", "proxy", n.listenAddr(), "sequence", n.publisher.stats().Sequence)
	}
	return nil
}

func (n *Node) listenAddr() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.addr
}

// unhealthy returns why the node is unhealthy, or "" if it is not: a
// background loop ended with an error (the node is stopping), its disk
// cache is failing to store (Disk.Fault: until a store succeeds again),
// or its own digest is overdue: changes are pending and it is older than
// its max age plus one tick of the publication loop, so a publication
// that was due did not happen.
func (n *Node) unhealthy() string {
	if err := n.loopDown.Load(); err != nil {
		return fmt.Sprintf("background loop down: %v", *err)
	}
	if d, ok := n.store.(*cache.Disk); ok {
		if err := d.Fault(); err != nil {
			return fmt.Sprintf("disk cache failing (%s): %v", storefail.Reason(err), err)
		}
	}
	p := n.publisher
	p.mu.Lock()
	maxAge, at, pending := p.cfg.MaxAge, p.current.at, p.changes
	p.mu.Unlock()
	age := p.now().Sub(at)
	if pending == 0 || age <= maxAge+publishTick(maxAge) {
		return ""
	}
	reason := fmt.Sprintf("digest is %v old with %d changes pending, max age %v", age.Round(time.Millisecond), pending, maxAge)
	n.publishing.mu.Lock()
	defer n.publishing.mu.Unlock()
	if n.publishing.lastErr != nil {
		reason += ": publication failed: " + n.publishing.lastErr.Error()
	}
	return reason
}

// serveHealth answers /healthz: 200 "ok", or 503 with the reason on one
// line to a client in AllowPeers asking directly under one of the
// node's names (operatorOnly's rules), and the fixed "unhealthy" to
// anyone else (a reason names peers, addresses and errors). The status
// itself answers any Host: a load balancer's check may name the node
// however it reaches it.
func (n *Node) serveHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	body := "ok\n"
	if reason := n.unhealthy(); reason != "" {
		if !allowed(*n.allowPeers.Load(), remoteAddr(r)) || viaProxy(r) || !n.operatorHost(r) {
			reason = "unhealthy"
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		body = reason + "\n"
	}
	// A failed write means the client went away; there is no one to
	// tell.
	_, _ = io.WriteString(w, body)
}

// registerHealth adds the metrics of the node's health: peer digest
// fetch failures by peer, publication failures and the time of the last
// publication.
func (m *nodeMetrics) registerHealth(n *Node) {
	m.peerFetchFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bloomcast_peer_digest_fetch_failures_total",
		Help: "Failed refreshes of a peer's digest (unreachable, bad status, refused digest), by peer.",
	}, []string{"peer"})
	m.publishFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "bloomcast_digest_publication_failures_total",
		Help: "Publications of this node's digest that failed (retried at the publication loop's next tick).",
	})
	m.registry.MustRegister(m.peerFetchFailures, m.publishFailures,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bloomcast_digest_published_timestamp_seconds",
			Help: "Time of the last publication of this node's digest, in Unix seconds.",
		}, func() float64 { return float64(n.publisher.stats().Published.UnixNano()) / 1e9 }))
}
