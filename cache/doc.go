// Package cache is the summary-cache node: a caching HTTP forward proxy
// that shares Bloom-filter digests of its contents with peer caches, so
// that a local miss is sent only to a peer that probably holds the object
// (Fan, Cao, Almeida and Broder, "Summary cache: a scalable wide-area web
// cache sharing protocol", IEEE/ACM ToN 2000).
//
// The HTTP caching core, independent of digests and peers:
//
//   - the caching rules of RFC 9111 for a shared cache: [Storable] (§3),
//     [FreshnessLifetime] with heuristic freshness (§4.2.1, §4.2.2),
//     [CurrentAge] (§4.2.3), [ParseCacheControl] (§5.2), Vary selection
//     ([Entry.MatchesVary], §4.1), request directives (no-cache, max-age,
//     min-fresh, max-stale, only-if-cached, no-store), validation of stale
//     responses (§4.3), stale-while-revalidate (RFC 5861 §3: served at
//     once, revalidated once in the background) and stale-if-error (RFC
//     5861 §4), collapsed forwarding of
//     concurrent misses, invalidation by unsafe methods (§4.4), and Range
//     requests answered from stored complete responses (§3.4; RFC 9110
//     §14: one range 206, several the whole 200, If-Range honoured;
//     partial responses are relayed, never stored);
//   - the header fields a stored response keeps ([StoredHeader], §3.1):
//     all but the hop-by-hop ones and those a qualified no-cache or
//     private lists; Set-Cookie is stored but, as in Squid, never served
//     from the cache;
//   - the cache key ([Key], [RequestKey]): the URL in Squid's canonical
//     form, shared by GET and HEAD, so the project's digests and Squid's
//     store keys (squid.StoreKeyCanonical(squid.GET, key)) name the same
//     objects;
//   - two [Store]s under a byte budget with least-recently-used eviction:
//     [Memory], and [Disk], which survives restarts (atomic writes, a
//     checksummed entry format, corrupt files dropped and logged);
//   - an [Observer] told of every key stored and removed, to keep a
//     counting filter of the cached keys exact;
//   - [Proxy], the forward-proxy http.Handler, which answers from the store
//     and forwards misses through a pluggable [Router] ([Direct] by
//     default), answering only-if-cached misses with 504 (§5.2.1.7), the
//     contract peers rely on; a miss streams to its client, and to the
//     requests collapsed onto it, as it arrives, a stalled one is cut at
//     Config.ReadTimeout, and a stale response answers when the origin
//     cannot be reached unless a directive forbids it (§4.2.4);
//   - an [AccessLog] in Squid's native format, so existing tools read it.
//
// The summary-cache node built on it:
//
//   - [Publisher]: a counting filter of the cached keys and the digest
//     published from it, full or as deltas, when a threshold of changes is
//     reached or the digest reaches its maximum age; [SquidDigest] serves
//     the same keys as a Squid Cache Digest;
//   - [Directory]: the peers' views, polled over HTTP (bloomcast digests
//     or Squid's), expired when a peer stops answering;
//   - [DigestRouter] and [ICPRouter]: a miss goes to the peer whose view
//     holds the key, or to the peers that answer ICP, else direct;
//   - [Node]: all of it behind one listener, with CONNECT tunnels,
//     Prometheus metrics, /healthz, reconfiguration ([Node.Reconfigure])
//     and a graceful stop; `bloomcast serve` runs one.
package cache
