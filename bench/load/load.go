// Package load drives a summary-cache cluster on loopback with concurrent
// keep-alive clients and measures requests per second and latency
// (docs/BENCHMARKS.md, "Node under load"). Everything runs in this
// process: an origin, node A and node B (peers of each other through
// digests), and the clients.
//
// Two scenarios:
//
//   - local hit: every request is for an object A already holds;
//   - peer hit: every request is for an object only B holds, asked of A,
//     which misses, finds it in B's digest and fetches it from B with
//     only-if-cached. Each request names a key never asked before, so A's
//     own copy (it stores what B sends) never answers a later request.
//     B's objects are put into its store directly before the run (as if
//     fetched from the origin earlier); the pool is sized from the rate
//     measured during the warm-up.
//
// The node metrics and access logs are read before and after each
// measured phase to check that every request was the intended kind.
package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcast/bloomcast/bench/compare"
	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/node"
)

// Scenarios.
const (
	ScenarioLocal = "local-hit"
	ScenarioPeer  = "peer-hit"
)

// Config configures a run. Zero fields take the defaults noted.
type Config struct {
	Clients     int           // concurrent keep-alive clients; 0 means 32
	Duration    time.Duration // measured phase per scenario; 0 means 10 s
	Warmup      time.Duration // unmeasured phase before it; 0 means 1 s
	Objects     int           // objects of the local-hit set; 0 means 1000
	ObjectBytes int           // body size of every object; 0 means 1024
	Scenarios   []string      // nil means both, local first
	Progress    io.Writer     // progress lines; nil for none
}

