package cache

import (
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcast/bloomcast/internal/httpx"
)

// DefaultReadTimeout is Config.ReadTimeout when left 0: Squid's
// read_timeout, the longest a forwarded exchange may go without a byte
// from the server.
const DefaultReadTimeout = 15 * time.Minute

// DefaultWriteTimeout is Config.WriteTimeout when left 0: Squid's
// write_timeout, the longest a write to a client may wait for the client
// to take it before the connection is closed.
const DefaultWriteTimeout = 15 * time.Minute

// upstream is one forwarded exchange seen from the proxy: the context of
// the outbound request, which ends when the server has sent nothing for
// the read timeout, when nobody is left to read the response (the client
// went away and no collapsed request follows it), or when the exchange is
// over.
type upstream struct {
	ctx      context.Context
	cancel   context.CancelFunc
	timeout  time.Duration
	timer    *time.Timer
	timedOut atomic.Bool
	stream   atomic.Pointer[inflight] // the body shared with followers, once known
	unwatch  func() bool
}

// newUpstream starts the read timer of a request forwarded for r. Its
// context is r's values without r's cancellation: a client that goes
// away ends the exchange only when no follower reads the response too.
func (p *Proxy) newUpstream(r *http.Request) *upstream {
	u := &upstream{timeout: p.readTimeout}
	u.ctx, u.cancel = context.WithCancel(context.WithoutCancel(r.Context()))
	u.timer = time.AfterFunc(u.timeout, func() {
		u.timedOut.Store(true)
		u.cancel()
	})
	u.unwatch = context.AfterFunc(r.Context(), func() {
		if s := u.stream.Load(); s == nil || !s.orphan() {
			u.cancel()
		}
	})
	return u
}

// touch restarts the read timer: a byte (or the header) arrived, or a
// byte of the request's body was sent.
func (u *upstream) touch() { u.timer.Reset(u.timeout) }

// touchingBody is a forwarded request's body that restarts the read
// timer as it is read, so that an upload that takes longer than the read
// timeout is not cut as a silent server (Squid starts read_timeout once
// the request is sent).
type touchingBody struct {
	io.ReadCloser
	u *upstream
}

func (b *touchingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.u.touch()
	}
	return n, err
}

// end stops the timer and the watch of the client and ends the exchange.
func (u *upstream) end() {
	u.timer.Stop()
	u.unwatch()
	u.cancel()
}

// interimRelay passes a forwarded request's interim (1xx) responses on to
// the client as they arrive (RFC 9110 §15.2), except 100 Continue, which
// the server in front of the client sends itself when the handler reads
// the request body, and 101, which ends HTTP/1.1 on the connection. They
// are never stored: only a final response is (RFC 9111 §3). A 1xx is
// not sent to an HTTP/1.0 client (RFC 9110 §15.2). After done, nothing
// more is written: a router's abandoned exchange must not write to w
// once the handler answers.
type interimRelay struct {
	mu   sync.Mutex
	w    http.ResponseWriter
	over bool
}

// trace returns ctx with a client trace that relays 1xx responses to w.
func (ir *interimRelay) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{Got1xxResponse: ir.got})
}

func (ir *interimRelay) got(code int, h textproto.MIMEHeader) error {
	if code == http.StatusContinue || code == http.StatusSwitchingProtocols {
		return nil
	}
	ir.mu.Lock()
	defer ir.mu.Unlock()
	if ir.over {
		return nil
	}
	fields := http.Header(h).Clone()
	stripHopByHop(fields)
	wh := ir.w.Header()
	for k, vs := range fields {
		wh[k] = vs
	}
	ir.w.WriteHeader(code) // sends the 1xx at once, with the fields just set
	for k := range fields {
		delete(wh, k) // an interim response's fields are not the final one's
	}
	return nil
}

// done ends the relay.
func (ir *interimRelay) done() {
	ir.mu.Lock()
	ir.over = true
	ir.mu.Unlock()
}

