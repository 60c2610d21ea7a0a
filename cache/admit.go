package cache

import (
	"net/http"
	"strings"
)

// Bounds of the access log's fields: a URL is cut to maxLogURL bytes,
// every other text field to maxLogField, once percent-encoded, so that
// no line is longer than MaxAccessLogLine.
const (
	maxLogURL   = 4096
	maxLogField = 256
	// MaxAccessLogLine is the longest line the access log writes: its
	// URL cut to 4 KiB, its other fields to 256 bytes each.
	MaxAccessLogLine = 8 << 10
)

// withoutUserinfo returns a URL without the userinfo of its authority
// ("http://user:pass@host/" → "http://host/"), which RFC 9110 §4.2.4
// forbids in an http URI and which would put a password in the log.
func withoutUserinfo(u string) string {
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

// refuseUserinfo answers 400 to a request whose target URL carries
// userinfo, and reports whether it did. RFC 9110 §4.2.4: a sender MUST
// NOT generate it, and a recipient ought to treat it as an error. Go's
// client would turn it into an Authorization field, and the response,
// which the client's own header fields do not show to be authenticated,
// could then be stored and served to others (RFC 9111 §3.5).
func (p *Proxy) refuseUserinfo(w http.ResponseWriter, r *http.Request, rec *Record) bool {
	if r.URL.User == nil {
		return false
	}
	rec.Code = CodeNone
	p.fail(w, http.StatusBadRequest, "cache: userinfo (user:password@) in the request URL is not allowed")
	return true
}

// closeAfterChunked makes the server close the client's connection after
// answering a request that came with a Transfer-Encoding. Go's server
// drops the Content-Length of such a request before the handler sees it
// and reads the body by its chunked framing, which is the one forwarded;
// but a request with both framings may be a smuggling attempt, after
// which RFC 9112 §6.1 says the connection MUST be closed. As the two
// cannot be told apart here, every request with a Transfer-Encoding
// closes its connection: a chunked upload costs one new connection.
func closeAfterChunked(w http.ResponseWriter, r *http.Request) {
	if len(r.TransferEncoding) > 0 {
		w.Header().Set("Connection", "close")
	}
}
