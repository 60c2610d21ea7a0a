package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/ratelog"
	"github.com/bloomcast/bloomcast/params"
)

// Protocol is how a peer publishes its summary.
// The zero value is Bloomcast.
type Protocol int

// Protocols.
const (
	// Bloomcast: the project's digest at DigestPath, with deltas.
	Bloomcast Protocol = iota
	// Squid: a Squid Cache Digest at SquidDigestPath.
	Squid
)

func (p Protocol) String() string {
	if p == Squid {
		return "squid"
	}
	return "bloomcast"
}

// ParseProtocol returns the protocol named s: bloomcast or squid.
func ParseProtocol(s string) (Protocol, error) {
	switch s {
	case "bloomcast", "":
		return Bloomcast, nil
	case "squid":
		return Squid, nil
	}
	return 0, fmt.Errorf("%w: peer protocol %q (want bloomcast or squid)", cache.ErrConfig, s)
}

// PeerViews is the form in which a node holds its peers' digests
// (NodeConfig.PeerViews, `bloomcast serve --peer-views`). The zero
// value, "", means PeerViewsDecoded.
type PeerViews string

// peerViewsStatic is not a configuration but the form a peer's status
// reports for its static digest (NodeConfig.FullDigests): a ribbon
// filter and its Bloom filters, held as they came.
const peerViewsStatic = "static"

// Forms of the peers' views.
const (
	// PeerViewsDecoded: a peer's digest decoded to its bit array, as
	// Decode gives it; a lookup reads the bits.
	PeerViewsDecoded PeerViews = "decoded"
	// PeerViewsCompressed: a peer's digest kept coded in pieces
	// (digest.Pieces), a few decoded pieces cached; a digest sent as one
	// stream is coded again in pieces of 1 KiB (peerPieceBytes) once, one
	// piece at a time, and deltas recode only the pieces they change.
	// Squid digests are always held decoded.
	PeerViewsCompressed PeerViews = "compressed"
)

// peerPieceBytes is the decoded size of the pieces a node codes a peer's
// digest in when it holds it compressed.
const peerPieceBytes = 1024

// ParsePeerViews returns the form named s: decoded or compressed (""
// is decoded).
func ParsePeerViews(s string) (PeerViews, error) {
	switch v := PeerViews(s); v {
	case "":
		return PeerViewsDecoded, nil
	case PeerViewsDecoded, PeerViewsCompressed:
		return v, nil
	}
	return "", fmt.Errorf("%w: peer views %q (want compressed or decoded)", cache.ErrConfig, s)
}

// checkPeerViews checks a PeerViews value ("" meaning decoded).
func checkPeerViews(v PeerViews) error {
	_, err := ParsePeerViews(string(v))
	return err
}

// squidDigestPath is where Squid serves its store digest.
const squidDigestPath = "/squid-internal-periodic/store_digest"

// PeerConfig describes one peer.
//
// The zero PeerConfig is not valid: NewNode reports ErrConfig, as Proxy
// is required.
type PeerConfig struct {
	// Name identifies the peer in logs, metrics and the access log;
	// empty means the proxy's host:port.
	Name string
	// Proxy is the peer's proxy, "http://host:port": where this node asks
	// for objects (with Cache-Control: only-if-cached).
	Proxy string
	// DigestURL is where its digest is fetched; empty means Proxy plus
	// DigestPath (bloomcast) or SquidDigestPath (squid).
	DigestURL string
	Protocol  Protocol
	// ICP is the peer's ICP address, "host:port"; empty if it has none.
	ICP string
}

