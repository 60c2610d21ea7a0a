package replay

import (
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
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	bcdigest "github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/internal/nodeaccess"
	"github.com/bloomcast/bloomcast/node"
	"github.com/bloomcast/bloomcast/params"
)

// Mode is one way of running a cache cluster: no cooperation, ICP, or
// the summary cache with an update threshold, a digest size, a codec and
// an update kind.
//
// The zero Mode is not valid: its Route is empty, so ParseMode refuses its
// String and ReplayCluster reports ErrTrace.
type Mode struct {
	Route node.Route // node.RouteNone, node.RouteICP or node.RouteDigest
	// The summary cache's settings (RouteDigest only):
	// Threshold is the changed fraction of the cache that publishes a
	// new digest.
	Threshold float64
	// BitsPerEntry is the raw digest's m/n; its k is the best for it.
	BitsPerEntry float64
	// Compressed sends the digests with the fast entropy coder, shaped
	// by params.OptimizeTarget for the raw digest's false-positive rate
	// (Mitzenmacher, "Compressed Bloom filters": a larger, sparser array
	// with fewer probes that codes smaller); otherwise digests are raw.
	Compressed bool
	// Deltas lets peers fetch deltas; otherwise every update is a full
	// digest.
	Deltas bool
	// Static publishes static digests instead (digest.StaticPublisher,
	// frame type 13): a ribbon filter of the cache's keys at the raw
	// digest's false-positive rate, then Bloom-filter deltas of the keys
	// added and removed since, or a new ribbon when that is smaller;
	// peers answer through digest.StaticView. Compressed and Deltas are
	// unused (the deltas are coded with the fast entropy coder).
	Static bool
	// StaticXOR, with Static, sends the static digests in one filter of
	// the keys the ribbon answers wrongly instead of the two
	// (digest.StaticXOR, frame kinds 6 and 4).
	StaticXOR bool
}

// String names the mode as ParseMode reads it: "none", "icp", or
// "sc-1%-16b-raw-full", "sc-0.1%-8b-comp-delta", ..., "sc-10%-16b-static",
// "sc-10%-16b-static-xor".
func (m Mode) String() string {
	if m.Route != node.RouteDigest {
		return string(m.Route)
	}
	if m.Static {
		xor := ""
		if m.StaticXOR {
			xor = "-xor"
		}
		return fmt.Sprintf("sc-%s%%-%sb-static%s", strconv.FormatFloat(100*m.Threshold, 'g', -1, 64),
			strconv.FormatFloat(m.BitsPerEntry, 'g', -1, 64), xor)
	}
	codec, updates := "raw", "full"
	if m.Compressed {
		codec = "comp"
	}
	if m.Deltas {
		updates = "delta"
	}
	return fmt.Sprintf("sc-%s%%-%sb-%s-%s", strconv.FormatFloat(100*m.Threshold, 'g', -1, 64),
		strconv.FormatFloat(m.BitsPerEntry, 'g', -1, 64), codec, updates)
}

// ParseMode reads a mode's name (Mode.String).
func ParseMode(s string) (Mode, error) {
	switch r := node.Route(s); r {
	case node.RouteNone, node.RouteICP:
		return Mode{Route: r}, nil
	}
	f := strings.Split(s, "-")
	bad := fmt.Errorf("%w: mode %q (want none, icp, sc-T%%-Bb-raw|comp-full|delta or sc-T%%-Bb-static[-xor], e.g. sc-1%%-16b-comp-delta)", ErrTrace, s)
	xor := len(f) == 5 && f[3] == "static" && f[4] == "xor"
	static := len(f) == 4 && f[3] == "static" || xor
	if !static && len(f) != 5 || f[0] != "sc" || !strings.HasSuffix(f[1], "%") || !strings.HasSuffix(f[2], "b") {
		return Mode{}, bad
	}
	t, err1 := strconv.ParseFloat(strings.TrimSuffix(f[1], "%"), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSuffix(f[2], "b"), 64)
	if err1 != nil || err2 != nil || !(t > 0 && t <= 100) || !(b >= 1 && b <= 64) {
		return Mode{}, bad
	}
	if static {
		return Mode{Route: node.RouteDigest, Threshold: t / 100, BitsPerEntry: b, Static: true, StaticXOR: xor}, nil
	}
	if (f[3] != "raw" && f[3] != "comp") || (f[4] != "full" && f[4] != "delta") {
		return Mode{}, bad
	}
	return Mode{Route: node.RouteDigest, Threshold: t / 100, BitsPerEntry: b, Compressed: f[3] == "comp", Deltas: f[4] == "delta"}, nil
}

