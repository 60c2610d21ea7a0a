//go:build unix

package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// crashSizes are the bodies' sizes the crash tests store: empty, within
// one block, across blocks, and the largest storable (--max-object's
// default, 4 MiB).
var crashSizes = []int{0, 1, 100, 4095, 4096, 70000, 1 << 20, 4 << 20}

// crashBody is the body the origin serves for path as its version:
// size bytes that depend on both, so that the body of one object, or of
// one version, is not another's.
func crashBody(path, version string, size int) []byte {
	b := make([]byte, size)
	seed := sha256.Sum256([]byte(path + "#" + version))
	for i := range b {
		b[i] = seed[i%len(seed)] ^ byte(i/len(seed))
	}
	return b
}

// newCrashOrigin serves /obj/N?size=S, cacheable for an hour, each
// response a new version (X-Version) with the body's SHA-256 in X-Sum.
func newCrashOrigin(t *testing.T) *httptest.Server {
	var versions atomic.Int64
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		version := strconv.FormatInt(versions.Add(1), 10)
		b := crashBody(r.URL.RequestURI(), version, size)
		sum := sha256.Sum256(b)
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("X-Version", version)
		w.Header().Set("X-Sum", hex.EncodeToString(sum[:]))
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
	}))
	t.Cleanup(o.Close)
	return o
}

// crashURI is object i's request URI.
func crashURI(i int) string {
	return fmt.Sprintf("/obj/%d?size=%d", i, crashSizes[i%len(crashSizes)])
}

// fetch gets origin+uri through the node at addr and reports whether it
// was a hit; the test fails unless the response is a 200 with the whole,
// right body for its X-Version and that body's X-Sum.
func fetch(t *testing.T, addr, originURL, uri string) (hit bool) {
	t.Helper()
	proxy, _ := url.Parse("http://" + addr)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}, Timeout: 20 * time.Second}
	resp, err := c.Get(originURL + uri)
	if err != nil {
		t.Fatalf("%s: %v", uri, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the body: %v", uri, err)
	}
	size, _ := strconv.Atoi(uri[strings.Index(uri, "size=")+5:])
	want := crashBody(uri, resp.Header.Get("X-Version"), size)
	sum := sha256.Sum256(want)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want) || resp.Header.Get("X-Sum") != hex.EncodeToString(sum[:]) {
		t.Fatalf("%s: status %d, %d bytes (want %d), body right %v, X-Sum right %v, X-Cache %q",
			uri, resp.StatusCode, len(got), len(want), bytes.Equal(got, want),
			resp.Header.Get("X-Sum") == hex.EncodeToString(sum[:]), resp.Header.Get("X-Cache"))
	}
	return strings.HasPrefix(resp.Header.Get("X-Cache"), "HIT")
}

// TestServeDiskSurvivesKill stores objects of several sizes, from empty
// to the largest storable, in a real "bloomcast serve --disk", kills it
// with SIGKILL while clients are storing more and replacing some, three
// times, and restarts it each time: every object stored before is a hit,
// and every object asked is served whole and right (the body of the
// version its header names), from the disk or again from the origin.
func TestServeDiskSurvivesKill(t *testing.T) {
	origin := newCrashOrigin(t)
	dir := filepath.Join(t.TempDir(), "disk")
	serve := diskServe(t, dir, "256MiB")

	sp := serve()
	const stored = 24
	for i := range stored {
		fetch(t, sp.addr, origin.URL, crashURI(i))
	}
	for i := range stored {
		if !fetch(t, sp.addr, origin.URL, crashURI(i)) {
			t.Fatalf("%s: not a hit before the kill", crashURI(i))
		}
	}

	// Clients store more, replacing what the last round stored, while
	// the node is killed, at a different moment each round.
	next := stored
	for _, wait := range []time.Duration{40 * time.Millisecond, 120 * time.Millisecond, 300 * time.Millisecond} {
		asked := storm(t, sp, origin.URL, next, wait)
		t.Logf("killed after %v, objects %d to %d asked, %d temporary files left", wait, next, asked, countTemp(t, dir))
		sp = serve()
		if n := countTemp(t, dir); n != 0 {
			t.Errorf("%d temporary files left after the restart", n)
		}
		for i := range stored {
			if !fetch(t, sp.addr, origin.URL, crashURI(i)) {
				t.Errorf("%s: stored before the kill, not a hit after the restart", crashURI(i))
			}
		}
		for i := stored; i <= asked; i++ {
			fetch(t, sp.addr, origin.URL, crashURI(i))
		}
		next = asked / 2
	}
	if s := sp.stderr.String(); strings.Contains(s, "panic") {
		t.Fatalf("stderr:\n%s", s)
	}
}

