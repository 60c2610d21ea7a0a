package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/icp"
	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/nodestatus"
	"github.com/bloomcast/bloomcast/internal/originclient"
	"github.com/bloomcast/bloomcast/internal/ratelog"
	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// Route is how a node forwards a miss (NodeConfig.Route, `bloomcast
// serve --route`). The zero value, "", means RouteDigest.
type Route string

// Routes.
const (
	RouteDigest Route = "digest" // to peers whose digests say maybe (the summary cache)
	RouteICP    Route = "icp"    // to the first peer that answers an ICP query with HIT
	RouteNone   Route = "none"   // straight to the origin
)

// checkRoute checks a Route value ("" meaning digest).
func checkRoute(r Route) error {
	_, err := ParseRoute(string(r))
	return err
}

// ParseRoute returns the route named s: digest, icp or none ("" is
// digest).
func ParseRoute(s string) (Route, error) {
	switch r := Route(s); r {
	case "":
		return RouteDigest, nil
	case RouteDigest, RouteICP, RouteNone:
		return r, nil
	}
	return "", fmt.Errorf("%w: route %q (want digest, icp or none)", cache.ErrConfig, s)
}

// NodeConfig configures a summary-cache node. The zero value (with a
// Listen address) is a working single node: a 256 MiB memory cache
// sized for 100 000 objects, publishing digests at 5% change, allowing
// clients and peers from loopback only.
type NodeConfig struct {
	// Listen is the proxy's address, "host:port"; empty means
	// 127.0.0.1:3128 (loopback unless told otherwise). The proxy port
	// also serves the digests, /metrics and /healthz.
	Listen string
	// ICPListen is the ICP (UDP) address; empty means no ICP.
	ICPListen string
	// Name is the node's pseudonym in Via and X-Cache headers; empty
	// means the host name (os.Hostname), or DefaultVia when it has none.
	// A peer of that name, or at the Listen address, is refused: it
	// would be this node.
	Name string
	// Version is the software's version the status page shows; empty
	// means the main module's version from the build information.
	Version string

	// MemoryBytes is the memory cache's budget, of the heap its entries
	// and index hold (Memory); 0 means 256 MiB. DiskDir, when set,
	// keeps the cache on disk instead, under DiskBytes (0 means 1 GiB)
	// as du counts them (Disk), surviving restarts; MemoryBytes is then
	// the budget of the disk cache's index in memory.
	MemoryBytes int64
	DiskDir     string
	DiskBytes   int64
	// MaxObjectBytes is the largest response stored; 0 means
	// DefaultMaxObjectBytes.
	MaxObjectBytes int64
	// ReadTimeout is the longest a forwarded response may go without a
	// byte from its server before it is cut off (Config.ReadTimeout), and
	// a request body the node forwards without a byte from its client; 0
	// means DefaultReadTimeout.
	ReadTimeout time.Duration
	// WriteTimeout is the longest a write to a client may wait for the
	// client to take it (Config.WriteTimeout, Squid's write_timeout)
	// before its connection is closed; 0 means cache.DefaultWriteTimeout.
	WriteTimeout time.Duration

	// Capacity is the number of objects the summaries are sized for;
	// 0 means 100 000. BitsPerEntry is the digest's bits per object
	// (m/n); 0 means 16 with k chosen for it (the counting filter is a
	// classic one, whose deltas are smallest); at most 4096.
	Capacity     uint64
	BitsPerEntry float64
	// HashFunctions is the digest's k; 0 means the best k for
	// BitsPerEntry. A compressed digest may use a larger BitsPerEntry
	// and a smaller k than the raw optimum (params.OptimizeTarget).
	HashFunctions int
	// Threshold is the changed fraction that publishes a new digest;
	// 0 means 5%, serve's default (the seeds' 1–10%). MaxDigestAge publishes anyway
	// after that long with changes pending; 0 means 5 minutes.
	Threshold    float64
	MaxDigestAge time.Duration
	// Codec codes the digest; 0 (digest.Auto) means digest.Fast here,
	// since a node publishes often.
	Codec digest.Codec
	// SquidBitsPerEntry is the bits per entry of the Squid digest; 0
	// means Squid's default 5.
	SquidBitsPerEntry uint8
	// SquidDigestLifetime is how long the Squid digest the node serves
	// stays fresh for a Squid peer (its Expires and max-age); Squid
	// fetches it again no sooner than 5 minutes after that. 0 means 5
	// minutes; otherwise at least 1 s (squidDigestConfig.Lifetime).
	SquidDigestLifetime time.Duration

	// Peers, Route and the peer timings.
	Peers          []PeerConfig
	Route          Route         // RouteDigest (default), RouteICP or RouteNone
	PollInterval   time.Duration // digest polling; 0 means 30 s
	PeerExpiry     time.Duration // drop a silent peer's view; 0 means 4 poll intervals
	MaxDigestBytes int64         // largest digest accepted from a peer; 0 means 64 MiB
	NoDelta        bool          // always fetch peers' full digests, never deltas (directoryConfig.NoDelta)
	PeerViews      PeerViews     // how peers' digests are held: PeerViewsDecoded (empty means it) or PeerViewsCompressed
	PeerTimeout    time.Duration // wait for a peer's response headers; 0 means 5 s
	ICPTimeout     time.Duration // wait for ICP replies; 0 means 2 s
	// ICPReplies is the most ICP replies the node sends a second;
	// queries beyond it go unanswered and are counted. 0 means
	// icp.DefaultReplies (icp.Limits.Replies).
	ICPReplies int
	// MaxConnections is the most client connections the node keeps open
	// at once (peers' included); at the limit it accepts the next only
	// when one closes, so the memory connections hold stays bounded.
	// 0 means DefaultMaxConnections.
	MaxConnections int
	// FullDigests, when FullDigestsStatic or FullDigestsStaticXOR,
	// serves static digests (a ribbon filter of the cache's keys and
	// Bloom filters of the changes since, digest.StaticPublisher) to
	// bloomcast peers
	// that ask for them, beside the Bloom digest for those that do not,
	// and asks bloomcast peers for theirs. Empty means FullDigestsBloom.
	// Static digests travel over HTTP only: it cannot be combined with a
	// Transport.
	FullDigests FullDigests

	// ConnectPorts are the ports an allowed client may open a CONNECT
	// tunnel to (HTTPS through the proxy); empty means
	// 443 only. A tunnel closes when nothing has crossed
	// it for TunnelIdle (0 means DefaultTunnelIdle) or when it is
	// TunnelLifetime old (0 means DefaultTunnelLifetime).
	ConnectPorts   []uint16
	TunnelIdle     time.Duration
	TunnelLifetime time.Duration

	// AllowClients and AllowPeers are the address ranges allowed to use
	// the proxy and to fetch digests, send ICP queries, scrape /metrics
	// and read why /healthz fails; empty means loopback only. Anyone may
	// read /healthz's status, with a fixed reason.
	AllowClients []netip.Prefix
	AllowPeers   []netip.Prefix
	// AllowHosts are the host names the operator's endpoints (/metrics,
	// the status page and its JSON, /healthz's reason) answer in a
	// request's Host, besides IP addresses, localhost and the names
	// under it, Name and Listen's host: a request naming another host
	// gets 403 (and /healthz's fixed reason), so that a web page that
	// points its own name at the node's address cannot read them
	// through the operator's browser (DNS rebinding). Names compare
	// without case or a trailing dot; a port is not compared. The
	// peers' endpoints (the digests) answer any Host: peers reach a
	// node by names of their own.
	AllowHosts []string

	// DenyDestinations are the addresses the node never connects to for
	// a client, checked on the address dialled after name resolution: a
	// request or CONNECT for one gets 403, logged TCP_DENIED/403, as
	// Squid 6's "http_access deny to_linklocal" answers. Peers are not
	// checked: they are the operator's. nil means
	// DefaultDenyDestinations; an empty, non-nil slice denies nothing.
	// The origin client checks them when Client is nil; CONNECT tunnels
	// always do.
	DenyDestinations []netip.Prefix

	// MaxRequestHeaderBytes bounds a request's head (request line and
	// header fields); one over it gets 414 (its request line alone is)
	// or 431 at once. 0 means DefaultMaxRequestHeaderBytes (Squid's
	// request_header_max_size).
	MaxRequestHeaderBytes int

	AccessLog io.Writer    // Squid-format access log; nil for none
	Logger    *slog.Logger // nil for slog.Default()
	// Client is the origin client; nil means the proxy's own, which
	// decodes the transfer codings Go's client refuses.
	Client *http.Client
	// Transport, if set, carries this node's digests to its peers and
	// theirs to it besides HTTP polling ([DigestTransport]): the node
	// starts it when it serves, pushes each publication through it
	// (Node.PushDigest), applies what it delivers to its Directory, and
	// polls a bloomcast peer over HTTP only while the transport is down
	// or that peer pushes nothing. Its Name labels the metrics; it must
	// not be "http". nil means HTTP polling alone. The node closes it
	// when it stops.
	Transport DigestTransport
	// PushInterval, with a Transport, is the least time between two
	// pushes of publications: a publication that comes sooner is held,
	// and when the interval has passed since the last push the node
	// pushes one delta from the last publication it pushed to its newest
	// (Node.PushIfDue), so that k publications within one interval cost
	// one message, as k publications between two polls cost one fetch.
	// The first publication is pushed at once. 0 means every publication
	// is pushed as it is made; otherwise at least MinInterval.
	PushInterval time.Duration
	// Manual turns off the background publication, push and polling
	// loops: the caller drives Publisher().PublishIfDue, PushDigest and
	// Directory().Refresh itself, as the simulations do to replay a
	// trace deterministically.
	Manual bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Node is a summary-cache node: a caching proxy ([cache.Proxy]) whose counting
// filter of cached keys is published as digests for its peers ([Publisher],
// [squidDigest]), which keeps its peers' digests ([Directory]) and sends
// a miss to a peer that probably holds the object, over HTTP with
// only-if-cached, before the origin (Fan, Cao, Almeida and Broder,
// "Summary cache", IEEE/ACM ToN 2000). It also answers ICP and can route
// by ICP instead, for comparison, and tunnels CONNECT to the ports in
// NodeConfig.ConnectPorts (HTTPS through the proxy).
//
// The zero Node is not usable; make one with NewNode.
type Node struct {
	cfg NodeConfig
	// connsOpen counts the client connections open (connLimit);
	// connWarn spaces the warnings that there are MaxConnections.
	connsOpen atomic.Int64
	connWarn  *ratelog.Limiter
	log       *slog.Logger
	store     cache.Store
	proxy     *cache.Proxy
	publisher *Publisher
	static    *staticServer // static FullDigests only
	squid     *squidDigest
	directory *Directory
	fetcher   *peerFetcher
	icpServer *icp.Server
	icpClient *icp.Client
	metrics   *nodeMetrics
	tunnels   *tunnelMetrics
	live      liveTunnels // CONNECT tunnels in flight, for shutdown
	handler   http.Handler

	// The address ranges allowed as clients and as peers, and the
	// AllowHosts: NodeConfig's, replaced whole by Reconfigure.
	allowClients, allowPeers atomic.Pointer[[]netip.Prefix]
	allowHosts               atomic.Pointer[[]string]

	// loopDown is the error a background loop ended with, if one did;
	// publishing is the publication loop's state (node_health.go).
	loopDown   atomic.Pointer[error]
	publishing publishState
	grow       growState
	// pushing is what went through the transport; pushKick wakes the
	// push loop after a publication.
	pushing  pushState
	pushKick chan struct{}

	mu   sync.Mutex
	addr string // the proxy's listening address once serving

	// listening is addr parsed, read by every request in absolute form
	// (addressedToMe).
	listening atomic.Pointer[netip.AddrPort]
}

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// DefaultDenyDestinations returns NodeConfig.DenyDestinations when left
// nil: the link-local ranges, where cloud instances answer their
// metadata services (169.254.169.254) that no client of a shared proxy
// should reach through it.
func DefaultDenyDestinations() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("fe80::/10")}
}

