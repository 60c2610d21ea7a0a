package node

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// squidDigestConfig configures a [squidDigest].
//
// The zero value is valid: the defaults shown.
type squidDigestConfig struct {
	// Capacity is the number of entries the digest is sized for (Squid
	// sizes its own from the cache size); 0 means 100 000.
	Capacity uint32
	// BitsPerEntry is the mask bits per entry; 0 means Squid's default 5.
	BitsPerEntry uint8
	// Lifetime is how long a served digest stays fresh for the peer
	// (its Expires header); Squid refetches after it. 0 means 5 minutes.
	Lifetime time.Duration
	// MaskDelay is the pause between the flushed header and the mask
	// (see ServeHTTP); 0 means 100 ms, negative means none.
	MaskDelay time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// squidDigest keeps a Squid Cache Digest (version 5) of the cache
// incrementally: a counting filter with Squid's MD5 probes over Squid
// store keys (GET of the canonical URL), so an eviction clears its bits as
// soon as no other key holds them, which Squid's own digest cannot do
// between rebuilds. It implements [cache.Observer] and serves the digest as
// Squid serves /squid-internal-periodic/store_digest. Safe for
// concurrent use.
//
// The zero squidDigest is not usable; make one with newSquidDigest.
type squidDigest struct {
	cfg     squidDigestConfig
	now     func() time.Time
	mu      sync.Mutex
	filter  *counting.Filter
	header  squid.Header
	deleted uint32
	changed time.Time
	journal rebuildJournal // while Resize runs (Publisher.resize)
	resizes uint64
}

// newSquidDigest returns an empty digest.
func newSquidDigest(cfg squidDigestConfig) (*squidDigest, error) {
	if cfg.Capacity == 0 {
		cfg.Capacity = 100000
	}
	if cfg.BitsPerEntry == 0 {
		cfg.BitsPerEntry = 5
	}
	if cfg.Lifetime == 0 {
		cfg.Lifetime = 5 * time.Minute
	}
	if cfg.MaskDelay == 0 {
		cfg.MaskDelay = 100 * time.Millisecond
	}
	if cfg.Lifetime < time.Second || cfg.MaskDelay < cache.MinInterval {
		return nil, fmt.Errorf("%w: squid digest lifetime %v (want ≥ 1s), mask delay %v (want ≥ %v)",
			cache.ErrConfig, cfg.Lifetime, cfg.MaskDelay, cache.MinInterval)
	}
	f, header, err := newSquidFilter(cfg.Capacity, cfg.BitsPerEntry)
	if err != nil {
		return nil, err
	}
	d := &squidDigest{cfg: cfg, now: cfg.Now, filter: f, header: header}
	if d.now == nil {
		d.now = time.Now
	}
	d.changed = d.now()
	return d, nil
}

// newSquidFilter returns an empty counting filter shaped as Squid shapes a
// digest of capacity entries, and the digest's header.
func newSquidFilter(capacity uint32, bitsPerEntry uint8) (*counting.Filter, squid.Header, error) {
	empty, err := squid.New(capacity, bitsPerEntry)
	if err != nil {
		return nil, squid.Header{}, fmt.Errorf("%w: %w", cache.ErrConfig, err)
	}
	s := squid.Shape(empty.Header.MaskSize)
	f, err := counting.New(counting.Config{Layout: bloom.Classic, M: s.M, K: s.K, Scheme: hashing.Squid})
	if err != nil {
		return nil, squid.Header{}, fmt.Errorf("%w: %w", cache.ErrConfig, err)
	}
	return f, empty.Header, nil
}

// Resize rebuilds the digest for capacity entries (Squid's own sizing, at
// the configured bits per entry) from the keys the cache holds, which
// keys returns, as Publisher.resize does (changes made meanwhile are
// journalled and win). A Squid peer picks up the new digest, of another
// mask size, at its next fetch, as it does a Squid's rebuilt digest: its
// Last-Modified is now, and the deletion count starts again at 0.
func (d *squidDigest) Resize(capacity uint32, keys func() []string) error {
	d.mustBeMade()
	f, header, err := newSquidFilter(capacity, d.cfg.BitsPerEntry)
	if err != nil {
		return err
	}
	d.mu.Lock()
	if d.journal != nil {
		d.mu.Unlock()
		return fmt.Errorf("%w: a Squid digest resize is already running", cache.ErrConfig)
	}
	d.journal = rebuildJournal{}
	d.mu.Unlock()
	held := keys()
	// MD5 is slow: the snapshot's keys are hashed before taking the lock
	// that the store's observer calls wait for.
	hashes := make([]hashing.Hash128, len(held))
	for i, k := range held {
		hashes[i] = storeKeyHash(k)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.journal.replay(held, func(i int, k string) {
		if i < 0 {
			f.AddHash(storeKeyHash(k))
		} else {
			f.AddHash(hashes[i])
		}
	})
	d.journal = nil
	d.filter, d.header, d.deleted, d.changed = f, header, 0, d.now()
	d.cfg.Capacity = capacity
	d.resizes++
	return nil
}

// squidDigestStats describes a squidDigest's state. The zero value
// describes an empty digest of no capacity.
type squidDigestStats struct {
	Keys     uint64 // entries in the digest
	Capacity uint32 // entries it is sized for (squidDigestConfig.Capacity, then Resize's)
	// PredictedFalsePos is the false-positive rate the digest's shape
	// predicts for Keys entries (params.ApproxFalsePositive);
	// TargetFalsePos the rate it predicts at Capacity, Squid's own rate
	// for its bits per entry (about 9% at 5 bits and k = 4).
	PredictedFalsePos float64
	TargetFalsePos    float64
	Resizes           uint64 // rebuilds by Resize
}

// Stats returns the digest's state.
func (d *squidDigest) Stats() squidDigestStats {
	d.mustBeMade()
	d.mu.Lock()
	defer d.mu.Unlock()
	return squidDigestStats{Keys: d.filter.Len(), Capacity: d.cfg.Capacity, Resizes: d.resizes,
		PredictedFalsePos: params.ApproxFalsePositive(d.filter.M(), d.filter.Len(), d.filter.K()),
		TargetFalsePos:    params.ApproxFalsePositive(d.filter.M(), uint64(d.cfg.Capacity), d.filter.K())}
}

func storeKeyHash(key string) hashing.Hash128 {
	return hashing.MD5Hash128(squid.StoreKeyCanonical(squid.GET, key))
}

// Stored records a key (a canonical URL, as [cache.Key] returns) entering the
// cache.
func (d *squidDigest) Stored(key string) {
	d.mustBeMade()
	d.mu.Lock()
	d.filter.AddHash(storeKeyHash(key))
	d.journal.note(key, true)
	d.changed = d.now()
	d.mu.Unlock()
}

// Evicted records a key leaving the cache.
func (d *squidDigest) Evicted(key string) {
	d.mustBeMade()
	d.mu.Lock()
	d.journal.note(key, false)
	if d.filter.RemoveHash(storeKeyHash(key)) == nil {
		d.deleted++
		d.changed = d.now()
	}
	d.mu.Unlock()
}

// mustBeMade panics, naming the fix, if d is a zero squidDigest.
func (d *squidDigest) mustBeMade() {
	if d.now == nil { // a zero squidDigest (now, unlike filter, never changes)
		panic("node: zero squidDigest; use newSquidDigest")
	}
}

// Digest returns a copy of the current digest.
func (d *squidDigest) Digest() *squid.Digest {
	d.mustBeMade()
	d.mu.Lock()
	defer d.mu.Unlock()
	h := d.header
	h.Count = uint32(min(d.filter.Len(), 1<<31-1))
	h.DelCount = d.deleted
	return &squid.Digest{Header: h, Filter: d.filter.BitView().Clone()}
}

// ServeHTTP serves the digest body (128-byte header, then the mask) with
// Content-Type application/cache-digest, Last-Modified and Expires, or
// 304 to an If-Modified-Since no earlier than its last change, as Squid
// answers for its own digest.
//
// Squid 5.x mishandles a digest reply whose first read holds more than
// 256 bytes of body (upstream bug 5510: it corrupts the mask it then
// assembles, silently), so the handler writes the HTTP header and the
// 128-byte digest header, flushes them as one segment, waits MaskDelay
// so that Squid's first read takes only them, and then writes the mask.
// (Measured with Debian's Squid 5.7 on loopback: a 625-byte mask sent
// right behind the header was read wrongly and every lookup missed; with
// the pause, Squid finds the node's objects.)
func (d *squidDigest) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mustBeMade()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	// The time of the last change is read before the digest is copied,
	// so that the copy holds every change up to it.
	now := d.now()
	d.mu.Lock()
	changed := d.changed
	d.mu.Unlock()
	sd := d.Digest()
	h := w.Header()
	h.Set("Content-Type", "application/cache-digest")
	h.Set("Last-Modified", lastModified(changed, now).UTC().Format(http.TimeFormat))
	h.Set("Expires", now.Add(d.cfg.Lifetime).UTC().Format(http.TimeFormat))
	h.Set("Cache-Control", "max-age="+strconv.Itoa(int(d.cfg.Lifetime/time.Second)))
	if notModifiedSince(r.Header, changed) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(sd.EncodedSize()))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if _, err := w.Write(sd.AppendHeader(nil)); err != nil {
		return
	}
	// The writer may be wrapped (metrics, logging): the controller finds
	// the connection's Flush through Unwrap.
	if err := http.NewResponseController(w).Flush(); err == nil {
		// A flush only sends the bytes; a Squid that is slow to read
		// would still find the mask behind them in its first read. A
		// short pause lets that read finish first.
		select {
		case <-time.After(d.cfg.MaskDelay):
		case <-r.Context().Done():
			return
		}
	}
	// A failed write means the peer went away; it asks again at its
	// next poll, and there is no one to tell.
	_, _ = w.Write(sd.AppendMask(nil))
}

// lastModified returns the Last-Modified a digest last changed at changed
// is served with at now: the second of the change, or the second before
// while that second runs, as a change later in it would carry the same
// Last-Modified and a peer asking If-Modified-Since would miss it.
func lastModified(changed, now time.Time) time.Time {
	lm := changed.Truncate(time.Second)
	if !now.Truncate(time.Second).After(lm) {
		lm = lm.Add(-time.Second)
	}
	return lm
}

// notModifiedSince reports whether a request's If-Modified-Since (Squid
// asks so when it fetches a peer's digest again) is no earlier than the
// second of the digest's last change at changed: the peer holds this
// digest (lastModified). An If-None-Match overrides it (RFC 9110,
// section 13.1.3); the digest has no entity tag to match.
func notModifiedSince(h http.Header, changed time.Time) bool {
	if h.Get("If-None-Match") != "" {
		return false
	}
	since, err := http.ParseTime(h.Get("If-Modified-Since"))
	return err == nil && !changed.Truncate(time.Second).After(since)
}
