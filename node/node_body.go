package node

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// bodyWait is how long Go's server may go on reading a request body the
// handler left unread (a refusal, an answer from the store) once it
// answers: it reads up to 256 KiB of it, so that a client still sending
// sees the answer, and sets no deadline of its own.
const bodyWait = time.Second

// hasBody reports whether r comes with a body.
func hasBody(r *http.Request) bool { return r.Body != nil && r.Body != http.NoBody }

// boundBody bounds the reading of r's body, if it has one: every read
// the handler makes must bring a byte within the read timeout (Squid's
// read_timeout, applied to the client), and what it leaves unread is
// waited for bodyWait at most. It returns the request to serve and the
// function to call before the handler returns.
func (n *Node) boundBody(w http.ResponseWriter, r *http.Request) (*http.Request, func()) {
	if !hasBody(r) {
		return r, func() {}
	}
	b := &idleBody{ReadCloser: r.Body, rc: http.NewResponseController(w), timeout: n.cfg.ReadTimeout}
	b.deadline(time.Now().Add(bodyWait))
	r = r.WithContext(r.Context())
	r.Body = b
	return r, b.end
}

// idleBody is a request body whose every read moves the connection's
// read deadline timeout on, until the handler is done.
type idleBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration

	mu   sync.Mutex // the body may be read by the origin client's goroutine
	eof  bool
	done bool // the handler has returned: the connection is no longer its
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.deadline(time.Now().Add(b.timeout))
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.mu.Lock()
		b.eof = true
		b.mu.Unlock()
		b.deadline(time.Time{}) // Go's server reads on, to see the client go
	}
	return n, err
}

// deadline sets the connection's read deadline, unless the handler is done.
func (b *idleBody) deadline(t time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done {
		_ = b.rc.SetReadDeadline(t)
	}
}

// end is called as the handler returns: a body left unread is waited
// for bodyWait at most.
func (b *idleBody) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.eof {
		_ = b.rc.SetReadDeadline(time.Now().Add(bodyWait))
	}
	b.done = true
}
