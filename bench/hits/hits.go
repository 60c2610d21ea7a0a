// Package hits measures cache hits through a bloomcast node and through
// Squid side by side on loopback: one origin serving small objects, the
// node (`bloomcast serve`, a real process, no access log) and Squid (one
// worker, access_log none), both warmed so that every object is a hit,
// and Debian's wrk sending absolute-URI requests through each in turn.
// Rounds are interleaved (node, Squid, node, …) so that a machine whose
// load drifts treats both alike; each round's requests are checked
// against the proxy's own counters (the node's /metrics, Squid's cache
// manager counters) and the origin's, so that only hits are counted.
//
// With Config.Peer it measures peer hits instead, the summary cache's
// own path: each proxy is a pair, a front that stores nothing and routes
// every request by its peer's digest to the peer that holds the objects
// (see peer.go).
package hits

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bloomcast/bloomcast/bench/compare"
)

// Proxies of a round.
const (
	ProxyNode  = "bloomcast"
	ProxySquid = "squid"
)

// Config configures a run. Zero fields take the defaults noted.
type Config struct {
	Bloomcast   string        // the bloomcast binary; "" builds ./cmd/bloomcast of the module
	Squid       string        // "" means /usr/sbin/squid
	Wrk         string        // "" means /usr/bin/wrk
	Rounds      int           // rounds of each proxy; 0 means 3
	Duration    time.Duration // one round of wrk; 0 means 10 s
	Threads     int           // wrk -t; 0 means 2
	Connections int           // wrk -c; 0 means 32
	Objects     int           // objects of the origin; 0 means 100
	ObjectBytes int           // body size of every object; 0 means 4096
	Procs       []int         // GOMAXPROCS of the node, one node per value; nil means 1 and 2
	// Peer measures peer hits: each proxy a pair of a front storing
	// nothing and the peer behind it holding the objects, the front
	// routing by the peer's digest. ObjectBytes must be at least 2 (the
	// front node's --max-object is one byte less).
	Peer bool
	// Floor also measures the floor (ProxyFloor): net/http at
	// GOMAXPROCS=1 answering from memory; with Peer, a pair of them,
	// the front forwarding each request to the other.
	Floor bool
	// Pin runs every proxy on the first CPU the run may use and wrk on
	// the others (taskset), so that the load generator does not share
	// the proxy's CPU: Linux, at least 2 CPUs, every Procs 1.
	Pin bool
	// FIFOWake also measures the floor and each node built with a Go
	// runtime whose network poller hands out the goroutines it finds
	// ready in the order epoll reported them (FIFOOverlay), not newest
	// first: rounds marked WakeFIFO, beside the same servers on the
	// runtime as it is. The node is built from the module even when
	// Bloomcast names a binary. Linux only.
	FIFOWake bool
	Progress io.Writer // progress lines; nil for none

	proxyCPUs, wrkCPUs string // the CPU lists Pin chose ("" unpinned), set by defaults
}

func (c *Config) defaults() error {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Rounds, 3)
	def(&c.Threads, 2)
	def(&c.Connections, 32)
	def(&c.Objects, 100)
	def(&c.ObjectBytes, 4096)
	if c.Duration == 0 {
		c.Duration = 10 * time.Second
	}
	if c.Squid == "" {
		c.Squid = "/usr/sbin/squid"
	}
	if c.Wrk == "" {
		c.Wrk = "/usr/bin/wrk"
	}
	if c.Procs == nil {
		c.Procs = []int{1, 2}
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.Rounds < 0 || c.Threads < 0 || c.Connections < c.Threads || c.Objects < 0 || c.ObjectBytes < 0 || c.Duration < time.Second {
		return errors.New("hits: negative setting, fewer connections than threads, or a round under 1 s")
	}
	if c.FIFOWake && runtime.GOOS != "linux" {
		return errors.New("hits: FIFO wake edits the epoll poller of Linux")
	}
	if c.Peer && c.ObjectBytes < 2 {
		return errors.New("hits: peer hits need objects of at least 2 bytes")
	}
	for _, p := range c.Procs {
		if p < 1 {
			return fmt.Errorf("hits: GOMAXPROCS %d", p)
		}
	}
	if c.Pin {
		if err := c.setPin(); err != nil {
			return err
		}
	}
	for _, bin := range []string{c.Squid, c.Wrk} {
		if _, err := os.Stat(bin); err != nil {
			return fmt.Errorf("hits: %w", err)
		}
	}
	return nil
}