// NewNode builds a node; Serve runs it.
func NewNode(cfg NodeConfig) (*Node, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, log: cfg.Logger, pushKick: make(chan struct{}, 1), connWarn: ratelog.New(connLimitWarnEvery)}
	n.allowClients.Store(&cfg.AllowClients)
	n.allowPeers.Store(&cfg.AllowPeers)
	n.allowHosts.Store(&cfg.AllowHosts)
	var err error
	if n.publisher, err = newPublisher(publisherConfig{
		Filter:    counting.Config{M: uint64(cfg.BitsPerEntry * float64(cfg.Capacity)), N: cfg.Capacity, K: cfg.HashFunctions},
		Threshold: cfg.Threshold, MaxAge: cfg.MaxDigestAge, Codec: cfg.Codec, Now: cfg.Now,
	}); err != nil {
		return nil, err
	}
	if n.squid, err = newSquidDigest(squidDigestConfig{Capacity: uint32(min(cfg.Capacity, 1<<31)),
		BitsPerEntry: cfg.SquidBitsPerEntry, Lifetime: cfg.SquidDigestLifetime, Now: cfg.Now}); err != nil {
		return nil, err
	}
	if n.directory, err = newDirectory(directoryConfig{
		Peers: cfg.Peers, PollInterval: cfg.PollInterval, Expiry: cfg.PeerExpiry,
		MaxDigestBytes: cfg.MaxDigestBytes, NoDelta: cfg.NoDelta, PeerViews: cfg.PeerViews, FullDigests: cfg.FullDigests,
		Logger: n.log, Now: cfg.Now,
		Client: digestClient(max(cfg.PeerTimeout, 10*time.Second)),
		OnFetch: func(peer string, status, bytes int, codec string, delta bool) {
			n.metrics.counts.fetched(status, bytes, delta)
			n.metrics.httpMessage("in", int64(bytes))
			n.digestFetched(codec, bytes, delta)
		},
		Transport: cfg.Transport,
		OnPush: func(peer string, bytes int, codec string, delta bool) {
			n.metrics.counts.pushed(delta)
			n.digestFetched(codec, bytes, delta)
		},
		OnFetchFailed: func(peer string, _ error) {
			n.countForPeer(peer, func() { n.metrics.peerFetchFailures.WithLabelValues(peer).Inc() })
		},
	}); err != nil {
		return nil, err
	}
	if err := n.openStore(); err != nil {
		return nil, err
	}
	if cfg.FullDigests.static() {
		// At the Bloom digest's rate at capacity, the target of its shape.
		if n.static, err = newStaticServer(n.publisher, n.store.Keys, n.publisher.stats().TargetFalsePos, cfg.Codec, cfg.FullDigests.form(), n.now); err != nil {
			return nil, errors.Join(err, n.store.Close())
		}
	}
	n.fetcher = &peerFetcher{Timeout: cfg.PeerTimeout, OnOutcome: n.peerOutcome}
	n.metrics = newNodeMetrics(n)
	n.tunnels = newTunnelMetrics(n.metrics.registry)
	if n.proxy, err = cache.NewProxy(cache.Config{
		Store: n.store, Router: n.router(), Client: cfg.Client, AccessLog: cfg.AccessLog, Logger: n.log,
		MaxObjectBytes: cfg.MaxObjectBytes, ReadTimeout: cfg.ReadTimeout, WriteTimeout: cfg.WriteTimeout, Via: cfg.Name, Now: cfg.Now, OnRequest: n.metrics.request,
	}); err != nil {
		return nil, errors.Join(err, n.store.Close())
	}
	if n.icpServer, err = icp.NewServer(icp.ServerConfig{Lookup: n.icpLookup, Allow: n.icpAllowed, Logger: n.log,
		Limits: icp.Limits{Replies: cfg.ICPReplies}}); err != nil {
		return nil, errors.Join(err, n.store.Close())
	}
	n.handler = n.routes()
	return n, nil
}

