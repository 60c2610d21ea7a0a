package squid

import (
	"crypto/md5"
	"fmt"

	"github.com/bloomcast/bloomcast/internal/urlcanon"
)

// Method is an HTTP method as Squid numbers it in store keys
// (HttpRequestMethod's Http::MethodType).
// The zero value is Squid's METHOD_NONE, which no cache stores; StoreKey
// hashes it like any other method byte.
type Method uint8

// The methods whose responses caches store.
const (
	GET  Method = 1
	HEAD Method = 4
)

// StoreKey returns Squid's public store key for a request: MD5 of the
// method byte followed by the canonical URL (storeKeyPublic in
// store_key_md5.cc). The URL is canonicalised first (CanonicalURL).
func StoreKey(m Method, rawURL string) ([16]byte, error) {
	u, err := CanonicalURL(rawURL)
	if err != nil {
		return [16]byte{}, err
	}
	return StoreKeyCanonical(m, u), nil
}

// StoreKeyCanonical is StoreKey for a URL already in canonical form.
func StoreKeyCanonical(m Method, canonical string) [16]byte {
	b := make([]byte, 0, 1+len(canonical))
	b = append(b, byte(m))
	return md5.Sum(append(b, canonical...))
}

// CanonicalURL returns the URL as Squid writes it into store keys
// (AnyP::Uri::absolute): scheme and host lower-cased, the default port of
// the scheme dropped, user information dropped except for ftp, an empty
// path written "/", and the path and query otherwise untouched (no
// percent-decoding, no dot-segment removal). The cache key of package
// cache is the same form (one implementation, internal/urlcanon).
func CanonicalURL(raw string) (string, error) {
	u, err := urlcanon.Canonical(raw)
	if err != nil {
		return "", fmt.Errorf("squid: %w", err)
	}
	return u, nil
}