// ParseModes reads a comma-separated list of cluster modes: names that
// ParseMode accepts, "all" for DefaultModes and "summary" for
// SummaryModes; spaces around a name are ignored.
func ParseModes(list string) ([]Mode, error) {
	var ms []Mode
	for _, s := range strings.Split(list, ",") {
		switch s = strings.TrimSpace(s); s {
		case "all":
			ms = append(ms, DefaultModes()...)
		case "summary":
			ms = append(ms, SummaryModes()...)
		default:
			m, err := ParseMode(s)
			if err != nil {
				return nil, err
			}
			ms = append(ms, m)
		}
	}
	return ms, nil
}

// DefaultModes returns the evaluation's modes: none, icp, then the
// summary cache at thresholds 0.1%, 1% and 10% × 8 and 16 bits per entry
// × raw and compressed digests × full and delta updates.
func DefaultModes() []Mode {
	modes := []Mode{{Route: node.RouteNone}, {Route: node.RouteICP}}
	modes = append(modes, SummaryModes()...)
	return modes
}

// SummaryModes returns the 24 summary-cache modes of DefaultModes.
func SummaryModes() []Mode {
	var modes []Mode
	for _, t := range []float64{0.001, 0.01, 0.1} {
		for _, b := range []float64{8, 16} {
			for _, comp := range []bool{false, true} {
				for _, d := range []bool{false, true} {
					modes = append(modes, Mode{Route: node.RouteDigest, Threshold: t, BitsPerEntry: b, Compressed: comp, Deltas: d})
				}
			}
		}
	}
	return modes
}

// ClusterConfig configures a cluster replay ([ReplayCluster]).
//
// The zero ClusterConfig is not valid: it has no Trace, so ReplayCluster
// reports ErrTrace. Every other zero field takes its default.
type ClusterConfig struct {
	Trace *Trace
	Modes []Mode // default DefaultModes()
	// CacheFraction is each node's cache budget as a fraction of the
	// trace's unique bytes, so that caches are smaller than the working
	// set and evict, as in Fan et al.'s simulations; default 0.1.
	CacheFraction float64
	// CompressedMemory caps a compressed digest's array at this many
	// times the raw digest's bits (the memory each peer spends on the
	// decoded view); default 4.
	CompressedMemory float64
	// ICPTimeout bounds the wait for ICP replies; default 2 s (on
	// loopback every peer answers long before).
	ICPTimeout time.Duration
	// Progress, if set, is called every ProgressEvery requests (default
	// 5000) and at the end of each mode.
	Progress      func(mode Mode, done, total int)
	ProgressEvery int
	// Context, if set, stops the replay early with its error.
	Context context.Context
	// How the summary-cache modes' digests travel. By default every
	// other node fetches a digest over HTTP as soon as it is published
	// (the paper's immediate propagation). With PollInterval, every node
	// polls every peer over HTTP every PollInterval of trace time
	// instead (conditional requests and deltas, as a node does), the
	// pairs' polls spread evenly over the interval. With Transport, each
	// node of the replay of mode number replay has the digest transport
	// Transport returns for it (node.NodeConfig.Transport; it must be
	// one no other replay used, e.g. a stream of its own), pushes each
	// publication through it (node.Node.PushDigest), and the replay
	// waits until every peer's view holds it before the next request.
	// Either way ClusterResult's Propagation figures measure from a
	// publication until every peer's view holds it.
	PollInterval time.Duration
	Transport    func(replay int, name string) (node.DigestTransport, error)
	// PushInterval, with Transport, is each node's
	// node.NodeConfig.PushInterval on trace time: a node pushes at most
	// once per PushInterval of trace time, a publication made sooner
	// waiting for the first request at or after the interval's end, and
	// its propagation counts the trace time it waited. 0 pushes every
	// publication at once.
	PushInterval time.Duration
}