// directoryConfig configures a [Directory].
//
// The zero value is valid: a directory of no peers, with the defaults shown.
type directoryConfig struct {
	Peers []PeerConfig
	// Client fetches digests; nil means a client with a 10-second
	// timeout that does not ask for compressed responses. Every request
	// also carries the context given to Refresh.
	Client *http.Client
	// PollInterval is how often Run refreshes every peer; 0 means 30 s.
	PollInterval time.Duration
	// Expiry drops a peer's view when the peer has not answered for this
	// long; 0 means 4 poll intervals.
	Expiry time.Duration
	// MaxDigestBytes refuses a digest response larger than this before
	// reading it, and bounds the array a digest may decode to; 0 means
	// 64 MiB.
	MaxDigestBytes int64
	Logger         *slog.Logger
	Now            func() time.Time
	// NoDelta makes every refresh ask for the full digest (no ?since=),
	// still conditional on the ETag: for peers that should not keep
	// delta bases, and for evaluations that compare full-only updates
	// with deltas.
	NoDelta bool
	// OnFetch, if set, is called after every digest response with its
	// size in bytes, the codec ("raw", "arith", "fast" or "squid") and
	// whether it was a delta; status 304 reports 0 bytes.
	OnFetch func(peer string, status, bytes int, codec string, delta bool)
	// OnFetchFailed, if set, is called after every failed refresh of a
	// peer's digest (the failure RefreshPeer logs and returns).
	OnFetchFailed func(peer string, err error)
	// PeerViews is how the peers' digests are held: PeerViewsDecoded
	// (empty means it) or PeerViewsCompressed.
	PeerViews PeerViews
	// FullDigests, when static (either kind), asks bloomcast peers for
	// static digests (their Accept field); a peer that answers with a
	// Bloom digest is held as PeerViews says.
	FullDigests FullDigests
	// Transport, if set, is the digest transport whose messages reach
	// receive: Run does not poll a bloomcast peer whose view the
	// transport keeps current (it is connected and the peer pushed
	// within the last PollInterval), nor any peer at its first round if
	// the transport is connected then, since the transport delivers the
	// peers' current digests at once. The Directory only asks it whether
	// it is connected; the Node starts it.
	Transport DigestTransport
	// OnPush, if set, is called after every digest or delta that receive
	// applied, with its size, codec and kind, as OnFetch is for polled
	// ones.
	OnPush func(peer string, bytes int, codec string, delta bool)
}

// Directory holds this node's view of its peers' summaries: each peer's
// latest digest, kept current with conditional requests and deltas
// (Fan et al., "Summary cache"), and answers which peers may hold a key.
// Safe for concurrent use.
//
// The zero Directory is not usable; a [Node] makes one ([Node.Directory]).
type Directory struct {
	cfg     directoryConfig
	now     func() time.Time
	log     *slog.Logger
	peers   atomic.Pointer[[]*Peer] // replaced whole by SetPeers
	changed chan struct{}           // SetPeers tells Run
	// pushWarn bounds the warnings of refused pushed messages, by
	// peer name (configured, so few).
	pushWarn *ratelog.Limiter
}

// Peer is one peer and its view.
// The zero Peer is not usable: a Directory makes its peers from
// directoryConfig.Peers.
type Peer struct {
	cfg   PeerConfig
	proxy *url.URL
	name  string

	// update serialises the changes of view (polled and pushed), held
	// while a digest is decoded against the view it updates.
	update sync.Mutex
	// polling holds one token, taken for the length of a fetch: two
	// polls of one peer at once would both ask from the same view, and
	// the one that stored second would be dropped (store keeps the view
	// the first one made), so that a refresh begun after a publication
	// could end on the digest from before it.
	polling chan struct{}
	mu      sync.RWMutex
	view    *peerView
	contact time.Time // last successful answer
	fails   int       // consecutive failures
	// unreachable: the last connection to the peer (a digest poll or a
	// request for an object) could not be made; it is no candidate until
	// a poll reaches it again.
	unreachable bool
	lastErr     error
	pushedAt    time.Time // last message applied from the transport
	fetches     struct{ full, delta, notModified, resync, refused, pushed uint64 }
	// lookup, when set (setLookup), answers for the peer in
	// place of a fetched view.
	lookup atomic.Pointer[func(key string) bool]
	// bloomOnly is set once a static digest of the peer's was too large
	// to hold (MaxDigestBytes): the peer is asked for Bloom digests from
	// then on.
	bloomOnly atomic.Bool
	// fetchClient asks the peer for objects (peerFetcher.client), made
	// on first use under fetchMu.
	fetchMu     sync.Mutex
	fetchClient *http.Client
}