func (cfg *NodeConfig) defaults() error {
	cfg.fillDefaults()
	return cfg.check()
}

// fillDefaults sets every zero field that has a default to it.
func (cfg *NodeConfig) fillDefaults() {
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:3128"
	}
	if cfg.MemoryBytes == 0 {
		cfg.MemoryBytes = 256 << 20
	}
	if cfg.DiskBytes == 0 {
		cfg.DiskBytes = 1 << 30
	}
	if cfg.Capacity == 0 {
		cfg.Capacity = 100000
	}
	if cfg.BitsPerEntry == 0 {
		cfg.BitsPerEntry = 16
	}
	if cfg.Codec == digest.Auto {
		cfg.Codec = digest.Fast
	}
	if len(cfg.ConnectPorts) == 0 {
		cfg.ConnectPorts = defaultConnectPorts
	}
	if cfg.TunnelIdle == 0 {
		cfg.TunnelIdle = DefaultTunnelIdle
	}
	if cfg.MaxConnections == 0 {
		cfg.MaxConnections = DefaultMaxConnections
	}
	if cfg.TunnelLifetime == 0 {
		cfg.TunnelLifetime = DefaultTunnelLifetime
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = cache.DefaultWriteTimeout
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = cache.DefaultReadTimeout
	}
	if cfg.Route == "" {
		cfg.Route = RouteDigest
	}
	if cfg.PeerViews == "" {
		cfg.PeerViews = PeerViewsDecoded
	}
	if cfg.FullDigests == "" {
		cfg.FullDigests = FullDigestsBloom
	}
	if cfg.MaxRequestHeaderBytes == 0 {
		cfg.MaxRequestHeaderBytes = DefaultMaxRequestHeaderBytes
	}
	if len(cfg.AllowClients) == 0 {
		cfg.AllowClients = loopback
	}
	if len(cfg.AllowPeers) == 0 {
		cfg.AllowPeers = loopback
	}
	if cfg.DenyDestinations == nil {
		cfg.DenyDestinations = DefaultDenyDestinations()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Name == "" {
		cfg.Name = hostName()
	}
}

