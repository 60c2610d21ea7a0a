// Package cache is an HTTP cache (RFC 9111): a caching forward proxy,
// its stores and its access log, independent of digests and peers.
// Package node builds the summary-cache node on it.
//
// It holds:
//
//   - the caching rules of RFC 9111 for a shared cache: which responses may
//     be stored (§3), freshness lifetimes with heuristic freshness (§4.2.1,
//     §4.2.2), the current age (§4.2.3), the Cache-Control directives (§5.2),
//     Vary selection (§4.1), request directives
//     (no-cache, max-age, min-fresh, max-stale, only-if-cached, no-store),
//     validation of stale responses (§4.3), stale-while-revalidate (RFC 5861
//     §3: served at once, revalidated once in the background) and
//     stale-if-error (RFC 5861 §4), collapsed forwarding of concurrent
//     misses, invalidation by unsafe methods (§4.4), and Range requests
//     answered from stored complete responses (§3.4; RFC 9110 §14: one range
//     206, several the whole 200, If-Range honoured; partial responses are
//     relayed, never stored);
//   - the header fields a stored response keeps (§3.1): all but the
//     hop-by-hop ones and those a qualified no-cache or private lists;
//     Set-Cookie is stored but, as in Squid, never served from the cache;
//   - the cache key ([Key]): the URL in Squid's canonical form, shared by GET
//     and HEAD, so the project's digests and Squid's store keys
//     (squid.StoreKeyCanonical(squid.GET, key)) name the same objects;
//   - two [Store]s under a byte budget with least-recently-used eviction:
//     [Memory], and [Disk], which survives restarts (atomic writes, a
//     checksummed entry format, corrupt files dropped and logged);
//   - an [Observer] told of every key stored and removed, to keep a
//     counting filter of the cached keys exact;
//   - [Proxy], the forward-proxy http.Handler, which answers from the store
//     and forwards misses through a pluggable [Router] ([Direct] by
//     default), answering only-if-cached misses with 504 (§5.2.1.7), the
//     contract peers rely on; a miss streams to its client, and to the
//     requests collapsed onto it, as it arrives, each client at its own
//     pace, a stalled response is cut at Config.ReadTimeout, and a stale response answers when the origin
//     cannot be reached unless a directive forbids it (§4.2.4);
//   - an access log (Config.AccessLog) in Squid's native format, so
//     existing tools read it.
package cache