// peerView is a peer's summary as last fetched.
type peerView struct {
	filter *bloom.Filter  // decoded bloomcast: the digest's filter; squid: the mask
	digest *digest.Digest // decoded bloomcast only
	// patcher holds digest when it is a Bloom or counting filter: deltas
	// change its words in place, under the peer's mu (Candidates reads
	// them so).
	patcher *digest.Patcher
	pieces  *digest.Pieces     // compressed bloomcast only; Patch updates it in place
	squid   *squid.Digest      // squid only
	static  *digest.StaticView // static bloomcast only; Apply makes a new one
	etag    string
	// modified is the response's Last-Modified, asked about with
	// If-Modified-Since when there is no etag: a Squid's digest has
	// none, and it answers 304 while its digest is unchanged (an hour,
	// its digest_rebuild_period).
	modified string
	seq      uint64
	fetched  time.Time
	bytes    int
}

// newDirectory validates cfg and returns a directory with no views yet.
func newDirectory(cfg directoryConfig) (*Directory, error) {
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 30 * time.Second
	}
	if cfg.Expiry == 0 {
		cfg.Expiry = 4 * cfg.PollInterval
	}
	if cfg.MaxDigestBytes == 0 {
		cfg.MaxDigestBytes = 64 << 20
	}
	if err := checkPeerViews(cfg.PeerViews); err != nil {
		return nil, err
	}
	if err := checkFullDigests(cfg.FullDigests); err != nil {
		return nil, err
	}
	if cfg.PollInterval < cache.MinInterval || cfg.Expiry < cache.MinInterval || cfg.MaxDigestBytes < 0 {
		return nil, fmt.Errorf("%w: poll %v, expiry %v (want ≥ %v), max digest %d", cache.ErrConfig,
			cfg.PollInterval, cfg.Expiry, cache.MinInterval, cfg.MaxDigestBytes)
	}
	if cfg.Client == nil {
		cfg.Client = digestClient(10 * time.Second)
	}
	d := &Directory{cfg: cfg, now: cfg.Now, log: cfg.Logger, changed: make(chan struct{}, 1), pushWarn: ratelog.New(pushWarnEvery)}
	if d.now == nil {
		d.now = time.Now
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	var peers []*Peer
	for _, pc := range cfg.Peers {
		p, err := newPeer(pc)
		if err != nil {
			return nil, err
		}
		peers = append(peers, p)
	}
	if err := checkPeerNames(peers); err != nil {
		return nil, err
	}
	d.peers.Store(&peers)
	return d, nil
}

// checkPeerNames refuses two peers of one name (given, or the default
// host:port of a proxy): metrics, the status page and the access log
// tell peers apart by name, and a pushed digest goes to the peer of its
// name. Two peers of one name would make every scrape of /metrics fail
// (a series collected twice) and one of them never receive pushes.
func checkPeerNames(peers []*Peer) error {
	seen := make(map[string]*Peer, len(peers))
	for _, p := range peers {
		if o := seen[p.name]; o != nil {
			return fmt.Errorf("%w: peers %q and %q have the same name %q", cache.ErrConfig,
				httpx.WithoutUserinfo(o.cfg.Proxy), httpx.WithoutUserinfo(p.cfg.Proxy), p.name)
		}
		seen[p.name] = p
	}
	return nil
}

func newPeer(pc PeerConfig) (*Peer, error) {
	u, err := url.Parse(pc.Proxy)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: peer proxy %q: want http://host:port", cache.ErrConfig, httpx.WithoutUserinfo(pc.Proxy))
	}
	if pc.DigestURL == "" {
		path := DigestPath
		if pc.Protocol == Squid {
			path = squidDigestPath
		}
		pc.DigestURL = strings.TrimSuffix(pc.Proxy, "/") + path
	}
	if d, err := url.Parse(pc.DigestURL); err != nil || d.Host == "" {
		return nil, fmt.Errorf("%w: peer digest URL %q", cache.ErrConfig, httpx.WithoutUserinfo(pc.DigestURL))
	}
	pc.Name = pc.NameOrHost()
	return &Peer{cfg: pc, proxy: u, name: pc.Name, polling: make(chan struct{}, 1)}, nil
}

