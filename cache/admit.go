package cache

import (
	"net/http"
	"strings"

	"github.com/bloomcast/bloomcast/internal/squidlog"
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
	rec.Code = squidlog.CodeNone
	p.fail(w, http.StatusBadRequest, "cache: userinfo (user:password@) in the request URL is not allowed")
	return true
}

// refuseFragment answers 400 to a request whose target carries a
// fragment ("#…"), and reports whether it did. A request-target never
// has one (RFC 9112 §3.2; RFC 9110 §4.2.5: a fragment is not sent to a
// server). Go's server leaves it in the path or query it parses, to be
// forwarded percent-encoded or as it is, while [Key] cuts it: the
// response to one resource would be stored under the key of another.
func (p *Proxy) refuseFragment(w http.ResponseWriter, r *http.Request, rec *Record) bool {
	if strings.IndexByte(r.RequestURI, '#') < 0 && r.URL.Fragment == "" && strings.IndexByte(r.URL.RawQuery, '#') < 0 {
		return false
	}
	rec.Code = squidlog.CodeNone
	p.fail(w, http.StatusBadRequest, errFragment.Error())
	return true
}
