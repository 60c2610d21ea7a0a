package originclient

import (
	"io"
	"net/http"
	"net/http/httptest"
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
	client := New(nil)
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
