// Package codectest holds the checks that every bloomcast codec's tests
// make: golden files pinned byte for byte, frames rewritten behind their
// checksum, and corrupt, truncated and oversized frames refused. Only test
// files import it.
package codectest

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

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