func (c *Config) defaults() error {
	if c.Clients == 0 {
		c.Clients = 32
	}
	if c.Duration == 0 {
		c.Duration = 10 * time.Second
	}
	if c.Warmup == 0 {
		c.Warmup = time.Second
	}
	if c.Objects == 0 {
		c.Objects = 1000
	}
	if c.ObjectBytes == 0 {
		c.ObjectBytes = 1024
	}
	if c.Scenarios == nil {
		c.Scenarios = []string{ScenarioLocal, ScenarioPeer}
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.Clients < 0 || c.Duration < 0 || c.Warmup < 0 || c.Objects < 0 || c.ObjectBytes < 0 {
		return errors.New("load: negative setting")
	}
	for _, s := range c.Scenarios {
		if s != ScenarioLocal && s != ScenarioPeer {
			return fmt.Errorf("load: scenario %q (want %s or %s)", s, ScenarioLocal, ScenarioPeer)
		}
	}
	return nil
}

// Env records where and when a report was measured.
type Env = compare.RunEnv

// Result is one scenario's measured phase.
type Result struct {
	Scenario string  `json:"scenario"`
	Clients  int     `json:"clients"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	Seconds  float64 `json:"seconds"` // wall time of the measured phase
	RPS      float64 `json:"requests_per_second"`
	// Latency of one request as a client saw it, in microseconds.
	MeanUs float64 `json:"latency_mean_us"`
	P50Us  float64 `json:"latency_p50_us"`
	P99Us  float64 `json:"latency_p99_us"`
	MaxUs  float64 `json:"latency_max_us"`
	// CPUPerRequestUs is the process's CPU time (user + system, every
	// goroutine: clients, nodes and origin) over the phase, per request.
	CPUPerRequestUs float64 `json:"cpu_per_request_us"`
	// Exhausted is true when the peer-hit pool ran out before the
	// duration: the phase is shorter, its figures still hold.
	Exhausted bool `json:"exhausted,omitempty"`
	// Counts over the phase from the nodes' metrics, the access log and
	// the origin: what the requests actually were.
	ALocalHits      int64 `json:"a_local_hits"`
	APeerHits       int64 `json:"a_peer_hits"`
	AMisses         int64 `json:"a_misses"`
	BLocalHits      int64 `json:"b_local_hits"`
	ALogSiblingHits int64 `json:"a_log_cd_sibling_hits"`
	OriginRequests  int64 `json:"origin_requests"`
}

// Check reports whether every request of the phase was of the scenario's
// kind, and why not.
func (r Result) Check() error {
	switch {
	case r.Requests == 0:
		return errors.New("no requests")
	case r.Errors != 0:
		return fmt.Errorf("%d errors", r.Errors)
	case r.OriginRequests != 0:
		return fmt.Errorf("%d requests reached the origin", r.OriginRequests)
	case r.Scenario == ScenarioLocal && (r.ALocalHits != r.Requests || r.APeerHits != 0 || r.AMisses != 0):
		return fmt.Errorf("node A counted %d local hits, %d peer hits, %d misses for %d requests", r.ALocalHits, r.APeerHits, r.AMisses, r.Requests)
	case r.Scenario == ScenarioPeer && (r.APeerHits != r.Requests || r.BLocalHits != r.Requests || r.ALogSiblingHits != r.Requests || r.ALocalHits != 0):
		return fmt.Errorf("node A counted %d peer hits (access log %d), %d local hits; node B %d hits; for %d requests",
			r.APeerHits, r.ALogSiblingHits, r.ALocalHits, r.BLocalHits, r.Requests)
	}
	return nil
}

// Report is a whole run.
type Report struct {
	Env         Env      `json:"env"`
	Clients     int      `json:"clients"`
	DurationS   float64  `json:"duration_s"`
	WarmupS     float64  `json:"warmup_s"`
	Objects     int      `json:"objects"`
	ObjectBytes int      `json:"object_bytes"`
	PeerPool    int      `json:"peer_pool"` // objects put into B for the peer-hit phase
	Results     []Result `json:"results"`
}

// Run starts the cluster, runs the scenarios and stops the cluster.
func Run(ctx context.Context, cfg Config) (rep *Report, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	rep = &Report{
		Env:     compare.StartRunEnv(),
		Clients: cfg.Clients, DurationS: cfg.Duration.Seconds(), WarmupS: cfg.Warmup.Seconds(),
		Objects: cfg.Objects, ObjectBytes: cfg.ObjectBytes,
	}
	cl, err := startCluster(cfg.ObjectBytes)
	if err != nil {
		return nil, err
	}
	defer func() {
		if serr := cl.stop(); err == nil && serr != nil {
			rep, err = nil, fmt.Errorf("stopping the cluster: %w", serr)
		}
	}()
	for _, s := range cfg.Scenarios {
		var r Result
		var err error
		switch s {
		case ScenarioLocal:
			r, err = cl.localHits(ctx, cfg)
		case ScenarioPeer:
			r, err = cl.peerHits(ctx, cfg, &rep.PeerPool)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		// A progress line is informational: failing to show one does
		// not change the measurement.
		_, _ = fmt.Fprintf(cfg.Progress, "%s: %d requests in %.2f s, %.0f/s, p50 %.0f µs, p99 %.0f µs\n",
			s, r.Requests, r.Seconds, r.RPS, r.P50Us, r.P99Us)
		rep.Results = append(rep.Results, r)
	}
	rep.Env.LoadEnd = compare.LoadAvg()
	return rep, nil
}

// cluster is the origin and the two nodes.
type cluster struct {
	origin     *http.Server
	originURL  string
	originHits atomic.Int64
	body       []byte
	a, b       *node.Node
	aURL, bURL string
	aLog       *lineCounter
	cancel     context.CancelFunc
	done       chan error
	originDone chan error // what the origin's Serve returned
}

func startCluster(objectBytes int) (*cluster, error) {
	cl := &cluster{body: bytes.Repeat([]byte("x"), objectBytes), done: make(chan error, 2), aLog: &lineCounter{}}
	lo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cl.originURL = "http://" + lo.Addr().String()
	cl.origin = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cl.originHits.Add(1)
		h := w.Header()
		h.Set("Cache-Control", "max-age=86400")
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Length", strconv.Itoa(len(cl.body)))
		_, _ = w.Write(cl.body) // a failed write is a client gone away; the client counts it
	})}
	cl.originDone = make(chan error, 1)
	go func() { cl.originDone <- cl.origin.Serve(lo) }()

	la, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(err, cl.closeOrigin())
	}
	lb, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(err, cl.closeOrigin(), la.Close())
	}
	cl.aURL, cl.bURL = "http://"+la.Addr().String(), "http://"+lb.Addr().String()
	node := func(name, peer, peerURL string, log io.Writer) (*node.Node, error) {
		return node.NewNode(node.NodeConfig{
			Name: name, Peers: []node.PeerConfig{{Name: peer, Proxy: peerURL}},
			MemoryBytes: 8 << 30, Capacity: 1 << 20, Manual: true,
			AccessLog: log, Logger: slog.New(slog.DiscardHandler),
		})
	}
	if cl.a, err = node("a", "b", cl.bURL, cl.aLog); err == nil {
		cl.b, err = node("b", "a", cl.aURL, io.Discard)
	}
	if err != nil {
		return nil, errors.Join(err, cl.closeOrigin(), la.Close(), lb.Close())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cl.cancel = cancel
	go func() { cl.done <- cl.a.Serve(ctx, la, nil) }()
	go func() { cl.done <- cl.b.Serve(ctx, lb, nil) }()
	return cl, nil
}

// stop stops the nodes and the origin and returns the first error any of
// them ended with.
func (cl *cluster) stop() error {
	cl.cancel()
	return errors.Join(<-cl.done, <-cl.done, cl.closeOrigin())
}

// closeOrigin stops the origin and returns why it stopped if that was not
// the close itself.
func (cl *cluster) closeOrigin() error {
	err := cl.origin.Close()
	if serr := <-cl.originDone; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(serr, err)
	}
	return err
}

// lineCounter is an access log that counts CD_SIBLING_HIT lines.
type lineCounter struct {
	mu      sync.Mutex
	partial []byte
	sibling atomic.Int64
}

func (l *lineCounter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	data := append(l.partial, p...)
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		if bytes.Contains(data[:i], []byte(" CD_SIBLING_HIT/")) {
			l.sibling.Add(1)
		}
		data = data[i+1:]
	}
	l.partial = append(l.partial[:0], data...)
	return len(p), nil
}

// counts are a node's request counters by outcome.
type counts struct{ local, peer, miss int64 }

// gauge reads the first sample of n's gauge name.
func gauge(n *node.Node, name string) (float64, error) {
	families, err := n.Metrics().Gather()
	if err != nil {
		return 0, err
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) > 0 {
			return f.GetMetric()[0].GetGauge().GetValue(), nil
		}
	}
	return 0, fmt.Errorf("no metric %s", name)
}

// scrape reads a node's bloomcast_requests_total from /metrics.
func scrape(ctx context.Context, nodeURL string) (counts, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, nodeURL+"/metrics", nil)
	if err != nil {
		return counts{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return counts{}, err
	}
	defer closeBody(resp.Body)
	var c counts
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), `bloomcast_requests_total{outcome="`)
		if !ok {
			continue
		}
		label, value, ok := strings.Cut(rest, `"} `)
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return counts{}, fmt.Errorf("metrics: %q", sc.Text())
		}
		switch label {
		case "local_hit":
			c.local = int64(v)
		case "peer_hit":
			c.peer = int64(v)
		case "miss":
			c.miss = int64(v)
		}
	}
	return c, sc.Err()
}

