package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/httpx"
)

// TransportHTTP names HTTP polling, the transport every node has, in the
// transport label of bloomcast_digest_messages_total.
const TransportHTTP = "http"

// DigestTransport carries digests between nodes besides HTTP polling: a
// node publishes each of its publications through it once, and it
// delivers the peers' publications to the node, which applies them to
// its [Directory] as it applies polled ones (its receive method). This
// is the push half of the summary-cache protocol (Fan et al., "Summary
// cache", section V, where a node sends its updates to its peers): one
// message per update, fanned out by the transport, instead of N−1
// fetches. Package node has no implementation; the cluster module's
// natsdigest carries digests over NATS JetStream.
//
// A node ([NodeConfig.Transport]) calls Start once when it starts
// serving, then Publish for each of its publications (and, when it has
// published nothing for half a poll interval, a message with no frame
// saying it is alive at its sequence), and Close when it stops. While
// Connected reports false, the node polls its peers over HTTP as a node
// without a transport does; Squid peers are always polled.
//
// The zero DigestTransport, nil, is no transport: a node with a nil
// NodeConfig.Transport polls alone.
type DigestTransport interface {
	// Name names the transport in metrics and logs: a token such as
	// "nats" (not "http").
	Name() string
	// Start begins delivering every node's messages, in the order each
	// node published them, to deliver, from one goroutine at a time,
	// starting with each node's last full digest and the deltas after it
	// that the transport keeps, so that a node that starts late learns
	// every peer's current digest at once. self is the starting node's
	// name: its own messages need not be delivered. Start returns once
	// delivery is set up, or at once if the transport cannot be reached
	// yet (it goes on trying; Connected says when it has succeeded); an
	// error means it never will (a bad configuration).
	Start(ctx context.Context, self string, deliver func(DigestMessage)) error
	// Publish sends one of this node's messages.
	Publish(ctx context.Context, m DigestMessage) error
	// Connected reports whether messages flow both ways now.
	Connected() bool
	// Close stops delivery and releases the transport.
	Close() error
}

// DropCounter is what a DigestTransport may also implement: Dropped
// returns the number of messages it received but could not deliver (a
// digest sent in parts that broke off, a malformed part), which the node
// then learns over HTTP. /metrics exports it as
// bloomcast_digest_transport_dropped_total. The zero DropCounter, nil,
// counts nothing: a transport that does not implement it exports no
// such series.
type DropCounter interface {
	Dropped() uint64
}

// DigestMessage is one publication of a node's digest on a
// [DigestTransport]: a full digest or a delta as the node's digest
// endpoint serves them, or, with no Frame, word that the node is alive
// and still at Sequence.
//
// The zero value is an alive message from a node with no name, which
// a Directory ignores.
type DigestMessage struct {
	// Node is the publishing node's name (NodeConfig.Name), which its
	// peers know it by (PeerConfig.Name).
	Node     string
	Sequence uint64
	// Delta tells a delta frame from a full digest (the frame's header
	// says it too).
	Delta bool
	// ETag is the entity tag the digest endpoint gives this
	// publication, so that a node that falls back to polling asks
	// conditionally.
	ETag  string
	Frame []byte
}

// checkTransport checks a NodeConfig's transport.
func checkTransport(t DigestTransport) error {
	if t == nil {
		return nil
	}
	if name := t.Name(); !httpx.IsToken(name) || name == TransportHTTP {
		return fmt.Errorf("%w: digest transport name %q (want a token other than %q)", cache.ErrConfig, name, TransportHTTP)
	}
	return nil
}

// peerNamed returns the peer called name, or nil.
func (d *Directory) peerNamed(name string) *Peer {
	for _, p := range d.Peers() {
		if p.name == name {
			return p
		}
	}
	return nil
}