// setPin chooses Pin's CPUs, the first the process may run on for the
// proxies and the rest for wrk, or reports why it cannot.
func (c *Config) setPin() error {
	if slices.ContainsFunc(c.Procs, func(p int) bool { return p != 1 }) {
		return fmt.Errorf("hits: pinning runs the proxies on one CPU, so GOMAXPROCS must be 1 (got %v)", c.Procs)
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return fmt.Errorf("hits: pinning: %w", err)
	}
	cpus, err := allowedCPUs()
	if err != nil {
		return fmt.Errorf("hits: pinning: %w", err)
	}
	if len(cpus) < 2 {
		return fmt.Errorf("hits: pinning needs at least 2 CPUs, one for the proxies and one for wrk (may run on %v)", cpus)
	}
	list := make([]string, len(cpus))
	for i, n := range cpus {
		list[i] = strconv.Itoa(n)
	}
	c.proxyCPUs, c.wrkCPUs = list[0], strings.Join(list[1:], ",")
	return nil
}

// pinned returns the command that runs bin with args on cpus (under
// taskset; bin itself when cpus is ""). taskset execs bin, so the
// process keeps its pid.
func pinned(ctx context.Context, cpus, bin string, args ...string) *exec.Cmd {
	if cpus == "" {
		return exec.CommandContext(ctx, bin, args...)
	}
	return exec.CommandContext(ctx, "taskset", append([]string{"-c", cpus, bin}, args...)...)
}

