package node

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

// FullDigests is what a node's full digests to its bloomcast peers are
// (NodeConfig.FullDigests, `bloomcast serve --full-digests`). The zero
// value, "", means FullDigestsBloom.
type FullDigests string

// Kinds of full digests.
const (
	// FullDigestsBloom: the counting filter's bit view as a Bloom
	// digest, with Bloom deltas (Publisher).
	FullDigestsBloom FullDigests = "bloom"
	// FullDigestsStatic: a static digest (digest.StaticPublisher, frame
	// type 13): a ribbon filter of the whole set near the information
	// bound, with Bloom filters of the keys added and removed since. The
	// node serves it to bloomcast peers that ask for it and asks its
	// bloomcast peers for theirs; a peer that does not ask, or does not
	// serve one, gets or sends Bloom digests, and Squid peers keep their
	// Cache Digests.
	FullDigestsStatic FullDigests = "static"
	// FullDigestsStaticXOR: static digests whose changes since the
	// ribbon travel as one Bloom filter of the keys the ribbon answers
	// wrongly (digest.StaticXOR) instead of two: fewer bytes for a
	// higher false-positive rate and more present keys hidden, a trade a
	// deployment chooses (docs/BENCHMARKS.md measures both). Receivers
	// read either form whichever they serve.
	FullDigestsStaticXOR FullDigests = "static-xor"
)

// static reports whether f is one of the static kinds.
func (f FullDigests) static() bool { return f == FullDigestsStatic || f == FullDigestsStaticXOR }

// form returns the form of f's static digests: digest.StaticXOR for
// FullDigestsStaticXOR, else digest.StaticAddedRemoved.
func (f FullDigests) form() digest.StaticForm {
	if f == FullDigestsStaticXOR {
		return digest.StaticXOR
	}
	return digest.StaticAddedRemoved
}

// ParseFullDigests returns the kind named s: bloom, static or
// static-xor ("" is bloom).
func ParseFullDigests(s string) (FullDigests, error) {
	switch f := FullDigests(s); f {
	case "":
		return FullDigestsBloom, nil
	case FullDigestsBloom, FullDigestsStatic, FullDigestsStaticXOR:
		return f, nil
	}
	return "", fmt.Errorf("%w: full digests %q (want bloom, static or static-xor)", cache.ErrConfig, s)
}

// checkFullDigests checks a FullDigests value ("" meaning bloom).
func checkFullDigests(f FullDigests) error {
	_, err := ParseFullDigests(string(f))
	return err
}

// Content types of static digests at DigestPath. A peer asks for one
// with Accept: staticContentType; a node that serves none ignores the
// Accept field and answers with a Bloom digest, which the peer then
// holds as it would from any node.
const (
	staticContentType      = "application/x-bloomcast-static"       // a whole static frame
	staticDeltaContentType = "application/x-bloomcast-static-delta" // static delta frames, in order
	staticCodec            = "static"                               // the codec header and metric label
	// staticAccept is what a node that holds static views asks for.
	staticAccept = staticContentType + ", " + digestContentType + ";q=0.5, " + deltaContentType + ";q=0.5"
)

// staticSeed is the hashing seed of the static digests a node
// publishes; the frame carries it, so a receiver needs no agreement.
const staticSeed = 0x5eed

// staticHistory is how many static delta frames a node keeps, so that a
// peer that missed some publications gets them all in one response; and
// maxStaticFrames is the most frames a response may hold.
const (
	staticHistory   = 16
	maxStaticFrames = 64
)

// staticServer publishes a node's cache as static digests: one static
// publication for each publication of the node's Bloom digest that a
// peer asks about, built from the store's keys then (lazily: no work
// when no peer asks for static digests). A StaticPublisher takes the
// whole set at each publication and sorts it, so the store's Keys at
// publication cost no more than keeping the hashed keys from the store's
// events would, and they hold no second copy of the set between
// publications. Safe for concurrent use.
type staticServer struct {
	pub  *Publisher      // the Bloom digest's: its sequence numbers the static publications
	keys func() []string // the store's keys
	now  func() time.Time

	mu      sync.Mutex
	sp      *digest.StaticPublisher
	seq     uint64        // the last static publication's sequence; 0 before the first
	etag    string        // its entity tag
	at      time.Time     // its time
	whole   []byte        // its whole frame, once asked for
	history []staticFrame // the delta frames since the last whole, oldest first
	full    uint64        // publications that built a new ribbon
	deltas  uint64        // publications that were deltas
}