// check validates a configuration whose defaults are filled in.
func (cfg *NodeConfig) check() error {
	if err := checkSelfPeers(cfg); err != nil {
		return err
	}
	if err := checkTransport(cfg.Transport); err != nil {
		return err
	}
	if err := checkAllowHosts(cfg.AllowHosts); err != nil {
		return err
	}
	switch {
	case !httpx.IsToken(cfg.Name):
		return fmt.Errorf("%w: name %q (want letters, digits, dots or dashes: it goes in Via headers)", cache.ErrConfig, cfg.Name)
	case checkRoute(cfg.Route) != nil:
		return checkRoute(cfg.Route)
	case checkPeerViews(cfg.PeerViews) != nil:
		return checkPeerViews(cfg.PeerViews)
	case checkFullDigests(cfg.FullDigests) != nil:
		return checkFullDigests(cfg.FullDigests)
	case cfg.FullDigests.static() && cfg.Transport != nil:
		return fmt.Errorf("%w: static full digests travel over HTTP only, not through the %s transport", cache.ErrConfig, cfg.Transport.Name())
	case cfg.ReadTimeout < cache.MinInterval:
		return fmt.Errorf("%w: read timeout %v (want 0 for the default, or ≥ %v)", cache.ErrConfig, cfg.ReadTimeout, cache.MinInterval)
	case cfg.WriteTimeout < cache.MinInterval:
		return fmt.Errorf("%w: write timeout %v (want 0 for the default, or ≥ %v)", cache.ErrConfig, cfg.WriteTimeout, cache.MinInterval)
	case cfg.TunnelIdle < cache.MinInterval || cfg.TunnelLifetime < cache.MinInterval:
		return fmt.Errorf("%w: tunnel idle timeout %v, lifetime %v (want 0 for the default, or ≥ %v)",
			cache.ErrConfig, cfg.TunnelIdle, cfg.TunnelLifetime, cache.MinInterval)
	case slices.Contains(cfg.ConnectPorts, 0):
		return fmt.Errorf("%w: CONNECT port 0", cache.ErrConfig)
	case cfg.PushInterval < 0 || cfg.PushInterval > 0 && cfg.PushInterval < cache.MinInterval:
		return fmt.Errorf("%w: push interval %v (want 0 to push every publication, or ≥ %v)", cache.ErrConfig, cfg.PushInterval, cache.MinInterval)
	case cfg.MemoryBytes < 0 || cfg.DiskBytes < 0:
		return fmt.Errorf("%w: negative size", cache.ErrConfig)
	case cfg.MaxRequestHeaderBytes < MinRequestHeaderBytes:
		return fmt.Errorf("%w: request header limit %d bytes (want 0 for the default, or ≥ %d)", cache.ErrConfig, cfg.MaxRequestHeaderBytes, MinRequestHeaderBytes)
	case cfg.PeerTimeout < 0 || cfg.PeerTimeout > 0 && cfg.PeerTimeout < cache.MinInterval,
		cfg.ICPTimeout < 0 || cfg.ICPTimeout > 0 && cfg.ICPTimeout < cache.MinInterval:
		return fmt.Errorf("%w: peer timeout %v, ICP timeout %v (want 0 for the default, or ≥ %v)",
			cache.ErrConfig, cfg.PeerTimeout, cfg.ICPTimeout, cache.MinInterval)
	case !(cfg.BitsPerEntry >= 1 && cfg.BitsPerEntry <= 4096) || cfg.Capacity > 1<<32:
		return fmt.Errorf("%w: %g bits per entry for %d objects", cache.ErrConfig, cfg.BitsPerEntry, cfg.Capacity)
	case cfg.HashFunctions < 0:
		return fmt.Errorf("%w: %d hash functions", cache.ErrConfig, cfg.HashFunctions)
	case cfg.MaxConnections < 0:
		return fmt.Errorf("%w: %d connections at most (want 0 for the default, or more)", cache.ErrConfig, cfg.MaxConnections)
	case cfg.ICPReplies < 0:
		return fmt.Errorf("%w: %d ICP replies a second (want 0 for the default, or more)", cache.ErrConfig, cfg.ICPReplies)
	case cfg.Route == RouteICP && cfg.ICPListen == "":
		return fmt.Errorf("%w: route icp needs an ICP address to send from", cache.ErrConfig)
	}
	for _, p := range cfg.Peers {
		if p.ICP == "" {
			continue
		}
		if _, err := netip.ParseAddrPort(p.ICP); err != nil {
			return fmt.Errorf("%w: peer ICP address %q: want ip:port", cache.ErrConfig, p.ICP)
		}
	}
	return nil
}

