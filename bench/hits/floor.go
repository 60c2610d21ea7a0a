package hits

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// ProxyFloor is the floor of a round: Go's net/http server answering
// every request from memory as a hit, with no cache behind it
// (ServeFloor), so that a node's hit can be read as the floor's cost
// and the rest.
const ProxyFloor = "net/http"

// floorCountersPath is where a floor server reports what it counted.
const floorCountersPath = "/counters"

// ServeFloor serves on ln until the listener fails: a GET of an absolute
// URI whose path is /obj-N is answered with size bytes from memory and
// the header fields a node's hit has (Cache-Control, Content-Type,
// Content-Length, Age, Via, X-Cache), set as the node sets them, from
// values made once; any other request gets 404. GET /counters (an
// origin-form request) answers "hits H requests R": the hits answered
// and all requests but its own. It measures what serving a hit costs in
// net/http alone: no cache key, lookup, freshness or metrics.
func ServeFloor(ln net.Listener, size int) error {
	var hits, requests atomic.Int64
	body := bytes.Repeat([]byte("x"), size)
	fields := http.Header{
		"Cache-Control":  {"max-age=86400"},
		"Content-Type":   {"application/octet-stream"},
		"Content-Length": {strconv.Itoa(size)},
		"Age":            {"0"},
		"Via":            {"1.1 floor (bloomcast-bench)"},
		"X-Cache":        {"HIT from floor"},
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() && r.URL.Path == floorCountersPath {
			fmt.Fprintf(w, "hits %d requests %d\n", hits.Load(), requests.Load())
			return
		}
		requests.Add(1)
		if r.Method != http.MethodGet || !r.URL.IsAbs() || !strings.HasPrefix(r.URL.Path, "/obj-") {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		wh := w.Header()
		for k, vs := range fields {
			wh[k] = vs
		}
		_, _ = w.Write(body) // a failed write is a client gone away; the round's checks see it
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}

// FloorCounters reads a floor server's /counters answer.
func FloorCounters(s string) (hits, requests int64, err error) {
	if _, err := fmt.Sscanf(s, "hits %d requests %d", &hits, &requests); err != nil {
		return 0, 0, fmt.Errorf("hits: floor counters %q: %w", s, err)
	}
	return hits, requests, nil
}

// floorBinary builds the bench module's cmd/hitfloor into dir.
func floorBinary(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/bloomcast/bloomcast/bench").Output()
	if err != nil {
		return "", fmt.Errorf("finding the bench module: %w", err)
	}
	bin := filepath.Join(dir, "hitfloor")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/hitfloor")
	build.Dir = strings.TrimSpace(string(out))
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building hitfloor: %w\n%s", err, out)
	}
	return bin, nil
}

// startFloor runs the floor server bin at GOMAXPROCS=1 and waits until
// it answers.
func startFloor(ctx context.Context, bin string, size int) (*target, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-listen", addr, "-size", strconv.Itoa(size))
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	cmd.Stderr = os.Stderr
	t := &target{proxy: ProxyFloor, procs: 1, addr: addr, cmd: cmd}
	if err := t.start(); err != nil {
		return nil, err
	}
	return t, waitUntil(ctx, 20*time.Second, func() bool {
		resp, err := http.Get("http://" + addr + floorCountersPath)
		if err != nil {
			return false
		}
		_ = resp.Body.Close() // only the status matters
		return resp.StatusCode == http.StatusOK
	})
}
