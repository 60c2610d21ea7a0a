package node

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
	// framed is when the last publication was pushed (alive messages
	// move at, not framed): NodeConfig.PushInterval counts from it.
	framed time.Time
	// sinceFull are the bytes of the deltas pushed since the last full
	// digest, which was fullBytes long.
	sinceFull, fullBytes int
}

// PushDigest sends the node's current publication through its digest
// transport (NodeConfig.Transport), if it has not sent it yet: as a delta
// against the last publication it sent, or as the full digest when it has
// sent none yet, when the publisher no longer keeps that base (after a
// Resize, or more than publisherConfig.History publications later), or
// when the deltas sent since the last full digest would otherwise add up
// to more than a full digest. A transport keeps each node's last full
// digest and the deltas after it, so this bounds what a node that starts
// late receives to about two full digests. It does nothing without a
// transport. It pushes at once, whatever NodeConfig.PushInterval says;
// PushIfDue keeps to it. The node calls PushIfDue after each publication
// unless NodeConfig.Manual is set; then the caller calls PushDigest or
// PushIfDue, after Publisher().PublishIfDue, once Serve has started. A
// failed send is returned and tried again at the next call, against the
// same base.
func (n *Node) PushDigest(ctx context.Context) error {
	if n.proxy == nil {
		return errZeroNode
	}
	if n.cfg.Transport == nil {
		return nil
	}
	ps := &n.pushing
	ps.mu.Lock()
	defer ps.mu.Unlock()
	_, err := n.pushLocked(ctx)
	return err
}

// PushIfDue pushes the node's current publication as PushDigest does if
// it has not pushed it yet and NodeConfig.PushInterval has passed since
// its last push (by NodeConfig.Now), or if it has pushed nothing yet. A
// publication that comes sooner is held: the push after the interval
// sends one delta from the last publication pushed to the newest,
// covering every publication held meanwhile. It returns whether it
// pushed, and, when it holds a publication, the time the push is due
// (zero otherwise): the caller must call again then, as the node's push
// loop does with a timer. With a PushInterval of 0 it is PushDigest.
func (n *Node) pushIfDue(ctx context.Context) (pushed bool, due time.Time, err error) {
	if n.proxy == nil {
		return false, time.Time{}, errZeroNode
	}
	if n.cfg.Transport == nil {
		return false, time.Time{}, nil
	}
	ps := &n.pushing
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if n.publisher.sequence() == ps.seq {
		return false, time.Time{}, nil
	}
	if iv := n.cfg.PushInterval; iv > 0 && ps.seq != 0 {
		if due = ps.framed.Add(iv); n.now().Before(due) {
			return false, due, nil
		}
	}
	pushed, err = n.pushLocked(ctx)
	return pushed, time.Time{}, err
}