// observers fans store events out to both summaries.
type observers []cache.Observer

func (o observers) Stored(key string) {
	for _, x := range o {
		x.Stored(key)
	}
}

func (o observers) Evicted(key string) {
	for _, x := range o {
		x.Evicted(key)
	}
}

func (n *Node) openStore() error {
	obs := observers{n.publisher, n.squid}
	var err error
	if n.cfg.DiskDir != "" {
		n.store, err = cache.OpenDisk(cache.DiskConfig{Dir: n.cfg.DiskDir, MaxBytes: n.cfg.DiskBytes, MaxIndexBytes: n.cfg.MemoryBytes,
			Observer: obs, Logger: n.log})
	} else {
		n.store, err = cache.NewMemory(cache.MemoryConfig{MaxBytes: n.cfg.MemoryBytes, Observer: obs})
	}
	return err
}

// router builds the Router for the configured route. The ICP route's
// client is made when Serve opens the ICP socket.
func (n *Node) router() cache.Router {
	client := n.cfg.Client
	if client == nil {
		client = originclient.New(nil, n.cfg.DenyDestinations)
	}
	origin := cache.Direct(client)
	switch n.cfg.Route {
	case RouteDigest:
		return &digestRouter{Directory: n.directory, Peers: n.fetcher, Origin: origin}
	case RouteICP:
		return cache.RouterFunc(func(f *cache.Forward) (*http.Response, cache.Source, error) {
			if c := n.icpClientOrNil(); c != nil {
				r := &icpRouter{Client: c, Directory: n.directory, Peers: n.fetcher, Origin: origin, Timeout: n.cfg.ICPTimeout}
				return r.Route(f)
			}
			return origin.Route(f)
		})
	}
	return origin
}

