package node

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/params"
)

// Content types of the digest endpoint.
const (
	digestContentType = "application/x-bloomcast-digest"
	deltaContentType  = "application/x-bloomcast-delta"
	// DigestPath is where a node serves its digest.
	DigestPath = "/bloomcast/digest"
	// sequenceHeader carries the sequence number of the state a digest
	// response describes.
	sequenceHeader = "X-Bloomcast-Sequence"
	// codecHeader names the codec of a digest response (for logs and
	// metrics; the frame itself says it too).
	codecHeader = "X-Bloomcast-Codec"
)

// publisherConfig configures a [Publisher].
//
// The zero publisherConfig is not valid: its Filter is a zero
// counting.Config, which newPublisher refuses with an error.
type publisherConfig struct {
	// Filter is the shape of the counting filter of the cached keys (N
	// and P, or M and K; the layout defaults to classic, whose delta per
	// changed key is smallest). Its bit view is what peers receive, so
	// NoBitView must be false.
	Filter counting.Config
	// Threshold is the fraction of keys changed (stored or evicted) since
	// the last publication, relative to the keys held then, that
	// triggers a new one: the seeds' update threshold of 1–10%. 0 means
	// 0.05, serve's default (docs/SIMULATIONS.md, "Choosing the
	// threshold").
	Threshold float64
	// MaxAge publishes a new digest when the current one is this old and
	// anything changed; 0 means 5 minutes.
	MaxAge time.Duration
	// Codec codes full digests and deltas; the zero value (digest.Auto)
	// picks the smallest, which runs the slow arithmetic coder too, so a
	// busy node sets digest.Fast.
	Codec digest.Codec
	// History is how many past publications remain delta bases; 0 means
	// 16.
	History int
	// Inline publishes inside Stored and Evicted when the threshold is
	// passed, on the caller's goroutine (deterministic, for simulations
	// and tests). Otherwise they only signal, and [Publisher.run]
	// publishes: a store calls its observer with its lock held.
	Inline bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Publisher keeps the counting filter of a cache's keys and publishes its
// bit view as numbered digests (Fan et al., "Summary cache", section V:
// publish when a threshold of the cache has changed), serving the current
// digest in full or as a delta against any of the last few (Mitzenmacher,
// "Compressed Bloom filters", delta compression). It implements [cache.Observer]. Safe
// for concurrent use.
//
// A publication costs time proportional to the filter's size (the digest
// is coded anew) but keeps no full copy of older versions: for each it
// keeps only the words that changed, from the counting filter's change
// tracking, and its checksum, so serving a delta costs the changes since
// its base plus the coding.
//
// The zero Publisher is not usable; a node makes its own (NewNode), and Node.Publisher returns it.
type Publisher struct {
	cfg publisherConfig
	now func() time.Time

	mu       sync.Mutex
	filter   *counting.Filter
	snapshot []uint64      // the bit view as last published
	view     *bloom.Filter // read-only over snapshot
	current  publication
	history  []publication // oldest first; the last is current
	changes  uint64        // stores and evictions since the last publication
	missing  uint64        // evictions of keys the filter did not hold
	deltas   map[uint64][]byte
	kick     chan struct{} // a publication is due
	// journal, while Resize rebuilds the filter, records the last change
	// of every key stored or evicted meanwhile (nil otherwise).
	journal rebuildJournal
	resizes uint64 // rebuilds by Resize
	// fault, when set, runs first in every publication and fails it
	// with its error: the injection point for tests of a node whose
	// publication fails (a publication has no other failure a test can
	// provoke). Guarded by mu.
	fault func() error
}

// publication is one published version.
type publication struct {
	seq      uint64
	checksum uint32
	at       time.Time
	keys     uint64                // keys held
	changed  []counting.WordChange // words changed from the previous publication
	full     []byte                // encoded digest (current only, once asked for: fullLocked)
	codec    envelope.Codec        // full's codec
}

// DefaultThreshold is the Threshold of a zero publisherConfig and of
// serve's --threshold: of the 1%, 5% and 10% measured in docs/SIMULATIONS.md
// ("Choosing the threshold"), 5% keeps the hit ratio within a point of
// ICP's for a small part of 1%'s messages and CPU.
const DefaultThreshold = 0.05

// newPublisher returns a publisher with an empty filter, published as
// sequence 1.
func newPublisher(cfg publisherConfig) (*Publisher, error) {
	if cfg.Threshold == 0 {
		cfg.Threshold = DefaultThreshold
	}
	if !(cfg.Threshold > 0 && cfg.Threshold <= 1) {
		return nil, fmt.Errorf("%w: digest threshold %g, want (0, 1]", cache.ErrConfig, cfg.Threshold)
	}
	if cfg.MaxAge == 0 {
		cfg.MaxAge = 5 * time.Minute
	}
	if cfg.History == 0 {
		cfg.History = 16
	}
	if cfg.MaxAge < cache.MinInterval || cfg.History < 1 {
		return nil, fmt.Errorf("%w: digest max age %v (want ≥ %v), history %d", cache.ErrConfig, cfg.MaxAge, cache.MinInterval, cfg.History)
	}
	if cfg.Filter.NoBitView {
		return nil, fmt.Errorf("%w: the digest filter needs its bit view (counting.Config.NoBitView is set)", cache.ErrConfig)
	}
	f, err := counting.New(cfg.Filter)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", cache.ErrConfig, err)
	}
	p := &Publisher{cfg: cfg, now: cfg.Now, filter: f, kick: make(chan struct{}, 1)}
	if p.now == nil {
		p.now = time.Now
	}
	p.snapshot = make([]uint64, len(f.BitView().Words()))
	if p.view, err = bloom.NewView(f.Shape(), f.Seed(), f.Scheme(), p.snapshot); err != nil {
		return nil, fmt.Errorf("%w: %w", cache.ErrConfig, err)
	}
	f.Mark()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p, p.publishLocked()
}

