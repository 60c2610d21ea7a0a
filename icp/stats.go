package icp

import "sync/atomic"

// Traffic counts ICP messages and their bytes as an evaluation counts
// inter-node traffic. Bytes are ICP messages (UDP payloads); each
// datagram also costs 28 bytes of IPv4 and UDP headers (48 over IPv6).
// The zero value counts nothing.
type Traffic struct {
	MessagesSent     uint64
	BytesSent        uint64
	MessagesReceived uint64 // every datagram read, including those dropped
	BytesReceived    uint64
}

// traffic is the live, atomically updated form of Traffic.
type traffic struct {
	msgsOut, bytesOut, msgsIn, bytesIn atomic.Uint64
}

func (t *traffic) sent(n int) {
	t.msgsOut.Add(1)
	t.bytesOut.Add(uint64(n))
}

func (t *traffic) received(n int) {
	t.msgsIn.Add(1)
	t.bytesIn.Add(uint64(n))
}

func (t *traffic) snapshot() Traffic {
	return Traffic{
		MessagesSent: t.msgsOut.Load(), BytesSent: t.bytesOut.Load(),
		MessagesReceived: t.msgsIn.Load(), BytesReceived: t.bytesIn.Load(),
	}
}

// ServerStats is a snapshot of a Server's counters.
// The zero value counts nothing.
type ServerStats struct {
	Traffic
	Queries      uint64 // well-formed queries received
	Hits         uint64 // ICP_OP_HIT replies
	Misses       uint64 // ICP_OP_MISS replies
	NoFetch      uint64 // ICP_OP_MISS_NOFETCH replies
	Denied       uint64 // ICP_OP_DENIED replies
	Errors       uint64 // ICP_OP_ERR replies (unusable URL)
	Malformed    uint64 // datagrams dropped because they did not decode
	Ignored      uint64 // well-formed messages dropped because they are not queries
	SendFailures uint64 // replies the socket refused
	Unanswered   uint64 // queries left unanswered, over the reply rate (ICP_OP_DENIED's or all replies')
}

// Answered is the number of queries the server has finished with: the
// replies of every opcode, the replies that could not be sent and the
// queries left unanswered over the reply rate. A reply
// is counted after the socket has taken it, so the peer that asked can
// have its answer before it shows here; once the server is idle, Answered
// equals Queries.
func (s ServerStats) Answered() uint64 {
	return s.Hits + s.Misses + s.NoFetch + s.Denied + s.Errors + s.SendFailures + s.Unanswered
}

type serverCounters struct {
	traffic
	queries, hits, misses, noFetch, denied, errs, malformed, ignored, sendFailures, unanswered atomic.Uint64
}

func (c *serverCounters) snapshot() ServerStats {
	return ServerStats{
		Traffic: c.traffic.snapshot(), Queries: c.queries.Load(),
		Hits: c.hits.Load(), Misses: c.misses.Load(), NoFetch: c.noFetch.Load(),
		Denied: c.denied.Load(), Errors: c.errs.Load(), Malformed: c.malformed.Load(),
		Ignored: c.ignored.Load(), SendFailures: c.sendFailures.Load(), Unanswered: c.unanswered.Load(),
	}
}

// ClientStats is a snapshot of a Client's counters.
// The zero value counts nothing.
type ClientStats struct {
	Traffic
	Queries      uint64 // Query calls that sent to at least one peer
	Hits         uint64 // queries ended by a hit
	Misses       uint64 // queries every peer answered without a hit
	Timeouts     uint64 // queries whose timeout expired first
	Canceled     uint64 // queries ended by their context or by Close
	Unmatched    uint64 // replies dropped: unknown or expired request number, unexpected sender, another URL, a repeat
	Malformed    uint64 // datagrams dropped because they did not decode
	SendFailures uint64 // queries the socket refused
}

type clientCounters struct {
	traffic
	queries, hits, misses, timeouts, canceled, unmatched, malformed, sendFailures atomic.Uint64
}

func (c *clientCounters) snapshot() ClientStats {
	return ClientStats{
		Traffic: c.traffic.snapshot(), Queries: c.queries.Load(),
		Hits: c.hits.Load(), Misses: c.misses.Load(), Timeouts: c.timeouts.Load(),
		Canceled: c.canceled.Load(), Unmatched: c.unmatched.Load(),
		Malformed: c.malformed.Load(), SendFailures: c.sendFailures.Load(),
	}
}
