package cache

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/bloomcast/bloomcast/internal/urlcanon"
)

// ErrNotAbsolute is returned for a request whose target is not an absolute
// URL (a proxy request carries the absolute form, RFC 9112 §3.2.2).
var ErrNotAbsolute = errors.New("cache: request target is not an absolute URL")

// errFragment is the refusal of a request target with a fragment, which
// a request-target never carries (RFC 9112 §3.2).
var errFragment = errors.New("cache: a fragment (#) in the request target is not allowed")

// Key returns the cache key of an absolute URL: the URL in the canonical
// form Squid writes into its store keys (scheme and
// host lower-cased, default port dropped, path and query untouched), with
// any fragment removed (a fragment is never sent to a server, RFC 9110
// §4.2.5).
//
// The key does not depend on the method: a GET and a HEAD of one URL share
// it, so a HEAD can be answered from a stored GET (RFC 9111 §4). The key is
// also the URL the stored entry records ([Entry.URL]), so the digest side
// can hash it for the project's digests, and Squid's store key of the same
// object is squid.StoreKeyCanonical(squid.GET, key).
func Key(rawURL string) (string, error) {
	if i := strings.IndexByte(rawURL, '#'); i >= 0 {
		rawURL = rawURL[:i]
	}
	k, err := urlcanon.Canonical(rawURL)
	if err != nil {
		return "", fmt.Errorf("cache: key of %q: %w", rawURL, err)
	}
	return k, nil
}

// requestKey returns the cache key ([Key]) of a proxy request. It prefers
// the request target exactly as received (r.RequestURI in absolute form),
// which is what Squid hashes, and falls back to r.URL for requests built
// in-process (client requests have no RequestURI). A target with a
// fragment has none: Key would cut the fragment, which the request
// forwarded keeps, and name another resource than the one asked for.
func requestKey(r *http.Request) (string, error) {
	target := r.RequestURI
	if !isAbsolute(target) {
		if r.URL == nil || !r.URL.IsAbs() || r.URL.Host == "" {
			return "", ErrNotAbsolute
		}
		target = r.URL.String()
	}
	if strings.IndexByte(target, '#') >= 0 {
		return "", errFragment
	}
	return Key(target)
}

// isAbsolute reports whether s starts with "scheme://".
func isAbsolute(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	for _, c := range s[:i] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
