package originclient

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/unixcompress"
)

// Net/http's client accepts a response body in no transfer coding but
// chunked (it answers any other with an error, which the proxy turns into
// 502). RFC 9112 §7 registers three more that a recipient can decode:
// gzip and compress (and their aliases x-gzip and x-compress) and
// deflate. A codingConn sits between the origin's socket and the
// client's reader and decodes all three: it follows the framing of every response on the
// connection (RFC 9112 §6.3) and passes each byte through untouched,
// except the head and body of a response whose Transfer-Encoding it can
// decode, which it rewrites into the same response in the chunked coding
// alone. The client then reads it like any chunked response, and the
// proxy streams and stores it decoded. Whatever the framer does not
// recognise with certainty (a head it cannot parse, an HTTP/1.0 response,
// a coding it does not decode, bytes nobody asked for) ends its work on
// the connection: the rest passes through untouched and net/http judges
// it as it would without the framer.

// Bounds of what a codingConn holds for one connection.
const (
	// maxCodedHead is the longest response head the framer holds to
	// read, the most net/http reads (MaxResponseHeaderBytes); a longer
	// one passes through untouched, for net/http to refuse.
	maxCodedHead = MaxResponseHeaderBytes
	// maxChunkLine is the longest chunk-size line, with its CRLF: the
	// size of net/http's read buffer, which bounds its own.
	maxChunkLine = 4096
	// maxTrailer bounds the trailer section of a chunked body.
	maxTrailer = 16 << 10
	// maxCodings bounds the transfer codings stacked on one body.
	maxCodings = 4
)

// errCoding reports a body whose transfer coding could not be decoded:
// the body is cut there, so the proxy stores nothing.
var errCoding = errors.New("originclient: the transfer coding of a response")

// What a connection's next response answers, set by [Expect].
const (
	pendNone uint32 = iota
	pendGet         // any method whose response may have a body
	pendHead
	pendConnect
)

// States of a codingConn's read side.
const (
	stHead    = iota // reading a response head
	stLength         // passing a body of known length
	stChunked        // passing a chunked body
	stClose          // passing a body that ends when the connection does
	stDecode         // decoding a body and re-chunking it
	stOpaque         // passing everything, framing no more
	stFailed         // a decoded body broke: every read fails
)

// codingConn is an origin connection whose responses are framed and,
// where their transfer coding allows, decoded (see above). Reads come from
// one goroutine (net/http's read loop); expect may be called from another.
type codingConn struct {
	net.Conn

	pend atomic.Uint32 // what the next final response answers

	state int
	in    []byte // bytes read and not yet passed on: in[off:]
	off   int
	rerr  error  // the connection's read error, once in holds bytes read before it
	out   []byte // bytes to return before anything else
	scan  chunkScan
	rem   int64 // stLength: body bytes left
	close bool  // the response ends the connection

	// stDecode
	dec     io.Reader // the decoded body
	decDone bool
	ferr    error
	head    []byte // the rewritten head
}

// expect tells c the method of the request whose response it reads next.
func (c *codingConn) expect(method string) {
	v := pendGet
	switch method {
	case http.MethodHead:
		v = pendHead
	case http.MethodConnect:
		v = pendConnect
	}
	c.pend.Store(v)
}

// Expect returns req with a client trace that tells the
// connection carrying it, when it is one of [Dialer]'s, the request's method
// before the request is written, so that its response is framed right (a
// response to HEAD has no body whatever its header says, RFC 9110 §9.3.2).
// Without it a codingConn decodes nothing.
func Expect(req *http.Request) *http.Request {
	method := req.Method
	return req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			if c, ok := info.Conn.(*codingConn); ok {
				c.expect(method)
			}
		},
	}))
}

// Dialer wraps dial's connections in a response framer that
// decodes the gzip, deflate and compress transfer codings Go's HTTP client refuses
// (RFC 9112 §7), rewriting such a response as chunked; every other byte
// passes untouched. It is for a Transport's DialContext, with each request
// sent through [Expect]; the node's peer client uses it as the
// proxy's origin client does.
func Dialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &codingConn{Conn: conn}, nil
	}
}

