package originclient

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// TestOriginTransferCodings has a hostile origin send bodies in each
// transfer coding the node decodes: the client gets the decoded body, the
// second request is a hit with the same body, and the origin is asked
// once. The last case's Transfer-Encoding spans two fields.
// TestHeadEnd checks where a head ends, read in pieces.
func TestHeadEnd(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"HTTP/1.1 200 OK\r\n\r\nbody", 19},
		{"HTTP/1.1 200 OK\nA: b\n\nbody", 22},
		{"HTTP/1.1 200 OK\r\nA: b\r\n", 0},
		{"HTTP/1.1 200 OK\r\nA: b\r\r\n\r\n", 26},
	} {
		for from := 0; from <= len(c.in); from++ {
			if got := headEnd([]byte(c.in), min(from, len(c.in))); got != c.want && (c.want == 0 || from < c.want) {
				t.Errorf("headEnd(%q, %d) = %d, want %d", c.in, from, got, c.want)
			}
		}
	}
}

// feedConn is a net.Conn whose reads come from r (the framer's fuzz
// target reads no socket).
type feedConn struct {
	net.Conn
	r io.Reader
}

func (f *feedConn) Read(p []byte) (int, error) { return f.r.Read(p) }

// FuzzCodingConn feeds arbitrary bytes to the framer as an origin's
// responses, each to a GET, read in pieces of arbitrary size: it never
// panics, and whatever it did not decode it passes on byte for byte.
func FuzzCodingConn(f *testing.F) {
	f.Add(uint16(4096), []byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 204 No Content\r\n\r\n"))
	f.Add(uint16(7), []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x\r\nhello\r\n0\r\nT: 1\r\n\r\nHTTP/1.1 200 OK\r\n\r\nrest"))
	f.Add(uint16(3), []byte("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 304 Not Modified\r\n\r\nHTTP/1.0 200 OK\r\n\r\n"))
	f.Add(uint16(100), []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"+testutil.Chunked(testutil.Gzipped(f, "hello"), 4)+"HTTP/1.1 200 OK\r\nTransfer-Encoding: deflate\r\n\r\n"+testutil.Zlibbed(f, "x")))
	f.Add(uint16(1), []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: compress, chunked\r\n\r\n0\r\n\r\n"))
	f.Add(uint16(64), []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: x-compress\r\n\r\n"+string(testutil.UnixCompress([]byte("hello, hello, hello"), 9, true, true))))
	f.Fuzz(func(t *testing.T, size uint16, in []byte) {
		c := &codingConn{Conn: &feedConn{r: bytes.NewReader(in)}}
		p := make([]byte, int(size%8192)+1)
		var out []byte
		for i := 0; i < 1<<20; i++ {
			if c.state == stHead {
				c.expect(http.MethodGet)
			}
			n, err := c.Read(p)
			out = append(out, p[:n]...)
			if err != nil {
				break
			}
		}
		if c.head == nil && !bytes.Equal(out, in) {
			t.Fatalf("nothing decoded, yet\n in %q\nout %q", in, out)
		}
	})
}

// TestCodingConnDecodesForNetHTTP reads the framer's output of a coded
// sequence with net/http's own response reader.
func TestCodingConnDecodesForNetHTTP(t *testing.T) {
	in := "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + testutil.Chunked(testutil.Gzipped(t, "hello"), 4) +
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc" +
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: deflate\r\n\r\n" + testutil.Deflated(t, "world")
	c := &codingConn{Conn: &feedConn{r: strings.NewReader(in)}}
	br := bufio.NewReader(c)
	for _, want := range []string{"hello", "abc", "world"} {
		c.expect(http.MethodGet)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil || string(b) != want {
			t.Fatalf("%q %v, want %q", b, err, want)
		}
	}
}
