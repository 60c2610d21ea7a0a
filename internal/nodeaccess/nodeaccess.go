// Package nodeaccess lets the programs of this module that embed nodes,
// the cluster replay of package sim/replay, read a node's counters as
// plain numbers and drive its publications step by step, without making
// either part of package node's API. A simulation settles after every
// request by reading the counters, far more often than a scrape of the
// node's metrics would allow; every other program reads the same numbers
// from those metrics (node.Node.Metrics).
//
// Package node sets the functions below when it is initialised. They
// take its *node.Node as any because this package cannot import node.
package nodeaccess

import (
	"context"
	"time"

	"github.com/bloomcast/bloomcast/icp"
)

// Stats is a snapshot of a node's counters: the events its Prometheus
// metrics count. Counts start at zero when the node is built.
type Stats struct {
	// Client requests by outcome (local_hit, peer_hit, miss, other), and the bytes
	// sent to clients for each, headers included. PeerHitBytes is thus
	// the object traffic fetched from peers.
	LocalHits, PeerHits, Misses, Other                 uint64
	LocalHitBytes, PeerHitBytes, MissBytes, OtherBytes uint64
	// FalseHitRequests counts client requests that met at least one
	// false hit on their way (counted once, whatever their outcome).
	FalseHitRequests uint64

	// Requests to peers with only-if-cached, by result: PeerAskHits
	// (the peer served the object), PeerAskFalseHits (504: the summary
	// or the ICP answer erred), PeerAskErrors.
	PeerAskHits, PeerAskFalseHits, PeerAskErrors uint64

	// Digest responses fetched from peers: full digests, deltas and 304s,
	// and the body bytes of each kind (the frames, as OnFetch reports).
	DigestFetchesFull, DigestFetchesDelta, DigestNotModified uint64
	DigestInFullBytes, DigestInDeltaBytes                    uint64
	// Digest responses served to peers (status 200), by kind: the
	// project's full digests and deltas, and Squid digests; bytes as
	// bloomcast_digest_out_bytes_total counts them: the response's
	// status line and header fields as well as its body.
	DigestServedFull, DigestServedDelta, DigestServedSquid       uint64
	DigestOutFullBytes, DigestOutDeltaBytes, DigestOutSquidBytes uint64
	// The digest transport (node.NodeConfig.Transport): messages published
	// and delivered (alive messages, with no frame, included) and their
	// frames' bytes, and the full digests and deltas delivered that were
	// applied to a peer's view.
	TransportSent, TransportSentBytes uint64
	// DigestHTTPServed counts every digest response served over HTTP,
	// 304s included, and DigestHTTPServedBytes their bytes with their
	// status lines and header fields.
	DigestHTTPServed, DigestHTTPServedBytes   uint64
	TransportReceived, TransportReceivedBytes uint64
	DigestPushedFull, DigestPushedDelta       uint64

	// ICP: the node's client (queries it sent, replies it read; zero
	// until Serve opens an ICP socket) and server (queries it answered).
	ICPClient icp.ClientStats
	ICPServer icp.ServerStats
}

// PeerStatus is what a node knows of one peer: its view and how it was
// kept up to date.
type PeerStatus struct {
	Name        string
	Protocol    string
	HasView     bool
	Sequence    uint64
	Age         time.Duration // since the view was fetched
	SinceAnswer time.Duration // since the peer last answered
	Fill        float64
	// FalsePos is the false-positive rate the view predicts from its
	// fill and its number of hash functions (fill^k): the share of
	// this node's misses that will be sent to the peer in vain.
	FalsePos float64
	// Unreachable is set while the peer's last fetch found it down.
	Unreachable bool
	Bytes       int // size of the last digest or delta fetched
	// Form is how the view is held (compressed or decoded, node.PeerViews,
	// or static for a static digest) and
	// HeldBytes the memory it holds: the decoded array, or the coded
	// pieces, their index and the decoded pieces cached, or the static
	// digest's ribbon and two filters. A static view's Fill is 0 and its
	// FalsePos the ribbon's rate plus the added filter's
	// (digest.StaticView.FalsePositiveRate).
	Form                                      string
	HeldBytes                                 int
	Failures                                  int
	LastError                                 string
	Full, Delta, NotModified, Resync, Refused uint64
	// Pushed counts the digests and deltas applied from the digest
	// transport (Directory.receive); Full and Delta count polled ones.
	Pushed uint64
}

// PublisherStats is the state of a node's own digest.
type PublisherStats struct {
	Sequence    uint64
	Published   time.Time
	Keys        uint64  // keys in the filter
	Pending     uint64  // stores and evictions not yet published
	Missing     uint64  // evictions of keys the filter did not hold
	DigestBytes int     // size of the current full digest
	Codec       string  // its codec
	Fill        float64 // fraction of bits set in the published view
	FalsePos    float64 // false-positive rate of the published view, from its fill
	// Capacity is the number of keys the filter is sized for (its
	// Config.N, doubled by each Resize); 0 when it was configured by M
	// and K alone. PredictedFalsePos is the false-positive rate the
	// filter's shape predicts for the keys it holds (params.
	// ApproxFalsePositive of m, Keys and k), which climbs past the
	// configured rate once Keys passes Capacity.
	// TargetFalsePos is the rate the shape predicts at Capacity keys:
	// the configured target.
	Capacity          uint64
	PredictedFalsePos float64
	TargetFalsePos    float64
	Resizes           uint64 // rebuilds by Resize
}

// Functions package node provides; n is a *node.Node.
var (
	// NodeStats returns a snapshot of n's counters.
	NodeStats func(n any) Stats
	// Peers returns the status of each of n's peers, in order.
	Peers func(n any) []PeerStatus
	// Publisher returns the state of n's digest.
	Publisher func(n any) PublisherStats
	// PublishIfDue publishes n's digest if its interval or its threshold
	// of changes says so (what the background publication does), and
	// reports whether it did.
	PublishIfDue func(n any) (bool, error)
	// PushIfDue pushes n's digest through its transport if its push
	// interval allows, reporting whether it did and when one is due next.
	PushIfDue func(ctx context.Context, n any) (bool, time.Time, error)
	// DigestSince answers a peer that holds n's publication since (0:
	// none), as the digest endpoint would: the sequence answered and the
	// bytes of the body sent, a delta when the history holds since.
	DigestSince func(n any, since uint64) (seq uint64, bytes int, err error)
	// SetLookup makes the directory's Candidates ask contains whether a
	// key may be at peer (a *node.Peer), in place of a digest it fetched:
	// for a summary that reaches the node another way, such as a static
	// digest a simulation applies as the peer publishes it. Its caller
	// keeps it current: it does not expire. nil returns the peer to its
	// fetched view.
	SetLookup func(peer any, contains func(key string) bool)
)
