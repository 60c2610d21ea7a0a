package hits

import (
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
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bloomcast/bloomcast/bench/compare"
)

// Targets of a TTFB run: the origin asked directly, and each proxy.
const TargetDirect = "direct"

// TTFBConfig configures a time-to-first-byte run. Zero fields take the
// defaults noted.
type TTFBConfig struct {
	Bloomcast string        // the bloomcast binary; "" builds ./cmd/bloomcast of the module
	Squid     string        // "" means /usr/sbin/squid
	Requests  int           // requests per target, each for a URL not asked before (a miss); 0 means 200
	Pause     time.Duration // the origin's pause between the first piece of a body and the rest; 0 means 20 ms
	Piece     int           // bytes of each of the body's two pieces; 0 means 1024
	Progress  io.Writer     // progress lines; nil for none
}

func (c *TTFBConfig) defaults() error {
	if c.Requests == 0 {
		c.Requests = 200
	}
	if c.Pause == 0 {
		c.Pause = 20 * time.Millisecond
	}
	if c.Piece == 0 {
		c.Piece = 1024
	}
	if c.Squid == "" {
		c.Squid = "/usr/sbin/squid"
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.Requests < 1 || c.Pause < 0 || c.Piece < 1 {
		return errors.New("hits: a TTFB run needs requests, a non-negative pause and pieces of at least a byte")
	}
	if _, err := os.Stat(c.Squid); err != nil {
		return fmt.Errorf("hits: %w", err)
	}
	return nil
}

// TTFBSummary is one target's times to the first byte of the body.
type TTFBSummary struct {
	Target   string  `json:"target"`
	Requests int     `json:"requests"`
	P50Us    float64 `json:"ttfb_p50_us"`
	P90Us    float64 `json:"ttfb_p90_us"`
	P99Us    float64 `json:"ttfb_p99_us"`
	// OverDirectUs is P50Us minus the direct requests' P50Us.
	OverDirectUs float64 `json:"p50_over_direct_us"`
	// WholeP50Us is the median time to the whole body.
	WholeP50Us float64 `json:"whole_p50_us"`
}

// TTFBReport is a whole TTFB run.
type TTFBReport struct {
	Env           compare.RunEnv `json:"env"`
	SquidVersion  string         `json:"squid_version"`
	Requests      int            `json:"requests_per_target"`
	PauseMs       float64        `json:"origin_pause_ms"`
	Piece         int            `json:"piece_bytes"`
	Summaries     []TTFBSummary  `json:"summaries"`
	OriginCount   int64          `json:"origin_requests"`
	SquidConfig   string         `json:"squid_conf"`
	NodeArguments []string       `json:"node_arguments"`
}

// Check reports whether every proxied request reached the origin once
// (each was a miss, as meant).
func (rep *TTFBReport) Check() error {
	if want := int64(len(rep.Summaries) * rep.Requests); rep.OriginCount != want {
		return fmt.Errorf("the origin served %d requests, want %d (one per request)", rep.OriginCount, want)
	}
	return nil
}

// RunTTFB measures the time from sending a request to receiving the
// first byte of its response's body, for misses: directly from an
// origin, through `bloomcast serve` and through Squid, requests
// interleaved (direct, node, Squid, direct, …), each for a URL never
// asked before. The origin sends its header and a first piece of body at
// once, pauses, then sends the rest: a proxy that streams passes the
// first piece on at once; one that buffers makes the client wait for the
// pause. The Go client is the same for every target.
func RunTTFB(ctx context.Context, cfg TTFBConfig) (rep *TTFBReport, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bloomcast-ttfb-")
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	rep = &TTFBReport{Env: compare.StartRunEnv(), Requests: cfg.Requests, PauseMs: float64(cfg.Pause) / 1e6, Piece: cfg.Piece}
	rep.SquidVersion = firstLine(exec.Command(cfg.Squid, "-v").Output())
	progress := func(format string, a ...any) {
		_, _ = fmt.Fprintf(cfg.Progress, format+"\n", a...) // progress is informational
	}
	bin, err := bloomcastBinary(ctx, cfg.Bloomcast, dir, progress)
	if err != nil {
		return nil, err
	}
	origin, err := startPausingOrigin(cfg.Piece, cfg.Pause)
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
	rep.NodeArguments = []string{"serve", "--listen", "127.0.0.1:PORT", "--name", "bench", "--memory", "64MiB", "--log-level", "warn"}
	node, err := startNode(ctx, "", bin, 2, rep.NodeArguments)
	if node != nil {
		targets = append(targets, node)
	}
	if err != nil {
		return nil, err
	}
	sq, conf, err := startSquid(ctx, "", cfg.Squid, dir)
	rep.SquidConfig = conf
	if sq != nil {
		targets = append(targets, sq)
	}
	if err != nil {
		return nil, err
	}

	clients := map[string]*http.Client{TargetDirect: ttfbClient("")}
	for _, t := range targets {
		clients[t.proxy] = ttfbClient(t.addr)
	}
	names := []string{TargetDirect, ProxyNode, ProxySquid}
	first := map[string][]float64{}
	whole := map[string][]float64{}
	// One unmeasured request each opens the connections.
	for _, n := range names {
		if _, _, err := fetchTTFB(ctx, clients[n], fmt.Sprintf("http://%s/warm/%s", origin.addr, n), 2*cfg.Piece); err != nil {
			return nil, fmt.Errorf("warming %s: %w", n, err)
		}
	}
	origin.requests.Store(0)
	progress("measuring %d requests per target", cfg.Requests)
	for i := range cfg.Requests {
		for _, n := range names {
			f, w, err := fetchTTFB(ctx, clients[n], fmt.Sprintf("http://%s/obj/%s/%d", origin.addr, n, i), 2*cfg.Piece)
			if err != nil {
				return nil, fmt.Errorf("%s, request %d: %w", n, i, err)
			}
			first[n] = append(first[n], float64(f.Microseconds()))
			whole[n] = append(whole[n], float64(w.Microseconds()))
		}
	}
	rep.OriginCount = origin.requests.Load()
	for _, n := range names {
		s := TTFBSummary{Target: n, Requests: len(first[n]), P50Us: quantile(first[n], 0.5), P90Us: quantile(first[n], 0.9),
			P99Us: quantile(first[n], 0.99), WholeP50Us: quantile(whole[n], 0.5)}
		rep.Summaries = append(rep.Summaries, s)
	}
	for i := range rep.Summaries {
		rep.Summaries[i].OverDirectUs = rep.Summaries[i].P50Us - rep.Summaries[0].P50Us
	}
	rep.Env.LoadEnd = compare.LoadAvg()
	return rep, nil
}

// ttfbClient is a keep-alive client, through proxy when not "".
func ttfbClient(proxy string) *http.Client {
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}
	if proxy != "" {
		u := &url.URL{Scheme: "http", Host: proxy}
		tr.Proxy = http.ProxyURL(u)
	}
	return &http.Client{Transport: tr, Timeout: time.Minute}
}