// inflight is a storable response being received: its stored header and
// the body so far, which a goroutine of its own collects from the server
// to store (fill) and which the request that forwarded it and the
// requests collapsed onto it read as it grows, each at its own pace: a
// client that reads slowly, or not at all, holds back nobody else. The
// body grows up to the proxy's MaxObjectBytes; beyond it, the response
// is not stored, the followers are cut off and the forwarding request
// reads the rest of it from the server itself.
type inflight struct {
	entry  *storedEntry // the stored header and times; no body
	length int64        // the Content-Length, or -1 when unknown

	mu         sync.Mutex
	body       []byte
	rest       []byte        // the body for the leader alone once it outgrew the limit
	state      int           // streaming, complete or failed
	grew       chan struct{} // closed and replaced when body or state changes
	attached   int           // followers reading
	leaderGone bool          // the forwarding request's client went away
	cancel     context.CancelFunc
}

const (
	streaming = iota
	complete
	failed
	handedOff // failed for the followers; the leader reads rest, then the server
)

// initialBodyBytes is the most a stream allocates for its body before
// any of it arrives: a server's Content-Length is a claim, and a body
// that grows doubles its array up to that length, never past it.
const initialBodyBytes = 64 << 10

// newInflight starts the shared body of the response whose stored entry
// keep will be (keep itself is not shared: the leader fills in its body
// and stores it).
func newInflight(keep *Entry, length int64, cancel context.CancelFunc) *inflight {
	// The stored form copies keep's header, which the leader changes
	// when the body is whole and not of its Content-Length; when it is,
	// a store that keeps stored forms is given this one, with the body
	// (storedEntry.withBody).
	s := &inflight{entry: newStored(keep), length: length, grew: make(chan struct{}), cancel: cancel}
	s.body = make([]byte, 0, min(max(length, 0), initialBodyBytes))
	return s
}

// notify wakes the readers; the caller holds s.mu.
func (s *inflight) notify() {
	close(s.grew)
	s.grew = make(chan struct{})
}

// append adds bytes of the body, reporting whether the body is now as
// long as its Content-Length says. Bytes that take it past limit end
// the stream for the followers and hand it to the leader (over): the
// body and b are its alone, and the server's next bytes are for it to
// read.
func (s *inflight) append(b []byte, limit int64) (whole, over bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != streaming {
		return false, false
	}
	if int64(len(s.body)+len(b)) > limit {
		s.body = append(s.body, b...)
		s.state, s.rest, s.body = handedOff, s.body, nil
		s.notify()
		return false, true
	}
	s.body = growAppend(s.body, b, s.length)
	s.notify()
	return int64(len(s.body)) == s.length, false
}

// growAppend appends b to body, doubling its array when it is full but
// never past length (when known), so that a whole body of a known
// length fills its array exactly.
func growAppend(body, b []byte, length int64) []byte {
	need := len(body) + len(b)
	if need <= cap(body) {
		return append(body, b...)
	}
	c := max(2*cap(body), need)
	if length >= int64(need) {
		c = int(min(int64(c), length))
	}
	grown := make([]byte, len(body), c)
	copy(grown, body)
	return append(grown, b...)
}

// finish ends the stream, whole (returning its body) or not.
func (s *inflight) finish(whole bool) (body []byte, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != streaming {
		return nil, false
	}
	s.state = failed
	if whole {
		s.state = complete
	}
	s.notify()
	return s.body, whole
}

// outgrew reports whether the body grew past the limit (append's over).
func (s *inflight) outgrew() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == handedOff
}

// orphan records that the leader's client went away and reports whether
// the exchange must go on for the followers.
func (s *inflight) orphan() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leaderGone = true
	return s.attached > 0 && s.state == streaming
}

// attach adds a follower unless the stream already failed.
func (s *inflight) attach() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == failed || s.state == handedOff {
		return false
	}
	s.attached++
	return true
}

