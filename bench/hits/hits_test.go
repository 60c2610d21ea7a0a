package hits

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// requireSquidEnv, when set, makes a missing squid or wrk a failure
// instead of a skip (CI sets it where both are installed).
const requireSquidEnv = "BLOOMCAST_REQUIRE_SQUID"

func TestParseWrk(t *testing.T) {
	out, err := os.ReadFile("testdata/wrk-latency.txt") // wrk 4.1.0 against a server answering 404
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseWrk(string(out))
	if err != nil {
		t.Fatal(err)
	}
	if r.requests != 22249 || r.seconds != 2.08 || r.rps != 10695.71 || r.errors != 22249 {
		t.Errorf("requests %d in %g s, %g/s, %d errors", r.requests, r.seconds, r.rps, r.errors)
	}
	for p, want := range map[int]float64{50: 197, 75: 2240, 90: 10680, 99: 84490} {
		if got := r.latencyUs[p]; got < want-1e-6 || got > want+1e-6 {
			t.Errorf("p%d %g µs, want %g", p, got, want)
		}
	}
	sock := strings.Replace(string(out), "  Non-2xx or 3xx responses: 22249\n", "  Socket errors: connect 1, read 2, write 3, timeout 4\n", 1)
	if r, err := ParseWrk(sock); err != nil || r.errors != 10 {
		t.Errorf("socket errors: %d, %v", r.errors, err)
	}
	if _, err := ParseWrk("Running 2s test\n"); err == nil {
		t.Error("output without figures accepted")
	}
	if _, err := ParseWrk(strings.Replace(string(out), "84.49ms", "84.49xs", 1)); err == nil {
		t.Error("unknown unit accepted")
	}
}

func FuzzParseWrk(f *testing.F) {
	if out, err := os.ReadFile("testdata/wrk-latency.txt"); err == nil {
		f.Add(string(out))
	}
	f.Add("  1 requests in 1.00m, 1B read\nRequests/sec: 1\n 50% 1us\n 99% 2h\n")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseWrk(s)
		if err == nil && (r.requests <= 0 || r.rps <= 0 || r.errors < 0 || r.latencyUs[50] <= 0 || r.latencyUs[99] <= 0) {
			t.Fatalf("accepted %+v", r)
		}
	})
}

func TestCounters(t *testing.T) {
	metrics := `# HELP bloomcast_requests_total Client requests by outcome.
# TYPE bloomcast_requests_total counter
bloomcast_requests_total{outcome="local_hit"} 1.2345e+06
bloomcast_requests_total{outcome="miss"} 100
bloomcast_response_bytes_total{outcome="local_hit"} 5e+09
`
	if h, n, err := NodeCounters(metrics); err != nil || h != 1234500 || n != 1234600 {
		t.Errorf("node: %d hits of %d, %v", h, n, err)
	}
	if _, _, err := NodeCounters("go_goroutines 7\n"); err == nil {
		t.Error("metrics without requests accepted")
	}
	report := "Cache Manager counters:\nsample_time = 1764086400.123 (Tue, 25 Nov 2026)\nclient_http.requests = 300\nclient_http.hits = 290\nclient_http.errors = 0\n"
	if h, n, err := SquidCounters(report); err != nil || h != 290 || n != 300 {
		t.Errorf("squid: %d hits of %d, %v", h, n, err)
	}
	if _, _, err := SquidCounters("client_http.requests = 3\n"); err == nil {
		t.Error("counters without hits accepted")
	}
}