func (n *Node) icpClientOrNil() *icp.Client {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.icpClient
}

func (n *Node) icpLookup(url string) bool {
	_, ok := n.proxy.Lookup(url)
	return ok
}

func (n *Node) icpAllowed(peer netip.AddrPort) bool {
	return allowed(*n.allowPeers.Load(), peer.Addr())
}

func allowed(prefixes []netip.Prefix, a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func remoteAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr()
}

func (n *Node) peerOutcome(peer string, o peerOutcome) {
	n.metrics.counts.peer(o)
	n.countForPeer(peer, func() {
		n.metrics.status.peer(peer, o)
		n.metrics.peerAsks.WithLabelValues(peer, o.String()).Inc()
	})
}

func (n *Node) digestFetched(codec string, bytes int, delta bool) {
	if bytes == 0 {
		return
	}
	kind := "full"
	if delta {
		kind = "delta"
	}
	n.metrics.digestIn.WithLabelValues(codec, kind).Add(float64(bytes))
}

// routes is the node's HTTP handler: its own endpoints for requests
// addressed to it, the proxy for everything else.
func (n *Node) routes() http.Handler {
	local := http.NewServeMux()
	local.Handle(DigestPath, n.peersOnly(countOut(n.metrics, n.cfg.WriteTimeout, n.digestHandler())))
	local.Handle(squidDigestPath, n.peersOnly(countOut(n.metrics, n.cfg.WriteTimeout, n.squid)))
	local.Handle("/metrics", n.operatorOnly(n.metrics.handler()))
	local.HandleFunc("/healthz", n.serveHealth)
	local.Handle(nodestatus.Path, n.operatorOnly(http.HandlerFunc(n.serveStatus)))
	local.Handle(nodestatus.JSONPath, n.operatorOnly(http.HandlerFunc(n.serveStatusJSON)))
	local.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n.refuse(w, r, squidlog.CodeNone, http.StatusNotFound, "not found: the node serves "+DigestPath+", "+
			squidDigestPath+", /metrics, /healthz, "+nodestatus.Path+" and "+nodestatus.JSONPath+", and proxies absolute http URLs")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, done := n.boundBody(w, r)
		defer done()
		if !n.admit(w, r) {
			return
		}
		if n.addressedToMe(r) {
			n.serveLocal(local, w, r)
			return
		}
		if !allowed(*n.allowClients.Load(), remoteAddr(r)) {
			n.refuse(w, r, squidlog.CodeDenied, http.StatusForbidden, "access denied")
			return
		}
		if r.Method == http.MethodConnect {
			n.tunnel(w, r)
			return
		}
		n.proxy.ServeHTTP(w, r)
	})
}