// tlsDialer returns a Transport's DialTLSContext: dial, a TLS
// handshake within timeout offering HTTP/2 and HTTP/1.1 (config, nil
// for the defaults, supplies the roots), and the connection wrapped in a
// codingConn when HTTP/1.1 was agreed. An HTTP/2 connection is returned
// as the *tls.Conn net/http needs to speak HTTP/2; HTTP/2 has no
// transfer codings (RFC 9113 §8.2.2).
func tlsDialer(dial func(ctx context.Context, network, addr string) (net.Conn, error), config *tls.Config, timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		raw, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := &tls.Config{}
		if config != nil {
			cfg = config.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = host
		}
		if len(cfg.NextProtos) == 0 {
			cfg.NextProtos = []string{"h2", "http/1.1"}
		}
		tc := tls.Client(raw, cfg)
		hctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if err := tc.HandshakeContext(hctx); err != nil {
			_ = raw.Close() // the handshake error is the one to report
			return nil, err
		}
		if tc.ConnectionState().NegotiatedProtocol == "h2" {
			return tc, nil
		}
		return &codingConn{Conn: tc}, nil
	}
}

func (c *codingConn) buffered() int { return len(c.in) - c.off }

// Read implements net.Conn.
func (c *codingConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if len(c.out) > 0 {
			n := copy(p, c.out)
			c.out = c.out[n:]
			return n, nil
		}
		switch c.state {
		case stOpaque:
			if c.buffered() > 0 {
				n := copy(p, c.in[c.off:])
				c.off += n
				return n, nil
			}
			if c.rerr != nil {
				return 0, c.rerr
			}
			return c.Conn.Read(p)
		case stHead:
			c.readHead()
		case stDecode:
			return c.readDecoded(p)
		case stFailed:
			return 0, c.ferr
		default: // a body passed through
			if c.buffered() > 0 {
				n := copy(p, c.in[c.off:])
				k := c.track(p[:n])
				c.off += k
				if k > 0 {
					return k, nil
				}
				continue
			}
			if c.rerr != nil {
				return 0, c.rerr
			}
			n, err := c.Conn.Read(p)
			k := c.track(p[:n])
			if k < n { // the body ended inside p: keep the rest
				c.in = append(c.in[:0], p[k:n]...)
				c.off = 0
				c.rerr, err = err, nil
			}
			if k == 0 && err == nil {
				continue
			}
			return k, err
		}
	}
}

// track follows the body being passed through over b, its next bytes,
// and returns how many of them belong to it; when the body ends, c moves
// on to the next response.
func (c *codingConn) track(b []byte) int {
	switch c.state {
	case stLength:
		k := int(min(int64(len(b)), c.rem))
		if c.rem -= int64(k); c.rem == 0 {
			c.endBody()
		}
		return k
	case stChunked:
		i := 0
		for i < len(b) {
			used, done, err := c.scan.step(b[i:])
			i += used
			if err != nil { // net/http will refuse it too
				c.state = stOpaque
				return len(b)
			}
			if done {
				c.endBody()
				return i
			}
		}
		return i
	}
	return len(b) // stClose: until the connection ends
}

// endBody moves on after a response's body.
func (c *codingConn) endBody() {
	c.state = stHead
	if c.close {
		c.state = stOpaque
	}
}

// readHead reads until a whole response head is buffered and handles it.
func (c *codingConn) readHead() {
	scanned := 0
	for {
		if end := headEnd(c.in[c.off:], scanned); end > 0 {
			c.handleHead(end)
			return
		}
		scanned = c.buffered()
		if scanned >= maxCodedHead || c.rerr != nil {
			c.state = stOpaque
			return
		}
		if c.off > 0 && c.off == len(c.in) {
			c.in, c.off = c.in[:0], 0
		}
		if len(c.in) == cap(c.in) {
			if c.off > 0 {
				c.in = c.in[:copy(c.in, c.in[c.off:])]
				c.off = 0
			} else {
				c.in = append(c.in, make([]byte, max(4096, cap(c.in)))...)[:len(c.in)]
			}
		}
		n, err := c.Conn.Read(c.in[len(c.in):cap(c.in)])
		c.in = c.in[:len(c.in)+n]
		if err != nil {
			c.rerr = err
		}
	}
}