func TestCheckAndSummary(t *testing.T) {
	ok := Round{Proxy: ProxyNode, GOMAXPROCS: 1, Requests: 1000, ProxyHits: 1010, ProxyRequests: 1010, RPS: 100, P99Us: 3, CPUUsPerRequest: 10}
	if err := ok.Check(32); err != nil {
		t.Error(err)
	}
	for _, bad := range []Round{
		{Proxy: ProxyNode, Requests: 1000, ProxyHits: 999, ProxyRequests: 999},
		{Proxy: ProxyNode, Requests: 1000, ProxyHits: 1000, ProxyRequests: 1001},
		{Proxy: ProxySquid, Requests: 1000, ProxyHits: 1000, ProxyRequests: 1003},
		{Proxy: ProxySquid, Requests: 1000, ProxyHits: 1000, ProxyRequests: 1000, OriginRequests: 1},
		{Proxy: ProxySquid, Requests: 1000, ProxyHits: 1000, ProxyRequests: 1000, Errors: 1},
		{Proxy: ProxySquid},
	} {
		if bad.Check(32) == nil {
			t.Errorf("%+v passed", bad)
		}
	}
	peer := Round{Proxy: ProxyNode, Peer: true, Requests: 1000, ProxyHits: 1000, ProxyRequests: 1004}
	if err := peer.Check(4); err != nil {
		t.Errorf("a pair's front counting one request per connection more: %v", err)
	}
	if peer.ProxyRequests = 1005; peer.Check(4) == nil {
		t.Error("a pair's front counting more requests than its peer's hits and the connections passed")
	}
	sq := func(rps, p99 float64) Round {
		return Round{Proxy: ProxySquid, RPS: rps, P99Us: p99, CPUUsPerRequest: 20}
	}
	s := summarise([]Round{ok, sq(50, 1), ok, sq(40, 2), ok, sq(60, 1.5)})
	if len(s) != 2 || s[0].Name != "bloomcast GOMAXPROCS=1" || s[1].RPS != 50 || s[1].P99Us != 1.5 ||
		s[0].RPSRatio != 2 || s[0].P99Ratio != 2 || s[0].CPUUsRatio != 0.5 {
		t.Errorf("summaries %+v", s)
	}
	if m := median([]Round{{RPS: 1}, {RPS: 4}}, func(r Round) float64 { return r.RPS }); m != 2.5 {
		t.Errorf("median of 1 and 4: %g", m)
	}
}

func TestLuaScript(t *testing.T) {
	s := luaScript("127.0.0.1:8080", 100)
	for _, want := range []string{`wrk.headers["Host"] = "127.0.0.1:8080"`, `"http://127.0.0.1:8080/obj-" .. n`, "(n + 1) % 100", `wrk.format("GET", path)`} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
}