// TestServeDiskDamaged damages the files of a killed node's disk cache as
// a crash or another program might (truncated at several offsets, a
// flipped byte, emptied, a leftover temporary file, unrelated and hostile
// files), restarts it and asks for every object: each is served whole and
// right, from the disk or again from the origin, and the node names what
// it dropped in its log.
func TestServeDiskDamaged(t *testing.T) {
	origin := newCrashOrigin(t)
	dir := filepath.Join(t.TempDir(), "disk")
	serve := diskServe(t, dir, "256MiB")
	sp := serve()
	const objects = 40
	for i := range objects {
		fetch(t, sp.addr, origin.URL, crashURI(i))
	}
	sp.signal(t, syscall.SIGKILL)
	<-sp.done

	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(des) != objects {
		t.Fatalf("%d files for %d objects", len(des), objects)
	}
	damaged := 0
	for i, de := range des {
		path := filepath.Join(dir, de.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch i % 8 {
		case 0:
			b = nil
		case 1:
			b = b[:1]
		case 2:
			b = b[:len(b)/2]
		case 3:
			b = b[:len(b)-1]
		case 4:
			b[len(b)/2] ^= 0x40
		case 5:
			b = append(b, 'x')
		default:
			continue
		}
		damaged++
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	junk := map[string][]byte{
		".tmp-123456":                          bytes.Repeat([]byte("partial"), 1000),
		"README":                               []byte("not an entry"),
		"0123456789abcdef0123456789abcdef.bce": append([]byte("BCCE\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"), make([]byte, 100)...),
		"ffffffffffffffffffffffffffffffff.bce": bytes.Repeat([]byte{0xff}, 1<<16),
	}
	for name, b := range junk {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	sp = serve()
	hits := 0
	for i := range objects {
		if fetch(t, sp.addr, origin.URL, crashURI(i)) {
			hits++
		}
	}
	if want := objects - damaged; hits != want {
		t.Errorf("%d hits after the restart, want the %d objects left whole", hits, want)
	}
	if _, err := os.Stat(filepath.Join(dir, ".tmp-123456")); err == nil {
		t.Error("the leftover temporary file is still there")
	}
	s := sp.stderr.String()
	if n := strings.Count(s, "dropped corrupt disk entry"); n != damaged+2 {
		t.Errorf("%d drops logged, want %d:\n%s", n, damaged+2, s)
	}
	if strings.Contains(s, "panic") {
		t.Fatalf("stderr:\n%s", s)
	}
}

// storm has four clients ask for objects from first on through sp, with
// no-cache, so that the node fetches and stores each again, kills sp with
// SIGKILL after wait and returns the last object asked.
func storm(t *testing.T, sp *serveProcess, originURL string, first int, wait time.Duration) int {
	var next atomic.Int64
	next.Store(int64(first) - 1)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			proxy, _ := url.Parse("http://" + sp.addr)
			c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}, Timeout: 20 * time.Second}
			for {
				req, _ := http.NewRequest(http.MethodGet, originURL+crashURI(int(next.Add(1))), nil)
				req.Header.Set("Cache-Control", "no-cache")
				resp, err := c.Do(req)
				if err != nil {
					return // the node was killed
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	time.Sleep(wait)
	sp.signal(t, syscall.SIGKILL)
	<-sp.done
	wg.Wait()
	return int(next.Load())
}

// TestServeDiskFull runs "bloomcast serve --disk" on a file system far
// smaller than its budget and asks for objects of several sizes, many of
// which fill it mid-write: every response is relayed whole, the failures
// are counted and logged, and after a kill and a restart every object is
// served whole and right, from the disk or again from the origin.
func TestServeDiskFull(t *testing.T) {
	mnt := testutil.MountTmpfs(t, 6<<20)
	origin := newCrashOrigin(t)
	dir := filepath.Join(mnt, "disk")
	serve := diskServe(t, dir, "64MiB")
	sp := serve()
	const objects = 3 * 8
	for i := range objects {
		fetch(t, sp.addr, origin.URL, crashURI(i))
	}
	resp, err := http.Get("http://" + sp.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(metrics), `bloomcast_store_failures_total{reason="no_space"}`) ||
		strings.Contains(string(metrics), `bloomcast_store_failures_total{reason="no_space"} 0`) {
		t.Errorf("no no_space failure counted:\n%s", grepLines(string(metrics), "store_failures"))
	}
	if s := sp.stderr.String(); !strings.Contains(s, "reason=no_space") {
		t.Errorf("no no_space warning logged:\n%s", s)
	}
	for i := range objects {
		fetch(t, sp.addr, origin.URL, crashURI(i))
	}
	sp.signal(t, syscall.SIGKILL)
	<-sp.done

	sp = serve()
	hits := 0
	for i := range objects {
		if fetch(t, sp.addr, origin.URL, crashURI(i)) {
			hits++
		}
	}
	t.Logf("%d of %d objects kept", hits, objects)
	if hits == 0 {
		t.Error("no object kept on the disk")
	}
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".tmp-") {
			t.Errorf("temporary file %s left", de.Name())
		}
	}
}

func grepLines(s, word string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, word) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// countTemp counts the temporary files in dir, a write the kill cut.
func countTemp(t *testing.T, dir string) int {
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".tmp-") {
			n++
		}
	}
	return n
}

// diskServe returns a function that starts "bloomcast serve --disk dir
// --disk-size size" on a new free loopback address each time it is
// called, as a restart after a kill does.
func diskServe(t *testing.T, dir, size string) func() *serveProcess {
	return func() *serveProcess {
		addr := freeAddr(t)
		return startServe(t, addr, "--listen", addr, "--disk", dir, "--disk-size", size, "--log-level", "warn")
	}
}