// ClusterResult is what one mode's replay counted, summed over the nodes.
//
// The zero value is no result; ReplayCluster fills one per mode.
type ClusterResult struct {
	Mode     Mode
	Nodes    int
	Requests int
	// Client requests by outcome: served from the proxy's own cache,
	// from a peer's, from the origin, or failed.
	LocalHits, RemoteHits, Misses, Failed uint64
	// FalseHits counts requests to peers answered 504: the digest said
	// maybe, the peer did not have it (a false positive, or a view older
	// than an eviction). PeerErrors counts peers that did not answer
	// usefully (should be 0).
	FalseHits, PeerErrors uint64
	// Static modes only: the lookups in a peer's view of keys absent
	// from the peer's set at its last publication, those the view
	// answered present (the digests' false positives, which the stale
	// views' false hits come beside), and the sum of the views'
	// predicted rates (digest.StaticView.FalsePositiveRate) over those
	// lookups: the false positives expected.
	AbsentLookups, DigestFalsePositives uint64
	PredictedFalsePositives             float64
	// ICP: queries sent and replies sent, and the bytes of both (ICP
	// messages, without IP and UDP headers).
	ICPQueries, ICPReplies, ICPBytes uint64
	// Digests: publications made (beyond the empty first one), full
	// digests and deltas fetched by peers (a refresh of every peer
	// after each publication), their bytes as served (HTTP status line,
	// header and body), and the body bytes alone.
	Publications                        uint64
	FullFetches, DeltaFetches           uint64
	DigestBytes                         uint64
	FullDigestBodyBytes, DeltaBodyBytes uint64
	// ObjectBytes are the bytes of objects fetched from peers (response
	// header and body), PeerRequests the requests to peers (hits, false
	// hits and errors).
	ObjectBytes, PeerRequests uint64
	// The digest's shape and state at the end: bits per entry (m/n) and
	// k, the capacity n it is sized for, the mean objects per cache, the
	// mean size of the nodes' current full digests, and their mean
	// false-positive rate estimated from their fill.
	DigestBitsPerEntry float64
	DigestK            int
	Capacity           uint64
	CacheObjects       float64
	CacheBytes         int64 // each node's cache budget
	FullDigestBytes    float64
	DigestFalsePos     float64
	Elapsed            time.Duration
	// Transport is how digests travelled: "" (fetched over HTTP at once
	// after each publication), node.TransportHTTP (polled every
	// ClusterConfig.PollInterval) or the digest transport's name.
	Transport string
	// PushInterval is ClusterConfig.PushInterval when digests were
	// pushed through a transport, else 0.
	PushInterval time.Duration
	// DigestMessages are the inter-node messages that carried digests:
	// over HTTP, each response served (304s included) and its request;
	// over a transport, each message a node published and each the
	// transport delivered (and the HTTP fetches of resyncs, request and
	// response). DigestMessageBytes are the responses' bytes with their
	// header fields (requests not counted), or the frames published and
	// delivered (the transport's own headers not counted).
	DigestMessages, DigestMessageBytes uint64
	// TraceSeconds is the trace's duration, from its first request to
	// its latest (an access.log's lines need not be in time order).
	TraceSeconds float64
	// Propagated counts the publications that every peer's view came to
	// hold during the replay, and PropagationMean and PropagationMax the
	// time from such a publication until the last peer's view held it:
	// trace time when polling (when the last peer's poll came), wall
	// time when pushed through a transport (the replay's trace clock
	// stands still meanwhile), and 0 when fetched at once.
	Propagated                      uint64
	PropagationMean, PropagationMax time.Duration
	// PropagationLate counts the pushed publications that some peer's
	// view did not hold 2 s (wall time) after the push; they are not in
	// the mean and the maximum.
	PropagationLate uint64
	// CPU is the CPU time (user and system) the process used during the
	// mode's replay: the nodes', and also the origin's and the replay
	// driver's, which every mode shares (getrusage where the system has
	// it, else the Go runtime's own accounting).
	CPU time.Duration
}

// HitRatio returns the fraction of requests served from a cache, the
// proxy's own or a peer's.
func (r ClusterResult) HitRatio() float64 {
	return float64(r.LocalHits+r.RemoteHits) / float64(max(r.Requests, 1))
}

// RemoteHitRatio returns the fraction of requests served from a peer.
func (r ClusterResult) RemoteHitRatio() float64 {
	return float64(r.RemoteHits) / float64(max(r.Requests, 1))
}

// QueryMessages counts the inter-node messages spent finding objects
// rather than carrying them: ICP queries and replies; digest fetches
// (request and response, 2 each); and false hits (the request to the
// peer and its 504, 2 each).
func (r ClusterResult) QueryMessages() uint64 {
	return r.ICPQueries + r.ICPReplies + 2*(r.FullFetches+r.DeltaFetches) + 2*r.FalseHits
}

// ObjectMessages counts the requests to peers that returned an object
// (or failed), request and response: the same in every cooperative mode
// for the same remote hits.
func (r ClusterResult) ObjectMessages() uint64 { return 2 * (r.PeerRequests - r.FalseHits) }

// Messages is QueryMessages plus ObjectMessages.
func (r ClusterResult) Messages() uint64 { return r.QueryMessages() + r.ObjectMessages() }

// ControlBytes are the inter-node bytes spent finding objects: digests
// and ICP messages. (The 504 answers of false hits are counted as
// messages but not in bytes: the nodes do not count them.)
func (r ClusterResult) ControlBytes() uint64 { return r.DigestBytes + r.ICPBytes }

// Bytes are all inter-node bytes: ControlBytes plus ObjectBytes.
func (r ClusterResult) Bytes() uint64 { return r.ControlBytes() + r.ObjectBytes }