func TestConfigRejects(t *testing.T) {
	for _, c := range []Config{{Rounds: -1}, {Connections: 1, Threads: 2}, {Duration: time.Millisecond}, {Procs: []int{0}}, {Squid: "/nonexistent/squid"},
		{Pin: true, Procs: []int{1, 2}}} {
		if _, err := Run(context.Background(), c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestPinned: a command pinned to CPUs runs there (its own
// /proc/self/status says so) under the pid the harness started (taskset
// execs it, so CPU time is read from the right process), and an
// unpinned one runs wherever the test may.
func TestPinned(t *testing.T) {
	if _, err := exec.LookPath("taskset"); err != nil || runtime.GOOS != "linux" {
		t.Skip("needs Linux and taskset")
	}
	allowed := func(cpus string) string {
		cmd := pinned(context.Background(), cpus, "/bin/sh", "-c", `echo $$; grep Cpus_allowed_list /proc/self/status`)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(out))
		if len(f) != 3 {
			t.Fatalf("output %q", out)
		}
		if pid, _ := strconv.Atoi(f[0]); pid != cmd.Process.Pid {
			t.Errorf("on CPUs %q: the shell's pid %d, started %d", cpus, pid, cmd.Process.Pid)
		}
		return f[2]
	}
	cpus, err := allowedCPUs()
	if err != nil || len(cpus) == 0 {
		t.Fatalf("allowed CPUs %v, %v", cpus, err)
	}
	first := strconv.Itoa(cpus[0])
	if got := allowed(first); got != first {
		t.Errorf("pinned to CPU %s, allowed %s", first, got)
	}
	if len(cpus) >= 2 {
		c := &Config{Pin: true, Procs: []int{1}}
		if err := c.setPin(); err != nil {
			t.Fatal(err)
		}
		if c.proxyCPUs != first {
			t.Errorf("proxies on %q, want %s", c.proxyCPUs, first)
		}
		if got, want := expandCPUList(t, allowed(c.wrkCPUs)), cpus[1:]; !slices.Equal(got, want) {
			t.Errorf("wrk on %q: allowed %v, want %v", c.wrkCPUs, got, want)
		}
	} else if err := (&Config{Pin: true, Procs: []int{1}}).setPin(); err == nil {
		t.Error("pinning accepted with one CPU")
	}
	if got := expandCPUList(t, allowed("")); !slices.Equal(got, cpus) {
		t.Errorf("unpinned: allowed %v, want %v", got, cpus)
	}
}

// expandCPUList reads a list such as "1-3,5" (Cpus_allowed_list).
func expandCPUList(t *testing.T, list string) []int {
	t.Helper()
	var cpus []int
	for _, r := range strings.Split(list, ",") {
		lo, hi, found := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if found {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil {
			t.Fatalf("CPU list %q", list)
		}
		for i := a; i <= b; i++ {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

// needSquidAndWrk skips t, or fails it where requireSquidEnv is set,
// unless squid, wrk and the go command (to build bloomcast) are there.
func needSquidAndWrk(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds bloomcast and runs squid and wrk")
	}
	for _, bin := range []string{"/usr/sbin/squid", "/usr/bin/wrk"} {
		if _, err := os.Stat(bin); err != nil {
			if os.Getenv(requireSquidEnv) != "" {
				t.Fatalf("%s is set but %v", requireSquidEnv, err)
			}
			t.Skip(err)
		}
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build bloomcast with")
	}
}

// TestRunShort runs the whole comparison briefly: a node at GOMAXPROCS=1
// and Squid, one round of a second each, every request checked to be a
// hit; pinned (Config.Pin) where there are two CPUs or more.
func TestRunShort(t *testing.T) {
	needSquidAndWrk(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pin := runtime.NumCPU() >= 2
	rep, err := Run(ctx, Config{Rounds: 1, Duration: time.Second, Procs: []int{1}, Objects: 20, Connections: 4, Floor: true, Pin: pin})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Check(); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rounds) != 3 || rep.Rounds[0].Proxy != ProxyFloor || rep.Rounds[1].Proxy != ProxyNode || rep.Rounds[2].Proxy != ProxySquid || len(rep.Summaries) != 3 {
		t.Fatalf("rounds %+v, summaries %+v", rep.Rounds, rep.Summaries)
	}
	if s := rep.Summaries[1]; s.CPUUsAboveFloor != s.CPUUs-rep.Summaries[0].CPUUs {
		t.Errorf("the node's CPU above the floor %g, want %g − %g", s.CPUUsAboveFloor, s.CPUUs, rep.Summaries[0].CPUUs)
	}
	for _, r := range rep.Rounds {
		if r.ProxyHits < r.Requests || r.CPUUsPerRequest <= 0 || r.P50Us > r.P99Us {
			t.Errorf("%s: %+v", r.Name(), r)
		}
	}
	var md, js bytes.Buffer
	if err := errors.Join(WriteMarkdown(&md, rep), WriteJSON(&js, rep)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 1 | floor: net/http GOMAXPROCS=1 |", "| 1 | bloomcast GOMAXPROCS=1 |", "| 1 | squid |", "hits/s vs Squid", "Squid Cache: Version"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, md.String())
		}
	}
	if pinned := strings.Contains(md.String(), "Pinned: every proxy process on CPU "+rep.ProxyCPUs+", wrk on CPUs "+rep.WrkCPUs+" "); pinned != pin || (rep.ProxyCPUs != "") != pin {
		t.Errorf("pinned %v: proxies on %q, report:\n%s", pin, rep.ProxyCPUs, md.String())
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Rounds[2].ProxyHits != rep.Rounds[2].ProxyHits {
		t.Fatalf("JSON round trip: %v", err)
	}
}

// TestRunPeerShort runs the peer-hit comparison briefly: a node pair at
// GOMAXPROCS=1 and a Squid pair peering by Cache Digest, one round of a
// second each, every request checked to be a hit at the peer and none to
// reach the origin.
func TestRunPeerShort(t *testing.T) {
	needSquidAndWrk(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{Peer: true, Rounds: 1, Duration: time.Second, Procs: []int{1}, Objects: 20, Connections: 4, Floor: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Check(); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rounds) != 3 || rep.Rounds[0].Proxy != ProxyFloor || !rep.Peer || !strings.Contains(rep.SquidFrontConfig, "cache_peer 127.0.0.1 sibling") {
		t.Fatalf("rounds %+v, front %q", rep.Rounds, rep.SquidFrontConfig)
	}
	for _, r := range rep.Rounds {
		if !r.Peer || r.ProxyHits < r.Requests || r.OriginRequests != 0 || r.CPUUsPerRequest <= 0 {
			t.Errorf("%s: %+v", r.Name(), r)
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Peer hits:") {
		t.Errorf("report lacks the peer-hit description:\n%s", md.String())
	}
}

func TestPeerConfigRejects(t *testing.T) {
	if _, err := Run(context.Background(), Config{Peer: true, ObjectBytes: 1}); err == nil {
		t.Error("peer hits of 1-byte objects accepted")
	}
}
