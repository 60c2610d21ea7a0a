// Package squidlog holds the vocabulary of Squid's native access log
// (squid.conf's logformat squid): the result codes of its %Ss field and
// the hierarchy codes of its %Sh field. The cache writes them and the node
// counts its outcomes by them; they are Squid's names, so that a log
// analyser written for Squid reads bloomcast's log unchanged.
package squidlog

// Squid result codes (the %Ss field of Squid's access log): how the cache
// answered a request.
const (
	CodeHit               = "TCP_HIT"                 // fresh stored response, from disk
	CodeMemHit            = "TCP_MEM_HIT"             // fresh stored response, from memory
	CodeIMSHit            = "TCP_IMS_HIT"             // the client's conditional request answered 304 from the cache
	CodeMiss              = "TCP_MISS"                // not in the cache (or not usable): forwarded
	CodeRefreshMiss       = "TCP_REFRESH_MISS"        // stale, without validators: fetched again
	CodeRefreshUnmodified = "TCP_REFRESH_UNMODIFIED"  // stale, revalidated: still valid (304)
	CodeRefreshModified   = "TCP_REFRESH_MODIFIED"    // stale, revalidated: replaced by a new response
	CodeClientRefreshMiss = "TCP_CLIENT_REFRESH_MISS" // the client asked for no-cache: forwarded
	CodeRefreshFailOld    = "TCP_REFRESH_FAIL_OLD"    // stale, the origin failed or could not be reached: the stored response served
	CodeRefreshFailErr    = "TCP_REFRESH_FAIL_ERR"    // stale, the origin could not be reached, and the stored response may not be served stale: 504
	CodeStaleHit          = "TCP_STALE_HIT"           // stale, served while revalidated in the background (stale-while-revalidate); Squid 2.7's code
	CodeAsyncHit          = "TCP_ASYNC_HIT"           // a background revalidation: the stored response is still valid (304)
	CodeAsyncMiss         = "TCP_ASYNC_MISS"          // a background revalidation: replaced, removed, or the origin failed
	CodeDenied            = "TCP_DENIED"              // refused (a method or request the proxy does not serve)
	CodeNone              = "NONE"                    // no cache lookup: a malformed request
)

// Squid hierarchy codes (the %Sh field): where a forwarded request went.
const (
	HierNone         = "HIER_NONE"      // answered locally, nothing forwarded
	HierDirect       = "HIER_DIRECT"    // to the origin server
	HierSiblingHit   = "SIBLING_HIT"    // a sibling that said it has the object (ICP)
	HierCDSiblingHit = "CD_SIBLING_HIT" // a sibling its cache digest said has the object
	HierParentHit    = "PARENT_HIT"     // a parent that said it has the object
)
