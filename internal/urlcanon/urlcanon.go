// Package urlcanon writes an absolute URL in the canonical form Squid
// writes into its store keys. Package cache keys its entries by it and
// package formats/squid hashes it into Squid's store keys, so that the
// two name an object alike: one implementation for both, neither
// importing the other.
package urlcanon

import (
	"fmt"
	"net/url"
	"strings"
)

var defaultPorts = map[string]string{"http": "80", "https": "443", "ftp": "21", "gopher": "70", "wais": "210"}

// Canonical returns the URL as Squid writes it into store keys
// (AnyP::Uri::absolute): scheme and host lower-cased, the default port of
// the scheme dropped, user information dropped except for ftp, an empty
// path written "/", and the path and query otherwise untouched (no
// percent-decoding, no dot-segment removal).
func Canonical(raw string) (string, error) {
	scheme, userinfo, host, port, path, err := urlParts(raw)
	if err != nil {
		return "", err
	}
	if !plainHost(scheme, host) {
		if _, err := url.Parse(scheme + "://" + host); err != nil {
			return "", fmt.Errorf("bad host in %q: %w", raw, err)
		}
	}
	host = strings.ToLower(host)
	if port != "" && port != defaultPorts[scheme] {
		if isConcat(raw, scheme, "://", userinfo, host, ":", port, path) {
			return raw, nil // already canonical: no copy
		}
		host += ":" + port
	} else if isConcat(raw, scheme, "://", userinfo, host, path) {
		return raw, nil
	}
	return scheme + "://" + userinfo + host + path, nil
}

// urlParts splits an absolute URL into the parts Canonical writes: the
// scheme lower-cased, the user information with its "@" (for ftp only;
// empty otherwise), host and port as written, and the path ("/" when
// there is none, and before a query that follows the authority).
func urlParts(raw string) (scheme, userinfo, host, port, path string, err error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || scheme == "" {
		return "", "", "", "", "", fmt.Errorf("%q is not an absolute URL", raw)
	}
	scheme = strings.ToLower(scheme)
	authority, path := rest, "/"
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority, path = rest[:i], rest[i:]
		if path[0] == '?' {
			path = "/" + path
		}
	}
	hostport := authority
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		userinfo, hostport = authority[:i+1], authority[i+1:]
	}
	if scheme != "ftp" {
		userinfo = ""
	}
	host, port = splitHostPort(hostport)
	if host == "" {
		return "", "", "", "", "", fmt.Errorf("%q has no host", raw)
	}
	return scheme, userinfo, host, port, path, nil
}

// plainHost reports whether url.Parse accepts scheme://host without
// looking: a scheme of a letter then letters, digits, "+", "-" or ".",
// and a host of letters, digits, ".", "-", "_" and "~" only (unreserved
// characters, RFC 3986 §2.3), the common case that is then not parsed.
func plainHost(scheme, host string) bool {
	if scheme == "" || host == "" {
		return false
	}
	for i := 0; i < len(scheme); i++ {
		c := scheme[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// isConcat reports whether s is the concatenation of parts.
func isConcat(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.HasPrefix(s, p) {
			return false
		}
		s = s[len(p):]
	}
	return s == ""
}

// splitHostPort splits "host:port", keeping IPv6 brackets on the host.
func splitHostPort(hp string) (host, port string) {
	if strings.HasPrefix(hp, "[") {
		if i := strings.IndexByte(hp, ']'); i >= 0 {
			host, rest := hp[:i+1], hp[i+1:]
			return host, strings.TrimPrefix(rest, ":")
		}
		return hp, ""
	}
	if i := strings.LastIndexByte(hp, ':'); i >= 0 {
		return hp[:i], hp[i+1:]
	}
	return hp, ""
}
