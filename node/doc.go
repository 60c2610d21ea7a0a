// Package node is the summary-cache node: a caching HTTP forward proxy
// (package cache) that shares Bloom-filter digests of its contents with
// peer caches, so that a local miss is sent only to a peer that probably
// holds the object (Fan, Cao, Almeida and Broder, "Summary cache: a
// scalable wide-area web cache sharing protocol", IEEE/ACM ToN 2000).
//
// It uses package cache through its API: a [cache.Proxy] over a
// [cache.Store] whose [cache.Observer] keeps the digest's counting filter
// exact, a [cache.Router] that asks peers first, and the proxy's access
// log for the node's own refusals and tunnels.
//
// It holds:
//
//   - [Publisher]: a counting filter of the cached keys and the digest
//     published from it, full or as deltas, when a threshold of changes is
//     reached or the digest reaches its maximum age ([Node.Publisher]);
//     the node serves the same keys as a Squid Cache Digest at
//     /squid-internal-periodic/store_digest, where Squid serves its own;
//   - [Directory]: the peers' views, polled over HTTP (bloomcast digests
//     or Squid's), expired when a peer stops answering;
//   - the routers (unexported; [NodeConfig.Route] picks one): a miss goes
//     to the peer whose view holds the key, or to the peers that answer
//     ICP, else direct;
//   - [Node]: all of it behind one listener, with CONNECT tunnels,
//     Prometheus metrics, /healthz, reconfiguration ([Node.Reconfigure])
//     and a graceful stop; `bloomcast serve` runs one, with its flags
//     from internal/nodeflags and its status page's model from
//     internal/nodestatus.
//
// A program configures a node with one [NodeConfig], from which the node
// builds its parts and its [cache.Config], and each peer with a
// [PeerConfig]. The publisher and the directory are exported for programs
// that drive a node step by step, as the simulator (sim/replay) and the
// tests do with [NodeConfig.Manual]: publish now, fetch a peer's digest
// now, read the sequence each side is at.
// The enumerations among their fields are typed and parsed alike:
// [Route] ([ParseRoute]), [PeerViews] ([ParsePeerViews]) and [Protocol]
// ([ParseProtocol]).
package node
