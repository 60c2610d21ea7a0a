// Package natsdigest carries summary-cache digests between bloomcast
// nodes over NATS JetStream: a [node.DigestTransport] for
// node.NodeConfig.Transport, so that each node publishes each update
// once and the server fans it out to every peer, instead of every node
// polling every other over HTTP (Fan, Cao, Almeida and Broder, "Summary
// cache", IEEE/ACM ToN 2000, section V: a node sends its digest's
// updates to its peers).
//
// Each node publishes to a subject of its own, "<Subject>.<node>" (the
// node's name with '.', '*', '>', '%' and white space escaped as %XX), in
// one stream whose subjects are "<Subject>.*". A full digest replaces
// what the stream held for the node (a purge of that subject keeping its
// last messages, the full digest just published, one message or its
// chunks: the node publishes one digest at a time), so the stream keeps,
// per node, the last full digest and the deltas after it: a node that
// starts reads the stream from its start with an ordered consumer and
// has every peer's current view at once, then follows the updates as
// they come. The node decides when to send a full digest rather than a
// delta (node.Node.PushDigest: when the deltas since the last full
// digest would outweigh one). Messages carry the frame as their payload,
// with the node, sequence, kind and entity tag in headers. Alive
// messages, which carry no frame and need no retention, go over core
// NATS to "<AliveSubject>.<node>".
//
// A message whose NodeHeader names another node than its subject's (any
// client the server lets publish may use any subject) is dropped,
// counted and logged; warnings of one kind are logged at most once a
// minute, with the number left out.
//
// The transport never drops a node's own checks: every frame delivered is
// decoded, size-limited and base-checked by the node's node.Directory as
// a polled one is, and a delta that does not apply makes the node fetch
// the full digest over HTTP. While the server cannot be reached, Connected
// is false and the node polls its peers over HTTP; the transport
// reconnects by itself and the ordered consumer resumes where it stopped.
//
// A message is at most the server's max_payload (1 MiB by default,
// headers included; the client learns it when it connects). A frame that
// fits goes as one message, exactly as before chunks existed. A larger
// one (a full digest of about 500,000 objects at 16 bits each) goes as
// chunks: consecutive messages on the node's subject, each with the
// headers of a single message but with ChunkSequenceHeader in place of
// SequenceHeader, and ChunkIDHeader (shared by the digest's chunks),
// ChunkHeader (the chunk's index and the count) and ChunkLengthHeader
// (the frame's length). A receiver joins them back, checks that they
// follow each other and add up to the length, and delivers the frame,
// whose own checksum the node's Directory checks as it decodes it; it
// holds at most one incomplete digest per node, of at most
// Config.MaxDigestBytes, and drops and logs a sequence that breaks off,
// disagrees with itself or would hold more. A purge after a full digest
// keeps all its chunks, and a node that starts reading in the middle of
// a node's chunks skips to that node's next complete message. Nodes
// without chunking (bloomcast before it) ignore chunks, which lack the
// SequenceHeader they require, and learn such digests over HTTP as they
// did; single messages pass between old and new nodes unchanged.
//
// "bloomcast serve --nats URL" (the bloomcast command built from this
// module, cluster/cmd/bloomcast) runs a node with this transport.
package natsdigest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcast/bloomcast/node"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Defaults of Config.
const (
	DefaultStream       = "BLOOMCAST_DIGESTS"
	DefaultSubject      = "bloomcast.digest"
	DefaultAliveSubject = "bloomcast.alive"
)

// Headers of a digest message.
const (
	NodeHeader     = "Bloomcast-Node"
	SequenceHeader = "Bloomcast-Sequence"
	KindHeader     = "Bloomcast-Kind" // "full" or "delta"
	ETagHeader     = "Bloomcast-Etag"
)

// errNotConnected reports a connection that is not up (yet, or again):
// the client goes on trying to reach the server, unlike after the
// nats.ErrConnectionClosed it used to be reported as.
var errNotConnected = errors.New("natsdigest: not connected to the server")

// ErrConfig reports an invalid Config.
var ErrConfig = errors.New("natsdigest: invalid configuration")