// peersOnly refuses requests from outside AllowPeers, logged
// TCP_DENIED/403.
func (n *Node) peersOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed(*n.allowPeers.Load(), remoteAddr(r)) {
			n.refuse(w, r, squidlog.CodeDenied, http.StatusForbidden, "access denied")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// direct refuses a request that came through a proxy (viaProxy: Via,
// Forwarded or X-Forwarded-For), logged TCP_DENIED/403: the operator's endpoints are
// read from the operator's machines, and a request relayed by another
// node or by Squid comes from that proxy's address, which --allow-peers
// holds, in place of its client's. Digests, which Squid fetches through
// its own forwarding, stay open to peers.
func (n *Node) direct(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if viaProxy(r) {
			n.refuse(w, r, squidlog.CodeDenied, http.StatusForbidden, "access denied: through a proxy")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// viaProxy reports whether r was relayed by a proxy: it has a Via field
// (RFC 9110 §7.6.3), or Forwarded (RFC 7239) or X-Forwarded-For, which a
// proxy told not to send Via may still add (Squid with "via off" keeps
// its default "forwarded_for on").
func viaProxy(r *http.Request) bool {
	h := r.Header
	return len(h.Values("Via")) > 0 || len(h.Values("Forwarded")) > 0 || len(h.Values("X-Forwarded-For")) > 0
}

// countOut counts the digest bytes a handler serves, each write to be
// taken by the client within writeTimeout.
func countOut(m *nodeMetrics, writeTimeout time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &httpx.CountingWriter{ResponseWriter: w, WriteTimeout: writeTimeout}
		h.ServeHTTP(cw, r)
		codec, kind := "squid", "squid"
		switch cw.Header().Get("Content-Type") {
		case digestContentType:
			codec, kind = cw.Header().Get(codecHeader), "full"
		case deltaContentType:
			codec, kind = cw.Header().Get(codecHeader), "delta"
		case staticContentType:
			codec, kind = staticCodec, "full"
		case staticDeltaContentType:
			codec, kind = staticCodec, "delta"
		}
		if cw.Status == http.StatusOK || cw.Status == http.StatusNotModified {
			m.httpMessage("out", cw.Bytes)
		}
		if cw.Bytes > 0 && cw.Status == http.StatusOK {
			m.counts.served(kind, cw.Bytes)
			m.digestOut.WithLabelValues(codec, kind).Add(float64(cw.Bytes))
		}
	})
}

// Handler returns the node's HTTP handler (proxy, digests, metrics,
// health), for embedding in another server or a test.
func (n *Node) Handler() http.Handler { return n.handler }

// Publisher returns the node's digest publisher.
func (n *Node) Publisher() *Publisher { return n.publisher }

// Directory returns the node's view of its peers.
func (n *Node) Directory() *Directory { return n.directory }

// Store returns the node's cache.
func (n *Node) Store() cache.Store { return n.store }

// Addr returns the proxy's listening address once Serve has started.
func (n *Node) Addr() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.addr
}

// Serve runs the node on ln (and on icpConn for ICP, if not nil) until
// ctx is done, then shuts down gracefully: it stops accepting, lets
// requests in flight finish (up to 10 s, then closes the connections of
// those still running), stops the background loops and closes the store.
// If a background loop (peer polling) ends with an error first, Serve
// logs it at error level, shuts down the same way and returns it: a node
// never goes on serving with a stopped loop. A failed
// publication of the node's digest does not end its loop: it is logged
// at error level and retried, and /healthz answers 503 once the digest is
// overdue (node_health.go).
func (n *Node) Serve(ctx context.Context, ln net.Listener, icpConn net.PacketConn) error {
	if n.proxy == nil {
		return errZeroNode
	}
	if ln == nil {
		return fmt.Errorf("%w: nil listener", cache.ErrConfig)
	}
	return n.serve(ctx, ln, icpConn)
}