// NameOrHost returns the name a node knows the peer by, in its metrics,
// status page and logs: Name, or else the host (and port, if given) of
// Proxy; Proxy as given if it does not parse, which a node refuses.
func (p PeerConfig) NameOrHost() string {
	if p.Name != "" {
		return p.Name
	}
	if u, err := url.Parse(p.Proxy); err == nil {
		return u.Host
	}
	return p.Proxy
}

// Peers returns the configured peers, in order.
func (d *Directory) Peers() []*Peer {
	ps := d.peers.Load()
	if ps == nil { // a zero Directory has no peers
		return nil
	}
	return *ps
}

// errStaticTooLarge: a peer's static view would hold more than
// MaxDigestBytes (its ribbon and the bits set in its two filters); the
// directory asks it for Bloom digests instead.
var errStaticTooLarge = errors.New("node: static digest too large")

// errZeroDirectory is what the methods of a zero Directory that return an
// error return.
var errZeroDirectory = fmt.Errorf("%w: zero Directory; use newDirectory", cache.ErrConfig)

// Name returns the peer's name.
func (p *Peer) Name() string { return p.name }

// Candidates returns the peers whose current view says key may be there,
// in configured order. A view older than the expiry (the peer has not
// answered for that long) is dropped and the peer is skipped; so is a
// peer that could not be connected to at the last attempt (it is down),
// until a digest poll reaches it again.
func (d *Directory) Candidates(key string) []*Peer {
	if d.changed == nil { // a zero Directory has no peers
		return nil
	}
	var out []*Peer
	var squidKey [16]byte
	haveSquidKey := false
	now := d.now()
	for _, p := range d.Peers() {
		if l := p.lookup.Load(); l != nil {
			p.mu.RLock()
			down := p.unreachable
			p.mu.RUnlock()
			if !down && (*l)(key) {
				out = append(out, p)
			}
			continue
		}
		p.mu.RLock()
		v, contact, down := p.view, p.contact, p.unreachable
		var maybe bool
		if v != nil && v.patcher != nil && !down {
			// Patched in place under p.mu (decode).
			maybe = v.filter.ContainsString(key)
		}
		p.mu.RUnlock()
		if v == nil {
			continue
		}
		if now.Sub(contact) > d.cfg.Expiry {
			p.expire(d.log)
			continue
		}
		if down {
			continue
		}
		switch {
		case v.patcher != nil: // asked above, under the lock
		case v.static != nil:
			maybe = v.static.ContainsString(key)
		case v.squid != nil:
			if !haveSquidKey {
				squidKey, haveSquidKey = squid.StoreKeyCanonical(squid.GET, key), true
			}
			maybe = v.squid.ContainsKey(squidKey)
		case v.pieces != nil:
			// The view's pieces were all checked when it was made
			// (holdPieces): an error here is not expected, and the peer
			// is then no candidate.
			in, err := v.pieces.ContainsString(key)
			maybe = in && err == nil
		default:
			maybe = v.filter.ContainsString(key)
		}
		if maybe {
			out = append(out, p)
		}
	}
	return out
}

// setLookup makes Candidates ask contains whether key may be at p, in
// place of a digest the directory fetched (nodeaccess.SetLookup says
// what for). nil returns p to its fetched view.
func setLookup(p *Peer, contains func(key string) bool) {
	if p == nil {
		return
	}
	if contains == nil {
		p.lookup.Store(nil)
		return
	}
	p.lookup.Store(&contains)
}

// expire drops the peer's view.
func (p *Peer) expire(log *slog.Logger) {
	p.mu.Lock()
	had := p.view != nil
	p.view = nil
	p.mu.Unlock()
	if had {
		log.Warn("peer view expired", "peer", p.name)
	}
}