// snapshot is everything read before and after a measured phase.
type snapshot struct {
	a, b    counts
	sibling int64
	origin  int64
	cpu     time.Duration
}

func (cl *cluster) snapshot(ctx context.Context) (snapshot, error) {
	var s snapshot
	var err error
	if s.a, err = scrape(ctx, cl.aURL); err != nil {
		return s, err
	}
	if s.b, err = scrape(ctx, cl.bURL); err != nil {
		return s, err
	}
	s.sibling, s.origin, s.cpu = cl.aLog.sibling.Load(), cl.originHits.Load(), processCPU()
	return s, nil
}

// phase is what drive measured.
type phase struct {
	latencies []time.Duration
	errors    int64
	elapsed   time.Duration
	exhausted bool
}

// drive runs clients, each with its own keep-alive connection to A,
// sending requests for next(client, i) back to back until d has passed
// or next runs out.
func (cl *cluster) drive(ctx context.Context, clients int, d time.Duration, next func(c, i int) (string, bool)) (phase, error) {
	proxy, err := url.Parse(cl.aURL)
	if err != nil {
		return phase{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, d+30*time.Second)
	defer cancel()
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		all       []time.Duration
		errs      atomic.Int64
		exhausted atomic.Bool
	)
	start := time.Now()
	end := start.Add(d)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &http.Transport{Proxy: http.ProxyURL(proxy), MaxIdleConnsPerHost: 1, DisableCompression: true}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			lat := make([]time.Duration, 0, 4096)
			for i := 0; ctx.Err() == nil; i++ {
				t0 := time.Now()
				if !t0.Before(end) {
					break
				}
				path, ok := next(c, i)
				if !ok {
					exhausted.Store(true)
					break
				}
				if !cl.get(ctx, client, path) {
					errs.Add(1)
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return phase{latencies: all, errors: errs.Load(), elapsed: time.Since(start), exhausted: exhausted.Load()}, ctx.Err()
}

// get fetches one object through A and reports whether it came whole.
func (cl *cluster) get(ctx context.Context, c *http.Client, path string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cl.originURL+path, nil)
	if err != nil {
		return false
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	n, err := io.Copy(io.Discard, resp.Body)
	closeBody(resp.Body)
	return err == nil && resp.StatusCode == http.StatusOK && n == int64(len(cl.body))
}

// measure runs the measured phase between two snapshots.
func (cl *cluster) measure(ctx context.Context, scenario string, cfg Config, next func(c, i int) (string, bool)) (Result, error) {
	before, err := cl.snapshot(ctx)
	if err != nil {
		return Result{}, err
	}
	ph, err := cl.drive(ctx, cfg.Clients, cfg.Duration, next)
	if err != nil {
		return Result{}, err
	}
	after, err := cl.snapshot(ctx)
	if err != nil {
		return Result{}, err
	}
	r := summarise(ph.latencies)
	r.Scenario, r.Clients, r.Errors, r.Exhausted = scenario, cfg.Clients, ph.errors, ph.exhausted
	r.Seconds = ph.elapsed.Seconds()
	r.RPS = float64(r.Requests) / r.Seconds
	if r.Requests > 0 {
		r.CPUPerRequestUs = float64((after.cpu - before.cpu).Nanoseconds()) / 1e3 / float64(r.Requests)
	}
	r.ALocalHits, r.APeerHits, r.AMisses = after.a.local-before.a.local, after.a.peer-before.a.peer, after.a.miss-before.a.miss
	r.BLocalHits = after.b.local - before.b.local
	r.ALogSiblingHits = after.sibling - before.sibling
	r.OriginRequests = after.origin - before.origin
	return r, nil
}

// summarise computes the count and latency figures of a phase.
func summarise(lat []time.Duration) Result {
	r := Result{Requests: int64(len(lat))}
	if len(lat) == 0 {
		return r
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	r.MeanUs = us(sum) / float64(len(lat))
	r.P50Us, r.P99Us, r.MaxUs = us(percentile(lat, 50)), us(percentile(lat, 99)), us(lat[len(lat)-1])
	return r
}

// percentile returns the nearest-rank percentile q of sorted values.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// localHits warms A with the local-hit set through its proxy, then
// measures requests spread over it.
func (cl *cluster) localHits(ctx context.Context, cfg Config) (Result, error) {
	path := func(i int) string { return "/local/" + strconv.Itoa(i) }
	var nextWarm atomic.Int64
	if _, err := cl.drive(ctx, min(cfg.Clients, 8), time.Hour, func(c, i int) (string, bool) {
		k := int(nextWarm.Add(1)) - 1
		return path(k), k < cfg.Objects
	}); err != nil {
		return Result{}, err
	}
	if a, err := scrape(ctx, cl.aURL); err != nil {
		return Result{}, err
	} else if a.miss < int64(cfg.Objects) {
		return Result{}, fmt.Errorf("warming A: %d misses for %d objects", a.miss, cfg.Objects)
	}
	// Client c starts at its own offset and walks the set.
	next := func(c, i int) (string, bool) {
		return path((c*cfg.Objects/cfg.Clients + i) % cfg.Objects), true
	}
	if _, err := cl.drive(ctx, cfg.Clients, cfg.Warmup, next); err != nil {
		return Result{}, err
	}
	return cl.measure(ctx, ScenarioLocal, cfg, next)
}

// peerHits puts objects into B, publishes its digest, lets A fetch it and
// measures requests through A for keys no one asked for before: every one
// misses at A and is found at B.
func (cl *cluster) peerHits(ctx context.Context, cfg Config, pool *int) (Result, error) {
	gen := 0
	fill := func(n int) ([]string, error) {
		gen++
		paths := make([]string, n)
		for i := range paths {
			paths[i] = fmt.Sprintf("/peer/%d/%d", gen, i)
			if err := cl.putB(paths[i]); err != nil {
				return nil, err
			}
		}
		if err := cl.b.Publisher().Publish(); err != nil {
			return nil, fmt.Errorf("node B publishing its digest: %w", err)
		}
		dir := cl.a.Directory()
		if err := dir.RefreshPeer(ctx, dir.Peers()[0]); err != nil {
			return nil, fmt.Errorf("node A fetching node B's digest: %w", err)
		}
		seen, err := gauge(cl.a, "bloomcast_peer_view_sequence")
		if err != nil {
			return nil, err
		}
		published, err := gauge(cl.b, "bloomcast_digest_sequence")
		if err != nil {
			return nil, err
		}
		if seen != published {
			return nil, fmt.Errorf("node A's view of node B is at sequence %v, B published %v", seen, published)
		}
		return paths, nil
	}
	queue := func(paths []string) func(c, i int) (string, bool) {
		var next atomic.Int64
		return func(c, i int) (string, bool) {
			k := int(next.Add(1)) - 1
			if k >= len(paths) {
				return "", false
			}
			return paths[k], true
		}
	}
	// Warm-up: its rate sizes the measured pool.
	warm, err := fill(max(20000, cfg.Clients*100))
	if err != nil {
		return Result{}, err
	}
	ph, err := cl.drive(ctx, cfg.Clients, cfg.Warmup, queue(warm))
	if err != nil {
		return Result{}, err
	}
	if ph.errors > 0 {
		return Result{}, fmt.Errorf("warm-up: %d errors", ph.errors)
	}
	rate := float64(len(ph.latencies)) / ph.elapsed.Seconds()
	n := int(rate*cfg.Duration.Seconds()*1.5) + 10*cfg.Clients
	*pool = n
	paths, err := fill(n)
	if err != nil {
		return Result{}, err
	}
	runtime.GC() // the fill's garbage, not the phase's
	return cl.measure(ctx, ScenarioPeer, cfg, queue(paths))
}

// putB stores the origin's response for path in B, as if B had fetched
// it: the same header fields and body the origin sends.
func (cl *cluster) putB(path string) error {
	key, err := cache.Key(cl.originURL + path)
	if err != nil {
		return err
	}
	now := time.Now()
	h := http.Header{}
	h.Set("Cache-Control", "max-age=86400")
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.Itoa(len(cl.body)))
	h.Set("Date", now.UTC().Format(http.TimeFormat))
	return cl.b.Store().Put(&cache.Entry{URL: key, Status: http.StatusOK, Header: h,
		Body: bytes.Clone(cl.body), RequestTime: now, ResponseTime: now})
}

// closeBody closes a response body that was read to its end. Its error is
// dropped: all it could say is that the connection cannot be reused,
// which the transport handles itself.
func closeBody(body io.ReadCloser) { _ = body.Close() }