func (n *Node) serve(ctx context.Context, ln net.Listener, icpConn net.PacketConn) (err error) {
	n.mu.Lock()
	n.addr = ln.Addr().String()
	n.mu.Unlock()
	if ap, err := netip.ParseAddrPort(ln.Addr().String()); err == nil {
		n.listening.Store(&ap)
	}
	srv := &http.Server{Handler: n.handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: n.cfg.MaxRequestHeaderBytes, ErrorLog: slog.NewLogLogger(n.log.Handler(), slog.LevelWarn)}
	ln = refusalListener{Listener: newConnLimit(ln, n.cfg.MaxConnections, &n.connsOpen, n.connLimitReached), n: n}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	loopErr := make(chan error, 2)
	run := func(name string, f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(bg); err != nil && bg.Err() == nil {
				err = fmt.Errorf("node: %s: %w", name, err)
				n.loopDown.Store(&err)
				loopErr <- err
			}
		}()
	}
	if icpConn != nil {
		c, err := n.startICP(icpConn)
		if err != nil {
			stop()
			return err
		}
		defer func() {
			if cerr := c.Close(); err == nil {
				err = cerr
			}
		}()
	}
	if n.cfg.Transport != nil {
		// Started before the directory polls, which asks it whether it
		// is connected; an error is a configuration the transport can
		// never work with.
		if err := n.startTransport(bg); err != nil {
			stop()
			return fmt.Errorf("node: digest transport %s: %w", n.cfg.Transport.Name(), err)
		}
		defer func() {
			if cerr := n.cfg.Transport.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("node: digest transport %s: %w", n.cfg.Transport.Name(), cerr)
			}
		}()
	}
	if !n.cfg.Manual {
		run("publisher", n.publishLoop)
		run("peer directory", n.directory.run) // with no peers it waits for Reconfigure to add some
		if n.cfg.Transport != nil {
			run("digest push", n.pushLoop)
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	n.log.Info("bloomcast node serving", "proxy", n.addr, "route", n.cfg.Route, "peers", len(n.cfg.Peers), "full_digests", n.cfg.FullDigests,
		"memory_limit", debug.SetMemoryLimit(-1)) // -1 reads the limit in force
	shutdown := func() error { return n.shutdown(ctx, srv) }
	select {
	case err = <-errc:
	case err = <-loopErr:
		n.log.Error("bloomcast node stopping: a background loop failed", "proxy", n.addr, "err", err)
		err = errors.Join(err, shutdown())
	case <-ctx.Done():
		err = shutdown()
	}
	stop()
	wg.Wait()
	if cerr := n.store.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	n.log.Info("bloomcast node stopped", "proxy", n.addr)
	return err
}

// shutdownGrace is how long a node that stops waits for the requests in
// flight.
const shutdownGrace = 10 * time.Second

// shutdown stops srv: it stops accepting, waits up to shutdownGrace for
// the requests in flight, then closes the connections of those still
// running, whose clients see their responses end short of their length
// or last chunk. Cutting them off is how a stop ends, not a failure: the
// caller asked the node to stop and it has.
func (n *Node) shutdown(ctx context.Context, srv *http.Server) error {
	addr := n.listenAddr()
	n.log.Info("bloomcast node stopping: finishing the requests in flight", "proxy", addr, "grace", shutdownGrace)
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shut)
	if errors.Is(err, context.DeadlineExceeded) {
		n.log.Warn("bloomcast node stopping: requests still in flight after the grace period are cut off", "proxy", addr, "grace", shutdownGrace)
		err = srv.Close()
	}
	// Hijacked, tunnels are not Shutdown's: they get what is left of
	// the grace, then their sockets are closed, and their handlers are
	// waited for so that each writes its access-log line.
	late := n.live.wait(shut) != nil
	if running := n.live.closeAll(); late {
		n.log.Warn("bloomcast node stopping: CONNECT tunnels still open after the grace period are closed", "proxy", addr, "tunnels", running)
	}
	// Their sockets closed, the copies end at once; a dial under way
	// ends with its request, which Close cancelled.
	end, cancelEnd := context.WithTimeout(context.Background(), time.Second)
	defer cancelEnd()
	_ = n.live.wait(end)
	return err
}

// startICP makes the node's ICP client on icpConn, which the client then
// owns.
func (n *Node) startICP(icpConn net.PacketConn) (*icp.Client, error) {
	c, err := icp.NewClient(icpConn, icp.ClientConfig{Server: n.icpServer, Logger: n.log})
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.icpClient = c
	n.mu.Unlock()
	return c, nil
}

// errZeroNode is what the methods of a zero Node that return an error
// return.
var errZeroNode = fmt.Errorf("%w: zero Node; use NewNode", cache.ErrConfig)

// ListenAndServe listens on the configured addresses and serves until ctx
// is done.
func (n *Node) ListenAndServe(ctx context.Context) error {
	if n.proxy == nil {
		return errZeroNode
	}
	ln, err := net.Listen("tcp", n.cfg.Listen)
	if err != nil {
		return err
	}
	var pc net.PacketConn
	if n.cfg.ICPListen != "" {
		if pc, err = net.ListenPacket("udp", n.cfg.ICPListen); err != nil {
			return errors.Join(err, ln.Close())
		}
	}
	return n.Serve(ctx, ln, pc)
}

// now is the node's clock.
func (n *Node) now() time.Time {
	if n.cfg.Now != nil {
		return n.cfg.Now()
	}
	return time.Now()
}