// fetchTTFB GETs target and returns the time to the first byte of its
// body and to the whole body, which must be size bytes.
func fetchTTFB(ctx context.Context, c *http.Client, target string, size int) (first, whole time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = resp.Body.Close() }() // read to its end below
	one := make([]byte, 1)
	if _, err := io.ReadFull(resp.Body, one); err != nil {
		return 0, 0, err
	}
	first = time.Since(start)
	rest, err := io.ReadAll(resp.Body)
	whole = time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	if resp.StatusCode != http.StatusOK || 1+len(rest) != size {
		return 0, 0, fmt.Errorf("%s: status %d, %d bytes of %d", target, resp.StatusCode, 1+len(rest), size)
	}
	return first, whole, nil
}

// pausingOrigin sends, for every request, a cacheable 200 with a
// Content-Length of two pieces: the header and the first piece at once,
// the second after pause.
type pausingOrigin struct {
	srv      *http.Server
	addr     string
	requests atomic.Int64
}

func startPausingOrigin(piece int, pause time.Duration) (*pausingOrigin, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	o := &pausingOrigin{addr: ln.Addr().String()}
	body := bytes.Repeat([]byte("x"), piece)
	o.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/warm/") {
			o.requests.Add(1)
		}
		h := w.Header()
		h.Set("Cache-Control", "max-age=86400")
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Length", strconv.Itoa(2*piece))
		rc := http.NewResponseController(w)
		// Failed writes are a client gone away, which the run's checks see.
		_, _ = w.Write(body)
		_ = rc.Flush()
		time.Sleep(pause)
		_, _ = w.Write(body)
	})}
	go func() { _ = o.srv.Serve(ln) }() // Serve ends with ErrServerClosed when the run closes it
	return o, nil
}

// quantile is the q-quantile of xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(q*float64(len(s)) + 0.5)
	return s[min(max(i-1, 0), len(s)-1)]
}

// WriteTTFBMarkdown prints the environment and one row per target.
func WriteTTFBMarkdown(w io.Writer, rep *TTFBReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s; %s.\n\n", rep.Env.Measured(false), rep.SquidVersion)
	fmt.Fprintf(&b, "%d misses per target, interleaved (direct, node, Squid), each for a new URL: the origin sends its header "+
		"and %d bytes at once, pauses %.0f ms, then sends %d more. Time from sending the request to the first byte of the body, "+
		"one Go client per target. Check: the origin served each request once.\n\n", rep.Requests, rep.Piece, rep.PauseMs, rep.Piece)
	b.WriteString("| target | first byte p50 ms | p90 ms | p99 ms | p50 − direct p50 ms | whole body p50 ms |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|\n")
	for _, s := range rep.Summaries {
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %+.3f | %.3f |\n",
			s.Target, s.P50Us/1e3, s.P90Us/1e3, s.P99Us/1e3, s.OverDirectUs/1e3, s.WholeP50Us/1e3)
	}
	if err := rep.Check(); err != nil {
		fmt.Fprintf(&b, "\n**Check FAILED**: %v\n", err)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteTTFBJSON writes a TTFB report as indented JSON.
func WriteTTFBJSON(w io.Writer, rep *TTFBReport) error {
	return compare.EncodeJSON(w, rep)
}