// Stored records a key entering the cache; it publishes when the
// threshold is passed.
func (p *Publisher) Stored(key string) {
	p.mustBeMade()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.filter.AddString(key)
	p.journal.note(key, true)
	p.changes++
	p.maybePublishLocked()
	if n := p.cfg.Filter.N; n != 0 && p.filter.Len() == n+1 && !p.cfg.Inline {
		p.signal() // past capacity: the loop's before hook may resize
	}
}

// signal wakes the publication loop.
func (p *Publisher) signal() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// Evicted records a key leaving the cache. A key the filter does not hold
// (possible only if stores and evictions were not balanced) is counted and
// otherwise ignored.
func (p *Publisher) Evicted(key string) {
	p.mustBeMade()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.journal.note(key, false)
	if err := p.filter.RemoveString(key); err != nil {
		p.missing++
		return
	}
	p.changes++
	p.maybePublishLocked()
}

// PublishIfDue publishes if the threshold was passed or the current
// digest is older than MaxAge with changes pending; a node calls it
// periodically. It reports whether it published.
func (p *Publisher) publishIfDue() (bool, error) {
	if p.kick == nil { // a zero Publisher (kick, unlike filter, never changes)
		return false, errZeroPublisher
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changes == 0 || (!p.thresholdPassed() && p.now().Sub(p.current.at) < p.cfg.MaxAge) {
		return false, nil
	}
	return true, p.publishLocked()
}

// Publish publishes the current state now, changed or not.
func (p *Publisher) Publish() error {
	if p.kick == nil { // a zero Publisher (kick, unlike filter, never changes)
		return errZeroPublisher
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.publishLocked()
}

func (p *Publisher) thresholdPassed() bool {
	return float64(p.changes) >= p.cfg.Threshold*float64(max(p.current.keys, 1))
}

func (p *Publisher) maybePublishLocked() {
	switch {
	case !p.thresholdPassed():
	case p.cfg.Inline:
		// The encoder fails only on a configuration error, which
		// newPublisher would have reported.
		_ = p.publishLocked()
	default:
		p.signal()
	}
}

// run publishes whenever the threshold is passed or the digest reaches
// MaxAge with changes pending, until ctx is done. A node runs it in its
// own goroutine unless the publisher is Inline.
func (p *Publisher) run(ctx context.Context) error {
	if p.kick == nil { // a zero Publisher (kick, unlike filter, never changes)
		return errZeroPublisher
	}
	return p.loop(ctx, nil, func(_ bool, err error) error { return err })
}

// loop publishes whenever the threshold is passed or the digest reaches
// MaxAge with changes pending, and hands each attempt's outcome to after,
// until ctx is done or after returns an error. before, unless nil, runs
// first at each wake-up (the node's summary growth).
func (p *Publisher) loop(ctx context.Context, before func(), after func(published bool, err error) error) error {
	p.mu.Lock()
	every := publishTick(p.cfg.MaxAge)
	p.mu.Unlock()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.kick:
		case <-tick.C:
		}
		if before != nil {
			before()
		}
		if err := after(p.publishIfDue()); err != nil {
			return err
		}
	}
}