// staticFrame is one delta publication.
type staticFrame struct {
	seq, prev uint64
	frame     []byte
}

// newStaticServer returns a static digest server for pub's publications
// of the store's keys, at false-positive rate rate (clamped to what a
// ribbon filter can be built for).
func newStaticServer(pub *Publisher, keys func() []string, rate float64, codec digest.Codec, form digest.StaticForm, now func() time.Time) (*staticServer, error) {
	rate = min(max(rate, math.Ldexp(1, -32)), 0.5)
	sp, err := digest.NewStaticPublisher(digest.StaticConfig{Rate: rate, Seed: staticSeed, Codec: codec, Form: form})
	if err != nil {
		return nil, fmt.Errorf("%w: static digests: %w", cache.ErrConfig, err)
	}
	return &staticServer{pub: pub, keys: keys, now: now, sp: sp}, nil
}

// refreshLocked makes the static publication of the Bloom digest's
// current sequence, unless it is made.
func (s *staticServer) refreshLocked() error {
	seq := s.pub.sequence()
	if seq == s.seq {
		return nil
	}
	keys := s.keys()
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = hashing.SumStringSeed(k, staticSeed)
	}
	// The static frame is held to what the Bloom digest sends a peer
	// that holds the last static publication's version (its delta,
	// coded once and kept for the Bloom digest's own peers, or its
	// whole digest): digest.StaticPublisher.PublishWithin.
	ref, err := s.pub.respond("", s.seq)
	if err != nil {
		return err
	}
	frame, full, err := s.sp.PublishWithin(seq, hs, len(ref.Body))
	if err != nil {
		return err
	}
	if full {
		// A delta made before a new ribbon does not lead to it.
		s.history, s.whole = s.history[:0], frame
		s.full++
	} else {
		s.history = append(s.history, staticFrame{seq: seq, prev: s.seq, frame: frame})
		if len(s.history) > staticHistory {
			s.history = append(s.history[:0], s.history[len(s.history)-staticHistory:]...)
		}
		s.whole = nil
		s.deltas++
	}
	s.seq, s.at = seq, s.now()
	s.etag = fmt.Sprintf(`"s%d-%08x"`, seq, envelope.Checksum(frame))
	return nil
}

// respond answers a request for the static digest as Publisher.Respond
// does for the Bloom digest: 304 for the current entity tag; the delta
// frames from since to the current publication when they are all kept
// and smaller than the whole frame; the whole frame otherwise.
func (s *staticServer) respond(ifNoneMatch string, since uint64) (response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refreshLocked(); err != nil {
		return response{}, err
	}
	r := response{Status: http.StatusOK, ETag: s.etag, Sequence: s.seq, Modified: s.at}
	if etagMatches(ifNoneMatch, r.ETag) {
		r.Status = http.StatusNotModified
		return r, nil
	}
	if s.whole == nil {
		w, err := s.sp.Whole()
		if err != nil {
			return r, err
		}
		s.whole = w
	}
	if chain := s.chainLocked(since); chain >= 0 {
		var size int
		for _, f := range s.history[chain:] {
			size += len(f.frame)
		}
		if size < len(s.whole) {
			body := make([]byte, 0, size)
			for _, f := range s.history[chain:] {
				body = append(body, f.frame...)
			}
			r.Body, r.Delta = body, true
			return r, nil
		}
	}
	r.Body = s.whole
	return r, nil
}

// chainLocked returns the index in the history of the delta that
// follows publication since, or −1 when there is none (since is the
// current publication, or older than the history).
func (s *staticServer) chainLocked(since uint64) int {
	if since == 0 || since >= s.seq {
		return -1
	}
	for i := len(s.history) - 1; i >= 0; i-- {
		if s.history[i].prev == since {
			return i
		}
	}
	return -1
}