// run refreshes every peer each PollInterval until ctx is done. Each
// peer is polled on its own schedule, so that a peer whose digest is slow
// to come delays no other peer's (and does not make their views expire).
// A peer added by SetPeers is polled at once; a removed one no more.
func (d *Directory) run(ctx context.Context) error {
	if d.changed == nil {
		return errZeroDirectory
	}
	var wg sync.WaitGroup
	running := map[*Peer]context.CancelFunc{}
	initial := true // the first round of peers, not ones SetPeers adds
	defer func() {
		for _, cancel := range running {
			cancel()
		}
		wg.Wait()
	}()
	for {
		current := map[*Peer]bool{}
		for _, p := range d.Peers() {
			current[p] = true
			if running[p] != nil {
				continue
			}
			pctx, cancel := context.WithCancel(ctx)
			running[p] = cancel
			wg.Add(1)
			// With a connected transport, the peers' current digests
			// come from it as the node starts: the first poll waits.
			first := initial && d.cfg.Transport != nil && d.cfg.Transport.Connected()
			go func() {
				defer wg.Done()
				t := time.NewTicker(d.cfg.PollInterval)
				defer t.Stop()
				for {
					// RefreshPeer logs and counts a failure, and keeps
					// the old view until it expires; the next tick
					// tries again.
					if !first && !d.pushCurrent(p) {
						_ = d.RefreshPeer(pctx, p)
					}
					first = false
					select {
					case <-pctx.Done():
						return
					case <-t.C:
					}
				}
			}()
		}
		initial = false
		for p, cancel := range running {
			if !current[p] {
				cancel()
				delete(running, p)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-d.changed:
		}
	}
}

// Refresh fetches every peer's digest once, concurrently, and waits.
func (d *Directory) Refresh(ctx context.Context) {
	if d.changed == nil { // a zero Directory has no peers to refresh
		return
	}
	var wg sync.WaitGroup
	for _, p := range d.Peers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Logged and counted by RefreshPeer; Refresh reports
			// nothing by design (each Peer's state says how it went).
			_ = d.RefreshPeer(ctx, p)
		}()
	}
	wg.Wait()
}

// RefreshPeer fetches one peer's digest (a conditional request, a delta
// when it has a view) and updates its view. Errors are logged, counted
// and returned; the old view stays until it expires. A refresh that ends
// because ctx is done (the peer removed by a reload, the node stopping)
// is returned but neither logged nor counted: the peer did not fail.
func (d *Directory) RefreshPeer(ctx context.Context, p *Peer) error {
	if d.changed == nil {
		return errZeroDirectory
	}
	if p == nil || p.proxy == nil {
		return fmt.Errorf("%w: RefreshPeer of a nil or zero Peer", cache.ErrConfig)
	}
	err := d.resyncIfBase(ctx, p, d.fetch(ctx, p, true))
	if err != nil && ctx.Err() != nil {
		return err
	}
	return d.answered(p, err)
}

// errDeltaRefused wraps the error of a delta that did not decode (a
// corrupt frame): the directory then fetches the full digest, as for a
// delta made for another base.
var errDeltaRefused = errors.New("node: delta refused")

