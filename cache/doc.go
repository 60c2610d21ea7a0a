// Package cache is the summary-cache node: a caching HTTP forward proxy
// that shares Bloom-filter digests of its contents with peer caches, so
// that a local miss is sent only to a peer that probably holds the object
// (Fan, Cao, Almeida and Broder, "Summary cache: a scalable wide-area web
// cache sharing protocol", IEEE/ACM ToN 2000).
//
// This file set is the HTTP caching core, independent of digests and
// peers:
//
//   - the caching rules of RFC 9111 for a shared cache: [Storable] (§3),
//     [FreshnessLifetime] with heuristic freshness (§4.2.1, §4.2.2),
//     [CurrentAge] (§4.2.3), [ParseCacheControl] (§5.2), Vary selection
//     ([Entry.MatchesVary], §4.1), request directives (no-cache, max-age,
//     min-fresh, max-stale, only-if-cached, no-store), validation of stale
//     responses (§4.3) and invalidation by unsafe methods (§4.4);
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
//     contract peers rely on;
//   - an [AccessLog] in Squid's native format, so existing tools read it.
//
// Still to come in this package: the counting filter of cached keys and
// its digest publication, peer views and digest routing, ICP, metrics and
// the serve loop.
package cache