// HitRatioLoss returns the relative loss of r's hit ratio against
// base's: (base − r)/base, negative when r does better.
func (r ClusterResult) HitRatioLoss(base ClusterResult) float64 {
	if base.HitRatio() == 0 {
		return 0
	}
	return (base.HitRatio() - r.HitRatio()) / base.HitRatio()
}

// Workload sizes that the replay derives from a trace.
const (
	// entryOverhead estimates what a cached entry costs beyond its body
	// (the URL, the stored headers, the store's own accounting), to
	// size the digests for the objects a cache will hold.
	entryOverhead = 400
	// forever stands for "never" in the node's timers: publication and
	// polling are driven by the replay.
	forever = 1 << 20 * time.Hour
)

// ReplayCluster replays cfg.Trace through a cluster of cache nodes once
// per mode and returns what each replay counted (Fan, Cao, Almeida and
// Broder, "Summary cache", section VI, with the real node in place of a
// simulator).
//
// For each mode it starts cfg.Trace.Proxies nodes of package cache on
// loopback (real HTTP, and real ICP over UDP in ICP mode) and an origin
// that serves every object of the trace with its size, cacheable for a
// year, and sends each request, in order, through its proxy. The nodes
// run with NodeConfig.Manual: after each request the replay asks every
// node to publish if its threshold is passed, and when one does, every
// other node fetches the new digest at once (the immediate update
// propagation of the paper's simulations). So the replay is
// deterministic except in two ways: in ICP mode a miss goes to whichever
// peer answers HIT first, and every URL holds the origin's loopback port,
// which changes from run to run and with it which keys are digest false
// positives (a few false hits more or less). Time is virtual too: the nodes' and the origin's
// clocks read the trace's time of the request in flight.
func ReplayCluster(cfg ClusterConfig) ([]ClusterResult, error) {
	return replayCluster(cfg)
}