// pushLocked pushes the current publication if it is not the last one
// pushed; ps.mu is held.
func (n *Node) pushLocked(ctx context.Context) (bool, error) {
	t := n.cfg.Transport
	ps := &n.pushing
	r, err := n.publisher.respond("", ps.seq)
	if err != nil || r.Sequence == ps.seq {
		return false, err
	}
	if r.Delta && ps.sinceFull+len(r.Body) > ps.fullBytes {
		if r, err = n.publisher.respond("", 0); err != nil {
			return false, err
		}
	}
	m := DigestMessage{Node: n.cfg.Name, Sequence: r.Sequence, Delta: r.Delta, ETag: r.ETag, Frame: r.Body}
	if err := t.Publish(ctx, m); err != nil {
		return false, err
	}
	n.metrics.sent(t.Name(), len(r.Body))
	ps.seq, ps.at = r.Sequence, n.now()
	ps.framed = ps.at
	if r.Delta {
		ps.sinceFull += len(r.Body)
	} else {
		ps.sinceFull, ps.fullBytes = 0, len(r.Body)
	}
	return true, nil
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
// it (it kicks pushKick) or, with NodeConfig.PushInterval, when the
// interval since the last push ends (a timer set to the due time PushIfDue
// returns), and otherwise checks every pushTick whether a publication (a
// Resize's) or an alive message is due. A failed send is logged once
// until one succeeds again, and retried. When ctx ends, a publication
// still held is pushed before the loop returns (the transport is closed
// after it), within flushTimeout and only while the transport is
// connected; otherwise it is dropped, and the peers' views of the node
// expire as they do for any node that stops.
func (n *Node) pushLoop(ctx context.Context) error {
	tick := time.NewTicker(pushTick(n.directory.cfg.PollInterval))
	defer tick.Stop()
	hold := time.NewTimer(time.Hour)
	hold.Stop()
	defer hold.Stop()
	failing := false
	for {
		_, due, err := n.pushIfDue(ctx)
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
		hold.Stop()
		if !due.IsZero() {
			hold.Reset(max(due.Sub(n.now()), 0))
		}
		select {
		case <-ctx.Done():
			return n.flushPush(ctx)
		case <-n.pushKick:
		case <-tick.C:
		case <-hold.C:
		}
	}
}

// flushTimeout bounds the push of a held publication when the node stops.
const flushTimeout = 2 * time.Second

// flushPush pushes a publication the push interval holds, when the node
// stops: the transport is still open (Serve closes it after the loops
// end). A failure is logged, not returned: the node is stopping anyway.
func (n *Node) flushPush(ctx context.Context) error {
	if n.cfg.PushInterval == 0 || !n.cfg.Transport.Connected() {
		return nil
	}
	flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	if err := n.PushDigest(flush); err != nil {
		n.log.Warn("digest push of the held publication failed at shutdown", "transport", n.cfg.Transport.Name(), "err", err)
	}
	return nil
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
		// receive logs and counts a failure; the peer's view stays
		// until it expires, and polling takes over.
		_ = n.directory.receive(ctx, m)
	})
}

// Digest messages and bytes by transport and direction, and whether the
// node's digest transport, if it has one, is connected and, if it counts
// them, the messages it dropped.
func (m *nodeMetrics) registerTransport(t DigestTransport) {
	m.digestMessages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bloomcast_digest_messages_total",
		Help: "Digest messages by transport (http: responses to polls, 304s included, fetched and served; or the digest transport's name: messages published and delivered, alive messages included) and direction (in, out).",
	}, []string{"transport", "direction"})
	m.digestMessageBytes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bloomcast_digest_message_bytes_total",
		Help: "Bytes of digest messages by transport and direction: for http, the bodies fetched (in) and the responses served with their header fields (out), as bloomcast_digest_in_bytes_total and bloomcast_digest_out_bytes_total count them; for a digest transport, the frames published and delivered.",
	}, []string{"transport", "direction"})
	m.registry.MustRegister(m.digestMessages, m.digestMessageBytes)
	m.httpIn = [2]prometheus.Counter{m.digestMessages.WithLabelValues(TransportHTTP, "in"), m.digestMessageBytes.WithLabelValues(TransportHTTP, "in")}
	m.httpOut = [2]prometheus.Counter{m.digestMessages.WithLabelValues(TransportHTTP, "out"), m.digestMessageBytes.WithLabelValues(TransportHTTP, "out")}
	if t == nil {
		return
	}
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "bloomcast_digest_transport_connected",
		Help:        "1 while the digest transport carries messages both ways, 0 while it does not (the node then polls its peers over HTTP).",
		ConstLabels: prometheus.Labels{"transport": t.Name()},
	}, func() float64 {
		if t.Connected() {
			return 1
		}
		return 0
	}))
	if dc, ok := t.(DropCounter); ok {
		m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "bloomcast_digest_transport_dropped_total",
			Help:        "Digest messages the transport received but could not deliver (a digest sent in parts that broke off, a malformed part); the node learns them over HTTP instead.",
			ConstLabels: prometheus.Labels{"transport": t.Name()},
		}, func() float64 { return float64(dc.Dropped()) }))
	}
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
	c := m.httpIn
	if direction == "out" {
		c = m.httpOut
	}
	c[0].Inc()
	c[1].Add(float64(bytes))
	if direction == "out" {
		m.counts.httpOut.Add(1)
		m.counts.httpOutBytes.Add(uint64(max(bytes, 0)))
	}
}