// detach removes a follower, ending the exchange when it was the last
// reader left.
func (s *inflight) detach() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attached--
	if s.attached == 0 && s.leaderGone && s.state == streaming {
		s.cancel()
	}
}

// next returns the body from off on, the state, and the channel that
// is closed when either changes. A follower (leader false) finds a
// handed-off stream failed; the leader finds the rest of its body.
func (s *inflight) next(off int, leader bool) ([]byte, int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.state == handedOff && leader:
		return s.rest[off:], handedOff, s.grew
	case s.state == failed, s.state == handedOff:
		return nil, failed, s.grew
	}
	return s.body[off:], s.state, s.grew
}

// streamEnd is how a client's copy of a stream ended.
type streamEnd int

const (
	endComplete   streamEnd = iota // the whole body was written
	endFailed                      // the stream failed: the response is cut short
	endClientGone                  // the client went away
	endHandedOff                   // the leader wrote all of rest; the server has the remainder
)

// copyStream writes s's body to w from the start as it grows, until it
// is whole or fails or the client goes away, flushing every piece. The
// last piece of a body of known length is held back (httpx.CountingWriter.Hold)
// until the request is logged. It returns the bytes written.
func copyStream(w *httpx.CountingWriter, rc *http.ResponseController, ctx context.Context, s *inflight, leader bool) (int, streamEnd) {
	off := 0
	for {
		b, state, grew := s.next(off, leader)
		if len(b) > 0 && state != handedOff && s.length >= 0 && int64(off+len(b)) == s.length {
			w.Hold(b) // the last piece: sent once the request is logged
			return off + len(b), endComplete
		}
		if len(b) > 0 {
			if _, err := w.Write(b); err != nil {
				return off, endClientGone
			}
			_ = rc.Flush() // a failed flush is a client gone away, which the next Write reports
			off += len(b)
			continue
		}
		switch state {
		case complete:
			return off, endComplete
		case failed:
			return off, endFailed
		case handedOff:
			return off, endHandedOff
		}
		select {
		case <-grew:
		case <-ctx.Done():
			return off, endClientGone
		}
	}
}

// follow answers r, collapsed onto another request's miss, from the
// response that request is receiving, byte by byte as it arrives: with
// the header a hit would have (Age, Via, X-Cache, no Set-Cookie), and its
// Content-Length when the origin sent one. It reports served false, and
// writes nothing, when the response cannot answer r (Vary selects
// another, r's directives refuse it, the stream already failed); aborted
// when the stream fails after r's response began.
func (p *Proxy) follow(w *httpx.CountingWriter, r *http.Request, s *inflight, qcc cacheControl, rec *Record) (served, aborted bool) {
	se := s.entry
	now := p.now()
	if !se.matchesVary(r.Header) || !usable(se, qcc, now) || !s.attach() {
		return false, false
	}
	defer s.detach()
	rec.Code = p.hitCode()
	h := w.Header()
	for _, f := range se.fields[:se.served] {
		h[f.name] = f.values
	}
	h["Age"] = se.ageValues(now)
	if _, ok := h["Via"]; ok {
		httpx.AddVia(h, 1, 1, p.via)
	} else {
		h["Via"] = p.viaHit
	}
	h["X-Cache"] = p.xcacheHit
	if s.length >= 0 {
		h["Content-Length"] = []string{strconv.FormatInt(s.length, 10)}
	} else {
		delete(h, "Content-Length")
	}
	w.WriteHeader(se.Status)
	rc := http.NewResponseController(w)
	_ = rc.Flush() // a failed flush is a client gone away, which the next Write reports
	_, end := copyStream(w, rc, r.Context(), s, false)
	return true, end == endFailed
}