// Round is one proxy's measured round.
type Round struct {
	Round      int    `json:"round"`
	Proxy      string `json:"proxy"`
	Peer       bool   `json:"peer,omitempty"`       // a pair's peer hits
	GOMAXPROCS int    `json:"gomaxprocs,omitempty"` // the node's or the floor's; 0 for Squid
	Wake       string `json:"wake,omitempty"`       // WakeFIFO for a server built with FIFOOverlay
	// From wrk: completed requests, the round's length, requests per
	// second, latency percentiles in microseconds, and socket errors plus
	// responses other than 2xx or 3xx.
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"seconds"`
	RPS      float64 `json:"requests_per_second"`
	P50Us    float64 `json:"latency_p50_us"`
	P90Us    float64 `json:"latency_p90_us"`
	P99Us    float64 `json:"latency_p99_us"`
	Errors   int64   `json:"errors"`
	// CPUUsPerRequest is the proxy process's CPU time (user + system, all
	// its threads) over the round, per request.
	CPUUsPerRequest float64 `json:"cpu_us_per_request"`
	// Counted over the round by the proxy (hits and all client requests)
	// and by the origin; for a pair, the hits by the peer and the
	// requests by the front, and the CPU is both processes'.
	ProxyHits      int64 `json:"proxy_hits"`
	ProxyRequests  int64 `json:"proxy_requests"`
	OriginRequests int64 `json:"origin_requests"`
}

// Name is the round's proxy with the node's GOMAXPROCS, and its wake
// order when it is not the runtime's own.
func (r Round) Name() string {
	return proxyName(r.Proxy, r.GOMAXPROCS) + wakeSuffix(r.Wake)
}

// wakeSuffix marks the name of a server built with FIFOOverlay.
func wakeSuffix(wake string) string {
	if wake == "" {
		return ""
	}
	return " (" + wake + ")"
}

// proxyName names a proxy, with its GOMAXPROCS unless it is Squid.
func proxyName(proxy string, procs int) string {
	switch proxy {
	case ProxyNode:
		return fmt.Sprintf("%s GOMAXPROCS=%d", proxy, procs)
	case ProxyFloor:
		return fmt.Sprintf("floor: %s GOMAXPROCS=%d", proxy, procs)
	}
	return proxy
}

// Check reports whether every request of the round was a hit, and why
// not. A proxy counts the requests wrk sent but did not wait for at the
// end (at most one per connection), and Squid counts the cache manager
// requests that read its counters (two). A pair's front may count a
// request whose client left before its peer was asked (at most one per
// connection).
func (r Round) Check(connections int) error {
	misses := r.ProxyRequests - r.ProxyHits
	if r.Peer {
		misses = max(misses-int64(connections), 0)
	}
	switch {
	case r.Requests == 0:
		return errors.New("no requests")
	case r.Errors != 0:
		return fmt.Errorf("%d errors", r.Errors)
	case r.OriginRequests != 0:
		return fmt.Errorf("%d requests reached the origin", r.OriginRequests)
	case r.ProxyHits < r.Requests || r.ProxyHits > r.Requests+int64(connections):
		return fmt.Errorf("%s counted %d hits for %d requests", r.Proxy, r.ProxyHits, r.Requests)
	case r.Proxy != ProxySquid && misses != 0, r.Proxy == ProxySquid && misses > 2:
		return fmt.Errorf("%s counted %d requests that were not hits", r.Proxy, misses)
	}
	return nil
}

// Summary is the median of one proxy's rounds, and its ratios to
// Squid's medians.
type Summary struct {
	Name       string  `json:"name"`
	RPS        float64 `json:"median_requests_per_second"`
	P50Us      float64 `json:"median_latency_p50_us"`
	P90Us      float64 `json:"median_latency_p90_us"`
	P99Us      float64 `json:"median_latency_p99_us"`
	CPUUs      float64 `json:"median_cpu_us_per_request"`
	RPSRatio   float64 `json:"rps_vs_squid"`
	P99Ratio   float64 `json:"p99_vs_squid"`
	CPUUsRatio float64 `json:"cpu_per_request_vs_squid"`
	// CPUUsAboveFloor is CPUUs less the floor's, when the run measured
	// the floor (Config.Floor).
	CPUUsAboveFloor float64 `json:"cpu_us_per_request_above_floor,omitempty"`
}

// Report is a whole run.
type Report struct {
	Env           compare.RunEnv `json:"env"`
	SquidVersion  string         `json:"squid_version"`
	WrkVersion    string         `json:"wrk_version"`
	Threads       int            `json:"threads"`
	Connections   int            `json:"connections"`
	DurationS     float64        `json:"duration_s"`
	Objects       int            `json:"objects"`
	ObjectBytes   int            `json:"object_bytes"`
	Rounds        []Round        `json:"rounds"`
	Summaries     []Summary      `json:"summaries"`
	SquidConfig   string         `json:"squid_conf"` // a pair's peer's, with Peer
	NodeArguments []string       `json:"node_arguments"`
	// With Peer: the fronts' configuration and arguments (PEER is the
	// peer node's address).
	Peer             bool     `json:"peer,omitempty"`
	SquidFrontConfig string   `json:"squid_front_conf,omitempty"`
	FrontArguments   []string `json:"front_node_arguments,omitempty"`
	// With Pin: the CPUs the proxies ran on, and wrk's.
	ProxyCPUs string `json:"proxy_cpus,omitempty"`
	WrkCPUs   string `json:"wrk_cpus,omitempty"`
}

// Check reports the first round that was not all hits.
func (rep *Report) Check() error {
	for _, r := range rep.Rounds {
		if err := r.Check(rep.Connections); err != nil {
			return fmt.Errorf("round %d, %s: %w", r.Round, r.Name(), err)
		}
	}
	return nil
}

// target is one proxy under test.
type target struct {
	proxy  string
	procs  int
	addr   string
	cmd    *exec.Cmd
	exited chan struct{}
	back   *target // a pair's peer, behind this front; nil for a single proxy
	wake   string  // WakeFIFO when built with FIFOOverlay
}

// Run starts the origin, the node(s) and Squid, warms them, runs the
// interleaved rounds and stops everything.
func Run(ctx context.Context, cfg Config) (rep *Report, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bloomcast-hits-")
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	rep = &Report{Env: compare.StartRunEnv(), Threads: cfg.Threads, Connections: cfg.Connections,
		DurationS: cfg.Duration.Seconds(), Objects: cfg.Objects, ObjectBytes: cfg.ObjectBytes, Peer: cfg.Peer,
		ProxyCPUs: cfg.proxyCPUs, WrkCPUs: cfg.wrkCPUs}
	rep.SquidVersion = firstLine(exec.Command(cfg.Squid, "-v").Output())
	rep.WrkVersion = firstLine(exec.Command(cfg.Wrk, "-v").CombinedOutput())
	progress := func(format string, a ...any) {
		_, _ = fmt.Fprintf(cfg.Progress, format+"\n", a...) // progress is informational
	}

	bin, err := bloomcastBinary(ctx, cfg.Bloomcast, dir, progress)
	if err != nil {
		return nil, err
	}

	origin, err := startOrigin(cfg.ObjectBytes)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, origin.srv.Close()) }()

	var targets []*target
	defer func() {
		for _, t := range targets {
			err = errors.Join(err, t.stop())
		}
	}()
	if cfg.Floor {
		progress("building and starting the floor")
		floor := filepath.Join(dir, "hitfloor")
		if err := buildFloor(ctx, floor); err != nil {
			return nil, err
		}
		t, err := startFloorFor(ctx, cfg, floor)
		if t != nil {
			targets = append(targets, t)
		}
		if err != nil {
			return nil, err
		}
	}
	rep.NodeArguments = []string{"serve", "--listen", "127.0.0.1:PORT", "--name", "bench", "--memory", "64MiB", "--log-level", "warn"}
	if cfg.Peer {
		// The peer publishes what it holds within a second, not when
		// 5% of it changed.
		rep.NodeArguments = append(rep.NodeArguments, "--max-digest-age", "1s")
		rep.FrontArguments = frontNodeArguments(cfg.ObjectBytes)
	}
	for i, procs := range cfg.Procs {
		if cfg.Peer {
			progress("starting the node pair at GOMAXPROCS=%d", procs)
		}
		t, err := startNodeFor(ctx, cfg, bin, procs, rep, origin)
		if t != nil {
			targets = append(targets, t)
		}
		if err != nil {
			return nil, err
		}
		if i == 0 { // Squid's rounds after the first node's
			var sq *target
			if cfg.Peer {
				progress("starting the Squid pair")
				sq, err = startSquidPair(ctx, cfg, dir, rep, origin)
			} else {
				sq, rep.SquidConfig, err = startSquid(ctx, cfg.proxyCPUs, cfg.Squid, dir)
			}
			if sq != nil {
				targets = append(targets, sq)
			}
			if err != nil {
				return nil, err
			}
		}
	}

	if cfg.FIFOWake {
		fifo, err := startFIFO(ctx, cfg, dir, rep, origin, progress)
		targets = append(targets, fifo...)
		if err != nil {
			return nil, err
		}
	}

	script := filepath.Join(dir, "absolute.lua")
	if err := os.WriteFile(script, []byte(luaScript(origin.addr, cfg.Objects)), 0o644); err != nil {
		return nil, err
	}
	for _, t := range targets {
		progress("warming %s at %s", t.name(), t.addr)
		warmed := warm(ctx, t, origin.addr, cfg.Objects)
		if t.back != nil {
			warmed = warmPeer(ctx, t, origin, cfg.Objects)
		}
		if err := warmed; err != nil {
			return nil, fmt.Errorf("warming %s: %w", t.name(), err)
		}
		// An unmeasured second of load: connections, buffers and the
		// node's heap settle.
		if _, err := runWrk(ctx, cfg, t.addr, script, time.Second); err != nil {
			return nil, fmt.Errorf("warming %s: %w", t.name(), err)
		}
	}
	for round := 1; round <= cfg.Rounds; round++ {
		for _, t := range targets {
			r, err := measure(ctx, cfg, t, script, origin)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", round, t.name(), err)
			}
			r.Round = round
			progress("round %d %s: %d requests, %.0f/s, p50 %.0f µs, p99 %.0f µs, %.1f CPU µs/request, hits %d",
				round, r.Name(), r.Requests, r.RPS, r.P50Us, r.P99Us, r.CPUUsPerRequest, r.ProxyHits)
			rep.Rounds = append(rep.Rounds, r)
		}
	}
	rep.Summaries = summarise(rep.Rounds)
	rep.Env.LoadEnd = compare.LoadAvg()
	return rep, nil
}

func (t *target) name() string {
	name := proxyName(t.proxy, t.procs)
	if t.back != nil {
		name += " pair"
	}
	return name + wakeSuffix(t.wake)
}

// measure runs one round of wrk against t, with the counters around it.
func measure(ctx context.Context, cfg Config, t *target, script string, origin *origin) (Round, error) {
	r := Round{Proxy: t.proxy, Peer: t.back != nil, Wake: t.wake}
	if t.proxy != ProxySquid {
		r.GOMAXPROCS = t.procs
	}
	hits0, reqs0, err := t.roundCounters(ctx)
	if err != nil {
		return r, err
	}
	cpu0, err := t.cpu()
	if err != nil {
		return r, err
	}
	orig0 := origin.requests.Load()
	w, err := runWrk(ctx, cfg, t.addr, script, cfg.Duration)
	if err != nil {
		return r, err
	}
	cpu1, err := t.cpu()
	if err != nil {
		return r, err
	}
	hits1, reqs1, err := t.roundCounters(ctx)
	if err != nil {
		return r, err
	}
	r.Requests, r.Seconds, r.RPS, r.Errors = w.requests, w.seconds, w.rps, w.errors
	r.P50Us, r.P90Us, r.P99Us = w.latencyUs[50], w.latencyUs[90], w.latencyUs[99]
	if r.Requests > 0 {
		r.CPUUsPerRequest = float64(cpu1-cpu0) / float64(time.Microsecond) / float64(r.Requests)
	}
	r.ProxyHits, r.ProxyRequests, r.OriginRequests = hits1-hits0, reqs1-reqs0, origin.requests.Load()-orig0
	return r, nil
}

// roundCounters returns the hits and client requests of t: a pair's
// hits are its peer's, its requests its front's.
func (t *target) roundCounters(ctx context.Context) (hits, requests int64, err error) {
	hits, requests, err = t.counters(ctx)
	if err != nil || t.back == nil {
		return hits, requests, err
	}
	hits, _, err = t.back.counters(ctx)
	return hits, requests, err
}

// cpu returns the CPU time of t's process, and of its peer's.
func (t *target) cpu() (time.Duration, error) {
	d, err := processCPU(t.cmd.Process.Pid)
	if err != nil || t.back == nil {
		return d, err
	}
	b, err := processCPU(t.back.cmd.Process.Pid)
	return d + b, err
}

// summarise gives the medians of each proxy's rounds and their ratios to
// Squid's.
func summarise(rounds []Round) []Summary {
	var names []string
	by := map[string][]Round{}
	for _, r := range rounds {
		if _, ok := by[r.Name()]; !ok {
			names = append(names, r.Name())
		}
		by[r.Name()] = append(by[r.Name()], r)
	}
	var out []Summary
	for _, n := range names {
		rs := by[n]
		s := Summary{Name: n,
			RPS:   median(rs, func(r Round) float64 { return r.RPS }),
			P50Us: median(rs, func(r Round) float64 { return r.P50Us }),
			P90Us: median(rs, func(r Round) float64 { return r.P90Us }),
			P99Us: median(rs, func(r Round) float64 { return r.P99Us }),
			CPUUs: median(rs, func(r Round) float64 { return r.CPUUsPerRequest })}
		out = append(out, s)
	}
	for i := range out {
		for _, o := range out {
			if o.Name == ProxySquid && o.RPS > 0 && o.P99Us > 0 && o.CPUUs > 0 {
				out[i].RPSRatio, out[i].P99Ratio, out[i].CPUUsRatio = out[i].RPS/o.RPS, out[i].P99Us/o.P99Us, out[i].CPUUs/o.CPUUs
			}
			if strings.HasPrefix(o.Name, "floor: ") && fifoName(o.Name) == fifoName(out[i].Name) {
				out[i].CPUUsAboveFloor = out[i].CPUUs - o.CPUUs
			}
		}
	}
	return out
}

// median of f over rs (the mean of the middle two for an even count).
func median(rs []Round, f func(Round) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	switch n := len(v); {
	case n == 0:
		return 0
	case n%2 == 1:
		return v[n/2]
	default:
		return (v[n/2-1] + v[n/2]) / 2
	}
}

// origin serves /obj-N: ObjectBytes bytes, fresh for a day.
type origin struct {
	srv      *http.Server
	addr     string
	requests atomic.Int64
}

func startOrigin(size int) (*origin, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	o := &origin{addr: ln.Addr().String()}
	body := bytes.Repeat([]byte("x"), size)
	o.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.requests.Add(1)
		h := w.Header()
		h.Set("Cache-Control", "max-age=86400")
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body) // a failed write is a client gone away; the round's checks see it
	})}
	go func() { _ = o.srv.Serve(ln) }() // Serve ends with ErrServerClosed when Run closes it
	return o, nil
}

// bloomcastBinary is the bloomcast binary to measure: bin when given,
// else the module's command built into dir.
func bloomcastBinary(ctx context.Context, bin, dir string, progress func(string, ...any)) (string, error) {
	if bin != "" {
		return bin, nil
	}
	bin = filepath.Join(dir, "bloomcast")
	progress("building bloomcast")
	return bin, buildBloomcast(ctx, bin)
}

// buildBloomcast builds the module's command into bin, with the go
// build flags given.
func buildBloomcast(ctx context.Context, bin string, flags ...string) error {
	return goBuild(ctx, "github.com/bloomcast/bloomcast", "bloomcast", bin, flags...)
}

// goBuild builds command cmd/name of module into bin, with the go build
// flags given.
func goBuild(ctx context.Context, module, name, bin string, flags ...string) error {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		return fmt.Errorf("finding module %s: %w", module, err)
	}
	build := exec.CommandContext(ctx, "go", append(append([]string{"build"}, flags...), "-o", bin, "./cmd/"+name)...)
	build.Dir = strings.TrimSpace(string(out))
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %w\n%s", name, err, out)
	}
	return nil
}

// freePort returns a loopback address nothing listens on now.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// startNode runs `bloomcast serve` with GOMAXPROCS=procs on cpus (PORT in args
// replaced by a free port) and waits until it answers /healthz.
func startNode(ctx context.Context, cpus, bin string, procs int, args []string) (*target, error) {
	return startGoServer(ctx, cpus, ProxyNode, bin, procs, "/healthz", func(addr string) []string {
		argv := slices.Clone(args)
		for i, a := range argv {
			argv[i] = strings.Replace(a, "127.0.0.1:PORT", addr, 1)
		}
		return argv
	})
}

// startGoServer runs bin with GOMAXPROCS=procs (on cpus, unless "") and the arguments argv
// gives for a free loopback address, as the proxy named, and waits until
// it answers GET ready with 200.
func startGoServer(ctx context.Context, cpus, proxy, bin string, procs int, ready string, argv func(addr string) []string) (*target, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := pinned(context.Background(), cpus, bin, argv(addr)...) // stopped by target.stop, not by ctx
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
	cmd.Stderr = os.Stderr
	t := &target{proxy: proxy, procs: procs, addr: addr, cmd: cmd}
	if err := t.start(); err != nil {
		return nil, err
	}
	return t, waitUntil(ctx, 20*time.Second, func() bool {
		resp, err := http.Get("http://" + addr + ready)
		if err != nil {
			return false
		}
		_ = resp.Body.Close() // only the status matters
		return resp.StatusCode == http.StatusOK
	})
}

// SquidConf is the configuration the run gives Squid: one worker, a
// memory cache large enough for the objects, no disk cache, no access
// log, the cache manager open to loopback.
func SquidConf(addr, dir string) string { return squidConf(addr, dir, 64) }

// squidConf is SquidConf with a cache_mem of cacheMemMB.
func squidConf(addr, dir string, cacheMemMB int64) string {
	return fmt.Sprintf(`http_port %[1]s
workers 1
icp_port 0
htcp_port 0
visible_hostname localhost
pid_filename none
cache_log %[2]s
access_log none
cache_store_log none
cache_mem %[3]d MB
maximum_object_size_in_memory 1 MB
pinger_enable off
http_access allow localhost manager
http_access allow localhost
http_access deny all
shutdown_lifetime 1 second
`, addr, filepath.Join(dir, "cache.log"), cacheMemMB)
}

// startSquid writes squid.conf into dir and runs Squid in the foreground
// until it listens.
func startSquid(ctx context.Context, cpus, bin, dir string) (*target, string, error) {
	return startSquidMem(ctx, cpus, bin, dir, 64)
}

// startSquidMem is startSquid with a cache_mem of cacheMemMB.
func startSquidMem(ctx context.Context, cpus, bin, dir string, cacheMemMB int64) (*target, string, error) {
	addr, err := freePort()
	if err != nil {
		return nil, "", err
	}
	conf := squidConf(addr, dir, cacheMemMB)
	path := filepath.Join(dir, "squid.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return nil, conf, err
	}
	if err := chownToSquidUser(dir); err != nil {
		return nil, conf, err
	}
	t := &target{proxy: ProxySquid, addr: addr, cmd: pinned(context.Background(), cpus, bin, "-N", "-f", path)}
	t.cmd.Stderr = os.Stderr
	if err := t.start(); err != nil {
		return nil, conf, err
	}
	return t, conf, waitUntil(ctx, 20*time.Second, func() bool {
		_, _, err := t.counters(ctx)
		return err == nil
	})
}

// chownToSquidUser gives dir to Squid's unprivileged user when running as
// root (Squid then drops to that user and must write its cache.log).
func chownToSquidUser(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("proxy")
	if err != nil {
		return nil // no such user: Squid stays root or uses its own
	}
	uid, _ := strconv.Atoi(u.Uid) // numeric on Unix
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}

func (t *target) start() error {
	if err := t.cmd.Start(); err != nil {
		return err
	}
	t.exited = make(chan struct{})
	go func() { _ = t.cmd.Wait(); close(t.exited) }() // the exit status of a stopped process says nothing
	return nil
}

// stop sends SIGTERM and waits (killing after 10 s), to a pair's peer
// too.
func (t *target) stop() error {
	var err error
	if t.back != nil {
		err = t.back.stop()
	}
	return errors.Join(t.stopOne(), err)
}

func (t *target) stopOne() error {
	if t.exited == nil {
		return nil
	}
	if err := t.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-t.exited:
	case <-time.After(10 * time.Second):
		_ = t.cmd.Process.Kill() // it did not stop: the kill's own error changes nothing
		<-t.exited
		return fmt.Errorf("hits: %s did not stop on SIGTERM", t.name())
	}
	return nil
}

func waitUntil(ctx context.Context, limit time.Duration, ok func() bool) error {
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("hits: gave up after %v", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// warm fetches every object through t until it is a hit there (X-Cache
// says HIT).
func warm(ctx context.Context, t *target, originAddr string, objects int) error {
	c := proxyClient(t.addr)
	defer c.CloseIdleConnections()
	for i := range objects {
		u := fmt.Sprintf("http://%s/obj-%d", originAddr, i)
		for try := 0; ; try++ {
			h, err := get(ctx, c, u)
			if err != nil {
				return err
			}
			if strings.HasPrefix(h.Get("X-Cache"), "HIT") {
				break
			}
			if try == 5 {
				return fmt.Errorf("%s: still %q after %d requests", u, h.Get("X-Cache"), try+1)
			}
		}
	}
	return nil
}

// proxyClient returns a client that sends its requests through the proxy
// at addr.
func proxyClient(addr string) *http.Client {
	pu, _ := url.Parse("http://" + addr) // an address from net.Listen parses
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
}

// get fetches u through c and reads its body, returning the response's
// header; any status but 200 is an error.
func get(ctx context.Context, c *http.Client, u string) (http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	err = errors.Join(err, resp.Body.Close())
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s", u, resp.Status)
	}
	return resp.Header, err
}

// counters returns the hits and client requests the proxy has counted.
func (t *target) counters(ctx context.Context) (hits, requests int64, err error) {
	path := "/metrics"
	switch t.proxy {
	case ProxySquid:
		path = "/squid-internal-mgr/counters"
	case ProxyFloor:
		path = floorCountersPath
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+t.addr+path, nil)
	if err != nil {
		return 0, 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	body, err := io.ReadAll(resp.Body)
	err = errors.Join(err, resp.Body.Close())
	if err != nil {
		return 0, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("%s: %s", path, resp.Status)
	}
	switch t.proxy {
	case ProxySquid:
		return SquidCounters(string(body))
	case ProxyFloor:
		return FloorCounters(string(body))
	}
	return NodeCounters(string(body))
}

// NodeCounters reads local hits and all client requests from a node's
// /metrics (bloomcast_requests_total by outcome).
func NodeCounters(metrics string) (hits, requests int64, err error) {
	found := false
	for _, line := range strings.Split(metrics, "\n") {
		rest, ok := strings.CutPrefix(line, "bloomcast_requests_total{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			return 0, 0, fmt.Errorf("hits: metrics line %q", line)
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("hits: metrics line %q: %w", line, err)
		}
		found = true
		requests += int64(v)
		if labels == `outcome="local_hit"` {
			hits += int64(v)
		}
	}
	if !found && !strings.Contains(metrics, "bloomcast_requests_total") {
		return 0, 0, errors.New("hits: no bloomcast_requests_total in /metrics")
	}
	return hits, requests, nil
}

// SquidCounters reads client_http.hits and client_http.requests from
// Squid's cache manager counters report.
func SquidCounters(report string) (hits, requests int64, err error) {
	got := 0
	for _, line := range strings.Split(report, "\n") {
		name, value, ok := strings.Cut(line, " = ")
		if !ok {
			continue
		}
		var dst *int64
		switch strings.TrimSpace(name) {
		case "client_http.hits":
			dst = &hits
		case "client_http.requests":
			dst = &requests
		default:
			continue
		}
		if *dst, err = strconv.ParseInt(strings.TrimSpace(value), 10, 64); err != nil {
			return 0, 0, fmt.Errorf("hits: counters line %q: %w", line, err)
		}
		got++
	}
	if got != 2 {
		return 0, 0, errors.New("hits: no client_http.hits and client_http.requests in Squid's counters")
	}
	return hits, requests, nil
}

// luaScript is the wrk script that sends absolute-URI requests for the
// origin's objects in turn (wrk sends its request paths as given), with
// the origin as Host.
func luaScript(originAddr string, objects int) string {
	return fmt.Sprintf(`-- Absolute-URI requests through a proxy (RFC 9112 §3.2.2), objects in turn.
wrk.headers["Host"] = %[1]q
local n = 0
request = function()
  local path = "http://%[1]s/obj-" .. n
  n = (n + 1) %% %[2]d
  return wrk.format("GET", path)
end
`, originAddr, objects)
}

// wrkResult is what a wrk run printed.
type wrkResult struct {
	requests  int64
	seconds   float64
	rps       float64
	errors    int64
	latencyUs map[int]float64 // by percentile
}

func runWrk(ctx context.Context, cfg Config, addr, script string, d time.Duration) (wrkResult, error) {
	args := []string{"-t" + strconv.Itoa(cfg.Threads), "-c" + strconv.Itoa(cfg.Connections),
		"-d" + strconv.Itoa(int(d.Round(time.Second)/time.Second)) + "s", "--latency", "-s", script, "http://" + addr + "/"}
	out, err := pinned(ctx, cfg.wrkCPUs, cfg.Wrk, args...).CombinedOutput()
	if err != nil {
		return wrkResult{}, fmt.Errorf("wrk: %w\n%s", err, out)
	}
	return ParseWrk(string(out))
}

// ParseWrk reads wrk's output (with --latency).
func ParseWrk(out string) (wrkResult, error) {
	r := wrkResult{latencyUs: map[int]float64{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && strings.HasSuffix(f[0], "%"):
			p, err1 := strconv.Atoi(strings.TrimSuffix(f[0], "%"))
			us, err2 := durationUs(f[1])
			if err1 != nil || err2 != nil {
				return r, fmt.Errorf("hits: wrk latency line %q", sc.Text())
			}
			r.latencyUs[p] = us
		case len(f) >= 4 && f[1] == "requests" && f[2] == "in":
			n, err1 := strconv.ParseInt(f[0], 10, 64)
			us, err2 := durationUs(strings.TrimSuffix(f[3], ","))
			if err1 != nil || err2 != nil {
				return r, fmt.Errorf("hits: wrk line %q", sc.Text())
			}
			r.requests, r.seconds = n, us/1e6
		case len(f) == 2 && f[0] == "Requests/sec:":
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return r, fmt.Errorf("hits: wrk line %q", sc.Text())
			}
			r.rps = v
		case len(f) > 2 && f[0] == "Socket" && f[1] == "errors:":
			// "Socket errors: connect 0, read 0, write 0, timeout 0"
			for i := 3; i < len(f); i += 2 {
				n, err := strconv.ParseInt(strings.TrimSuffix(f[i], ","), 10, 64)
				if err != nil {
					return r, fmt.Errorf("hits: wrk line %q", sc.Text())
				}
				r.errors += n
			}
		case strings.HasPrefix(sc.Text(), "  Non-2xx or 3xx responses:"):
			n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
			if err != nil {
				return r, fmt.Errorf("hits: wrk line %q", sc.Text())
			}
			r.errors += n
		}
	}
	if r.requests <= 0 || r.rps <= 0 || r.errors < 0 || r.latencyUs[50] <= 0 || r.latencyUs[99] <= 0 {
		return r, fmt.Errorf("hits: wrk printed no requests, rate or latency distribution (or negative ones):\n%s", out)
	}
	return r, nil
}

// durationUs parses wrk's durations ("612.34us", "1.90ms", "10.00s",
// "1.00m") into microseconds.
func durationUs(s string) (float64, error) {
	for _, u := range []struct {
		suffix string
		us     float64
	}{{"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"m", 60e6}, {"h", 3600e6}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, err
			}
			return f * u.us, nil
		}
	}
	return 0, fmt.Errorf("hits: duration %q", s)
}

// processCPU returns the user and system time of a process (all its
// threads) from /proc/PID/stat.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// fields are counted from after its closing parenthesis.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("hits: /proc/%d/stat unreadable", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("hits: /proc/%d/stat unreadable", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("hits: /proc/%d/stat unreadable", pid)
	}
	const clockTicks = 100 // USER_HZ, 100 on every Linux this runs on
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// firstLine is the first line a version flag printed (wrk -v exits with
// status 1 after printing it).
func firstLine(b []byte, err error) string {
	if len(bytes.TrimSpace(b)) == 0 {
		return fmt.Sprintf("unknown (%v)", err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return line
}