// Config configures a [Transport].
//
// The zero Config is not valid: New refuses an empty URL.
type Config struct {
	// URL is the NATS server, "nats://host:port", or several separated
	// by commas.
	URL string
	// Stream is the JetStream stream's name; empty means DefaultStream.
	// Subject is the prefix of the nodes' subjects; empty means
	// DefaultSubject. AliveSubject is the prefix of the alive messages'
	// subjects; empty means DefaultAliveSubject. Every node of a cluster
	// must use the same three.
	Stream, Subject, AliveSubject string
	// Replicas is the stream's replication factor on a NATS cluster; 0
	// means 1.
	Replicas int
	// Timeout bounds each request to the server (connecting, creating
	// the stream and the consumer, publishing); 0 means 5 s.
	Timeout time.Duration
	// MaxDigestBytes bounds a digest received in chunks, and one sent:
	// Publish refuses a larger frame, which the peers would drop; 0
	// means DefaultMaxDigestBytes. The incomplete digests of all nodes
	// together hold at most four times as much. The node's Directory
	// applies its own limit (node.NodeConfig.MaxDigestBytes) to every
	// digest. Every node of a cluster should use the same.
	MaxDigestBytes int64
	// Logger logs connection changes and dropped chunks; nil means none.
	Logger *slog.Logger
}

// Transport is a [node.DigestTransport] over NATS JetStream. Safe for
// concurrent use.
//
// The zero Transport is not usable; make one with New.
type Transport struct {
	cfg Config
	log *slog.Logger

	publish sync.Mutex // one digest's chunks follow each other on the subject

	mu      sync.Mutex
	nc      *nats.Conn
	js      jetstream.JetStream
	stream  jetstream.Stream
	consume jetstream.ConsumeContext
	alive   *nats.Subscription
	stop    context.CancelFunc
	done    chan struct{}

	ready atomic.Bool // the stream and the consumer are set up

	chunks atomic.Pointer[reassembler] // set by Start; read by Dropped without mu, which setup holds while it retries
}

var (
	_ node.DigestTransport = (*Transport)(nil)
	_ node.DropCounter     = (*Transport)(nil)
)

// New checks cfg and returns a transport; Start connects it.
func New(cfg Config) (*Transport, error) {
	if cfg.Stream == "" {
		cfg.Stream = DefaultStream
	}
	if cfg.Subject == "" {
		cfg.Subject = DefaultSubject
	}
	if cfg.AliveSubject == "" {
		cfg.AliveSubject = DefaultAliveSubject
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.MaxDigestBytes == 0 {
		cfg.MaxDigestBytes = DefaultMaxDigestBytes
	}
	if err := checkURLs(cfg.URL); err != nil {
		return nil, err
	}
	switch {
	case strings.ContainsAny(cfg.Stream, " \t\r\n.*>/\\"):
		return nil, fmt.Errorf("%w: stream name %q", ErrConfig, cfg.Stream)
	case !validPrefix(cfg.Subject) || !validPrefix(cfg.AliveSubject) || cfg.Subject == cfg.AliveSubject:
		return nil, fmt.Errorf("%w: subjects %q and %q (want two different tokens separated by dots, no wildcards)", ErrConfig, cfg.Subject, cfg.AliveSubject)
	case cfg.Replicas < 1 || cfg.Replicas > 5:
		return nil, fmt.Errorf("%w: %d replicas (want 1 to 5)", ErrConfig, cfg.Replicas)
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("%w: timeout %v", ErrConfig, cfg.Timeout)
	case cfg.MaxDigestBytes < 0 || cfg.MaxDigestBytes > math.MaxInt/heldPerDigest:
		return nil, fmt.Errorf("%w: largest digest %d bytes", ErrConfig, cfg.MaxDigestBytes)
	}
	t := &Transport{cfg: cfg, log: cfg.Logger}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	return t, nil
}

// checkURLs checks a comma-separated list of server URLs.
func checkURLs(list string) error {
	if strings.TrimSpace(list) == "" {
		return fmt.Errorf("%w: no NATS server URL", ErrConfig)
	}
	for _, s := range strings.Split(list, ",") {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil || u.Host == "" || (u.Scheme != "nats" && u.Scheme != "tls" && u.Scheme != "ws" && u.Scheme != "wss") {
			return fmt.Errorf("%w: NATS server URL %q (want nats://host:port)", ErrConfig, s)
		}
	}
	return nil
}

// validPrefix reports whether s is a subject without wildcards.
func validPrefix(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\r\n*>") {
		return false
	}
	for _, tok := range strings.Split(s, ".") {
		if tok == "" {
			return false
		}
	}
	return true
}