// headEnd returns the length of the head at the start of b, up to and
// including the first empty line (a line ends at LF, with or without a CR
// before it, as net/textproto reads it), or 0 when b holds no empty line
// yet. Lines wholly within b[:from] were looked at before.
func headEnd(b []byte, from int) int {
	start := 0
	if from > 0 {
		start = bytes.LastIndexByte(b[:from], '\n') + 1
	}
	for {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			return 0
		}
		line := b[start : start+i]
		if len(line) == 0 || len(line) == 1 && line[0] == '\r' {
			return start + i + 1
		}
		start += i + 1
	}
}

// handleHead handles the response head of end bytes at in[off:]: it
// decides the response's framing and whether its body is decoded, and
// queues the head, rewritten if so, to be returned.
func (c *codingConn) handleHead(end int) {
	head := c.in[c.off : c.off+end : c.off+end]
	h, ok := parseHead(head)
	pend := c.pend.Load()
	if !ok || pend == pendNone {
		c.state = stOpaque
		return
	}
	c.off += end
	// No body follows a response to HEAD, a 1xx, 204 or 304 (RFC 9112
	// §6.3), whatever its header says.
	noBody := pend == pendHead || h.status/100 == 1 || h.status == http.StatusNoContent || h.status == http.StatusNotModified
	c.out = head
	if h.codings != nil {
		c.head = h.rewrite(c.head[:0], head, !noBody && !h.last && !h.close)
		c.out = c.head
	}
	if h.status/100 == 1 && h.status != http.StatusSwitchingProtocols {
		return // an interim response: the final one follows
	}
	c.pend.Store(pendNone)
	c.close = h.close
	switch {
	case h.status == http.StatusSwitchingProtocols, pend == pendConnect && h.status/100 == 2:
		c.state = stOpaque // another protocol follows
	case noBody:
		c.endBody()
	case h.codings != nil:
		c.startDecode(h)
	case h.chunked:
		c.scan = chunkScan{}
		c.state = stChunked
	case h.length == 0:
		c.endBody()
	case h.length > 0:
		c.rem = h.length
		c.state = stLength
	default:
		c.close = true
		c.state = stClose
	}
}

// headInfo is what the framer reads from a response head.
type headInfo struct {
	status  int
	length  int64    // Content-Length, -1 when absent
	chunked bool     // Transfer-Encoding: chunked alone, as net/http takes it
	codings []string // decodable codings in the order applied, when the body is decoded
	last    bool     // with codings: chunked was applied last
	close   bool     // Connection: close
}

