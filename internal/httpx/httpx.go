// Package httpx holds the HTTP plumbing that the caching proxy (package
// cache) and the summary-cache node built on it (package node) share: the
// Via field, closing and draining bodies, the client address and URL an
// access log records, and a ResponseWriter that counts what it sent.
package httpx

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// IsTimeout reports whether err is a network timeout.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// ClientIP is the address part of a RemoteAddr.
func ClientIP(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}

// CountingWriter records the status and the bytes sent to the client.
type CountingWriter struct {
	http.ResponseWriter
	Status int
	Bytes  int64
	Held   []byte // the body's last piece, written once the request is logged
	// WriteTimeout, if positive, is how long each write may wait for the
	// client to take it (Squid's write_timeout): a client that takes
	// nothing for that long has its connection closed, rather than
	// holding it, and the handler, for as long as it stays connected.
	WriteTimeout time.Duration
}

// Hold keeps a copy of b, the last piece of the body, to be written after
// the request is logged, and counts it as sent.
func (c *CountingWriter) Hold(b []byte) {
	c.Held = append(c.Held[:0], b...)
	c.Bytes += int64(len(b))
}

func (c *CountingWriter) WriteHeader(status int) {
	if status >= 100 && status < 200 && status != http.StatusSwitchingProtocols {
		c.ResponseWriter.WriteHeader(status) // interim: the final status is still to come
		return
	}
	if c.Status == 0 {
		c.Status = status
		c.Bytes += HeaderBytes(status, c.Header())
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *CountingWriter) Write(b []byte) (int, error) {
	if c.Status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	n, err := c.write(b)
	c.Bytes += int64(n)
	return n, err
}

// writePiece is the most one write is given WriteTimeout for: a larger
// body goes in pieces, each with the whole timeout, so that the timeout
// bounds a client's silence, not the time a large body takes.
const writePiece = 1 << 20

// write writes b to the client, each piece of it by its deadline.
func (c *CountingWriter) write(b []byte) (int, error) {
	if c.WriteTimeout <= 0 || len(b) == 0 {
		return c.ResponseWriter.Write(b)
	}
	written := 0
	for len(b) > 0 {
		piece := b[:min(len(b), writePiece)]
		// Not every writer takes deadlines (a test's): then none is set.
		_ = http.NewResponseController(c.ResponseWriter).SetWriteDeadline(time.Now().Add(c.WriteTimeout))
		n, err := c.ResponseWriter.Write(piece)
		written += n
		if err != nil {
			return written, err
		}
		b = b[n:]
	}
	return written, nil
}

// WriteHeld writes the held last piece (Hold) to the client, counted
// already.
func (c *CountingWriter) WriteHeld() error {
	_, err := c.write(c.Held)
	return err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (c *CountingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// WithoutUserinfo returns a URL without the userinfo of its authority
// ("http://user:pass@host/" → "http://host/"), which RFC 9110 §4.2.4
// forbids in an http URI and which would put a password in the log.
func WithoutUserinfo(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return u
	}
	rest := u[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if at < 0 {
		return u
	}
	return u[:i+3] + rest[at+1:]
}

// ShowURL returns err with the URL that Go's client names in its errors
// (a url.Error in err's chain: `Get "http://u:***@host/p?q": dial tcp
// ...`, the password masked, not the user nor the query) written in its
// text as show returns it, for a log or a status page. The result
// unwraps to err, so errors.Is and errors.As see the same chain; an err
// without a url.Error, nil included, is returned as it is.
func ShowURL(err error, show func(string) string) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	return &shownURL{err: err, text: strings.ReplaceAll(err.Error(), strconv.Quote(ue.URL), strconv.Quote(show(ue.URL)))}
}

// shownURL is an error whose text shows its URL as ShowURL's caller
// asked.
type shownURL struct {
	err  error
	text string
}

func (e *shownURL) Error() string { return e.text }
func (e *shownURL) Unwrap() error { return e.err }

// CloseAfterChunked makes the server close the client's connection after
// answering a request that came with a Transfer-Encoding. Go's server
// drops the Content-Length of such a request before the handler sees it
// and reads the body by its chunked framing, which is the one forwarded;
// but a request with both framings may be a smuggling attempt, after
// which RFC 9112 §6.1 says the connection MUST be closed. As the two
// cannot be told apart here, every request with a Transfer-Encoding
// closes its connection: a chunked upload costs one new connection.
func CloseAfterChunked(w http.ResponseWriter, r *http.Request) {
	if len(r.TransferEncoding) > 0 {
		w.Header().Set("Connection", "close")
	}
}

// AddVia appends this proxy to the Via field (RFC 9110 §7.6.3): the
// protocol version of the message received and the proxy's pseudonym.
func AddVia(h http.Header, major, minor int, name string) {
	v := strconv.Itoa(major) + "." + strconv.Itoa(minor) + " " + name
	if prev := h.Get("Via"); prev != "" && len(h.Values("Via")) == 1 {
		h.Set("Via", prev+", "+v)
		return
	}
	h.Add("Via", v)
}

// HeaderBytes estimates the bytes of a response's status line and header
// section, for the access log.
func HeaderBytes(status int, h http.Header) int64 {
	return int64(len("HTTP/1.1 000 \r\n\r\n")+len(http.StatusText(status))) + HeaderSize(h)
}

// CloseBody closes a response body that was read to its end or given up
// on. Its error is dropped: all it could say is that the connection
// cannot carry another request, and the transport acts on that itself.
func CloseBody(body io.ReadCloser) { _ = body.Close() }

// DiscardBody reads up to limit bytes of a body the caller does not want,
// so that the connection can carry another request, and closes it. A
// failed read only means the connection is not reused, which the
// transport handles; so the errors are dropped.
func DiscardBody(body io.ReadCloser, limit int64) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, limit))
	CloseBody(body)
}

// HeaderSize is the bytes of h as ": " and "\r\n" separated field lines.
func HeaderSize(h http.Header) int64 {
	n := int64(0)
	for k, vs := range h {
		for _, v := range vs {
			n += int64(len(k) + len(v) + 4)
		}
	}
	return n
}

// IsToken reports whether s is a non-empty RFC 9110 token, as a Via
// pseudonym must be.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// IsHostName reports whether s is a DNS name as a Host field carries
// it, without a port: at most 253 characters besides a trailing dot, of
// letters, digits, '-', '_' and '.', not starting with a dot.
func IsHostName(s string) bool {
	if s == "" || len(strings.TrimSuffix(s, ".")) > 253 || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// NoRedirect is an http.Client's CheckRedirect that follows no redirect:
// the 3xx is the response, which a proxy passes on and a fetch of a
// peer's digest or a node's status takes as a failure.
func NoRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