// Token escapes a node's name into one subject token: '.', '*', '>',
// '%' and white space become %XX.
func Token(node string) string {
	var b strings.Builder
	for i := 0; i < len(node); i++ {
		switch c := node[i]; c {
		case '.', '*', '>', '%', ' ', '\t', '\r', '\n':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Subject returns the subject node publishes its digests to.
func (t *Transport) Subject(node string) string { return t.cfg.Subject + "." + Token(node) }

// Name returns "nats".
func (t *Transport) Name() string { return "nats" }

// Dropped returns the number of digests received in chunks and dropped
// incomplete (a chunk missing or malformed, or the bounds on what is
// held), and of malformed chunks: what the node learns instead over
// HTTP. It implements node.DropCounter.
func (t *Transport) Dropped() uint64 {
	if r := t.chunks.Load(); r != nil {
		return r.dropped.Load()
	}
	return 0
}

// Start connects to the server, makes the stream if it does not exist
// and reads it with an ordered consumer from its start, delivering
// every node's messages but self's, and subscribes to the alive
// messages. If the server cannot be reached within the timeout, Start
// returns nil and goes on trying every second in the background
// (Connected reports false meanwhile). It is called once.
func (t *Transport) Start(ctx context.Context, self string, deliver func(node.DigestMessage)) error {
	if t.cfg.URL == "" {
		return fmt.Errorf("%w: zero Transport; use New", ErrConfig)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.nc != nil {
		return fmt.Errorf("%w: Start called twice", ErrConfig)
	}
	var one sync.Mutex // deliver runs on one goroutine at a time
	handle := func(m node.DigestMessage, ok bool) {
		if !ok || m.Node == self {
			return
		}
		one.Lock()
		defer one.Unlock()
		deliver(m)
	}
	nc, err := nats.Connect(t.cfg.URL, nats.Name("bloomcast "+self), nats.Timeout(t.cfg.Timeout),
		nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { t.log.Warn("NATS disconnected", "err", err) }),
		nats.ReconnectHandler(func(c *nats.Conn) { t.log.Info("NATS reconnected", "server", c.ConnectedUrlRedacted()) }))
	if err != nil {
		return fmt.Errorf("natsdigest: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return fmt.Errorf("natsdigest: %w", err)
	}
	t.nc, t.js = nc, js
	chunks := newReassembler(self, t.cfg.MaxDigestBytes, t.log)
	t.chunks.Store(chunks)
	alive := func(msg *nats.Msg) {
		if chunks.from(msg.Subject, t.cfg.AliveSubject, msg.Header) {
			handle(decode(msg.Header, nil))
		}
	}
	if t.alive, err = nc.Subscribe(t.cfg.AliveSubject+".*", alive); err != nil {
		nc.Close()
		return fmt.Errorf("natsdigest: %w", err)
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	t.stop, t.done = stop, make(chan struct{})
	consume := func(msg jetstream.Msg) {
		if chunks.from(msg.Subject(), t.cfg.Subject, msg.Headers()) {
			handle(chunks.add(msg.Headers(), msg.Data()))
		}
	}
	if err := t.setupLocked(bg, consume); err == nil {
		close(t.done)
		return nil
	} else {
		t.log.Warn("NATS JetStream not reachable yet; retrying", "url", t.cfg.URL, "err", err)
	}
	go func() {
		defer close(t.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-bg.Done():
				return
			case <-tick.C:
			}
			t.mu.Lock()
			err := t.setupLocked(bg, consume)
			t.mu.Unlock()
			if err == nil {
				t.log.Info("NATS JetStream digest stream ready", "stream", t.cfg.Stream)
				return
			}
		}
	}()
	return nil
}

// setupLocked makes the stream and the ordered consumer.
func (t *Transport) setupLocked(ctx context.Context, consume jetstream.MessageHandler) error {
	if !t.nc.IsConnected() {
		return errNotConnected
	}
	c, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	s, err := t.js.CreateOrUpdateStream(c, jetstream.StreamConfig{
		Name: t.cfg.Stream, Subjects: []string{t.cfg.Subject + ".*"},
		Description: "bloomcast digests: per node, the last full digest and the deltas after it",
		Retention:   jetstream.LimitsPolicy, Storage: jetstream.FileStorage, Replicas: t.cfg.Replicas,
	})
	if err != nil {
		return err
	}
	oc, err := t.js.OrderedConsumer(c, t.cfg.Stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{t.cfg.Subject + ".*"}, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return err
	}
	cc, err := oc.Consume(consume)
	if err != nil {
		return err
	}
	t.stream, t.consume = s, cc
	t.ready.Store(true)
	return nil
}

// decode reads a message's headers and payload; ok is false for a
// message that is not a digest message.
func decode(h nats.Header, data []byte) (node.DigestMessage, bool) {
	seq, err := strconv.ParseUint(h.Get(SequenceHeader), 10, 64)
	name := h.Get(NodeHeader)
	if err != nil || name == "" {
		return node.DigestMessage{}, false
	}
	return node.DigestMessage{Node: name, Sequence: seq, Delta: h.Get(KindHeader) == "delta",
		ETag: h.Get(ETagHeader), Frame: data}, true
}

// Publish sends one of this node's messages: a full digest, then purges
// the node's older messages from the stream; a delta; or, with no frame,
// an alive message over core NATS. A full digest or delta larger than
// the server's max_payload goes as chunks, one after the other.
func (t *Transport) Publish(ctx context.Context, m node.DigestMessage) error {
	t.mu.Lock()
	nc, js, stream := t.nc, t.js, t.stream
	t.mu.Unlock()
	if nc == nil {
		return fmt.Errorf("%w: Publish before Start", ErrConfig)
	}
	h := nats.Header{}
	h.Set(NodeHeader, m.Node)
	h.Set(SequenceHeader, strconv.FormatUint(m.Sequence, 10))
	if len(m.Frame) == 0 {
		return nc.PublishMsg(&nats.Msg{Subject: t.cfg.AliveSubject + "." + Token(m.Node), Header: h})
	}
	if stream == nil {
		return errors.New("natsdigest: the digest stream is not set up yet")
	}
	kind := "full"
	if m.Delta {
		kind = "delta"
	}
	h.Set(KindHeader, kind)
	if m.ETag != "" {
		h.Set(ETagHeader, m.ETag)
	}
	subject := t.Subject(m.Node)
	if int64(len(m.Frame)) > t.cfg.MaxDigestBytes {
		return fmt.Errorf("natsdigest: publish %s: a frame of %d bytes, over the largest digest of %d that peers accept", subject, len(m.Frame), t.cfg.MaxDigestBytes)
	}
	chunks := split(m.Frame, h, nc.MaxPayload())
	if chunks == nil {
		return fmt.Errorf("natsdigest: the server's max_payload of %d bytes leaves no room for a chunk", nc.MaxPayload())
	}
	t.publish.Lock()
	defer t.publish.Unlock()
	id := newID()
	var first uint64
	for i, data := range chunks {
		msg := &nats.Msg{Subject: subject, Header: h, Data: data}
		if len(chunks) > 1 {
			msg.Header = chunkHeader(h, id, i, len(chunks), len(m.Frame))
		}
		c, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
		ack, err := js.PublishMsg(c, msg)
		cancel()
		switch {
		case err != nil && len(chunks) > 1:
			return fmt.Errorf("natsdigest: publish %s: chunk %d of %d: %w", subject, i, len(chunks), err)
		case err != nil:
			return fmt.Errorf("natsdigest: publish %s: %w", subject, err)
		case i == 0:
			first = ack.Sequence
		}
	}
	if m.Delta {
		return nil
	}
	c, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	return purgeBefore(c, stream, subject, first, uint64(len(chunks)))
}

// purgeBefore removes the messages on subject that came before the full
// digest whose first message is at seq, one message or n chunks: it
// keeps the subject's last n messages, which are the digest's since the
// transport publishes one message or digest at a time (a purge by
// sequence sometimes removed the full digest too on nats-server 2.9.10),
// and purges nothing when the full digest is all the subject holds.
// The check matters because of a nats-server bug fixed in 2.10
// (nats-server#3838, #5075): a purge of one subject moves every consumer
// whose filter is wider (ours: all nodes' subjects) to the subject's
// first remaining message, past messages of other nodes it has not yet
// delivered. Without the check, every node's first digest would purge,
// and nodes starting together would lose each other's first digests. A
// node that still misses a message meets the next delta's base check
// and resyncs over HTTP, or polls once the peer's pushes are older than
// a poll interval.
func purgeBefore(ctx context.Context, stream jetstream.Stream, subject string, seq, n uint64) error {
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(subject))
	if err != nil {
		return fmt.Errorf("natsdigest: messages on %s: %w", subject, err)
	}
	if info.State.Subjects[subject] <= n {
		return nil
	}
	if err := stream.Purge(ctx, jetstream.WithPurgeSubject(subject), jetstream.WithPurgeKeep(n)); err != nil {
		return fmt.Errorf("natsdigest: purge %s before %d: %w", subject, seq, err)
	}
	return nil
}

// Connected reports whether the connection is up and the stream and the
// consumer are set up.
func (t *Transport) Connected() bool {
	t.mu.Lock()
	nc := t.nc
	t.mu.Unlock()
	return nc != nil && t.ready.Load() && nc.IsConnected()
}

// Close stops the consumer and closes the connection.
func (t *Transport) Close() error {
	t.mu.Lock()
	stop, done := t.stop, t.done
	t.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.consume != nil {
		t.consume.Stop()
	}
	if t.nc != nil {
		t.nc.Close()
	}
	t.ready.Store(false)
	return nil
}