// resyncReason reports whether err, the outcome of applying a digest to
// a peer's view, calls for fetching the full digest (resyncIfBase).
func resyncReason(err error) bool {
	for _, e := range []error{digest.ErrBase, digest.ErrSequence, digest.ErrStatic, errStaticTooLarge, errDeltaRefused} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// resyncIfBase returns err, the outcome of applying a digest to p's view,
// unless it is a delta made for another base (a restarted peer, a missed
// publication or message) or one that did not decode, or a static digest
// too large to hold: then it
// fetches the full digest over HTTP (a Bloom one after a static digest
// too large), a resync, and returns that fetch's outcome.
func (d *Directory) resyncIfBase(ctx context.Context, p *Peer, err error) error {
	if !resyncReason(err) {
		return err
	}
	p.mu.Lock()
	p.fetches.resync++
	p.mu.Unlock()
	d.log.Info("peer digest resync", "peer", p.name, "reason", err)
	return d.fetch(ctx, p, false)
}

// answered records the outcome of a refresh or of a pushed message: a
// failure is logged, counted and returned; a success counts as the
// peer's answer.
func (d *Directory) answered(p *Peer, err error) error {
	return d.answer(p, err, false)
}

// pushWarnEvery is how often a refused pushed message of one peer is
// logged at most.
const pushWarnEvery = time.Minute

// answer is answered for a polled answer or, when pushed is set, a
// pushed message. Anyone the transport lets publish under a peer's name
// can send refused messages as fast as it carries them, where polling
// makes at most one a poll interval: a pushed one is logged at most once
// per pushWarnEvery for each peer, saying how many were not.
func (d *Directory) answer(p *Peer, err error, pushed bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.fails++
		p.lastErr = err
		if connectFailed(err) {
			p.unreachable = true
		}
		if !pushed {
			d.log.Warn("peer digest fetch failed", "peer", p.name, "url", httpx.WithoutUserinfo(p.cfg.DigestURL), "err", err)
		} else if ok, left := d.pushWarn.Allow(p.name, d.now()); ok {
			args := []any{"peer", p.name, "err", err}
			if left > 0 {
				args = append(args, "not_logged_since_last", left)
			}
			d.log.Warn("pushed peer digest refused", args...)
		}
		if d.cfg.OnFetchFailed != nil {
			d.cfg.OnFetchFailed(p.name, err)
		}
		return err
	}
	p.fails, p.lastErr, p.contact, p.unreachable = 0, nil, d.now(), false
	return nil
}

// connectFailed reports whether err is a failure to connect (the peer is
// down or cut off), not a slow or a bad answer.
func connectFailed(err error) bool {
	var op *net.OpError
	// Through a proxy the transport wraps the dial error in a
	// "proxyconnect" one.
	return errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect")
}

// closeIdle closes the idle connections of the client that asks p for
// objects: p is no longer a peer, and they would otherwise stay open
// at the peer until they time out.
func (p *Peer) closeIdle() {
	p.fetchMu.Lock()
	c := p.fetchClient
	p.fetchMu.Unlock()
	if c != nil {
		c.CloseIdleConnections()
	}
}

// unreachableNow marks the peer down after a failed connection.
func (p *Peer) unreachableNow() {
	p.mu.Lock()
	p.unreachable = true
	p.mu.Unlock()
}

// fetch makes one request, one at a time for each peer; conditional
// asks for a delta or a 304.
func (d *Directory) fetch(ctx context.Context, p *Peer, conditional bool) error {
	select {
	case p.polling <- struct{}{}:
		defer func() { <-p.polling }()
	case <-ctx.Done():
		return ctx.Err()
	}
	p.mu.RLock()
	old := p.view
	p.mu.RUnlock()
	target := p.cfg.DigestURL
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	if p.cfg.Protocol == Bloomcast && d.cfg.FullDigests.static() && !p.bloomOnly.Load() {
		req.Header.Set("Accept", staticAccept)
	}
	if conditional && old != nil {
		if old.etag != "" {
			req.Header.Set("If-None-Match", old.etag)
		} else if old.modified != "" {
			req.Header.Set("If-Modified-Since", old.modified)
		}
		if p.cfg.Protocol == Bloomcast && !d.cfg.NoDelta {
			if req.URL.RawQuery == "" { // the common case, without a parse per fetch
				req.URL.RawQuery = "since=" + strconv.FormatUint(old.seq, 10)
			} else {
				q := req.URL.Query()
				q.Set("since", strconv.FormatUint(old.seq, 10))
				req.URL.RawQuery = q.Encode()
			}
		}
	}
	resp, err := d.cfg.Client.Do(req)
	if err != nil {
		// Go's client masks a password in the URL it names ("u:***@host"),
		// not the user, and the error reaches the log, the status page and
		// `bloomcast status` as the peer's last error.
		return httpx.ShowURL(err, httpx.WithoutUserinfo)
	}
	defer httpx.CloseBody(resp.Body)
	switch resp.StatusCode {
	case http.StatusNotModified:
		d.fetched(p, resp.StatusCode, 0, "", false)
		p.mu.Lock()
		p.fetches.notModified++
		p.mu.Unlock()
		return nil
	case http.StatusOK:
	default:
		httpx.DiscardBody(resp.Body, 4096)
		return fmt.Errorf("digest %s: %s", httpx.WithoutUserinfo(target), resp.Status)
	}
	body, err := d.readBody(resp)
	if err != nil {
		p.mu.Lock()
		p.fetches.refused++
		p.mu.Unlock()
		return err
	}
	return d.store(p, old, false, body, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), false)
}

