package node

import (
	"sync/atomic"
)

// nodeCounters are the live counters behind nodeStats, updated where the
// metrics are.
type nodeCounters struct {
	localHits, peerHits, misses, other                 atomic.Uint64
	localHitBytes, peerHitBytes, missBytes, otherBytes atomic.Uint64
	falseHitRequests                                   atomic.Uint64
	peerHit, peerFalseHit, peerError                   atomic.Uint64
	fetchFull, fetchDelta, notModified                 atomic.Uint64
	inFull, inDelta                                    atomic.Uint64
	servedFull, servedDelta, servedSquid               atomic.Uint64
	outFull, outDelta, outSquid                        atomic.Uint64
	pushOut, pushOutBytes, pushIn, pushInBytes         atomic.Uint64
	pushedFull, pushedDelta                            atomic.Uint64
	httpOut, httpOutBytes                              atomic.Uint64
}

// pushed counts one digest or delta applied from the transport.
func (c *nodeCounters) pushed(delta bool) {
	if delta {
		c.pushedDelta.Add(1)
	} else {
		c.pushedFull.Add(1)
	}
}

// request counts a client request of outcome o that sent bytes.
func (c *nodeCounters) request(o string, bytes int64) {
	n, b := &c.other, &c.otherBytes
	switch o {
	case outcomeLocalHit:
		n, b = &c.localHits, &c.localHitBytes
	case outcomePeerHit:
		n, b = &c.peerHits, &c.peerHitBytes
	case outcomeMiss:
		n, b = &c.misses, &c.missBytes
	}
	n.Add(1)
	b.Add(uint64(max(bytes, 0)))
}

// peer counts one request to a peer.
func (c *nodeCounters) peer(o peerOutcome) {
	switch o {
	case peerOutcomeHit:
		c.peerHit.Add(1)
	case peerOutcomeFalseHit:
		c.peerFalseHit.Add(1)
	default:
		c.peerError.Add(1)
	}
}

// fetched counts one digest response from a peer.
func (c *nodeCounters) fetched(status, bytes int, delta bool) {
	switch {
	case status == 304:
		c.notModified.Add(1)
	case delta:
		c.fetchDelta.Add(1)
		c.inDelta.Add(uint64(max(bytes, 0)))
	default:
		c.fetchFull.Add(1)
		c.inFull.Add(uint64(max(bytes, 0)))
	}
}

// served counts one digest served to a peer: kind "full", "delta" or
// "squid".
func (c *nodeCounters) served(kind string, bytes int64) {
	n, b := &c.servedSquid, &c.outSquid
	switch kind {
	case "full":
		n, b = &c.servedFull, &c.outFull
	case "delta":
		n, b = &c.servedDelta, &c.outDelta
	}
	n.Add(1)
	b.Add(uint64(max(bytes, 0)))
}

// stats returns a snapshot of the node's counters. Safe for concurrent
// use; each counter is read atomically, the snapshot as a whole is not.
func (n *Node) stats() nodeStats {
	if n.metrics == nil { // a zero Node counts nothing
		return nodeStats{}
	}
	c := &n.metrics.counts
	s := nodeStats{
		LocalHits: c.localHits.Load(), PeerHits: c.peerHits.Load(), Misses: c.misses.Load(), Other: c.other.Load(),
		LocalHitBytes: c.localHitBytes.Load(), PeerHitBytes: c.peerHitBytes.Load(),
		MissBytes: c.missBytes.Load(), OtherBytes: c.otherBytes.Load(), FalseHitRequests: c.falseHitRequests.Load(),
		PeerAskHits: c.peerHit.Load(), PeerAskFalseHits: c.peerFalseHit.Load(), PeerAskErrors: c.peerError.Load(),
		DigestFetchesFull: c.fetchFull.Load(), DigestFetchesDelta: c.fetchDelta.Load(), DigestNotModified: c.notModified.Load(),
		DigestInFullBytes: c.inFull.Load(), DigestInDeltaBytes: c.inDelta.Load(),
		DigestServedFull: c.servedFull.Load(), DigestServedDelta: c.servedDelta.Load(), DigestServedSquid: c.servedSquid.Load(),
		DigestOutFullBytes: c.outFull.Load(), DigestOutDeltaBytes: c.outDelta.Load(), DigestOutSquidBytes: c.outSquid.Load(),
		ICPServer:     n.icpServer.Stats(),
		TransportSent: c.pushOut.Load(), TransportSentBytes: c.pushOutBytes.Load(),
		TransportReceived: c.pushIn.Load(), TransportReceivedBytes: c.pushInBytes.Load(),
		DigestPushedFull: c.pushedFull.Load(), DigestPushedDelta: c.pushedDelta.Load(),
		DigestHTTPServed: c.httpOut.Load(), DigestHTTPServedBytes: c.httpOutBytes.Load(),
	}
	if cl := n.icpClientOrNil(); cl != nil {
		s.ICPClient = cl.Stats()
	}
	return s
}
