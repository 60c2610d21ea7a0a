package originclient

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// TestClientKeepsConnections: the client New builds keeps as many
// idle connections to an origin as it had requests in flight, so a burst
// of concurrent misses reuses the connections of the one before instead
// of redialling all but net/http's default two.
func TestClientKeepsConnections(t *testing.T) {
	const concurrent, bursts = 64, 3
	burst := &testutil.Burst{N: concurrent}
	srv := httptest.NewUnstartedServer(burst.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	})))
	srv.Config.ConnState = burst.ConnState
	srv.Start()
	t.Cleanup(srv.Close)
	client := New(nil, nil)
	t.Cleanup(client.CloseIdleConnections)
	for range bursts {
		burst.Run(func(int) {
			resp, err := client.Get(srv.URL)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("status %d", resp.StatusCode)
			}
		})
	}
	if n := burst.Connections(); n > concurrent {
		t.Errorf("%d connections for %d bursts of %d concurrent requests, want at most %d", n, bursts, concurrent, concurrent)
	}
}

// TestDenyControl: an address within a denied prefix is refused with
// ErrDenied, an IPv4 address mapped into IPv6 as the IPv4 address, and
// others pass; no prefixes, no Control function.
func TestDenyControl(t *testing.T) {
	if DenyControl(nil) != nil {
		t.Error("DenyControl(nil) is a function; want nil, so the dialer checks nothing")
	}
	control := DenyControl([]netip.Prefix{netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("fe80::/10")})
	for addr, denied := range map[string]bool{
		"169.254.169.254:80":          true,
		"[::ffff:169.254.169.254]:80": true,
		"[fe80::1%eth0]:443":          true,
		"[fe80::1]:443":               true,
		"127.0.0.1:80":                false,
		"10.1.2.3:8080":               false,
		"[2001:db8::1]:80":            false,
		"example.com:80":              true, // not an address: never dialled as one
	} {
		err := control("tcp", addr, nil)
		if got := errors.Is(err, ErrDenied); got != denied {
			t.Errorf("%s: %v; want denied %v", addr, err, denied)
		}
	}
}
