package node

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/bloomcast/bloomcast/internal/httpx"
)

// readBounded reads a body of at most limit bytes whose length, if
// announced (Content-Length), is announced (-1 if not), and refuses a
// longer one. The memory it allocates stays within twice limit whatever
// the sender does: an announced length is allocated once; a body of
// unknown length (chunked, or decoded from a compressed one) is read into
// pieces whose capacities add up to at most limit bytes (one more byte,
// read alone, refuses it), and joined into one slice only when it turned
// out within limit. (io.ReadAll instead grows one slice by copying it,
// and the garbage of its growth can reach several times the limit before
// the collector runs.)
func readBounded(body io.Reader, announced, limit int64) ([]byte, error) {
	if announced > limit {
		return nil, fmt.Errorf("digest of %d bytes exceeds the limit of %d", announced, limit)
	}
	if announced >= 0 {
		buf := make([]byte, announced)
		if _, err := io.ReadFull(body, buf); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		return buf, nil
	}
	const first, most = 64 << 10, 4 << 20
	var pieces [][]byte
	var total int64
	size := int64(first)
	for total < limit {
		if len(pieces) == 0 || len(pieces[len(pieces)-1]) == cap(pieces[len(pieces)-1]) {
			n := min(size, limit-total) // the pieces' capacities add up to limit at most
			pieces = append(pieces, make([]byte, 0, n))
			size = min(2*size, most)
		}
		last := &pieces[len(pieces)-1]
		n, err := body.Read((*last)[len(*last):cap(*last)])
		*last = (*last)[:len(*last)+n]
		total += int64(n)
		if err == io.EOF {
			return join(pieces, total), nil
		}
		if err != nil {
			return nil, err
		}
	}
	// limit bytes read: one more means too many.
	var probe [1]byte
	if n, err := io.ReadFull(body, probe[:]); n > 0 {
		return nil, fmt.Errorf("digest exceeds the limit of %d bytes", limit)
	} else if err != io.EOF {
		return nil, err
	}
	return join(pieces, total), nil
}

// join returns the pieces as one slice of total bytes, dropping each
// piece once copied.
func join(pieces [][]byte, total int64) []byte {
	switch len(pieces) {
	case 0:
		return []byte{}
	case 1:
		return pieces[0]
	}
	out := make([]byte, 0, total)
	for i, p := range pieces {
		out = append(out, p...)
		pieces[i] = nil
	}
	return out
}

// digestClient returns a client for fetching digests with the given
// timeout. It does not ask for compressed responses (a digest is coded
// already), so that a response a peer compresses unasked is taken as
// the bytes it is, which no digest decoder accepts, and never inflated.
// It goes to the peer itself, never through HTTP_PROXY, and follows no
// redirect: a peer's 3xx is a failed fetch, not a URL the node fetches
// for it (RFC 9110 §15.4: following one is the client's choice).
func digestClient(timeout time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	t.Proxy = nil
	return &http.Client{Timeout: timeout, Transport: t,
		CheckRedirect: httpx.NoRedirect}
}