// parseHead reads a response head as net/http does (status line, header
// fields, RFC 9112 §4, §5); ok is false for anything the framer does not
// follow with certainty, which it then leaves to net/http.
func parseHead(head []byte) (h headInfo, ok bool) {
	h.length = -1
	line, rest := nextLine(head)
	proto, status, found := strings.Cut(string(line), " ")
	// HTTP/1.1 and later 1.x only: an HTTP/1.0 message's framing ignores
	// Transfer-Encoding (RFC 9112 §6.1), and net/http's with it.
	if !found || len(proto) != len("HTTP/1.1") || !strings.HasPrefix(proto, "HTTP/1.") || proto[7] < '1' || proto[7] > '9' {
		return h, false
	}
	code, _, _ := strings.Cut(strings.TrimLeft(status, " "), " ")
	if len(code) != 3 || !isDigits(code) {
		return h, false
	}
	h.status, _ = strconv.Atoi(code)
	var te, cl []string
	for {
		line, rest = nextLine(rest)
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			return h, false // a folded line (obs-fold)
		}
		name, value, found := bytes.Cut(line, []byte(":"))
		if !found || !httpx.IsToken(string(name)) {
			return h, false
		}
		v := strings.TrimLeft(strings.TrimRight(string(value), " \t\r\n"), " \t")
		for i := 0; i < len(v); i++ {
			if b := v[i]; b < ' ' && b != '\t' || b == 0x7f {
				return h, false
			}
		}
		switch {
		case asciiEqualFold(name, "Transfer-Encoding"):
			te = append(te, v)
		case asciiEqualFold(name, "Content-Length"):
			cl = append(cl, v)
		case asciiEqualFold(name, "Connection"):
			for _, t := range strings.Split(v, ",") {
				if strings.EqualFold(strings.Trim(t, " \t"), "close") {
					h.close = true
				}
			}
		}
	}
	for _, v := range cl {
		if v != cl[0] {
			return h, false
		}
	}
	if len(cl) > 0 {
		n, err := strconv.ParseUint(cl[0], 10, 63)
		if err != nil {
			return h, false
		}
		h.length = int64(n)
	}
	if len(te) == 0 {
		return h, true
	}
	if len(te) == 1 && strings.EqualFold(te[0], "chunked") {
		h.chunked = true
		return h, true
	}
	var codings []string
	for _, v := range te {
		for _, t := range strings.Split(v, ",") {
			if t = strings.ToLower(strings.Trim(t, " \t")); t != "" {
				codings = append(codings, t)
			}
		}
	}
	if len(codings) > maxCodings {
		return h, false
	}
	for i, t := range codings {
		switch t {
		case "gzip", "x-gzip", "deflate", "compress", "x-compress":
		case "chunked":
			if i != len(codings)-1 {
				return h, false // chunked must be the final coding (RFC 9112 §6.3)
			}
			h.last = true
		default:
			return h, false // identity, anything else: refused as before
		}
	}
	if h.last {
		codings = codings[:len(codings)-1]
	}
	if len(codings) == 0 {
		return h, false
	}
	h.codings = codings
	return h, true
}

