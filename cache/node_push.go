package cache

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// pushState is what the node last sent through its digest transport.
type pushState struct {
	mu sync.Mutex
	// seq is the last publication pushed (0: none yet), at its time.
	seq uint64
	at  time.Time
	// sinceFull are the bytes of the deltas pushed since the last full
	// digest, which was fullBytes long.
	sinceFull, fullBytes int
}

// PushDigest sends the node's current publication through its digest
// transport (NodeConfig.Transport), if it has not sent it yet: as a delta
// against the last publication it sent, or as the full digest when it has
// sent none yet, when the publisher no longer keeps that base (after a
// Resize), or when the deltas sent since the last full digest would
// otherwise add up to more than a full digest. A transport keeps each
// node's last full digest and the deltas after it, so this bounds what a
// node that starts late receives to about two full digests. It does
// nothing without a transport. The node calls it after each publication
// unless NodeConfig.Manual is set; then the caller does, after
// Publisher().PublishIfDue, once Serve has started. A failed send is
// returned and tried again at the next call, against the same base.
func (n *Node) PushDigest(ctx context.Context) error {
	if n.proxy == nil {
		return errZeroNode
	}
	t := n.cfg.Transport
	if t == nil {
		return nil
	}
	ps := &n.pushing
	ps.mu.Lock()
	defer ps.mu.Unlock()
	r, err := n.publisher.Respond("", ps.seq)
	if err != nil || r.Sequence == ps.seq {
		return err
	}
	if r.Delta && ps.sinceFull+len(r.Body) > ps.fullBytes {
		if r, err = n.publisher.Respond("", 0); err != nil {
			return err
		}
	}
	m := DigestMessage{Node: n.cfg.Name, Sequence: r.Sequence, Delta: r.Delta, ETag: r.ETag, Frame: r.Body}
	if err := t.Publish(ctx, m); err != nil {
		return err
	}
	n.metrics.sent(t.Name(), len(r.Body))
	ps.seq, ps.at = r.Sequence, n.now()
	if r.Delta {
		ps.sinceFull += len(r.Body)
	} else {
		ps.sinceFull, ps.fullBytes = 0, len(r.Body)
	}
	return nil
}

// pushAlive sends a message with no frame, saying that the node is alive
// at the sequence it last pushed, when it has pushed nothing for half a
// poll interval: what a 304 answer to a poll says.
func (n *Node) pushAlive(ctx context.Context) error {
	ps := &n.pushing
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.seq == 0 || n.now().Sub(ps.at) < n.directory.cfg.PollInterval/2 {
		return nil
	}
	t := n.cfg.Transport
	if err := t.Publish(ctx, DigestMessage{Node: n.cfg.Name, Sequence: ps.seq}); err != nil {
		return err
	}
	n.metrics.sent(t.Name(), 0)
	ps.at = n.now()
	return nil
}

// pushLoop pushes each publication as soon as the publication loop makes
// it (it kicks pushKick), and otherwise checks every pushTick whether a
// publication (a Resize's) or an alive message is due. A failed send is
// logged once until one succeeds again, and retried.
func (n *Node) pushLoop(ctx context.Context) error {
	tick := time.NewTicker(pushTick(n.directory.cfg.PollInterval))
	defer tick.Stop()
	failing := false
	for {
		err := n.PushDigest(ctx)
		if err == nil {
			err = n.pushAlive(ctx)
		}
		switch {
		case err != nil && ctx.Err() == nil && !failing:
			n.log.Warn("digest push failed; peers poll meanwhile", "transport", n.cfg.Transport.Name(), "err", err)
			failing = true
		case err == nil && failing:
			n.log.Info("digest push recovered", "transport", n.cfg.Transport.Name())
			failing = false
		}
		select {
		case <-ctx.Done():
			return nil
		case <-n.pushKick:
		case <-tick.C:
		}
	}
}

// pushTick is how often the push loop looks whether a push is due: a
// quarter of the poll interval, at most a second.
func pushTick(poll time.Duration) time.Duration { return min(poll/4, time.Second) }

// kickPush wakes the push loop after a publication.
func (n *Node) kickPush() {
	select {
	case n.pushKick <- struct{}{}:
	default:
	}
}

// startTransport starts the node's digest transport, delivering the
// peers' messages to its directory.
func (n *Node) startTransport(ctx context.Context) error {
	t := n.cfg.Transport
	name := t.Name()
	return t.Start(ctx, n.cfg.Name, func(m DigestMessage) {
		n.metrics.received(name, len(m.Frame))
		// Receive logs and counts a failure; the peer's view stays
		// until it expires, and polling takes over.
		_ = n.directory.Receive(ctx, m)
	})
}

// Digest messages and bytes by transport and direction.
func (m *nodeMetrics) registerTransport() {
	m.digestMessages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bloomcast_digest_messages_total",
		Help: "Digest messages by transport (http: responses to polls, 304s included, fetched and served; or the digest transport's name: messages published and delivered, alive messages included) and direction (in, out).",
	}, []string{"transport", "direction"})
	m.digestMessageBytes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bloomcast_digest_message_bytes_total",
		Help: "Bytes of digest messages by transport and direction: for http, the bodies fetched (in) and the responses served with their header fields (out), as bloomcast_digest_in_bytes_total and bloomcast_digest_out_bytes_total count them; for a digest transport, the frames published and delivered.",
	}, []string{"transport", "direction"})
	m.registry.MustRegister(m.digestMessages, m.digestMessageBytes)
}

// sent counts one message published through a digest transport.
func (m *nodeMetrics) sent(transport string, bytes int) {
	m.digestMessages.WithLabelValues(transport, "out").Inc()
	m.digestMessageBytes.WithLabelValues(transport, "out").Add(float64(bytes))
	m.counts.pushOut.Add(1)
	m.counts.pushOutBytes.Add(uint64(bytes))
}

// received counts one message delivered by a digest transport.
func (m *nodeMetrics) received(transport string, bytes int) {
	m.digestMessages.WithLabelValues(transport, "in").Inc()
	m.digestMessageBytes.WithLabelValues(transport, "in").Add(float64(bytes))
	m.counts.pushIn.Add(1)
	m.counts.pushInBytes.Add(uint64(bytes))
}

// httpMessage counts one digest response fetched (in) or served (out)
// over HTTP.
func (m *nodeMetrics) httpMessage(direction string, bytes int64) {
	m.digestMessages.WithLabelValues(TransportHTTP, direction).Inc()
	m.digestMessageBytes.WithLabelValues(TransportHTTP, direction).Add(float64(bytes))
	if direction == "out" {
		m.counts.httpOut.Add(1)
		m.counts.httpOutBytes.Add(uint64(max(bytes, 0)))
	}
}