// publishTick is how often the publication loop looks whether a
// publication is due: a quarter of the max age, at most a second.
func publishTick(maxAge time.Duration) time.Duration { return min(maxAge/4, time.Second) }

// publishLocked makes the next publication from the changes since the
// last one.
func (p *Publisher) publishLocked() error {
	if p.fault != nil {
		if err := p.fault(); err != nil {
			return err
		}
	}
	changed, err := p.filter.ChangedWords(nil)
	if err != nil {
		return err
	}
	p.filter.Mark()
	for _, c := range changed {
		p.snapshot[c.Index] = c.New
	}
	pub := publication{seq: p.current.seq + 1, at: p.now(), keys: p.filter.Len(), changed: changed}
	p.view.SetCount(pub.keys)
	if len(p.history) > 0 {
		// The words changed since the last publication (a Resize starts
		// the history again): no pass over the whole snapshot.
		pub.checksum = digest.ChecksumAfter(p.current.checksum, len(p.snapshot), changed)
	} else if pub.checksum, err = digest.Checksum(&digest.Digest{Sequence: pub.seq, Bloom: p.view}); err != nil {
		return err
	}
	p.history = append(p.history, pub)
	if len(p.history) > p.cfg.History {
		p.history = append(p.history[:0], p.history[len(p.history)-p.cfg.History:]...)
	}
	p.current, p.changes, p.deltas = pub, 0, map[uint64][]byte{}
	return nil
}

