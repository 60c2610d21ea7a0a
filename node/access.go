package node

import (
	"context"
	"time"

	"github.com/bloomcast/bloomcast/internal/nodeaccess"
)

// The counters and the step-by-step driving that the cluster replay
// (sim/replay) needs, given to it through internal/nodeaccess rather
// than as API: a deployment reads the same numbers from Metrics.
type (
	nodeStats      = nodeaccess.Stats
	peerStatus     = nodeaccess.PeerStatus
	publisherStats = nodeaccess.PublisherStats
)

func init() {
	nodeaccess.NodeStats = func(n any) nodeaccess.Stats { return n.(*Node).stats() }
	nodeaccess.Peers = func(n any) []nodeaccess.PeerStatus { return n.(*Node).directory.status() }
	nodeaccess.Publisher = func(n any) nodeaccess.PublisherStats { return n.(*Node).publisher.stats() }
	nodeaccess.PublishIfDue = func(n any) (bool, error) { return n.(*Node).publisher.publishIfDue() }
	nodeaccess.PushIfDue = func(ctx context.Context, n any) (bool, time.Time, error) { return n.(*Node).pushIfDue(ctx) }
	nodeaccess.DigestSince = func(n any, since uint64) (uint64, int, error) {
		r, err := n.(*Node).publisher.respond("", since)
		return r.Sequence, len(r.Body), err
	}
	nodeaccess.SetLookup = func(p any, contains func(string) bool) { setLookup(p.(*Peer), contains) }
}