// heldBytes is the memory the static publications hold: the
// publisher's, the whole frame and the delta frames kept.
func (s *staticServer) heldBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.sp.MemoryBytes() + len(s.whole)
	for _, f := range s.history {
		n += len(f.frame)
	}
	return int64(n)
}

// saved returns the bytes the static publications have saved against
// the Bloom digest's publications they are held to
// (digest.StaticPublisher.Saved; negative while they cost more).
func (s *staticServer) saved() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sp.Saved()
}

// stats returns the static publications made: with a new ribbon, and
// as deltas.
func (s *staticServer) stats() (full, deltas uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.full, s.deltas
}

// ServeHTTP serves GET and HEAD of the static digest, as
// Publisher.serveHTTP does the Bloom digest.
func (s *staticServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	serveDigest(w, r, s.respond, digestMedia{full: staticContentType, delta: staticDeltaContentType,
		codec: staticCodec, what: "static digest"})
}

// digestHandler serves DigestPath: the Bloom digest, or with static
// digests on, the static digest to a peer whose Accept field asks for
// it (content negotiation, RFC 9110 section 12.5.1), so that a peer
// that does not know static digests still gets Bloom ones.
func (n *Node) digestHandler() http.Handler {
	if n.static == nil {
		return http.HandlerFunc(n.publisher.serveHTTP)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept")
		if acceptsStatic(r.Header.Values("Accept")) {
			n.static.ServeHTTP(w, r)
			return
		}
		n.publisher.serveHTTP(w, r)
	})
}

// acceptsStatic reports whether Accept fields name the static digest's
// media type with a quality above 0.
func acceptsStatic(fields []string) bool {
	for _, f := range fields {
		for _, rng := range strings.Split(f, ",") {
			typ, params, _ := strings.Cut(rng, ";")
			if !strings.EqualFold(strings.TrimSpace(typ), staticContentType) {
				continue
			}
			for _, p := range strings.Split(params, ";") {
				name, v, _ := strings.Cut(p, "=")
				if strings.EqualFold(strings.TrimSpace(name), "q") {
					if q, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && q <= 0 {
						return false
					}
				}
			}
			return true
		}
	}
	return false
}

// applyStatic applies a response of static frames to a peer's static
// view (nil for none): each whole frame replaces the view, whatever its
// sequence (it is the peer's state as it answered, as after a restart),
// and each delta must follow the view (else digest.ErrStatic, which the
// directory answers with a full fetch). It reports whether a delta was
// applied.
func applyStatic(old *digest.StaticView, body []byte, lim envelope.Limits) (*digest.StaticView, bool, error) {
	// The frames are split and counted before any is applied: a
	// response of many small frames costs no more than its bytes.
	var frames [][]byte
	for len(body) > 0 {
		if len(frames) == maxStaticFrames {
			return nil, false, fmt.Errorf("%w: a static digest response of more than %d frames", digest.ErrCorrupt, maxStaticFrames)
		}
		h, _, size, err := envelope.ParsePrefix(body, lim)
		if err != nil {
			return nil, false, fmt.Errorf("digest: static frame %d: %w", len(frames), err)
		}
		if h.Type != envelope.TypeStatic {
			return nil, false, fmt.Errorf("%w: frame %d of a static digest response is of type %v", digest.ErrCorrupt, len(frames), h.Type)
		}
		frames, body = append(frames, body[:size]), body[size:]
	}
	if len(frames) == 0 {
		return nil, false, fmt.Errorf("%w: an empty static digest response", digest.ErrCorrupt)
	}
	v, delta := old, false
	for _, frame := range frames {
		// A whole frame applies to no view; a delta is refused so, and
		// then applies to the view.
		w, err := (*digest.StaticView)(nil).Apply(frame, lim)
		if errors.Is(err, digest.ErrStatic) {
			w, err = v.Apply(frame, lim)
			delta = true
		}
		if err != nil {
			return nil, delta, err
		}
		v = w
	}
	return v, delta, nil
}