// relay copies a forwarded response to the client as it arrives, adding
// Via and X-Cache, flushing the header and then every piece of the body
// at once, so that the client's first byte waits for nothing but the
// server's. When s is non-nil the body is collected into it by a
// goroutine of its own (fill), for the followers and to be stored, and
// the client is written from s at its own pace; s fails when the body is
// not received whole, and is handed back to this request when the body
// grows past MaxObjectBytes. A body is committed (stored) by commit
// once whole, before its last piece is written when its length is
// known, so that a client that has received all of it finds it stored;
// the last piece is held back (httpx.CountingWriter.Hold) until the
// request is logged. A client that goes away stops the exchange unless
// followers still read s; relay returns once the server's response is
// over. It reports whether the response was cut short.
func (p *Proxy) relay(w *httpx.CountingWriter, r *http.Request, resp *http.Response, u *upstream, s *inflight, commit func()) (aborted bool) {
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = vs
	}
	httpx.AddVia(h, resp.ProtoMajor, resp.ProtoMinor, p.via)
	// A peer's X-Cache stays, and this proxy's comes after it, as Squid
	// appends its own to the ones it received.
	h["X-Cache"] = append(slices.Clip(h.Values("X-Cache")), "MISS from "+p.via)
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	if r.Method == http.MethodHead {
		return false
	}
	// A failed flush is a client gone away, which the next Write reports.
	_ = rc.Flush()
	if s == nil {
		return p.copyResponse(w, rc, r, resp, u, 0)
	}
	filled := make(chan struct{})
	go func() {
		defer close(filled)
		p.fill(r, resp, u, s, commit)
	}()
	written, end := copyStream(w, rc, r.Context(), s, true)
	if end == endClientGone && !s.orphan() {
		u.cancel() // nobody reads on; nothing is stored
	}
	<-filled
	switch end {
	case endFailed:
		return true
	case endHandedOff:
		return p.copyResponse(w, rc, r, resp, u, int64(written))
	}
	return false
}

// fill collects the body of resp into s as it arrives, committing it
// once whole, until the server's response ends, fails, or outgrows
// MaxObjectBytes (then the rest is the leader's to read).
func (p *Proxy) fill(r *http.Request, resp *http.Response, u *upstream, s *inflight, commit func()) {
	buf := make([]byte, relayBufferBytes(resp.ContentLength))
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			u.touch()
			whole, over := s.append(buf[:n], p.maxObject)
			if over {
				return
			}
			if whole {
				commit()
			}
		}
		if err == io.EOF {
			commit()
			return
		}
		if err != nil {
			p.logBodyError(r, u, err)
			s.finish(false)
			return
		}
	}
}

// copyResponse copies the rest of a forwarded response's body to the
// client as it arrives, received bytes of it already written, holding
// back the last piece of a body of known length. It reports whether the
// response was cut short.
func (p *Proxy) copyResponse(w *httpx.CountingWriter, rc *http.ResponseController, r *http.Request, resp *http.Response, u *upstream, received int64) (aborted bool) {
	buf := make([]byte, relayBufferBytes(resp.ContentLength-received))
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			u.touch()
			received += int64(n)
			if received == resp.ContentLength {
				w.Hold(buf[:n])
			} else if _, werr := w.Write(buf[:n]); werr != nil {
				return false // the client went away
			} else {
				_ = rc.Flush()
			}
		}
		if err == io.EOF {
			return false
		}
		if err != nil {
			p.logBodyError(r, u, err)
			return true
		}
	}
}

// logBodyError logs why a forwarded response's body ended early.
func (p *Proxy) logBodyError(r *http.Request, u *upstream, err error) {
	if u.timedOut.Load() {
		p.log.Warn("cache: response body timed out", "url", logURL(r.URL.String()), "timeout", u.timeout)
	} else {
		p.log.Info("cache: reading response body", "url", logURL(r.URL.String()), "err", logErr(err))
	}
}

// relayBufferBytes is the size of the buffer that relays a body of
// length bytes (-1: unknown): 32 KiB, or less for a body known to be
// smaller, so that a miss of a small object does not allocate 32 KiB
// (at least 512 bytes, so that every read can make progress).
func relayBufferBytes(length int64) int {
	const most = 32 << 10
	if length < 0 || length >= most {
		return most
	}
	return int(max(length, 512))
}