// rewrite appends to dst the head with its Transfer-Encoding and
// Content-Length fields replaced by Transfer-Encoding: chunked, and with
// Connection: close when addClose (the original body ends with the
// connection, which the rewritten one cannot say otherwise).
func (h *headInfo) rewrite(dst, head []byte, addClose bool) []byte {
	_, rest := nextLine(head)
	dst = append(dst, head[:len(head)-len(rest)]...)
	for {
		before := rest
		var line []byte
		line, rest = nextLine(rest)
		if len(line) == 0 {
			break
		}
		name, _, _ := bytes.Cut(line, []byte(":"))
		if asciiEqualFold(name, "Transfer-Encoding") || asciiEqualFold(name, "Content-Length") {
			continue
		}
		dst = append(dst, before[:len(before)-len(rest)]...)
	}
	dst = append(dst, "Transfer-Encoding: chunked\r\n"...)
	if addClose {
		dst = append(dst, "Connection: close\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// nextLine returns the first line of b without its LF and the CR before
// it, and the bytes after it.
func nextLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil
	}
	line, rest = b[:i], b[i+1:]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// startDecode starts decoding the body of h.
func (c *codingConn) startDecode(h headInfo) {
	if !h.last {
		c.close = true
	}
	c.scan = chunkScan{}
	src := io.Reader(&codedBody{c: c, chunked: h.last})
	for i := len(h.codings) - 1; i >= 0; i-- { // the last applied is undone first
		src = &codingDecoder{coding: h.codings[i], src: bufio.NewReader(src)}
	}
	c.dec, c.decDone = src, false
	c.state = stDecode
}

// readDecoded returns the next piece of the decoded body as one chunk,
// the last chunk when it has ended, or the error that cut it.
func (c *codingConn) readDecoded(p []byte) (int, error) {
	if c.decDone {
		c.dec = nil
		c.out = append(c.head[:0], "0\r\n\r\n"...) //nolint:gocritic // the head buffer's array is reused for the output
		c.endBody()
		n := copy(p, c.out)
		c.out = c.out[n:]
		return n, nil
	}
	// A chunk: size in hex, CRLF, data, CRLF. The data is decoded into p
	// after room for the size line, which is moved against it.
	const frame = 16 + 2 + 2
	if len(p) < 64 {
		var tmp [64]byte
		n, err := c.readDecoded(tmp[:])
		c.out = append(c.head[:0], tmp[:n]...) //nolint:gocritic // the head buffer's array is reused for the output
		m := copy(p, c.out)
		c.out = c.out[m:]
		return m, err
	}
	for !c.decDone {
		n, err := c.dec.Read(p[frame : len(p)-2])
		if err == io.EOF {
			c.decDone, err = true, nil
		}
		if err != nil {
			c.state, c.ferr = stFailed, fmt.Errorf("%w: %w", errCoding, err)
			c.dec = nil
			if n == 0 {
				return 0, c.ferr
			}
		}
		if n == 0 {
			continue
		}
		size := strconv.AppendInt(c.head[:0], int64(n), 16)
		size = append(size, '\r', '\n')
		copy(p, size)
		copy(p[len(size):], p[frame:frame+n])
		m := len(size) + n
		p[m], p[m+1] = '\r', '\n'
		return m + 2, nil
	}
	return c.readDecoded(p) // the last chunk
}

// codedBody reads the coded body of the response being decoded: its
// chunks' data, until the last chunk and trailer section, when chunked
// was applied last, or else everything until the connection ends.
type codedBody struct {
	c       *codingConn
	chunked bool
}

func (b *codedBody) Read(p []byte) (int, error) {
	c := b.c
	for {
		if b.chunked && c.scan.st == csData {
			p = p[:min(uint64(len(p)), c.scan.rem)]
		}
		if !b.chunked || c.scan.st == csData {
			var n int
			var err error
			if c.buffered() > 0 {
				n = copy(p, c.in[c.off:])
				c.off += n
			} else if c.rerr != nil {
				err = c.rerr
			} else {
				n, err = c.Conn.Read(p)
			}
			if b.chunked {
				if c.scan.rem -= uint64(n); c.scan.rem == 0 {
					c.scan.st = csDataCR
				}
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
			}
			if err != nil {
				c.rerr = err
			}
			return n, err
		}
		if c.scan.st == csDone {
			return 0, io.EOF
		}
		if c.buffered() == 0 {
			if c.rerr != nil {
				if errors.Is(c.rerr, io.EOF) {
					return 0, io.ErrUnexpectedEOF
				}
				return 0, c.rerr
			}
			if cap(c.in) < 4096 {
				c.in = make([]byte, 0, 4096)
			}
			n, err := c.Conn.Read(c.in[:cap(c.in)])
			c.in, c.off = c.in[:n], 0
			if err != nil {
				c.rerr = err
			}
			continue
		}
		used, _, err := c.scan.step(c.in[c.off:])
		c.off += used
		if err != nil {
			return 0, err
		}
	}
}

// codingDecoder undoes one transfer coding: gzip (RFC 1952), x-gzip,
// compress and x-compress (Unix compress's LZW, [unixcompress]), or
// deflate, which RFC 9110 §8.4.1.2 defines as the zlib format (RFC 1950)
// but which some servers send as raw deflate (RFC 1951): as browsers do,
// a body without a zlib header is read as raw deflate. An empty body
// decodes to nothing; bytes after the coded data are an error.
type codingDecoder struct {
	coding string
	src    *bufio.Reader
	r      io.Reader
}

func (d *codingDecoder) Read(p []byte) (int, error) {
	if d.r == nil {
		if _, err := d.src.Peek(1); err != nil {
			return 0, err // io.EOF: an empty body
		}
		switch d.coding {
		case "deflate":
			if b, _ := d.src.Peek(2); len(b) == 2 && b[0]&0x0f == 8 && b[0]>>4 <= 7 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0 {
				z, err := zlib.NewReader(d.src)
				if err != nil {
					return 0, err
				}
				d.r = z
			} else {
				d.r = flate.NewReader(d.src)
			}
		case "compress", "x-compress":
			z, err := unixcompress.NewReader(d.src)
			if err != nil {
				return 0, err
			}
			d.r = z
		default:
			z, err := gzip.NewReader(d.src)
			if err != nil {
				return 0, err
			}
			d.r = z
		}
	}
	n, err := d.r.Read(p)
	if err == io.EOF {
		if _, e := d.src.ReadByte(); !errors.Is(e, io.EOF) {
			if e == nil {
				e = errors.New("data after the end of the " + d.coding + " stream")
			}
			return n, e
		}
	}
	return n, err
}

// States of a chunkScan.
const (
	csSize        = iota // the chunk size's hex digits
	csSizeWS             // white space after them
	csExt                // a chunk extension
	csSizeLF             // the LF after the size line's CR
	csData               // chunk data
	csDataCR             // the CR after chunk data
	csDataLF             // its LF
	csTrailer            // the start of a trailer line
	csTrailerCR          // a trailer line that so far is a CR
	csTrailerLine        // within a trailer line
	csDone               // the body has ended
)

// chunkScan follows the chunked coding (RFC 9112 §7.1) as net/http's
// reader accepts it: the size line ends in CRLF with no other CR, white
// space may follow the hex size, an extension (";...") is skipped, the
// data is followed by CRLF, and the trailer section ends at the first
// empty line.
type chunkScan struct {
	st      uint8
	digits  int
	line    int
	rem     uint64
	trailer int
}

var errChunked = errors.New("malformed chunked coding")

// step consumes the next bytes of b: data (up to the chunk's end) or
// framing up to the next data, and reports whether the body ended.
func (s *chunkScan) step(b []byte) (used int, done bool, err error) {
	if s.st == csData {
		k := int(min(uint64(len(b)), s.rem))
		if s.rem -= uint64(k); s.rem == 0 {
			s.st = csDataCR
		}
		return k, false, nil
	}
	for i, x := range b {
		switch s.st {
		case csSize, csSizeWS, csExt:
			if s.line++; s.line > maxChunkLine-2 {
				return i, false, errChunked
			}
		case csTrailer, csTrailerCR, csTrailerLine:
			if s.trailer++; s.trailer > maxTrailer {
				return i, false, errChunked
			}
		}
		switch s.st {
		case csSize:
			switch {
			case x >= '0' && x <= '9', x >= 'a' && x <= 'f', x >= 'A' && x <= 'F':
				if s.digits++; s.digits > 16 {
					return i, false, errChunked
				}
				s.rem = s.rem<<4 | uint64(hexDigit(x))
			case s.digits == 0:
				return i, false, errChunked
			case x == ';':
				s.st = csExt
			case x == ' ' || x == '\t':
				s.st = csSizeWS
			case x == '\r':
				s.st = csSizeLF
			default:
				return i, false, errChunked
			}
		case csSizeWS:
			switch x {
			case ' ', '\t':
			case '\r':
				s.st = csSizeLF
			default:
				return i, false, errChunked
			}
		case csExt:
			switch x {
			case '\r':
				s.st = csSizeLF
			case '\n':
				return i, false, errChunked
			}
		case csSizeLF:
			if x != '\n' {
				return i, false, errChunked
			}
			s.digits, s.line = 0, 0
			if s.rem == 0 {
				s.st = csTrailer
				continue
			}
			s.st = csData
			return i + 1, false, nil
		case csDataCR:
			if x != '\r' {
				return i, false, errChunked
			}
			s.st = csDataLF
		case csDataLF:
			if x != '\n' {
				return i, false, errChunked
			}
			s.st = csSize
		case csTrailer:
			switch x {
			case '\n':
				s.st = csDone
				return i + 1, true, nil
			case '\r':
				s.st = csTrailerCR
			default:
				s.st = csTrailerLine
			}
		case csTrailerCR:
			if x == '\n' {
				s.st = csDone
				return i + 1, true, nil
			}
			s.st = csTrailerLine
		case csTrailerLine:
			if x == '\n' {
				s.st = csTrailer
			}
		case csDone:
			return i, true, nil
		}
	}
	return len(b), false, nil
}

func hexDigit(x byte) byte {
	switch {
	case x >= 'a':
		return x - 'a' + 10
	case x >= 'A':
		return x - 'A' + 10
	}
	return x - '0'
}
