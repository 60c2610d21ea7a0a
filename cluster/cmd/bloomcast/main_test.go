package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cluster/internal/natstest"
)

// binary is the command, built once for the tests by go build (without
// the race detector, whatever the tests run with: the serve processes are
// the command as users run it, and the late node's one-second bound is
// about it).
var binary struct {
	once sync.Once
	path string
	err  error
}

// build builds the command into a directory of its own, once.
func build(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "bloomcast-nats-test")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "bloomcast")
		out, err := exec.Command("go", "build", "-o", binary.path, ".").CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.path != "" {
		_ = os.RemoveAll(filepath.Dir(binary.path)) // a temporary directory
	}
	os.Exit(code)
}

// proc is one bloomcast serve process.
type proc struct {
	name   string
	addr   string
	cmd    *exec.Cmd
	stderr *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serve starts "bloomcast serve" as name on addr with args.
func serve(t *testing.T, name, addr string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, addr: addr, stderr: &syncBuffer{}}
	p.cmd = exec.Command(build(t), append([]string{"serve", "--name", name, "--listen", addr, "--log-level", "warn"}, args...)...)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM) // it may have exited; Wait says how
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("%s: %v\n%s", name, err, p.stderr)
		}
	})
	return p
}

// metrics reads p's /metrics as name{labels} → value.
func (p *proc) metrics() (map[string]string, error) {
	resp, err := http.Get("http://" + p.addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			out[line[:i]] = line[i+1:]
		}
	}
	return out, nil
}

// freeAddrs returns n loopback addresses free now.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		out = append(out, ln.Addr().String())
	}
	for _, ln := range lns {
		_ = ln.Close() // only probed
	}
	return out
}

// views reports, when every process's view of every peer it lists is at
// that peer's published sequence with nothing pending, each view's fill
// ratio by "node→peer"; otherwise what is missing.
func views(procs, peers []*proc) (map[string]string, string) {
	seq := map[string]string{}
	for _, p := range peers {
		m, err := p.metrics()
		if err != nil {
			return nil, err.Error()
		}
		if m["bloomcast_digest_pending_changes"] != "0" {
			return nil, p.name + " has changes pending"
		}
		seq[p.name] = m["bloomcast_digest_sequence"]
	}
	fills := map[string]string{}
	for _, p := range procs {
		m, err := p.metrics()
		if err != nil {
			return nil, err.Error()
		}
		for _, q := range peers {
			if q == p {
				continue
			}
			label := `{peer="` + q.name + `"}`
			if got := m["bloomcast_peer_view_sequence"+label]; got != seq[q.name] {
				return nil, fmt.Sprintf("%s's view of %s at sequence %q, %s at %s", p.name, q.name, got, q.name, seq[q.name])
			}
			fills[p.name+"→"+q.name] = m["bloomcast_peer_view_fill_ratio"+label]
		}
	}
	return fills, ""
}

// waitViews waits until views reports them all, or fails after a minute.
func waitViews(t *testing.T, procs, peers []*proc) map[string]string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		fills, missing := views(procs, peers)
		if missing == "" {
			return fills
		}
		if time.Now().After(deadline) {
			t.Fatalf("views not current after a minute: %s", missing)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// get fetches target through the proxy at addr.
func get(t *testing.T, addr, target string) {
	t.Helper()
	proxy, _ := url.Parse("http://" + addr)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}, Timeout: 30 * time.Second}
	resp, err := c.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body) // the status is what matters
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s through %s: %s", target, addr, resp.Status)
	}
	c.CloseIdleConnections()
}

// cluster starts 8 serve processes, each listing the 7 others, with the
// transport args, stores 5 objects through each, and returns the
// processes and their views' fill ratios once every view is current.
func cluster(t *testing.T, origin string, args ...string) ([]*proc, map[string]string) {
	t.Helper()
	const n = 8
	addrs := freeAddrs(t, n)
	procs := make([]*proc, n)
	for i := range n {
		a := append([]string{"--capacity", "1000"}, args...)
		for j := range n {
			if j != i {
				a = append(a, "--peer", "name=n"+strconv.Itoa(j)+",proxy=http://"+addrs[j])
			}
		}
		procs[i] = serve(t, "n"+strconv.Itoa(i), addrs[i], a...)
	}
	for _, p := range procs {
		waitHealthy(t, p)
	}
	for i, p := range procs {
		for k := range 5 {
			get(t, p.addr, origin+"/obj/"+strconv.Itoa(10*i+k))
		}
	}
	return procs, waitViews(t, procs, procs)
}

