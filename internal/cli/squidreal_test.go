package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/squidtest"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// TestRealSquidAcceptsAddedDigest builds a Squid digest, adds a URL to it
// with "bloomcast add", and serves the file as a sibling's store digest
// to a real Squid (Debian's squid 5.x): Squid finds the digest usable and
// sends the request for the added URL to the sibling (CD_SIBLING_HIT),
// which only the added store key can make it do.
func TestRealSquidAcceptsAddedDigest(t *testing.T) {
	bin := squidtest.Binary(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "origin %s", r.URL.Path)
	}))
	t.Cleanup(origin.Close)

	dir := t.TempDir()
	sd := filepath.Join(dir, "sd")
	keys := urlKeys("built", 100)
	in := writeFile(t, filepath.Join(dir, "urls.txt"), strings.Join(keys, "\n")+"\n")
	ok(t, "", "build", "--squid", "-n", "1000", "-o", sd, in)
	added := origin.URL + "/added"
	ok(t, "", "add", sd, added)

	var siblingServed atomic.Int64
	sibling := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/squid-internal-periodic/store_digest" {
			serveDigestFile(t, w, r, sd)
			return
		}
		if r.URL.Path == "/added" {
			siblingServed.Add(1)
		}
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprintf(w, "sibling %s", r.URL.Path)
	}))
	t.Cleanup(sibling.Close)

	addr := freeAddr(t)
	sq := squidtest.Start(t, squidtest.Config{Bin: bin, Addr: addr, Sibling: sibling.Listener.Addr().String()})
	viaSquid := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy: http.ProxyURL(mustParseURL(t, "http://"+addr)), DisableKeepAlives: true}}
	get := func(u string) string {
		resp, err := viaSquid.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	get(origin.URL + "/warm") // makes Squid fetch the sibling's digest
	testutil.WaitFor(t, 20*time.Second, "Squid to find the digest usable", func() bool {
		return strings.Contains(squidtest.Manager(addr, "digest_stats"), "usable: yes")
	})
	if body := get(added); body != "sibling /added" || siblingServed.Load() != 1 {
		b, _ := os.ReadFile(sq.AccessLog)
		t.Fatalf("the added URL went to %q, not the sibling; access log:\n%s", body, b)
	}
	testutil.WaitFor(t, 5*time.Second, "CD_SIBLING_HIT in Squid's access log", func() bool {
		b, _ := os.ReadFile(sq.AccessLog)
		return strings.Contains(string(b), "CD_SIBLING_HIT")
	})
}

// serveDigestFile serves the digest file as a Squid does. Squid 5.x
// corrupts a digest whose first read holds more than 256 bytes of body
// (upstream bug 5510; see the node's Squid digest handler), so the 128-byte
// header goes first, flushed, and the mask after a pause.
func serveDigestFile(t *testing.T, w http.ResponseWriter, r *http.Request, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/cache-digest")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Last-Modified", time.Now().Add(-time.Minute).UTC().Format(http.TimeFormat))
	h.Set("Expires", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
	h.Set("Cache-Control", "max-age=3600")
	if _, err := w.Write(b[:128]); err != nil {
		return
	}
	if err := http.NewResponseController(w).Flush(); err == nil {
		time.Sleep(100 * time.Millisecond)
	}
	_, _ = w.Write(b[128:]) // a failed write is Squid's to notice
}

func mustParseURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