// receive applies a message pushed by a peer through a [DigestTransport]
// to that peer's view, as RefreshPeer applies a polled digest: the same
// size limit, decoding and checks, a delta applied to the view it was
// made from (and, when its base is not that view, the full digest fetched
// over HTTP instead: a resync), the same counters, and the peer counted
// as having answered. A message with no frame only says the peer is
// alive: it counts as an answer when the view is at its sequence. A
// message from a node that is not a peer (or is a Squid peer) is ignored.
// Errors are logged, counted and returned; the old view stays until it
// expires.
func (d *Directory) receive(ctx context.Context, m DigestMessage) error {
	if d.changed == nil {
		return errZeroDirectory
	}
	p := d.peerNamed(m.Node)
	if p == nil || p.cfg.Protocol != Bloomcast {
		return nil
	}
	if len(m.Frame) == 0 {
		p.mu.Lock()
		if p.view != nil && p.view.seq == m.Sequence {
			p.contact, p.pushedAt = d.now(), d.now()
		}
		p.mu.Unlock()
		return nil
	}
	var err error
	if int64(len(m.Frame)) > d.cfg.MaxDigestBytes {
		p.mu.Lock()
		p.fetches.refused++
		p.mu.Unlock()
		err = fmt.Errorf("pushed digest of %d bytes exceeds the limit of %d", len(m.Frame), d.cfg.MaxDigestBytes)
	} else {
		err = d.store(p, nil, true, m.Frame, m.ETag, "", true)
	}
	return d.answer(p, d.resyncIfBase(ctx, p, err), true)
}

// store applies a digest or delta to p's view: the one it was asked
// against (old), or, when latest is set, the current one. An answer
// asked against a view that another update replaced meanwhile is
// dropped (nil error). etag and modified are the answer's ETag and
// Last-Modified ("" for none); pushed says it came through a transport.
func (d *Directory) store(p *Peer, old *peerView, latest bool, body []byte, etag, modified string, pushed bool) error {
	p.update.Lock()
	defer p.update.Unlock()
	p.mu.RLock()
	cur := p.view
	p.mu.RUnlock()
	if latest {
		old = cur
	} else if cur != old {
		return nil
	}
	v, delta, err := d.decode(p, old, body)
	if err != nil {
		if !errors.Is(err, digest.ErrBase) {
			p.mu.Lock()
			p.fetches.refused++
			p.mu.Unlock()
		}
		if delta && !resyncReason(err) {
			// A delta that does not decode (cut or changed on the way,
			// or a peer's bug) leaves the view behind: the full digest,
			// fetched at once, may well be sound.
			err = fmt.Errorf("%w: %w", errDeltaRefused, err)
		}
		return err
	}
	v.etag, v.modified, v.fetched, v.bytes = etag, modified, d.now(), len(body)
	p.mu.Lock()
	p.view = v
	switch {
	case pushed:
		p.fetches.pushed++
		p.pushedAt = v.fetched
	case delta:
		p.fetches.delta++
	default:
		p.fetches.full++
	}
	p.mu.Unlock()
	codec := "squid"
	switch {
	case v.static != nil:
		codec = staticCodec
	case p.cfg.Protocol != Squid:
		codec = envelope.Codec(body[7]).String()
	}
	if pushed {
		if d.cfg.OnPush != nil {
			d.cfg.OnPush(p.name, len(body), codec, delta)
		}
		return nil
	}
	d.fetched(p, 200, len(body), codec, delta)
	return nil
}

// pushCurrent reports whether p's view is kept current by the transport,
// so that polling it would only repeat what was pushed: the transport is
// connected, p is a bloomcast peer that can be reached, and it pushed a
// message within the last poll interval.
func (d *Directory) pushCurrent(p *Peer) bool {
	t := d.cfg.Transport
	if t == nil || p.cfg.Protocol != Bloomcast || !t.Connected() {
		return false
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.view != nil && !p.unreachable && !p.pushedAt.IsZero() && d.now().Sub(p.pushedAt) < d.cfg.PollInterval
}