func waitHealthy(t *testing.T, p *proc) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + p.addr + "/healthz")
		if err == nil {
			_ = resp.Body.Close() // only the status matters
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not healthy after 30 s: %v\n%s", p.name, err, p.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServeNATS runs 8 real serve processes twice, polling over HTTP and
// then over NATS JetStream, and finds the same peer views; over NATS no
// digest goes over HTTP, and a ninth node that starts late has every
// peer's view within one second.
func TestServeNATS(t *testing.T) {
	srv := natstest.New(t)
	build(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		_, _ = io.WriteString(w, "object "+r.URL.Path) // a client gone is its own problem
	}))
	defer origin.Close()

	_, httpFills := cluster(t, origin.URL, "--poll", "100ms")
	procs, natsFills := cluster(t, origin.URL, "--poll", "1h", "--nats", srv.URL)
	if len(natsFills) != 8*7 {
		t.Fatalf("%d views, want 56", len(natsFills))
	}
	for k, v := range httpFills {
		if natsFills[k] != v {
			t.Errorf("view %s: fill %s over NATS, %s polling over HTTP", k, natsFills[k], v)
		}
	}
	for _, p := range procs {
		m, err := p.metrics()
		if err != nil {
			t.Fatal(err)
		}
		if in, out := m[`bloomcast_digest_messages_total{direction="in",transport="http"}`], m[`bloomcast_digest_messages_total{direction="out",transport="http"}`]; (in != "" && in != "0") || (out != "" && out != "0") {
			t.Errorf("%s: %s digest messages fetched and %s served over HTTP, want none", p.name, in, out)
		}
		if m[`bloomcast_digest_messages_total{direction="in",transport="nats"}`] == "" {
			t.Errorf("%s: no digest message over NATS", p.name)
		}
	}
	// A miss at n0 for an object n3 holds goes to n3.
	get(t, procs[0].addr, origin.URL+"/obj/31")
	if m, err := procs[0].metrics(); err != nil || m[`bloomcast_requests_total{outcome="peer_hit"}`] != "1" {
		t.Errorf("n0's peer hits: %q (%v)", m[`bloomcast_requests_total{outcome="peer_hit"}`], err)
	}

	// The late node.
	late := freeAddrs(t, 1)[0]
	args := []string{"--capacity", "1000", "--poll", "1h", "--nats", srv.URL}
	for _, p := range procs {
		args = append(args, "--peer", "name="+p.name+",proxy=http://"+p.addr)
	}
	start := time.Now()
	l := serve(t, "late", late, args...)
	lp := []*proc{l}
	for {
		_, missing := views(lp, procs)
		elapsed := time.Since(start)
		if missing == "" {
			t.Logf("the late node had every peer's view %v after it was started", elapsed.Round(time.Millisecond))
			break
		}
		if elapsed > time.Second {
			t.Fatalf("a node that joins late must have every peer's view within one second of its start (issue 24); after %v: %s\n%s", elapsed.Round(time.Millisecond), missing, l.stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSimulateNATS replays a small trace through 3 nodes polling over
// HTTP and pushing over a real NATS server, and reads both rows.
func TestSimulateNATS(t *testing.T) {
	srv := natstest.New(t)
	out, err := exec.Command(build(t), "simulate", "--nodes", "3", "--requests", "2000", "--transport", "http,nats",
		"--poll", "5s", "--nats", srv.URL, "--json").Output()
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	var r struct {
		Results []struct {
			Transport            string
			DigestMessagesPerMin float64 `json:"digest_messages_per_minute"`
			Propagated           uint64
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 2 || r.Results[0].Transport != "http" || r.Results[1].Transport != "nats" {
		t.Fatalf("results: %+v", r.Results)
	}
	for _, x := range r.Results {
		if x.DigestMessagesPerMin <= 0 || x.Propagated == 0 {
			t.Errorf("%s: %+v", x.Transport, x)
		}
	}
}

// TestServeNATSConfigFile: --nats may come from the config file, where
// it is checked as on the command line.
func TestServeNATSConfigFile(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "node.conf")
	check := func(body string) (string, error) {
		if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(build(t), "serve", "--config", conf, "--check-config").CombinedOutput()
		return string(out), err
	}
	out, err := check("nats nats://127.0.0.1:4222\npeer name=b,proxy=http://127.0.0.1:3999\n")
	if err != nil || out != conf+": configuration ok\n" {
		t.Errorf("nats in the config file: %v, %q", err, out)
	}
	out, err = check("nats nats://127.0.0.1:4222\npeer http://127.0.0.1:3999\n")
	if err == nil || !strings.Contains(out, "--nats: peer http://127.0.0.1:3999 needs name=") {
		t.Errorf("a peer without name=: %v, %q", err, out)
	}
}
