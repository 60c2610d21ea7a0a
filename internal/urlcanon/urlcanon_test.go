package urlcanon

import (
	"net/url"
	"strings"
	"testing"
)

// canonicalURLByParts is Canonical written the plain way, every host
// checked by url.Parse and the result always built: the reference its
// shortcuts (plainHost, returning raw) must agree with. Both split the
// URL with urlParts.
func canonicalURLByParts(raw string) (string, error) {
	scheme, userinfo, host, port, path, err := urlParts(raw)
	if err != nil {
		return "", err
	}
	if _, err := url.Parse(scheme + "://" + host); err != nil {
		return "", err
	}
	host = strings.ToLower(host)
	if port != "" && port != defaultPorts[scheme] {
		host += ":" + port
	}
	return scheme + "://" + userinfo + host + path, nil
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"http://www.example.com/", "HTTP://WWW.Example.COM:80/A/B?Q=1", "http://example.com?x",
		"ftp://user@FTP.example.com:21/f", "http://[2001:DB8::1]:8080/", "http://a_b~c.d-e:81", "1http://x/", "h+t.t-p://x/",
		"http://a%41/", "http://a b/", "http://a\x7f/", "http://a:b:c/", "http://é.example/", "http://x:/", "https://x:443"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := Canonical(raw)
		want, werr := canonicalURLByParts(raw)
		if (err == nil) != (werr == nil) || got != want {
			t.Fatalf("Canonical(%q) = %q, %v; by parts %q, %v", raw, got, err, want, werr)
		}
	})
}
