package natsdigest

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

// message is one message of the stream: headers and payload.
type message struct {
	h    nats.Header
	data []byte
}

// single returns a digest's header as Publish sets it.
func single(node string, seq uint64, kind, etag string) nats.Header {
	h := nats.Header{}
	h.Set(NodeHeader, node)
	h.Set(SequenceHeader, fmt.Sprint(seq))
	h.Set(KindHeader, kind)
	if etag != "" {
		h.Set(ETagHeader, etag)
	}
	return h
}

// publish returns the messages Publish sends for frame within a max
// payload of limit bytes.
func publish(t testing.TB, frame []byte, h nats.Header, limit int64) []message {
	t.Helper()
	chunks := split(frame, h, limit)
	if chunks == nil {
		t.Fatalf("no room in %d bytes", limit)
	}
	if len(chunks) == 1 {
		return []message{{h, frame}}
	}
	id := newID()
	out := make([]message, len(chunks))
	var joined []byte
	for i, c := range chunks {
		out[i] = message{chunkHeader(h, id, i, len(chunks), len(frame)), c}
		if size := int64(headerSize(out[i].h) + len(c)); size > limit {
			t.Fatalf("chunk %d: %d bytes with its headers, over %d", i, size, limit)
		}
		joined = append(joined, c...)
	}
	if !bytes.Equal(joined, frame) {
		t.Fatal("the chunks do not add up to the frame")
	}
	return out
}

// frame returns n bytes that differ from another call's.
func frame(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ seed
	}
	return b
}

func TestSplit(t *testing.T) {
	h := single("cache1.example.org", 12345, "full", `"abc"`)
	for _, n := range []int{1, 100, 1000, 1024 - headerSize(h), 1025 - headerSize(h), 4000, 100000} {
		msgs := publish(t, frame(n, 1), h, 1024)
		if fits := headerSize(h)+n <= 1024; fits != (len(msgs) == 1) {
			t.Errorf("%d bytes: %d messages", n, len(msgs))
		}
		if len(msgs) == 1 && (len(msgs[0].h) != 4 || msgs[0].h.Get(ChunkHeader) != "") {
			t.Errorf("%d bytes: a single message's headers changed: %v", n, msgs[0].h)
		}
		for _, m := range msgs[min(1, len(msgs)-1):] {
			if len(msgs) > 1 && m.h.Get(SequenceHeader) != "" {
				t.Errorf("a chunk carries %s, which a node without chunking would read", SequenceHeader)
			}
		}
	}
	if split(make([]byte, 2000), h, 200) != nil {
		t.Error("a max payload smaller than the headers split")
	}
	if got := split(make([]byte, 2000), h, 0); len(got) != 1 {
		t.Error("no max payload known: split")
	}
}

