package cli

var serveCommand = &command{
	name:    "serve",
	summary: "run a summary-cache node: a caching proxy sharing digests with its peers",
	usage: `usage: bloomcast serve [--config FILE] [--check-config] [flags]

Run a caching HTTP forward proxy that publishes a compressed digest of its
contents (a Bloom filter, kept exact by a counting filter) and fetches its
peers' digests, so that a miss goes only to a peer that probably holds the
object (Fan, Cao, Almeida and Broder, "Summary cache"). It speaks Squid's
Cache Digests too, as server and client, and ICP. With no flags it is a
single node on 127.0.0.1:3128 with a 256 MiB memory cache.

The proxy port also serves, to allowed peers and locally:
  /bloomcast/digest                      the digest (?since=SEQ for a delta;
                                         ETag and If-None-Match)
  /squid-internal-periodic/store_digest  a Squid Cache Digest (version 5)
  /metrics                               Prometheus metrics
  /healthz                               "ok", or 503 with the reason on one
                                         line while this node's digest is
                                         overdue (changes pending, older than
                                         --max-digest-age: publication fails)
                                         or a background loop is down
CONNECT host:port from an allowed client opens a tunnel (HTTPS through the
proxy) when the port is in --connect-ports: bytes are copied unchanged both
ways, never cached, until both sides close, the tunnel is idle for
--tunnel-idle-timeout or --tunnel-lifetime old; any other port gets 403.
The access log says TCP_TUNNEL/200 with the bytes sent to the client, and
/metrics counts tunnels and their bytes each way.
SIGINT or SIGTERM stops it gracefully: requests in flight finish first.
SIGHUP reads the config FILE and the command line again and applies, without
dropping the cache or the peers' digests, the peers (a peer left unchanged
keeps its digest), --allow-clients, --allow-peers, --threshold,
--max-digest-age and --log-level, and reopens the access log (at its new
path if it changed), as logrotate expects. Other flags change only when the
node starts again, which the log says. A configuration with an error is
logged and the running one kept.

The config FILE holds one flag per line, "name value" (or "name = value"),
# comments; flags on the command line come after it and win (a --peer on
the command line adds a peer). A value that means nothing (a size, count,
duration or threshold of 0, a negative duration, an empty list, a peer
that is this node) is refused with the flag's name, and the file and line
when it comes from the FILE.

flags:
  --check-config         check the configuration, print "ok" and exit (status
                         0), or print the first error and exit with status 2
  --listen ADDR          proxy address (default 127.0.0.1:3128)
  --icp ADDR             ICP (UDP) address, e.g. 127.0.0.1:3130 (default none)
  --name NAME            the node's name in Via and X-Cache headers (default:
                         the host name); a peer's X-Cache is kept, this
                         node's added after it
  --memory SIZE          memory cache budget (default 256MiB)
  --disk DIR             keep the cache on disk in DIR instead (survives
                         restarts)
  --disk-size SIZE       disk cache budget (default 1GiB)
  --max-object SIZE      largest object stored, at most the cache's budget
                         (default 4MiB)
  --capacity N           objects the digests are sized for, at least 1
                         (default 100000); when the cache holds more, both
                         digests are rebuilt at twice the size, logged and
                         sent to peers in full (/metrics:
                         bloomcast_summary_capacity_objects and
                         bloomcast_summary_predicted_false_positive_rate)
  --bits-per-entry X     digest bits per object, m/n (default 16)
  --hash-functions K     the digest's k, 1 to 64 (default: the best for
                         --bits-per-entry; "bloomcast calc --compressed"
                         gives a larger m/n and a smaller k that code
                         smaller at the same rate)
  --threshold F          fraction of the cache changed that publishes a new
                         digest, in (0, 1] (default 0.01)
  --max-digest-age DUR   publish at least this often when anything changed
                         (default 5m)
  --codec C              digest codec: fast, arith, raw or auto (default fast)
  --squid-bits N         bits per entry of the Squid digest, 1 to 255
                         (default 5)
  --peer SPEC            a peer; repeat for more. SPEC is the peer's proxy URL,
                         or comma-separated key=value pairs: proxy=URL,
                         name=NAME, protocol=bloomcast|squid, digest=URL,
                         icp=IP:PORT
  --route R              how misses are routed: digest, icp or none
                         (default digest)
  --poll DUR             how often peers' digests are fetched (default 30s)
  --nats URL             also push this node's digests to, and take its
                         peers' from, a NATS JetStream server
                         (nats://host:port; command line only): each update
                         is published once, a node that starts gets every
                         peer's current digest at once, and a peer is polled
                         over HTTP only while NATS cannot be reached or it
                         pushes nothing; bloomcast peers need name=, their
                         --name. Only the build from the cluster module has
                         it (go -C cluster build -o ../bloomcast
                         ./cmd/bloomcast); /metrics counts digest messages
                         and bytes by transport
                         (bloomcast_digest_messages_total)
  --push-interval DUR    with --nats, push at most one update per DUR: the
                         publications made meanwhile go as one delta when it
                         ends (default 0: push every publication)
  --peer-expiry DUR      drop a silent peer's digest after, at least --poll
                         (default 4 polls)
  --max-digest SIZE      largest digest accepted from a peer (default 64MiB)
  --no-delta             always fetch peers' full digests, never deltas
  --peer-views FORM      how peers' digests are held: decoded (default: the
                         bit array) or compressed (coded in 1 KiB pieces, a
                         few decoded pieces cached; a delta recodes only the
                         pieces it changes): less memory for digests that
                         compress, slower lookups (/metrics:
                         bloomcast_peer_view_bytes)
  --peer-timeout DUR     wait for a peer's response headers (default 5s)
  --icp-timeout DUR      wait for ICP replies (default 2s)
  --allow-clients CIDRS  comma-separated ranges allowed to use the proxy
                         (default loopback)
  --allow-peers CIDRS    ranges allowed to fetch digests and query ICP
                         (default loopback)
  --connect-ports PORTS  comma-separated ports CONNECT may reach (default 443)
  --tunnel-idle-timeout DUR
                         close a tunnel nothing has crossed for this long
                         (default 15m, Squid's read_timeout)
  --tunnel-lifetime DUR  close a tunnel this old (default 24h, Squid's
                         client_lifetime)
  --access-log FILE      Squid-format access log ("-": standard output)
  --log-level L          debug, info, warn or error (default info)
  --log-format F         text or json (default text), on standard error
`,
	run: runServe,
}
