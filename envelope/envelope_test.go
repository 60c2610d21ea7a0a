package envelope

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func sampleFrame(t testing.TB, payload []byte) []byte {
	h := &Header{Type: TypeBloom, Codec: CodecRaw, Scheme: 1, Seed: 42, Sequence: 7, Params: []byte{1, 2, 3}}
	b, err := AppendHeader([]byte("prefix"), h, uint64(len(payload)))
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, payload...)
	return AppendTrailer(b, len("prefix"))[len("prefix"):]
}

func TestRoundTrip(t *testing.T) {
	frame := sampleFrame(t, []byte("payload bytes"))
	h, p, err := Parse(frame, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Type != TypeBloom || h.Seed != 42 || h.Sequence != 7 || h.Scheme != 1 || h.Version != 1 ||
		!bytes.Equal(h.Params, []byte{1, 2, 3}) || string(p) != "payload bytes" {
		t.Fatalf("got %+v %q", h, p)
	}
	// The streaming reader agrees, one byte at a time.
	h2, p2, n, err := Read(iotest.OneByteReader(bytes.NewReader(frame)), Limits{})
	if err != nil || n != int64(len(frame)) || string(p2) != string(p) || h2.Seed != h.Seed {
		t.Fatalf("Read: %+v %q %d %v", h2, p2, n, err)
	}
	// The streaming writer produces the same bytes.
	var buf bytes.Buffer
	w, err := NewWriter(&buf, &Header{Type: TypeBloom, Scheme: 1, Seed: 42, Sequence: 7, Params: []byte{1, 2, 3}}, 13)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("payload "))
	w.Write([]byte("bytes"))
	if err := w.Close(); err != nil || !bytes.Equal(buf.Bytes(), frame) || w.Count() != int64(len(frame)) {
		t.Fatalf("Writer output differs: %v", err)
	}
}

func TestErrors(t *testing.T) {
	frame := sampleFrame(t, make([]byte, 100))
	corrupt := func(i int) []byte { b := bytes.Clone(frame); b[i] ^= 0x40; return b }
	cases := []struct {
		name string
		in   []byte
		lim  Limits
		want error
	}{
		{"empty", nil, Limits{}, ErrTruncated},
		{"magic", corrupt(0), Limits{}, ErrMagic},
		{"version", corrupt(4), Limits{}, ErrVersion},
		{"flags", corrupt(9), Limits{}, ErrInvalid},
		{"params too long", corrupt(11), Limits{}, ErrTooLarge},
		{"payload over limit", frame, Limits{MaxPayload: 99}, ErrTooLarge},
		{"truncated", frame[:len(frame)-1], Limits{}, ErrTruncated},
		{"checksum", corrupt(HeaderSize + 5), Limits{}, ErrChecksum},
		{"trailing", append(bytes.Clone(frame), 0), Limits{}, ErrTrailing},
	}
	for _, c := range cases {
		_, _, err := Parse(c.in, c.lim)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Parse error %v, want %v", c.name, err, c.want)
		}
		if errors.Is(c.want, ErrTrailing) {
			continue
		}
		_, _, _, err = Read(bytes.NewReader(c.in), c.lim)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Read error %v, want %v", c.name, err, c.want)
		}
	}
}

// A header that claims a payload near the limit must not make Read allocate
// it when the bytes never come.
func TestReadDoesNotTrustLength(t *testing.T) {
	head, _ := AppendHeader(nil, &Header{Type: TypeBloom}, 1<<30)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _, err := Read(bytes.NewReader(append(head, make([]byte, 1000)...)), Limits{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("err = %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Fatalf("allocated %d bytes for 1036 bytes of input", grew)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestReadPassesIOErrors(t *testing.T) {
	_, _, _, err := Read(errReader{}, Limits{})
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("err = %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sampleFrame(f, []byte("x")))
	f.Add(sampleFrame(f, nil))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, p, err := Parse(b, Limits{MaxPayload: 1 << 16})
		_, p2, _, err2 := Read(bytes.NewReader(b), Limits{MaxPayload: 1 << 16})
		if (err == nil) != (err2 == nil && len(b) == HeaderSize+len(h.Params)+len(p)+TrailerSize) && err == nil {
			t.Fatalf("Parse ok, Read: %v", err2)
		}
		if err == nil && !bytes.Equal(p, p2) {
			t.Fatal("Parse and Read disagree on the payload")
		}
	})
}

func TestWordsFrames(t *testing.T) {
	a, b := []uint64{1, 2, 3}, make([]uint64, 700) // past the 4 KiB buffer
	for i := range b {
		b[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	h := Header{Type: TypeBloom, Scheme: 1, Params: []byte{9}}
	frame, err := AppendWords([]byte("x"), h, a, b)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if n, err := WriteWords(&buf, h, a, b); err != nil || n != int64(len(frame)-1) || !bytes.Equal(buf.Bytes(), frame[1:]) {
		t.Fatalf("WriteWords differs from AppendWords: %v", err)
	}
	_, p, err := Parse(frame[1:], Limits{})
	if err != nil || len(p) != 8*703 || p[8] != 2 {
		t.Fatalf("payload: %v", err)
	}
}

func TestDecodeAndReadFrame(t *testing.T) {
	frame := sampleFrame(t, []byte("abc"))
	from := func(h Header, p []byte) (string, error) { return string(p), nil }
	if v, err := DecodeFrame(frame, Limits{}, "pkg", from); err != nil || v != "abc" {
		t.Fatalf("DecodeFrame: %q, %v", v, err)
	}
	if v, n, err := ReadFrame(bytes.NewReader(frame), Limits{}, "pkg", from); err != nil || v != "abc" || n != int64(len(frame)) {
		t.Fatalf("ReadFrame: %q, %d, %v", v, n, err)
	}
	_, err := DecodeFrame(frame[:10], Limits{}, "pkg", from)
	if !errors.Is(err, ErrTruncated) || !strings.HasPrefix(err.Error(), "pkg: envelope: ") {
		t.Fatalf("DecodeFrame error %v", err)
	}
	_, _, err = ReadFrame(bytes.NewReader(frame[:10]), Limits{}, "pkg", from)
	if !errors.Is(err, ErrTruncated) || !strings.HasPrefix(err.Error(), "pkg: envelope: ") {
		t.Fatalf("ReadFrame error %v", err)
	}
}

// TestVersionWritten checks that a writer writes the version its header
// names (1 when zero, the oldest) and refuses one newer than Version.
func TestVersionWritten(t *testing.T) {
	for _, v := range []uint16{0, 1, Version} {
		b, err := AppendHeader(nil, &Header{Version: v, Type: TypeBloom}, 0)
		if err != nil {
			t.Fatal(err)
		}
		h, _, err := Parse(AppendTrailer(b, 0), Limits{})
		if want := max(v, 1); err != nil || h.Version != want {
			t.Errorf("Version %d: read back %d, %v; want %d", v, h.Version, err, want)
		}
	}
	if _, err := AppendHeader(nil, &Header{Version: Version + 1}, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("Version %d: %v, want ErrInvalid", Version+1, err)
	}
}