func replayCluster(cfg ClusterConfig) (out []ClusterResult, err error) {
	if cfg.Trace == nil || len(cfg.Trace.Requests) == 0 {
		return nil, fmt.Errorf("%w: no requests", ErrTrace)
	}
	if cfg.Trace.Proxies < 1 || cfg.Trace.Proxies > MaxProxies {
		return nil, fmt.Errorf("%w: %d proxies (want 1 to %d)", ErrTrace, cfg.Trace.Proxies, MaxProxies)
	}
	if cfg.Modes == nil {
		cfg.Modes = DefaultModes()
	}
	if cfg.CacheFraction == 0 {
		cfg.CacheFraction = 0.1
	}
	if cfg.CompressedMemory == 0 {
		cfg.CompressedMemory = 4
	}
	if cfg.ICPTimeout == 0 {
		cfg.ICPTimeout = 2 * time.Second
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = 5000
	}
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	if !(cfg.CacheFraction > 0 && cfg.CacheFraction <= 1) || !(cfg.CompressedMemory >= 1) {
		return nil, fmt.Errorf("%w: cache fraction %g, compressed memory %g", ErrTrace, cfg.CacheFraction, cfg.CompressedMemory)
	}
	for _, m := range cfg.Modes {
		if _, err := ParseMode(m.String()); err != nil {
			return nil, err
		}
	}
	o, err := newOrigin(cfg.Trace)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := o.close(); err == nil && cerr != nil {
			err = fmt.Errorf("replay: origin: %w", cerr)
		}
	}()
	if cfg.PollInterval < 0 || (cfg.PollInterval > 0 && cfg.Transport != nil) {
		return nil, fmt.Errorf("%w: poll interval %v with a transport: want one or the other", ErrTrace, cfg.PollInterval)
	}
	if cfg.PushInterval < 0 || (cfg.PushInterval > 0 && cfg.Transport == nil) {
		return nil, fmt.Errorf("%w: push interval %v without a transport", ErrTrace, cfg.PushInterval)
	}
	for _, m := range cfg.Modes {
		if m.Static && (cfg.PollInterval > 0 || cfg.Transport != nil) {
			return nil, fmt.Errorf("%w: mode %s: static digests travel only at once, not polled or through a transport", ErrTrace, m)
		}
	}
	for i, m := range cfg.Modes {
		r, err := replay(cfg, o, m, i)
		if err != nil {
			return out, fmt.Errorf("replay: mode %s: %w", m, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// origin serves the trace's objects on loopback: "/ID/rest" answers
// with the size of object ID, the rest of the path being the original
// URL's host and path, which keeps the URLs (and ICP queries) about as
// long as the trace's.
type origin struct {
	clock *clock
	srv   *http.Server
	base  string
	urls  []string // the replayed URL of each request
	sizes []int64  // by object id
	mean  float64  // mean object size
	// served receives what srv.Serve returned.
	served chan error
}

// zeros is the body of every object, sent in pieces.
var zeros = make([]byte, 32<<10)

func newOrigin(t *Trace) (*origin, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	o := &origin{clock: &clock{}, base: "http://" + ln.Addr().String(), urls: make([]string, len(t.Requests))}
	ids := map[string]int{}
	var total int64
	for i, r := range t.Requests {
		id, ok := ids[r.URL]
		if !ok {
			id = len(o.sizes)
			ids[r.URL] = id
			o.sizes = append(o.sizes, r.Size)
			total += r.Size
		}
		o.urls[i] = o.base + "/" + strconv.Itoa(id) + "/" + urlTail(r.URL)
	}
	o.mean = float64(total) / float64(max(len(o.sizes), 1))
	o.srv = &http.Server{Handler: http.HandlerFunc(o.serve), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(slog.DiscardHandler, slog.LevelError)}
	o.served = make(chan error, 1)
	go func() { o.served <- o.srv.Serve(ln) }()
	return o, nil
}

// urlTail returns u's host and path, escaped, for the origin's URL.
func urlTail(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	tail := u.Host + u.EscapedPath()
	if len(tail) > 200 {
		tail = tail[:200]
	}
	return strings.TrimPrefix(tail, "/")
}

func (o *origin) serve(w http.ResponseWriter, r *http.Request) {
	idStr, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	id, err := strconv.Atoi(idStr)
	if err != nil || id < 0 || id >= len(o.sizes) {
		http.NotFound(w, r)
		return
	}
	size := o.sizes[id]
	h := w.Header()
	h.Set("Cache-Control", "max-age=31536000")
	h.Set("Date", o.clock.now().Format(http.TimeFormat))
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	for size > 0 {
		n := min(size, int64(len(zeros)))
		if _, err := w.Write(zeros[:n]); err != nil {
			return
		}
		size -= n
	}
}

// close stops the origin and returns why it stopped if that was not
// close itself (a failed accept ends Serve early).
func (o *origin) close() error {
	err := o.srv.Close()
	if serr := <-o.served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(serr, err)
	}
	return err
}

// clock is a replay's virtual time: a fixed epoch plus the trace's time
// of the request in flight, shared by the origin and the nodes, so that
// the Date and Age header fields, which count in a cached entry's size
// and so in what the LRU evicts, do not depend on the machine's speed.
type clock struct{ ns atomic.Int64 }

// epoch is the virtual time of a trace's first request.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *clock) now() time.Time { return epoch.Add(time.Duration(c.ns.Load())) }

// advance moves the clock to seconds after the epoch, never back.
func (c *clock) advance(seconds float64) {
	if ns := int64(seconds * 1e9); ns > c.ns.Load() {
		c.ns.Store(ns)
	}
}

// clusterNode is one running node of a replay.
type clusterNode struct {
	node   *node.Node
	tr     node.DigestTransport // nil without ClusterConfig.Transport
	client *http.Client
	peers  []*node.Peer // by node index; nil for itself
	done   chan error
}

// digestShape returns the digest's bits per entry and k for mode m and
// capacity n: the raw shape, or the compressed one at its rate.
func digestShape(m Mode, n uint64, memory float64) (float64, int, error) {
	bits := uint64(math.Ceil(m.BitsPerEntry * float64(n)))
	k := params.BestK(params.Shape{Layout: params.Classic, M: bits}, n)
	if !m.Compressed {
		return m.BitsPerEntry, k, nil
	}
	p := params.ApproxFalsePositive(bits, n, k)
	res, err := params.OptimizeTarget(params.TargetQuery{N: n, P: p, TransmitOptions: params.TransmitOptions{
		MaxBitsPerElement: memory * m.BitsPerEntry, MaxK: k}})
	if err != nil {
		return 0, 0, err
	}
	return float64(res.Best.M) / float64(n), res.Best.K, nil
}

// replay runs one mode.
func replay(cfg ClusterConfig, o *origin, m Mode, index int) (res ClusterResult, err error) {
	started, cpu := time.Now(), processCPU()
	t := cfg.Trace
	o.clock.ns.Store(0)
	n := t.Proxies
	var shape nodeShape
	if res, shape, err = replayShape(cfg, o, m); err != nil {
		return res, err
	}
	socks, err := listenCluster(n, m.Route == node.RouteICP)
	if err != nil {
		return res, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	nodes := make([]*clusterNode, n)
	defer func() {
		cancel()
		for _, cn := range nodes {
			if cn != nil {
				if serr := <-cn.done; err == nil && serr != nil {
					err = fmt.Errorf("node %s: %w", cn.node.Addr(), serr)
				}
				cn.client.CloseIdleConnections()
			}
		}
	}()
	if err := startNodes(ctx, cfg, o, m, index, shape, socks, nodes, &res); err != nil {
		return res, socks.closeAll(err)
	}
	waitServing(nodes)
	if err := waitConnected(nodes); err != nil {
		return res, err
	}
	if err := drive(ctx, cfg, o, m, shape, nodes); err != nil {
		return res, err
	}
	collect(&res, nodes)
	if shape.static != nil {
		if err := shape.static.collect(&res); err != nil {
			return res, err
		}
	}
	if prop := shape.prop; prop != nil {
		res.Propagated, res.PropagationMax, res.PropagationLate = uint64(len(prop.delays)), prop.max, prop.late
		if len(prop.delays) > 0 {
			res.PropagationMean = prop.sum / time.Duration(len(prop.delays))
		}
	}
	res.Elapsed, res.CPU = time.Since(started), processCPU()-cpu
	return res, nil
}

// nodeShape is what every node of one replay shares: its cache budget and
// digest capacity, the digest's shape and codec, and how publications
// reach the peers (prop: nil for immediate propagation and the modes
// without digests).
type nodeShape struct {
	budget   int64
	capacity uint64
	bpe      float64
	k        int
	codec    bcdigest.Codec
	prop     *propagation
	static   *staticDigests // Mode.Static only
}

// replayShape sizes the nodes of mode m for the trace and returns the
// result's header with them.
func replayShape(cfg ClusterConfig, o *origin, m Mode) (ClusterResult, nodeShape, error) {
	t := cfg.Trace
	n := t.Proxies
	budget := max(int64(cfg.CacheFraction*float64(t.UniqueBytes)), 64<<10)
	capacity := max(uint64(float64(budget)/(o.mean+entryOverhead)), 16)
	res := ClusterResult{Mode: m, Nodes: n, Requests: len(t.Requests), Capacity: capacity, CacheBytes: budget}
	// The latest request, not the last line: an access.log merged from
	// several proxies need not be in time order, and the replay's clock
	// never goes back.
	for _, rq := range t.Requests {
		res.TraceSeconds = max(res.TraceSeconds, rq.Time)
	}
	var prop *propagation
	if m.Route == node.RouteDigest {
		switch {
		case cfg.Transport != nil:
			res.Transport, prop = "transport", &propagation{}
		case cfg.PollInterval > 0:
			res.Transport, prop = node.TransportHTTP, &propagation{}
		}
	}
	bpe, k := 16.0, 0
	codec := bcdigest.Raw
	if m.Route == node.RouteDigest {
		var err error
		ref := m
		ref.Compressed = m.Compressed || m.Static // a static mode's bound: the comp-delta mode's digest
		if bpe, k, err = digestShape(ref, capacity, cfg.CompressedMemory); err != nil {
			return res, nodeShape{}, err
		}
		if ref.Compressed {
			codec = bcdigest.Fast
		}
		res.DigestBitsPerEntry, res.DigestK = bpe, k
	}
	shape := nodeShape{budget: budget, capacity: capacity, bpe: bpe, k: k, codec: codec, prop: prop}
	if m.Static {
		// The node keeps its counting filter, whose changes decide when
		// to publish, as in the other modes; its Bloom digest, of the
		// comp-delta mode's shape and codec, goes to nobody, but its
		// deltas' lengths bound the static frames (propagate).
		var err error
		form := bcdigest.StaticAddedRemoved
		if m.StaticXOR {
			form = bcdigest.StaticXOR
		}
		if shape.static, err = newStaticDigests(n, staticRate(m, capacity), form); err != nil {
			return res, nodeShape{}, err
		}
	}
	return res, shape, nil
}

// clusterSockets are the nodes' loopback sockets: a TCP listener each,
// and for ICP a UDP socket each.
type clusterSockets struct {
	lns  []net.Listener
	udps []net.PacketConn
}

// listenCluster opens n nodes' sockets.
func listenCluster(n int, icp bool) (clusterSockets, error) {
	s := clusterSockets{lns: make([]net.Listener, n), udps: make([]net.PacketConn, n)}
	for i := range n {
		var err error
		if s.lns[i], err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return s, s.closeAll(err)
		}
		if icp {
			if s.udps[i], err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
				return s, s.closeAll(err)
			}
		}
	}
	return s, nil
}

// closeAll closes the sockets of a replay that could not start and
// returns err with whatever closing them reported.
func (s clusterSockets) closeAll(err error) error {
	for i := range s.lns {
		if s.lns[i] != nil {
			err = errors.Join(err, s.lns[i].Close())
		}
		if s.udps[i] != nil {
			err = errors.Join(err, s.udps[i].Close())
		}
	}
	return err
}

// startNodes makes one node per socket, each peering with all the others
// in mode m, and serves them until ctx ends, filling nodes in; with a
// transport it records the transport's name and push interval in res.
func startNodes(ctx context.Context, cfg ClusterConfig, o *origin, m Mode, index int, shape nodeShape, socks clusterSockets, nodes []*clusterNode, res *ClusterResult) error {
	n := len(nodes)
	lns, udps := socks.lns, socks.udps
	for i := range n {
		nc := node.NodeConfig{
			Name: "node" + strconv.Itoa(i), MemoryBytes: shape.budget, Capacity: shape.capacity,
			BitsPerEntry: shape.bpe, HashFunctions: shape.k, Threshold: m.Threshold, Codec: shape.codec,
			NoDelta: !m.Deltas, Route: m.Route, Manual: true, MaxDigestAge: forever,
			PollInterval: forever, PeerExpiry: forever, ICPTimeout: cfg.ICPTimeout,
			Logger: slog.New(slog.DiscardHandler), Now: o.clock.now,
		}
		if udps[i] != nil {
			nc.ICPListen = udps[i].LocalAddr().String()
		}
		var tr node.DigestTransport
		if shape.prop != nil && cfg.Transport != nil {
			var err error
			if tr, err = cfg.Transport(index, nc.Name); err != nil {
				return err
			}
			nc.Transport, nc.PushInterval = tr, cfg.PushInterval
			res.Transport, res.PushInterval = tr.Name(), cfg.PushInterval
		}
		if m.Route != node.RouteNone {
			for j := range n {
				if j == i {
					continue
				}
				pc := node.PeerConfig{Name: "node" + strconv.Itoa(j), Proxy: "http://" + lns[j].Addr().String()}
				if udps[j] != nil {
					pc.ICP = udps[j].LocalAddr().String()
				}
				nc.Peers = append(nc.Peers, pc)
			}
		}
		nd, err := node.NewNode(nc)
		if err != nil {
			return err
		}
		proxy, _ := url.Parse("http://" + lns[i].Addr().String())
		cn := &clusterNode{node: nd, tr: tr, done: make(chan error, 1), peers: make([]*node.Peer, n),
			client: &http.Client{Timeout: time.Minute, Transport: &http.Transport{
				Proxy: http.ProxyURL(proxy), MaxIdleConnsPerHost: 4, DisableCompression: true}}}
		for _, p := range nd.Directory().Peers() {
			j, _ := strconv.Atoi(strings.TrimPrefix(p.Name(), "node"))
			cn.peers[j] = p
			if shape.static != nil {
				nodeaccess.SetLookup(p, shape.static.lookup(i, j))
			}
		}
		var pc net.PacketConn
		if udps[i] != nil {
			pc = udps[i]
		}
		go func() { cn.done <- nd.Serve(ctx, lns[i], pc) }()
		nodes[i] = cn
	}
	return nil
}

// drive sends the trace's requests through the nodes on trace time and,
// after each, lets the nodes publish and their peers take the
// publications: polled on schedule, pushed through the transport, or at
// once.
func drive(ctx context.Context, cfg ClusterConfig, o *origin, m Mode, shape nodeShape, nodes []*clusterNode) error {
	t := cfg.Trace
	prop := shape.prop
	var polls *pollSchedule
	if prop != nil && cfg.Transport == nil {
		polls = newPollSchedule(len(nodes), cfg.PollInterval)
	}
	for i, rq := range t.Requests {
		if err := cfg.Context.Err(); err != nil {
			return err
		}
		o.clock.advance(rq.Time)
		if polls != nil && m.Route == node.RouteDigest {
			// The polls due since the last request come before this one.
			if err := prop.pollDue(ctx, nodes, polls, rq.Time); err != nil {
				return err
			}
		}
		if err := fetch(nodes[rq.Proxy].client, o.urls[i]); err != nil {
			return err
		}
		if err := settle(nodes, uint64(i+1)); err != nil {
			return err
		}
		switch {
		case m.Route != node.RouteDigest:
		case polls != nil:
			if err := prop.poll(ctx, nodes, polls, rq.Time); err != nil {
				return err
			}
		case prop != nil:
			if err := prop.push(ctx, nodes, rq.Time); err != nil {
				return err
			}
		default:
			if err := propagate(ctx, nodes, shape.static); err != nil {
				return err
			}
		}
		if cfg.Progress != nil && (i+1)%cfg.ProgressEvery == 0 {
			cfg.Progress(m, i+1, len(t.Requests))
		}
	}
	if cfg.Progress != nil && len(t.Requests)%cfg.ProgressEvery != 0 {
		cfg.Progress(m, len(t.Requests), len(t.Requests))
	}
	return nil
}

// waitServing waits until every node has its address, so that the first
// requests do not race Serve.
func waitServing(nodes []*clusterNode) {
	for _, cn := range nodes {
		for cn.node.Addr() == "" {
			time.Sleep(time.Millisecond)
		}
	}
}

// fetch sends one request through a proxy and reads the whole answer.
func fetch(c *http.Client, target string) error {
	resp, err := c.Get(target)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	// The body is read (or failed, which err reports); closing it only
	// releases the connection and has nothing to add.
	_ = resp.Body.Close()
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s", target, resp.Status)
	}
	return err
}

