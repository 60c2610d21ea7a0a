package natsdigest

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcast/bloomcast/internal/ratelog"
	"github.com/bloomcast/bloomcast/node"
	"github.com/nats-io/nats.go"
)

// Headers of a chunk, one of the messages a digest larger than the
// server's max_payload is split into. A chunk carries NodeHeader,
// KindHeader and ETagHeader as a single message does, and
// ChunkSequenceHeader in place of SequenceHeader, so that a node that
// does not reassemble chunks ignores them (it requires SequenceHeader).
const (
	ChunkIDHeader       = "Bloomcast-Chunk-Id"       // shared by one digest's chunks, unique to it
	ChunkHeader         = "Bloomcast-Chunk"          // "<index>/<count>", index from 0
	ChunkLengthHeader   = "Bloomcast-Chunk-Length"   // the whole frame's length in bytes
	ChunkSequenceHeader = "Bloomcast-Chunk-Sequence" // the digest's sequence
)

// DefaultMaxDigestBytes is Config.MaxDigestBytes's default, the default
// of node.NodeConfig.MaxDigestBytes too.
const DefaultMaxDigestBytes = 64 << 20

// heldPerDigest is the number of Config.MaxDigestBytes the incomplete
// digests of all nodes may hold together.
const heldPerDigest = 4

// pendingOverhead is what an incomplete digest is counted to hold beyond
// its bytes and header values, so that many tiny ones are bounded too.
const pendingOverhead = 256

// headerRoom is the room left in a message besides the headers it is
// counted to carry, for what the client's encoding may add.
const headerRoom = 64

// errChunk reports a chunk that cannot belong to a digest: the line
// logged when one is dropped.
var errChunk = errors.New("natsdigest: chunk")

// headerSize is the size of h on the wire, as the NATS client encodes it
// ("NATS/1.0", then a "Key: value" line each, then an empty line).
func headerSize(h nats.Header) int {
	n := len("NATS/1.0\r\n\r\n")
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(": \r\n") + len(v)
		}
	}
	return n
}

// split returns the payloads of the messages a frame with header h goes
// out in, within a max payload of limit bytes: the frame itself if it
// fits with h, else chunks each as large as the chunk headers, counted
// at their widest, leave room for. It returns nil if limit leaves no
// room for a byte of data. A limit of 0 or less (a connection that has
// not learnt the server's) is no limit.
func split(frame []byte, h nats.Header, limit int64) [][]byte {
	if limit <= 0 || int64(headerSize(h)+len(frame)) <= limit {
		return [][]byte{frame}
	}
	widest := nats.Header{}
	for k, v := range h {
		widest[k] = v
	}
	long := strconv.FormatUint(1<<64-1, 10)
	widest.Set(ChunkIDHeader, strings.Repeat("x", idLen))
	widest.Set(ChunkHeader, long+"/"+long)
	widest.Set(ChunkLengthHeader, long)
	widest.Set(ChunkSequenceHeader, long)
	size := limit - int64(headerSize(widest)+headerRoom)
	if size <= 0 {
		return nil
	}
	chunks := make([][]byte, 0, (int64(len(frame))+size-1)/size)
	for rest := frame; len(rest) > 0; {
		n := min(int64(len(rest)), size)
		chunks = append(chunks, rest[:n])
		rest = rest[n:]
	}
	return chunks
}

// idLen is the length of a chunked digest's id.
const idLen = 26

// newID returns a chunked digest's id: 26 random base32 characters, so
// that two digests of one node, even with the same sequence (a node that
// restarted), never share one.
func newID() string { return rand.Text() }

// chunkHeader returns the header of chunk i of count of a frame of
// length bytes, from the single message's header h.
func chunkHeader(h nats.Header, id string, i, count, length int) nats.Header {
	c := nats.Header{}
	for _, k := range []string{NodeHeader, KindHeader, ETagHeader} {
		if v := h.Get(k); v != "" {
			c.Set(k, v)
		}
	}
	c.Set(ChunkSequenceHeader, h.Get(SequenceHeader))
	c.Set(ChunkIDHeader, id)
	c.Set(ChunkHeader, strconv.Itoa(i)+"/"+strconv.Itoa(count))
	c.Set(ChunkLengthHeader, strconv.Itoa(length))
	return c
}

// chunk is one chunk's headers, parsed.
type chunk struct {
	node, id, kind, etag string
	seq                  uint64
	index, count, length int
}

