// Package codectest holds the checks that every bloomcast codec's tests
// make: golden files pinned byte for byte, frames rewritten behind their
// checksum, and corrupt, truncated and oversized frames refused. Only test
// files import it.
package codectest

import (
	"bytes"
	"encoding"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/bloomcast/bloomcast/envelope"
)

// Update, set by go test's -update flag (go test ./pkg -args -update),
// makes Golden rewrite the golden files from the encodings.
var Update = flag.Bool("update", false, "rewrite golden files in testdata")

// Golden compares got with testdata/golden-NAME.bin, after writing got
// there if Update is set, and returns the file's bytes. A difference is a
// test error: an encoding must not change without a new format version.
func Golden(t testing.TB, name string, got []byte) []byte {
	t.Helper()
	path := filepath.Join("testdata", "golden-"+name+".bin")
	if *Update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -args -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: encoding changed; if deliberate, bump envelope.Version and keep reading the old one", name)
	}
	return want
}

// Reframe parses a valid frame, lets edit change its header and payload
// (copies of them), and frames the result again with a valid checksum, to
// reach the checks a decoder makes behind the CRC.
func Reframe(t testing.TB, frame []byte, edit func(h *envelope.Header, payload []byte) []byte) []byte {
	t.Helper()
	h, payload, err := envelope.Parse(frame, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	h.Params = bytes.Clone(h.Params)
	payload = edit(&h, bytes.Clone(payload))
	b, err := envelope.AppendHeader(nil, &h, uint64(len(payload)))
	if err != nil {
		t.Fatal(err)
	}
	return envelope.AppendTrailer(append(b, payload...), 0)
}

// RejectsCorruption checks that decode refuses good, a valid frame, with
// any one byte's bit 4 flipped, truncated to any shorter length (with
// envelope.ErrTruncated), and under a payload limit of maxPayload bytes,
// smaller than its payload (with envelope.ErrTooLarge).
func RejectsCorruption(t testing.TB, name string, good []byte, maxPayload uint64, decode func([]byte, envelope.Limits) error) {
	t.Helper()
	for i := range good {
		bad := bytes.Clone(good)
		bad[i] ^= 0x10
		if err := decode(bad, envelope.Limits{}); err == nil {
			t.Errorf("%s: flipping a bit of byte %d went unnoticed", name, i)
		}
	}
	for n := range len(good) {
		if err := decode(good[:n], envelope.Limits{}); !errors.Is(err, envelope.ErrTruncated) {
			t.Errorf("%s: truncated to %d bytes: %v", name, n, err)
		}
	}
	if err := decode(good, envelope.Limits{MaxPayload: maxPayload}); !errors.Is(err, envelope.ErrTooLarge) {
		t.Errorf("%s: over a limit of %d bytes: %v", name, maxPayload, err)
	}
}

// Encoder is what every codec's structures write themselves with.
type Encoder interface {
	MarshalBinary() ([]byte, error)
	AppendBinary([]byte) ([]byte, error)
	WriteTo(io.Writer) (int64, error)
}

// GoldenEncoding is Golden of v's encoding: it encodes v (an error is
// fatal) and compares it with testdata/golden-NAME.bin, returning the
// file's bytes for the caller to decode.
func GoldenEncoding(t testing.TB, name string, v encoding.BinaryMarshaler) []byte {
	t.Helper()
	got, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return Golden(t, name, got)
}

// EncodesAlike checks that MarshalBinary, AppendBinary (after other bytes)
// and WriteTo give v the same encoding, of EncodedSize bytes where v has
// that method, and returns it.
func EncodesAlike(t testing.TB, name string, v Encoder) []byte {
	t.Helper()
	b, err := v.MarshalBinary()
	if err != nil {
		t.Fatalf("%s: MarshalBinary: %v", name, err)
	}
	if s, ok := v.(interface{ EncodedSize() int }); ok && s.EncodedSize() != len(b) {
		t.Fatalf("%s: MarshalBinary wrote %d bytes, EncodedSize says %d", name, len(b), s.EncodedSize())
	}
	var buf bytes.Buffer
	if n, err := v.WriteTo(&buf); err != nil || n != int64(len(b)) || !bytes.Equal(buf.Bytes(), b) {
		t.Fatalf("%s: WriteTo differs from MarshalBinary: %v", name, err)
	}
	if a, err := v.AppendBinary([]byte("xy")); err != nil || !bytes.Equal(a[2:], b) {
		t.Fatalf("%s: AppendBinary differs from MarshalBinary: %v", name, err)
	}
	return b
}

// ReadsOneFrame checks that readFrom, given frame twice over one byte at
// a time, reads exactly the first: all of its bytes and none beyond.
func ReadsOneFrame(t testing.TB, name string, frame []byte, readFrom func(io.Reader) (int64, error)) {
	t.Helper()
	r := bytes.NewReader(append(bytes.Clone(frame), frame...))
	if n, err := readFrom(iotest.OneByteReader(r)); err != nil || n != int64(len(frame)) {
		t.Fatalf("%s: ReadFrom: %d bytes, %v; want %d", name, n, err, len(frame))
	}
	if r.Len() != len(frame) {
		t.Fatalf("%s: ReadFrom consumed past its frame", name)
	}
}

// Edit changes a copy of a frame's header and payload, for Reframe.
type Edit = func(h *envelope.Header, payload []byte) []byte

// RejectsEdits checks that decode refuses good reframed by each edit (after
// Reframe) with an error that begins with prefix, the package's, and,
// unless target is nil, wraps target.
func RejectsEdits(t testing.TB, good []byte, edits map[string]Edit, prefix string, target error, decode func([]byte) error) {
	t.Helper()
	for name, edit := range edits {
		err := decode(Reframe(t, good, edit))
		switch {
		case err == nil:
			t.Errorf("%s: accepted", name)
		case target != nil && !errors.Is(err, target):
			t.Errorf("%s: error %v, want %v", name, err, target)
		case !strings.HasPrefix(err.Error(), prefix):
			t.Errorf("%s: error %q lacks the package prefix %q", name, err, prefix)
		}
	}
}

// SeedFrames adds the encodings of values, and a bare magic number, to the
// corpus of a fuzz target that decodes whole frames.
func SeedFrames[T encoding.BinaryMarshaler](f *testing.F, values map[string]T) {
	f.Helper()
	for _, v := range values {
		b, err := v.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("BLMC"))
}

// Parts returns the header and payload of v's encoding, the seeds of a
// fuzz target that decodes a parameter block and payload behind the
// checksum.
func Parts(t testing.TB, v encoding.BinaryMarshaler) (envelope.Header, []byte) {
	t.Helper()
	b, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	h, payload, err := envelope.Parse(b, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return h, payload
}

// Refused reports whether a decoder returned an error, failing the test
// when that error does not wrap target.
func Refused(t testing.TB, err, target error) bool {
	t.Helper()
	if err != nil && !errors.Is(err, target) {
		t.Fatalf("error %v does not wrap %v", err, target)
	}
	return err != nil
}

// Canonical fails the test unless v, decoded from data, encodes to data
// again.
func Canonical(t testing.TB, v encoding.BinaryMarshaler, data []byte) {
	t.Helper()
	if b, err := v.MarshalBinary(); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("decode/encode not canonical: %v", err)
	}
}

// SameParts fails the test unless v, decoded from a parameter block and a
// payload, encodes to a frame of exactly those.
func SameParts(t testing.TB, v encoding.BinaryMarshaler, params, payload []byte) {
	t.Helper()
	b, err := v.MarshalBinary()
	if err != nil {
		t.Fatalf("decode/encode not canonical: %v", err)
	}
	h, p, err := envelope.Parse(b, envelope.Limits{})
	if err != nil || !bytes.Equal(h.Params, params) || !bytes.Equal(p, payload) {
		t.Fatalf("decode/encode not canonical: %v", err)
	}
}