// TestReassembler feeds sequences of messages, well formed, broken and
// hostile, and checks what comes out.
func TestReassembler(t *testing.T) {
	const limit = 1 << 20
	h1, h2 := single("a", 1, "full", `"e1"`), single("a", 2, "delta", "")
	f1, f2 := frame(5000, 1), frame(3000, 2)
	m1, m2 := publish(t, f1, h1, 1024), publish(t, f2, h2, 1024)
	b1 := publish(t, frame(2500, 3), single("b", 7, "full", ""), 1024)
	if len(m1) < 6 || len(m2) < 4 || len(b1) < 3 {
		t.Fatalf("%d, %d and %d chunks", len(m1), len(m2), len(b1))
	}
	small := message{h2, f2[:100]}
	with := func(m message, k, v string) message {
		h := nats.Header{}
		for key, vs := range m.h {
			h[key] = vs
		}
		if v == "" {
			delete(h, k)
		} else {
			h.Set(k, v)
		}
		return message{h, m.data}
	}
	cat := func(parts ...[]message) []message {
		var out []message
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		msgs []message
		want []string // "node/sequence/length" of each message delivered
	}{
		{"chunks", m1, []string{"a/1/5000"}},
		{"chunks then single", cat(m1, []message{small}), []string{"a/1/5000", "a/2/100"}},
		{"two digests", cat(m1, m2), []string{"a/1/5000", "a/2/3000"}},
		{"joined in the middle", cat(m1[2:], m2), []string{"a/2/3000"}},
		{"chunk missing", cat(m1[:2], m1[3:], m2), []string{"a/2/3000"}},
		{"last chunk missing", cat(m1[:len(m1)-1], m2), []string{"a/2/3000"}},
		{"chunk twice", cat(m1[:3], m1[2:], m2), []string{"a/2/3000"}},
		{"first chunk again", cat(m1[:3], m1), []string{"a/1/5000"}},
		{"new digest before the last chunk", cat(m1[:3], m2, m1[3:]), []string{"a/2/3000"}},
		{"single before the last chunk", cat(m1[:3], []message{small}, m1[3:]), []string{"a/2/100"}},
		{"nodes interleaved", cat(m1[:2], b1[:1], m1[2:], b1[1:]), []string{"a/1/5000", "b/7/2500"}},
		{"own chunks", cat(publish(t, frame(3000, 4), single("self", 3, "full", ""), 1024), m2), []string{"a/2/3000"}},
		{"count changes", cat(m1[:2], []message{with(m1[2], ChunkHeader, fmt.Sprintf("2/%d", len(m1)+1))}, m1[3:], m2), []string{"a/2/3000"}},
		{"length changes", cat(m1[:2], []message{with(m1[2], ChunkLengthHeader, "5001")}, m1[3:], m2), []string{"a/2/3000"}},
		{"etag changes", cat(m1[:2], []message{with(m1[2], ETagHeader, `"x"`)}, m1[3:], m2), []string{"a/2/3000"}},
		{"kind changes", cat(m1[:2], []message{with(m1[2], KindHeader, "delta")}, m1[3:], m2), []string{"a/2/3000"}},
		{"sequence changes", cat(m1[:2], []message{with(m1[2], ChunkSequenceHeader, "9")}, m1[3:], m2), []string{"a/2/3000"}},
		{"length short", cat([]message{with(m1[0], ChunkLengthHeader, "4999")}, m1[1:], m2), []string{"a/2/3000"}},
		{"length long", cat([]message{with(m1[0], ChunkLengthHeader, "5001")}, m1[1:], m2), []string{"a/2/3000"}},
		{"length over the limit", cat([]message{with(m1[0], ChunkLengthHeader, fmt.Sprint(limit+1))}, m1[1:], m2), []string{"a/2/3000"}},
		{"sequence header on a chunk", cat([]message{with(m1[0], SequenceHeader, "1")}, m1[1:]), []string{"a/1/5000"}},
		{"no node", cat([]message{with(m1[0], NodeHeader, "")}, m1[1:], m2), []string{"a/2/3000"}},
		{"one chunk", []message{{chunkHeader(h1, "x", 0, 1, 10), f1[:10]}}, []string{"a/1/10"}},
		{"empty chunk", []message{{chunkHeader(h1, "x", 0, 2, 10), nil}, {chunkHeader(h1, "x", 1, 2, 10), f1[:10]}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newReassembler("self", limit, slog.New(slog.DiscardHandler))
			var got []string
			for _, m := range tc.msgs {
				if d, ok := r.add(m.h, m.data); ok {
					got = append(got, fmt.Sprintf("%s/%d/%d", d.Node, d.Sequence, len(d.Frame)))
					want := map[uint64][]byte{1: f1, 2: f2}[d.Sequence]
					if want != nil && !bytes.Equal(d.Frame, want[:len(d.Frame)]) {
						t.Errorf("sequence %d: the frame differs from the one sent", d.Sequence)
					}
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("delivered %q, want %q", got, tc.want)
			}
			if n, held := r.holding(); (n == 0) != (held == 0) {
				t.Errorf("%d incomplete digests holding %d bytes", n, held)
			}
		})
	}
}

// TestReassemblerHostile: headers no publisher sends are dropped, one
// line logged each, and nothing is held past the bounds.
func TestReassemblerHostile(t *testing.T) {
	var log, flood bytes.Buffer
	base := chunkHeader(single("a", 1, "full", ""), "id", 0, 2, 20)
	hostile := [][2]string{
		{ChunkHeader, ""}, {ChunkHeader, "0"}, {ChunkHeader, "/"}, {ChunkHeader, "0/0"}, {ChunkHeader, "2/1"},
		{ChunkHeader, "-1/2"}, {ChunkHeader, "+0/2"}, {ChunkHeader, "0/99999999999999999999"}, {ChunkHeader, "0/2/3"},
		{ChunkHeader, "0x0/2"}, {ChunkHeader, "0/21"}, {ChunkLengthHeader, ""}, {ChunkLengthHeader, "-20"},
		{ChunkLengthHeader, "1001"}, {ChunkLengthHeader, "1"}, {ChunkLengthHeader, "9223372036854775808"},
		{ChunkSequenceHeader, ""}, {ChunkSequenceHeader, "x"}, {KindHeader, "other"}, {KindHeader, ""},
		{ChunkIDHeader, ""}, {ChunkIDHeader, strings.Repeat("i", 1000)}, {NodeHeader, ""},
		{ChunkHeader, "0/2\nlevel=ERROR msg=forged"},
	}
	all := newReassembler("self", 1000, slog.New(slog.NewTextHandler(&flood, nil)))
	for _, kv := range hostile {
		h := nats.Header{}
		for k, v := range base {
			h[k] = v
		}
		h.Set(kv[0], kv[1])
		if kv[1] == "" {
			delete(h, kv[0])
		}
		// A reassembler of its own logs each; one for all logs one line.
		r := newReassembler("self", 1000, slog.New(slog.NewTextHandler(&log, nil)))
		if m, ok := r.add(h, make([]byte, 10)); ok {
			t.Errorf("%s: %q: delivered %+v", kv[0], kv[1], m)
		}
		all.add(h, make([]byte, 10))
		if n, held := r.holding(); n != 0 || held != 0 {
			t.Errorf("%s: %q: %d incomplete digests of %d bytes held", kv[0], kv[1], n, held)
		}
	}
	if lines := strings.Count(log.String(), "\n"); lines != len(hostile) || strings.Contains(log.String(), "\nlevel=ERROR") {
		t.Errorf("%d lines logged:\n%s", lines, log.String())
	}
	if lines := strings.Count(flood.String(), "\n"); lines != 1 || all.dropped.Load() != uint64(len(hostile)) {
		t.Errorf("%d malformed chunks: %d dropped, %d lines logged, want 1:\n%s", len(hostile), all.dropped.Load(), lines, flood.String())
	}

	r := all

	// Incomplete digests from many nodes hold at most four limits.
	for i := range 100 {
		h := chunkHeader(single(fmt.Sprint("n", i), 1, "full", ""), "id", 0, 2, 1000)
		r.add(h, make([]byte, 500))
		if _, held := r.holding(); held > 4*1000 {
			t.Fatalf("%d nodes: %d bytes held", i+1, held)
		}
	}
}

// FuzzReassembler feeds the reassembler a sequence of messages whose
// headers and payloads come from the input, one a line, its fields
// separated by '|': node, id, chunk, length, sequence, kind, etag,
// payload. It must never panic, hold more than its bounds, or deliver a
// frame other than the one the chunks announced.
func FuzzReassembler(f *testing.F) {
	f.Add("a|x|0/2|6|1|full|e|abc\na|x|1/2|6|1|full|e|def")
	f.Add("a|x|1/2|6|1|full|e|def\na|y|0/1|3|2|delta||ghi\nb|x|0/2|4|1|full||ab")
	f.Add("a|x|0/3|9|1|full||abc\na|x|2/3|9|1|full||ghi\na|x|1/3|9|1|full||def")
	f.Add("a|x|0/2|9|1|full||abcdefgh\na|x|1/2|9|1|full||ij")
	f.Add("a|x|0/99999|999999|1|full||a\nself|x|0/1|1|1|full||a")
	const limit = 4096
	f.Fuzz(func(t *testing.T, script string) {
		r := newReassembler("self", limit, slog.New(slog.DiscardHandler))
		for _, line := range strings.Split(script, "\n") {
			fields := strings.SplitN(line, "|", 8)
			fields = append(fields, make([]string, 8-len(fields))...)
			h := nats.Header{}
			for i, k := range []string{NodeHeader, ChunkIDHeader, ChunkHeader, ChunkLengthHeader, ChunkSequenceHeader, KindHeader, ETagHeader} {
				if fields[i] != "" {
					h.Set(k, fields[i])
				}
			}
			m, ok := r.add(h, []byte(fields[7]))
			if ok && (len(m.Frame) > limit || len(m.Frame) != atoi(fields[3])) {
				t.Fatalf("delivered %d bytes, announced %q", len(m.Frame), fields[3])
			}
			if ok && m.Node == "self" {
				t.Fatal("delivered one of self's")
			}
			if n, held := r.holding(); held > 4*limit || n > 4*limit/pendingOverhead || (n == 0) != (held == 0) {
				t.Fatalf("%d incomplete digests holding %d bytes", n, held)
			}
		}
	})
}

// atoi returns s as a number, or -1.
func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1<<40 {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestReassemblerCountsDrops: a digest whose chunks all come is not
// counted; one that breaks off is, and so is a malformed chunk.
func TestReassemblerCountsDrops(t *testing.T) {
	m := publish(t, frame(5000, 1), single("a", 1, "full", ""), 1024)
	r := newReassembler("self", 1<<20, slog.New(slog.DiscardHandler))
	for _, x := range m {
		r.add(x.h, x.data)
	}
	if n := r.dropped.Load(); n != 0 {
		t.Fatalf("a whole digest: %d dropped", n)
	}
	r.add(m[0].h, m[0].data)
	r.add(m[2].h, m[2].data) // chunk 1 missing
	if n := r.dropped.Load(); n != 1 {
		t.Fatalf("a digest broken off: %d dropped, want 1", n)
	}
	bad := nats.Header{}
	for k, v := range m[0].h {
		bad[k] = v
	}
	bad.Set(ChunkHeader, "x")
	r.add(bad, m[0].data)
	if n := r.dropped.Load(); n != 2 {
		t.Fatalf("a malformed chunk: %d dropped, want 2", n)
	}
}