// parseChunk reads a chunk's headers, refusing any that cannot belong to
// a digest of at most limit bytes sent as chunks of data: a chunk is never
// empty, its index is below the count, and the count at most the length.
func parseChunk(h nats.Header, data []byte, limit int64) (chunk, error) {
	c := chunk{node: h.Get(NodeHeader), id: h.Get(ChunkIDHeader), kind: h.Get(KindHeader), etag: h.Get(ETagHeader)}
	index, count, ok := strings.Cut(h.Get(ChunkHeader), "/")
	i, err1 := strconv.ParseUint(index, 10, 31)
	n, err2 := strconv.ParseUint(count, 10, 31)
	length, err3 := strconv.ParseUint(h.Get(ChunkLengthHeader), 10, 63)
	seq, err4 := strconv.ParseUint(h.Get(ChunkSequenceHeader), 10, 64)
	switch {
	case c.node == "":
		return c, fmt.Errorf("%w: no %s header", errChunk, NodeHeader)
	case c.id == "" || len(c.id) > 2*idLen:
		return c, fmt.Errorf("%w: %s %.64q", errChunk, ChunkIDHeader, c.id)
	case !ok || err1 != nil || err2 != nil || i >= n:
		return c, fmt.Errorf("%w: %s %.64q (want index/count, index below count)", errChunk, ChunkHeader, h.Get(ChunkHeader))
	case err3 != nil || length > uint64(limit) || length < n:
		return c, fmt.Errorf("%w: %s %.64q (want %d to %d bytes)", errChunk, ChunkLengthHeader, h.Get(ChunkLengthHeader), n, limit)
	case err4 != nil:
		return c, fmt.Errorf("%w: %s %.64q", errChunk, ChunkSequenceHeader, h.Get(ChunkSequenceHeader))
	case c.kind != "full" && c.kind != "delta":
		return c, fmt.Errorf("%w: %s %.64q", errChunk, KindHeader, c.kind)
	case len(data) == 0:
		return c, fmt.Errorf("%w: empty", errChunk)
	}
	c.seq, c.index, c.count, c.length = seq, int(i), int(n), int(length)
	return c, nil
}

// pending is a digest whose first chunks have come.
type pending struct {
	chunk        // the first chunk's headers, which every chunk repeats
	next  int    // the index of the chunk expected next
	frame []byte // the chunks so far
}

// held is what p is counted to hold.
func (p *pending) held() int64 {
	return int64(len(p.frame) + len(p.node) + len(p.id) + len(p.etag) + pendingOverhead)
}

// reassembler joins the chunks of digests back into frames, per
// publishing node, from the stream's messages in order: it holds at
// most one incomplete digest per node, each at most max bytes, and
// maxHeld bytes for all nodes together. A sequence of chunks that breaks
// off (a chunk missing, out of order, of another digest, or a single
// message from the node before the last chunk), that disagrees with its
// first chunk, or that would hold more is dropped and logged (a first
// chunk delivered again starts its digest again); a chunk whose
// sequence began before the stream's start (a node that joins after a
// purge, or after the stream lost messages) is skipped, so that delivery
// resumes at the node's next complete message. What a node
// misses it learns as if the message had been lost: its Directory
// resyncs over HTTP at the next delta whose base it lacks, or polls the
// peer.
type reassembler struct {
	self         string // chunks of self's are skipped
	max, maxHeld int64
	log          *slog.Logger

	mu      sync.Mutex
	held    int64
	pending map[string]*pending // by node

	dropped atomic.Uint64 // incomplete digests and malformed chunks dropped

	warnings *ratelog.Limiter // by message, a constant: bounded; from runs on the alive subscription's goroutine too
}

func newReassembler(self string, limit int64, log *slog.Logger) *reassembler {
	return &reassembler{self: self, max: limit, maxHeld: heldPerDigest * limit, log: log, pending: map[string]*pending{},
		warnings: ratelog.New(logEvery)}
}