func (d *Directory) fetched(p *Peer, status, n int, codec string, delta bool) {
	if d.cfg.OnFetch != nil {
		d.cfg.OnFetch(p.name, status, n, codec, delta)
	}
}

// readBody reads a digest response, refusing one larger than the limit
// before reading it when the length is announced, and holding at most
// twice the limit while reading one whose length is not (readBounded).
func (d *Directory) readBody(resp *http.Response) ([]byte, error) {
	return readBounded(resp.Body, resp.ContentLength, d.cfg.MaxDigestBytes)
}

// decode turns a response body into a view: a full digest, a delta
// applied to the old view, or a Squid digest.
func (d *Directory) decode(p *Peer, old *peerView, body []byte) (*peerView, bool, error) {
	if p.cfg.Protocol == Squid {
		sd, err := squid.Decode(body, squid.Limits{MaxMask: uint32(min(d.cfg.MaxDigestBytes, 1<<31-1))})
		if err != nil {
			return nil, false, err
		}
		return &peerView{filter: sd.Filter, squid: sd}, false, nil
	}
	lim := envelope.Limits{MaxPayload: uint64(d.cfg.MaxDigestBytes)}
	typ := frameType(body)
	if typ == envelope.TypeStatic {
		if !d.cfg.FullDigests.static() {
			return nil, false, fmt.Errorf("%w: a static digest, not asked for", digest.ErrCorrupt)
		}
		var prev *digest.StaticView
		if old != nil {
			prev = old.static
		}
		sv, delta, err := applyStatic(prev, body, lim)
		if errors.Is(err, digest.ErrTooLarge) && !p.bloomOnly.Swap(true) {
			// Its ribbon and the bits set in its filters outgrew the
			// limit, or a filter coded whole is larger than a decoder
			// should read: a Bloom digest of the same peer is smaller.
			d.log.Warn("peer static digest too large to hold; asking for Bloom digests", "peer", p.name, "err", err)
			return nil, false, fmt.Errorf("%w: %w", errStaticTooLarge, err)
		}
		if err != nil {
			// Frames are checked before any is known for a delta: a
			// response to a view that does not decode is taken for a
			// delta's, answered with the full digest (store).
			return nil, delta || prev != nil, err
		}
		return &peerView{static: sv, seq: sv.Sequence()}, delta, nil
	}
	isDelta := typ == envelope.TypeDelta
	if d.cfg.PeerViews == PeerViewsCompressed {
		return holdPieces(old, body, lim, isDelta)
	}
	if isDelta {
		if old == nil || old.digest == nil {
			return nil, true, fmt.Errorf("%w: a delta but no view to apply it to", digest.ErrBase)
		}
		if old.patcher != nil {
			// In place: the words the delta changes, under p.mu.
			if err := old.patcher.Patch(body, lim, &p.mu); err != nil {
				return nil, true, err
			}
			next := old.patcher.Digest()
			return &peerView{filter: next.Filter(), digest: next, patcher: old.patcher, seq: next.Sequence}, true, nil
		}
		next, err := digest.Patch(old.digest, body, lim)
		if err != nil {
			return nil, true, err
		}
		return &peerView{filter: next.Filter(), digest: next, seq: next.Sequence}, true, nil
	}
	dg, err := digest.Decode(body, lim)
	if err != nil {
		return nil, false, err
	}
	if dg.Filter() == nil {
		// A scalable filter's digest decodes, but has no one filter
		// to route by: a view without one would fail every lookup.
		return nil, false, fmt.Errorf("%w: a scalable filter's digest; peers exchange Bloom filter digests", digest.ErrCorrupt)
	}
	v := &peerView{filter: dg.Filter(), digest: dg, seq: dg.Sequence}
	// The one pass over the words for the checksum that every delta to
	// this version is checked against.
	if v.patcher, err = digest.NewPatcher(dg); err != nil {
		return nil, false, err
	}
	return v, false, nil
}

