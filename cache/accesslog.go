package cache

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bloomcast/bloomcast/internal/httpx"
)

// Record is one line of the access log: one client request.
//
// The zero value is an empty record; the access log writes its empty fields
// as "-" where the fields say so.
type Record struct {
	Time        time.Time     // when the request arrived
	Elapsed     time.Duration // time to answer it
	Client      string        // client address (IP, no port)
	Code        string        // Squid's result code: TCP_HIT, TCP_MEM_HIT, TCP_MISS, TCP_REFRESH_UNMODIFIED, TCP_DENIED, NONE, ...
	Status      int           // status code sent to the client
	Bytes       int64         // bytes sent to the client, header included
	Method      string        // request method
	URL         string        // request URL (absolute)
	User        string        // authenticated user; "" is written "-"
	Hierarchy   string        // Squid's hierarchy code: HIER_NONE, HIER_DIRECT, SIBLING_HIT, CD_SIBLING_HIT
	From        string        // peer or origin host the response came from; "" is written "-"
	ContentType string        // response Content-Type; "" is written "-"

	Key       string // cache key of the request ("" if none); not logged
	FalseHits int    // peers that answered 504 before the response (Source.FalseHits); not logged
}

// appendSquid appends the record in Squid's native access-log format
// (logformat squid: "%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un
// %Sh/%<a %mt") and a newline, e.g.
//
//	1700000000.123     12 127.0.0.1 TCP_HIT/200 1234 GET http://x/ - HIER_NONE/- text/html
//
// Spaces, control characters and bytes outside ASCII inside a field are
// percent-encoded, so every line is ASCII and splits into exactly ten
// whitespace-separated fields, by ASCII or by Unicode white space (U+0085
// and U+00A0 are spaces to the latter). The URL
// is written without userinfo and without its query (as Squid does by
// default, strip_query_terms: either may hold a password, a session or a
// token of the client's) and cut to 4 KiB, the other text fields to 256 bytes each, so that no
// line is longer than MaxAccessLogLine, however long what a client sent.
func (r Record) appendSquid(dst []byte) []byte {
	ms := r.Time.UnixMilli()
	dst = strconv.AppendInt(dst, ms/1000, 10)
	dst = append(dst, '.')
	dst = append(dst, byte('0'+ms%1000/100), byte('0'+ms%100/10), byte('0'+ms%10))
	el := strconv.FormatInt(max(r.Elapsed.Milliseconds(), 0), 10)
	for i := len(el); i < 7; i++ {
		dst = append(dst, ' ')
	}
	dst = append(dst, el...)
	dst = append(dst, ' ')
	dst = appendField(dst, r.Client, maxLogField)
	dst = append(dst, ' ')
	dst = appendField(dst, r.Code, maxLogField)
	dst = append(dst, '/')
	st := strconv.Itoa(r.Status)
	for i := len(st); i < 3; i++ {
		dst = append(dst, '0')
	}
	dst = append(dst, st...)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, r.Bytes, 10)
	dst = append(dst, ' ')
	dst = appendField(dst, r.Method, maxLogField)
	dst = append(dst, ' ')
	dst = appendField(dst, logTarget(r.URL), maxLogURL)
	dst = append(dst, ' ')
	dst = appendField(dst, r.User, maxLogField)
	dst = append(dst, ' ')
	dst = appendField(dst, r.Hierarchy, maxLogField)
	dst = append(dst, '/')
	dst = appendField(dst, r.From, maxLogField)
	dst = append(dst, ' ')
	dst = appendField(dst, r.ContentType, maxLogField)
	return append(dst, '\n')
}

// appendField appends s, "-" when empty, with bytes that would split the
// line, or are not ASCII, percent-encoded, and at most limit bytes of it (an escape is
// never cut).
func appendField(dst []byte, s string, limit int) []byte {
	if s == "" {
		return append(dst, '-')
	}
	const hexDigits = "0123456789ABCDEF"
	end := len(dst) + limit
	for i := 0; i < len(s); i++ {
		c := s[i]
		escape := c <= ' ' || c >= 0x7f
		if n := len(dst) + 1; n > end || escape && n+2 > end {
			break
		}
		if escape {
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// accessLog writes Records to an io.Writer, one line each, in Squid's
// native format. It is safe for concurrent use; each record is written
// with a single Write.
//
// The zero accessLog is not usable: it has no writer; make one with
// newAccessLog.
type accessLog struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// newAccessLog returns an access log writing to w.
func newAccessLog(w io.Writer) *accessLog { return &accessLog{w: w} }

// Log writes one record.
func (l *accessLog) Log(r Record) error {
	if l.w == nil {
		return fmt.Errorf("%w: zero accessLog; use newAccessLog", ErrConfig)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = r.appendSquid(l.buf[:0])
	_, err := l.w.Write(l.buf)
	return err
}

// logURL is a URL as the node's structured log shows it: as the access
// log shows it (logTarget), and cut as the access log cuts it, so that no
// log line grows with what a client sent.
func logURL(u string) string {
	return string(appendField(nil, logTarget(u), maxLogURL))
}

// logErr is an error as the node's structured log shows it: the URL
// Go's client names in its errors (url.Error: `Get "http://host/p?q":
// dial tcp ...`) as logURL shows it, and the whole cut to maxLogURL
// bytes, so that an error no more than a URL holds the query a client
// sent, nor grows with it.
func logErr(err error) string {
	s := httpx.ShowURL(err, logURL).Error()
	if len(s) > maxLogURL {
		s = strings.ToValidUTF8(s[:maxLogURL], "")
	}
	return s
}

// logTarget is a request target as the logs show it: without userinfo,
// and without what follows its first "?" or "#", which is kept to show
// that something was cut. Squid logs URLs so by default
// (strip_query_terms on: "http://host/path?"): a query often carries a
// session id, a token or a password, which the operator of a shared
// proxy should not read, nor a log keep.
func logTarget(u string) string {
	u = httpx.WithoutUserinfo(u)
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i+1]
	}
	return u
}

// LogAccess writes a record of a request the proxy did not serve itself
// to its access log: the node logs its refusals and CONNECT tunnels
// (package node) in the proxy's log, as Squid logs them in one.
func (p *Proxy) LogAccess(rec Record) {
	if p.access == nil {
		return
	}
	if err := p.access.Log(rec); err != nil {
		p.log.Warn("cache: writing access log", "err", err)
	}
}