// add takes one message of the stream, a single message or a chunk, and
// returns the digest message it completes; ok is false while none is
// complete, for a message that is no digest message and for one of self's.
func (r *reassembler) add(h nats.Header, data []byte) (m node.DigestMessage, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := h.Get(NodeHeader)
	if name == r.self {
		return node.DigestMessage{}, false
	}
	if h.Get(ChunkHeader) == "" && h.Get(ChunkIDHeader) == "" {
		if p := r.pending[name]; p != nil {
			r.drop(p, "a single message came before its last chunk")
		}
		return decode(h, data)
	}
	c, err := parseChunk(h, data, r.max)
	if err != nil {
		if p := r.pending[name]; p != nil {
			r.drop(p, "a chunk after it was malformed")
		}
		r.dropped.Add(1)
		r.warn("NATS: dropped a malformed digest chunk", "node", name, "err", err)
		return node.DigestMessage{}, false
	}
	p := r.pending[name]
	if p != nil && (c.id != p.id || c.index != p.next) {
		switch {
		case c.id != p.id:
			r.drop(p, "a chunk of another digest came before its last chunk")
		case c.index == 0: // delivered again: start again
			r.drop(p, "its first chunk came again")
		default:
			r.drop(p, fmt.Sprintf("chunk %d of %d came after chunk %d", c.index, c.count, p.next-1))
			return node.DigestMessage{}, false
		}
		p = nil
	}
	if p == nil {
		if c.index != 0 {
			r.log.Debug("NATS: skipped a digest chunk whose first chunk was not read", "node", name, "id", c.id, "chunk", h.Get(ChunkHeader))
			return node.DigestMessage{}, false
		}
		p = &pending{chunk: c}
		r.pending[name] = p
		r.held += p.held()
	} else if c.count != p.count || c.length != p.length || c.seq != p.seq || c.kind != p.kind || c.etag != p.etag {
		r.drop(p, fmt.Sprintf("chunk %d's headers differ from the first chunk's", c.index))
		return node.DigestMessage{}, false
	}
	switch {
	case len(p.frame)+len(data) > p.length:
		r.drop(p, fmt.Sprintf("chunk %d of %d ends past the length of %d bytes", c.index, c.count, p.length))
		return node.DigestMessage{}, false
	case c.index == c.count-1 && len(p.frame)+len(data) != p.length:
		r.drop(p, fmt.Sprintf("the last chunk ends at %d bytes of %d", len(p.frame)+len(data), p.length))
		return node.DigestMessage{}, false
	case r.held+int64(len(data)) > r.maxHeld:
		r.drop(p, fmt.Sprintf("the incomplete digests of all nodes would hold more than %d bytes", r.maxHeld))
		return node.DigestMessage{}, false
	}
	p.frame = append(p.frame, data...)
	r.held += int64(len(data))
	p.next++
	if p.next < p.count {
		return node.DigestMessage{}, false
	}
	r.forget(p)
	return node.DigestMessage{Node: p.node, Sequence: p.seq, Delta: p.kind == "delta", ETag: p.etag, Frame: p.frame}, true
}

// drop logs, counts and forgets an incomplete digest.
func (r *reassembler) drop(p *pending, why string) {
	r.dropped.Add(1)
	r.warn("NATS: dropped an incomplete digest; the node resyncs over HTTP or polls", "node", p.node,
		"sequence", p.seq, "id", p.id, "chunks", fmt.Sprintf("%d of %d", p.next, p.count), "why", why)
	r.forget(p)
}

// forget removes p from the incomplete digests.
func (r *reassembler) forget(p *pending) {
	r.held -= p.held()
	delete(r.pending, p.node)
}

// from reports whether a message on subject, under prefix, names in h the
// node whose subject it is. Any client the server lets publish may use
// any subject: a message that names another node is refused, counted and
// logged, so that it can neither change that node's view nor break off
// its chunks.
func (r *reassembler) from(subject, prefix string, h nats.Header) bool {
	name := h.Get(NodeHeader)
	if subject == prefix+"."+Token(name) {
		return true
	}
	r.dropped.Add(1)
	r.warn("NATS: dropped a digest message naming another node than its subject's", "subject", subject, "node", name)
	return false
}

// logEvery is how often a warning of one kind is logged at most; the
// ones left out meanwhile are counted in the next.
const logEvery = time.Minute

// warn logs msg at most once per logEvery, so that a publisher sending
// many bad messages does not flood the log; Dropped counts them all.
func (r *reassembler) warn(msg string, args ...any) {
	ok, left := r.warnings.Allow(msg, time.Now())
	if !ok {
		return
	}
	if left > 0 {
		args = append(args, "not_logged_since_last", left)
	}
	r.log.Warn(msg, args...)
}

// holding returns the number of incomplete digests and the bytes they
// are counted to hold.
func (r *reassembler) holding() (int, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending), r.held
}