// frameType returns the structure type of a bloomcast frame, read from
// its header without decoding it, or 0 when body is not one (its decoder
// then says why).
func frameType(body []byte) envelope.Type {
	if len(body) <= 6 || !envelope.Sniff(body) {
		return 0
	}
	return envelope.Type(body[6])
}

// holdPieces turns a response body into a compressed view: a full
// digest coded in pieces (unless it came so), or a delta applied to the
// old view's pieces. Every piece of a view is decoded once when it is
// made, to check it and to learn its checksum and fill.
func holdPieces(old *peerView, body []byte, lim envelope.Limits, isDelta bool) (*peerView, bool, error) {
	if isDelta {
		if old == nil || old.pieces == nil {
			return nil, true, fmt.Errorf("%w: a delta but no view to apply it to", digest.ErrBase)
		}
		if err := old.pieces.Patch(body, lim); err != nil {
			return nil, true, err
		}
		return &peerView{pieces: old.pieces, seq: old.pieces.Sequence()}, true, nil
	}
	v, err := digest.PiecesOf(body, lim, digest.Fast, peerPieceBytes, 0)
	if err != nil {
		return nil, false, err
	}
	if _, err := v.Checksum(); err != nil {
		return nil, false, err
	}
	return &peerView{pieces: v, seq: v.Sequence()}, false, nil
}

// form returns how the view is held, PeerViewsCompressed,
// PeerViewsDecoded or peerViewsStatic, the bytes it holds, and the
// fraction of its bits set (0 for a static view).
func (v *peerView) form() (form string, held int, fill float64) {
	if v.static != nil {
		return peerViewsStatic, v.static.MemoryBytes(), 0
	}
	if v.pieces != nil {
		set, _ := v.pieces.SetBits() // known since holdPieces
		return string(PeerViewsCompressed), v.pieces.MemoryBytes(), float64(set) / float64(v.pieces.Geometry().M())
	}
	return string(PeerViewsDecoded), 8 * len(v.filter.Words()), v.filter.FillRatio()
}

// hashes returns the view's number of hash functions.
func (v *peerView) hashes() int {
	if v.pieces != nil {
		return v.pieces.Geometry().K()
	}
	return v.filter.K()
}

// status returns each peer's status, in order.
func (d *Directory) status() []peerStatus {
	if d.changed == nil { // a zero Directory has no peers
		return nil
	}
	now := d.now()
	peers := d.Peers()
	out := make([]peerStatus, 0, len(peers))
	for _, p := range peers {
		p.mu.RLock()
		s := peerStatus{Name: p.name, Protocol: p.cfg.Protocol.String(), Failures: p.fails,
			Full: p.fetches.full, Delta: p.fetches.delta, NotModified: p.fetches.notModified,
			Resync: p.fetches.resync, Refused: p.fetches.refused, Pushed: p.fetches.pushed, Unreachable: p.unreachable}
		if p.lastErr != nil {
			s.LastError = p.lastErr.Error()
		}
		if !p.contact.IsZero() {
			s.SinceAnswer = now.Sub(p.contact)
		}
		if v := p.view; v != nil {
			s.HasView, s.Sequence, s.Age, s.Bytes = true, v.seq, now.Sub(v.fetched), v.bytes
			s.Form, s.HeldBytes, s.Fill = v.form()
			if v.static != nil {
				s.FalsePos = v.static.FalsePositiveRate()
			} else {
				s.FalsePos = params.FalsePositiveFromFill(s.Fill, v.hashes())
			}
		}
		p.mu.RUnlock()
		out = append(out, s)
	}
	return out
}