// settle waits until the nodes have finished handling the requests sent
// so far. A proxy stores an object after the client has read its last
// byte, so the next request could otherwise overtake the store (and the
// publication after it): each node counts a request when it is done with
// it, and every request is either one of the trace's or one a node sent
// to a peer, counted by the sender when the answer came. Likewise an ICP
// server counts its reply after sending it, when the peer that asked may
// already have moved on: settle also waits until every query a server
// received has its reply (or its failure) counted.
func settle(nodes []*clusterNode, sent uint64) error {
	deadline := time.Now().Add(time.Minute)
	for spins := 0; ; spins++ {
		var done, asked, icpQueries, icpAnswered uint64
		for _, cn := range nodes {
			s := nodeaccess.NodeStats(cn.node)
			done += s.LocalHits + s.PeerHits + s.Misses + s.Other
			asked += s.PeerAskHits + s.PeerAskFalseHits + s.PeerAskErrors
			icpQueries += s.ICPServer.Queries
			icpAnswered += s.ICPServer.Answered()
		}
		if done >= sent+asked && icpAnswered >= icpQueries {
			return nil
		}
		if spins > 100 && time.Now().After(deadline) {
			return fmt.Errorf("%d requests sent, %d to peers, %d finished, %d of %d ICP queries answered after a minute", sent, asked, done, icpAnswered, icpQueries)
		}
		if spins < 100 {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
	}
}

// propagate publishes each node's digest if due and has every other node
// fetch it at once; in a static mode (static not nil) the node publishes
// its cache's keys as a static digest, which the others apply at once.
func propagate(ctx context.Context, nodes []*clusterNode, static *staticDigests) error {
	for i, cn := range nodes {
		published, err := nodeaccess.PublishIfDue(cn.node)
		if err != nil {
			return err
		}
		if !published {
			continue
		}
		if static != nil {
			// What the compressed Bloom digest's peers would fetch: the
			// delta from the previous publication (the whole digest the
			// first time), which the static publisher is held to.
			seq, bytes, err := nodeaccess.DigestSince(cn.node, static.last[i])
			if err != nil {
				return err
			}
			static.last[i] = seq
			if err := static.publish(i, seq, cn.node.Store().Keys(), bytes); err != nil {
				return err
			}
			continue
		}
		for j, other := range nodes {
			if j == i {
				continue
			}
			if err := other.node.Directory().RefreshPeer(ctx, other.peers[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// collect sums the nodes' counters into r.
func collect(r *ClusterResult, nodes []*clusterNode) {
	var objects, digestBytes, falsePos float64
	var served uint64 // peer requests answered from the peer's cache
	for _, cn := range nodes {
		s := nodeaccess.NodeStats(cn.node)
		r.LocalHits += s.LocalHits
		r.RemoteHits += s.PeerHits
		r.Misses += s.Misses
		r.Failed += s.Other
		r.FalseHits += s.PeerAskFalseHits
		r.PeerErrors += s.PeerAskErrors
		r.PeerRequests += s.PeerAskHits + s.PeerAskFalseHits + s.PeerAskErrors
		served += s.PeerAskHits
		r.ObjectBytes += s.PeerHitBytes
		r.ICPQueries += s.ICPClient.MessagesSent
		r.ICPReplies += s.ICPServer.MessagesSent
		r.ICPBytes += s.ICPClient.BytesSent + s.ICPServer.BytesSent
		r.FullFetches += s.DigestFetchesFull
		r.DeltaFetches += s.DigestFetchesDelta
		r.DigestBytes += s.DigestOutFullBytes + s.DigestOutDeltaBytes
		r.DigestMessages += 2*s.DigestHTTPServed + s.TransportSent + s.TransportReceived
		r.DigestMessageBytes += s.DigestHTTPServedBytes + s.TransportSentBytes + s.TransportReceivedBytes
		r.FullDigestBodyBytes += s.DigestInFullBytes
		r.DeltaBodyBytes += s.DigestInDeltaBytes
		ps := nodeaccess.Publisher(cn.node)
		r.Publications += ps.Sequence - 1
		objects += float64(cn.node.Store().Len())
		digestBytes += float64(ps.DigestBytes)
		falsePos += ps.FalsePos
	}
	// Requests answered by a peer from its cache count there as local
	// hits (or, for a false hit, as "other"): take them out, so that
	// every client request counts once.
	r.LocalHits -= served
	r.Failed -= r.FalseHits
	k := float64(len(nodes))
	r.CacheObjects = objects / k
	if r.Mode.Route == node.RouteDigest {
		r.FullDigestBytes, r.DigestFalsePos = digestBytes/k, falsePos/k
	}
}
