// Package replay replays a proxy trace through a cluster of real cache
// nodes (package node) on loopback and counts what cooperation costs and
// gains: the experiment of Fan, Cao, Almeida and Broder ("Summary cache: a
// scalable wide-area web cache sharing protocol", IEEE/ACM Transactions on
// Networking 8(3), 2000), run on bloomcast's own node. Its parts:
//
//   - trace.go: traces, read from Squid's native access.log
//     ([ParseAccessLog]) or drawn with Zipf popularity shifted per node,
//     lognormal sizes and churn ([SyntheticTrace]);
//   - cluster.go: the replay ([ReplayCluster]): an origin and one node per
//     proxy, one run per [Mode] (no cooperation, ICP, or the summary cache
//     by threshold, digest size, codec and update kind), on virtual time,
//     counting hits, false hits, messages and bytes from the nodes' stats;
//   - cluster_static.go: the static modes' digests (Mode.Static): each
//     node's digest.StaticPublisher and its peers' digest.StaticViews,
//     which the nodes' directories route misses through;
//   - cluster_propagation.go: how digests reach the peers: publication and
//     propagation after each request, polling on a schedule of trace time
//     (ClusterConfig.PollInterval), or a digest transport
//     (ClusterConfig.Transport) with the time until every peer holds a
//     publication;
//   - cpu*.go: the process's CPU time, which each run reports.
//
// The results set out with each mode against ICP, as "bloomcast simulate"
// prints them, and their cost chart are bloomcast's internal/report.
package replay
