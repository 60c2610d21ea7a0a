package cache

import (
	"bytes"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// allowedMethods is the Allow of the proxy's answer to an OPTIONS it may
// not forward: the methods it forwards to an http or https URL.
const allowedMethods = "GET, HEAD, POST, PUT, DELETE, OPTIONS, TRACE, PATCH"

// traceHidden are the request fields a TRACE answer leaves out, as likely
// to hold credentials (RFC 9110 §9.3.8).
var traceHidden = map[string]bool{"Authorization": true, "Proxy-Authorization": true, "Cookie": true}

// maxForwards returns the Max-Forwards of a TRACE or OPTIONS request
// (RFC 9110 §7.6.2), and whether it has one. Other methods' Max-Forwards
// is ignored, and so is a value that is not a decimal number.
func maxForwards(r *http.Request) (uint64, bool) {
	if r.Method != http.MethodTrace && r.Method != http.MethodOptions {
		return 0, false
	}
	v, ok := r.Header["Max-Forwards"]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v[0], 10, 64)
	return n, err == nil
}

// answerFinal answers a TRACE or OPTIONS request whose Max-Forwards is 0,
// which a proxy must not forward, as its final recipient (RFC 9110
// §7.6.2), and reports whether it did: OPTIONS with 200 and Allow
// (§9.3.7), TRACE with 200 and the request as received, as message/http,
// less the fields that may hold credentials (§9.3.8). It is logged as
// Squid logs its TRACE answer, TCP_MISS/200 HIER_NONE.
func (p *Proxy) answerFinal(w http.ResponseWriter, r *http.Request, rec *Record) bool {
	if n, ok := maxForwards(r); !ok || n != 0 {
		return false
	}
	rec.Code = squidlog.CodeMiss
	h := w.Header()
	httpx.AddVia(h, 1, 1, p.via)
	var body []byte
	if r.Method == http.MethodOptions {
		h.Set("Allow", allowedMethods)
	} else {
		body = traceHead(r)
		h.Set("Content-Type", "message/http")
		h.Set("X-Content-Type-Options", "nosniff")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body) // a failed write is a client gone away: no one to tell
	return true
}

// traceHead writes r's request line and header fields as received, less
// traceHidden, near enough: Go's server has moved Host out of the header
// fields (it comes first) and canonicalised their names, which follow
// in order.
func traceHead(r *http.Request) []byte {
	target := r.RequestURI
	if target == "" {
		target = r.URL.String()
	}
	var b bytes.Buffer
	b.WriteString(r.Method + " " + target + " " + r.Proto + "\r\n")
	if r.Host != "" {
		b.WriteString("Host: " + r.Host + "\r\n")
	}
	for _, k := range slices.Sorted(maps.Keys(r.Header)) {
		if traceHidden[k] {
			continue
		}
		for _, v := range r.Header[k] {
			b.WriteString(k + ": " + v + "\r\n")
		}
	}
	b.WriteString("\r\n")
	return b.Bytes()
}