// stats returns the publisher's state.
func (p *Publisher) stats() publisherStats {
	if p.kick == nil { // a zero Publisher (kick, unlike filter, never changes)
		return publisherStats{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current.seq > 0 {
		// DigestBytes and Codec are the full digest's; an error leaves
		// them zero, and a peer asking for the digest is told it.
		_, _ = p.fullLocked()
	}
	return publisherStats{
		Sequence: p.current.seq, Published: p.current.at, Keys: p.filter.Len(), Pending: p.changes,
		Missing: p.missing, DigestBytes: len(p.current.full), Codec: p.current.codec.String(),
		Fill: p.view.FillRatio(), FalsePos: p.view.FalsePositiveRate(),
		Capacity: p.cfg.Filter.N, PredictedFalsePos: params.ApproxFalsePositive(p.filter.M(), p.filter.Len(), p.filter.K()),
		TargetFalsePos: params.ApproxFalsePositive(p.filter.M(), p.cfg.Filter.N, p.filter.K()), Resizes: p.resizes,
	}
}

// sequence returns the current publication's sequence.
func (p *Publisher) sequence() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.current.seq
}

// resize rebuilds the filter for capacity keys: the configured shape
// scaled by capacity over its Config.N (same bits per key and k, so the
// same false-positive rate at capacity), filled with the keys the cache
// holds, which keys returns (a store's Keys; it is called without the
// publisher's lock, so it may take the store's). A store change made
// while keys runs is journalled and wins over the snapshot (rebuildJournal),
// so the rebuilt filter holds exactly the cache's keys. The rebuilt
// filter is published at once as a new full digest: the delta history
// starts again from it (a delta base of the old shape would mean nothing),
// so a peer asking for a delta since an older sequence gets the full
// digest, and its ETag changes.
//
// The node calls it when its object count passes the capacity
// (Node.growSummaries). The configuration must give Filter.N.
func (p *Publisher) resize(capacity uint64, keys func() []string) error {
	if p.kick == nil { // a zero Publisher (kick, unlike filter, never changes)
		return errZeroPublisher
	}
	p.mu.Lock()
	cfg := p.cfg.Filter
	if cfg.N == 0 || capacity == 0 || p.journal != nil {
		p.mu.Unlock()
		return fmt.Errorf("%w: resize of a digest filter to %d keys (configured for %d; another resize running: %t)",
			cache.ErrConfig, capacity, cfg.N, p.journal != nil)
	}
	p.journal = rebuildJournal{}
	p.mu.Unlock()
	if cfg.M != 0 {
		cfg.M = uint64(float64(cfg.M) * float64(capacity) / float64(cfg.N))
	}
	cfg.N = capacity
	f, err := counting.New(cfg)
	var view *bloom.Filter
	if err == nil {
		view, err = bloom.NewView(f.Shape(), f.Seed(), f.Scheme(), make([]uint64, len(f.BitView().Words())))
	}
	var held []string
	if err == nil {
		held = keys()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	j := p.journal
	p.journal = nil
	if err != nil {
		return fmt.Errorf("%w: %w", cache.ErrConfig, err)
	}
	f.Mark()
	j.replay(held, func(_ int, k string) { f.AddString(k) })
	p.cfg.Filter, p.filter, p.view, p.snapshot = cfg, f, view, view.Words()
	p.history, p.changes = nil, 0
	p.resizes++
	return p.publishLocked()
}

// rebuildJournal records, while a summary is rebuilt from a snapshot of a
// store's keys, whether each key changed meanwhile was last stored (true)
// or evicted (false). The journal starts before the snapshot is taken, so
// a key it does not name did not change since the snapshot: the snapshot
// is right about it; for a key it names, its last change is the truth.
// A nil journal records nothing.
type rebuildJournal map[string]bool

// note records a change of key.
func (j rebuildJournal) note(key string, present bool) {
	if j != nil {
		j[key] = present
	}
}

// replay calls add for every key the store holds now: the snapshot's keys
// the journal does not name, with their index in snapshot, and the
// journalled keys last stored, with index -1.
func (j rebuildJournal) replay(snapshot []string, add func(i int, key string)) {
	for i, k := range snapshot {
		if _, changed := j[k]; !changed {
			add(i, k)
		}
	}
	for k, present := range j {
		if present {
			add(-1, k)
		}
	}
}

// Filter returns a copy of the live filter's bit view: what the node
// holds now, published or not.
func (p *Publisher) Filter() *bloom.Filter {
	p.mustBeMade()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.filter.BitView().Clone()
}

// errZeroPublisher is what the methods of a zero Publisher that return
// an error return.
var errZeroPublisher = fmt.Errorf("%w: zero Publisher; use Node.Publisher", cache.ErrConfig)

// mustBeMade panics, naming the fix, if p is a zero Publisher; for the
// methods that cannot return an error.
func (p *Publisher) mustBeMade() {
	if p.kick == nil { // a zero Publisher (kick, unlike filter, never changes)
		panic("node: zero Publisher; use Node.Publisher")
	}
}

func (p *Publisher) etagLocked() string {
	return fmt.Sprintf(`"%d-%08x"`, p.current.seq, p.current.checksum)
}

// response is what the digest endpoint answers for one request.
// The zero value, with status 0, is no answer.
type response struct {
	Status   int    // 200 or 304
	Body     []byte // the digest or delta (200 only)
	Delta    bool   // Body is a delta
	ETag     string
	Sequence uint64
	Modified time.Time
	Codec    envelope.Codec
}

// respond answers a digest request: 304 if ifNoneMatch names the current
// publication (its ETag holds the sequence and the checksum, so a peer
// that restarted and reused sequence numbers is not mistaken for an
// unchanged one); a delta if since is an older sequence still in the
// history; the full digest otherwise (since 0 means none).
func (p *Publisher) respond(ifNoneMatch string, since uint64) (response, error) {
	if p.kick == nil { // a zero Publisher (kick, unlike filter, never changes)
		return response{}, errZeroPublisher
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	r := response{Status: http.StatusOK, ETag: p.etagLocked(), Sequence: p.current.seq, Modified: p.current.at}
	if etagMatches(ifNoneMatch, r.ETag) {
		if _, err := p.fullLocked(); err != nil { // for its codec
			return r, err
		}
		r.Status, r.Codec = http.StatusNotModified, p.current.codec
		return r, nil
	}
	if since != 0 && since < p.current.seq {
		delta, codec, err := p.deltaLocked(since)
		switch {
		case err == nil:
			r.Body, r.Delta, r.Codec = delta, true, codec
			return r, nil
		case !errors.Is(err, errNoBase):
			return r, err
		}
	}
	full, err := p.fullLocked()
	if err != nil {
		return r, err
	}
	r.Body, r.Codec = full, p.current.codec
	return r, nil
}

var errNoBase = errors.New("node: delta base no longer kept")

// fullLocked returns the current publication's full digest, encoding it
// the first time it is asked for: most publications travel only as
// deltas, and encoding every one would cost a pass over the whole filter
// each time.
func (p *Publisher) fullLocked() ([]byte, error) {
	if p.current.full == nil {
		b, err := digest.Encode(&digest.Digest{Sequence: p.current.seq, Bloom: p.view}, p.cfg.Codec)
		if err != nil {
			return nil, err
		}
		p.current.full, p.current.codec = b, codecOf(b)
	}
	return p.current.full, nil
}

// deltaLocked returns the delta from publication since to the current
// one, coding it once per publication.
func (p *Publisher) deltaLocked(since uint64) ([]byte, envelope.Codec, error) {
	if b, ok := p.deltas[since]; ok {
		return b, codecOf(b), nil
	}
	i := len(p.history) - 1
	for i >= 0 && p.history[i].seq > since {
		i--
	}
	if i < 0 || p.history[i].seq != since {
		return nil, 0, errNoBase
	}
	base := p.history[i]
	d := &digest.Digest{Sequence: p.current.seq, Bloom: p.view}
	b, err := digest.AppendDeltaWords(nil, d, base.seq, base.checksum, mergeChanges(p.history[i+1:]), p.cfg.Codec)
	if err != nil {
		return nil, 0, err
	}
	p.deltas[since] = b
	return b, codecOf(b), nil
}

// mergeChanges returns the words that differ between the version before
// pubs and the last of them, in index order: the first Old and the last
// New of every word they changed, less the words that changed back. Its
// cost is that of the changes, not of the filter.
func mergeChanges(pubs []publication) []counting.WordChange {
	if len(pubs) == 1 {
		return pubs[0].changed // already in order, each word once, exact
	}
	at := map[uint64]int{}
	var out []counting.WordChange
	for _, pub := range pubs {
		for _, c := range pub.changed {
			if j, ok := at[c.Index]; ok {
				out[j].New = c.New
				continue
			}
			at[c.Index] = len(out)
			out = append(out, c)
		}
	}
	out = slices.DeleteFunc(out, func(c counting.WordChange) bool { return c.Old == c.New })
	slices.SortFunc(out, func(a, b counting.WordChange) int { return cmp.Compare(a.Index, b.Index) })
	return out
}

// codecOf reads the codec byte of a frame this package encoded.
func codecOf(frame []byte) envelope.Codec { return envelope.Codec(frame[7]) }

// etagMatches implements the weak comparison of If-None-Match (RFC 9110,
// section 13.1.2) against one entity tag.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	if header == "*" {
		return true
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if len(t) > 2 && t[:2] == "W/" {
			t = t[2:]
		}
		if t == etag {
			return true
		}
	}
	return false
}

// serveHTTP serves GET and HEAD of the digest: ?since=SEQ asks for a
// delta, If-None-Match for revalidation. The node mounts it at
// DigestPath behind its peer allow-list.
func (p *Publisher) serveHTTP(w http.ResponseWriter, r *http.Request) {
	p.mustBeMade()
	serveDigest(w, r, p.respond, digestMedia{full: digestContentType, delta: deltaContentType, what: "digest"})
}

// digestMedia are what a digest response says of its body: the media
// types of a whole digest and of a delta, the codec header's value ("":
// the response's codec) and the word error messages begin with.
type digestMedia struct {
	full, delta, codec, what string
}

// serveDigest serves GET and HEAD of a digest that respond makes:
// ?since=SEQ asks for a delta, If-None-Match for revalidation.
func serveDigest(w http.ResponseWriter, r *http.Request, respond func(ifNoneMatch string, since uint64) (response, error), m digestMedia) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var since uint64
	if s := r.URL.Query().Get("since"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			http.Error(w, "since: want a sequence number", http.StatusBadRequest)
			return
		}
		since = v
	}
	resp, err := respond(r.Header.Get("If-None-Match"), since)
	if err != nil {
		http.Error(w, m.what+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	codec := m.codec
	if codec == "" {
		codec = resp.Codec.String()
	}
	h := w.Header()
	h.Set("ETag", resp.ETag)
	h.Set("Last-Modified", resp.Modified.UTC().Format(http.TimeFormat))
	h.Set("Cache-Control", "no-cache")
	h.Set(sequenceHeader, strconv.FormatUint(resp.Sequence, 10))
	h.Set(codecHeader, codec)
	if resp.Status == http.StatusNotModified {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if resp.Delta {
		h.Set("Content-Type", m.delta)
	} else {
		h.Set("Content-Type", m.full)
	}
	h.Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		// A failed write means the peer went away; it asks again at its
		// next poll, and there is no one to tell.
		_, _ = w.Write(resp.Body)
	}
}
