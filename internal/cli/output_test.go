package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fullWriter accepts limit bytes, then fails as a full disk does.
type fullWriter struct {
	limit int
	buf   bytes.Buffer
}

var errFull = errors.New("no space left on device")

func (w *fullWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.limit {
		n := w.limit - w.buf.Len()
		w.buf.Write(p[:n])
		return n, errFull
	}
	return w.buf.Write(p)
}

// A command whose output cannot be written fails, even when the failed
// write was not the last one (here the help text is many writes, and the
// calc report's first line fails while later ones would not be tried).
func TestFailedStdoutFailsTheCommand(t *testing.T) {
	for _, args := range [][]string{
		{"help"},
		{"calc", "-n", "1000", "-p", "0.01"},
		{"query", "-h"},
	} {
		out := &fullWriter{limit: 10}
		var stderr bytes.Buffer
		code := run(args, strings.NewReader(""), out, &stderr)
		if code != 2 || !strings.HasPrefix(stderr.String(), "bloomcast: ") || !strings.Contains(stderr.String(), errFull.Error()) {
			t.Errorf("%q with a full stdout: exit %d, stderr %q; want 2 and the write error", args, code, stderr.String())
		}
		if out.buf.Len() != 10 {
			t.Errorf("%q: %d bytes written, want the 10 that fit", args, out.buf.Len())
		}
	}
	// The same commands succeed when there is room.
	for _, args := range [][]string{{"help"}, {"calc", "-n", "1000", "-p", "0.01"}} {
		out := &fullWriter{limit: 1 << 20}
		var stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), out, &stderr); code != 0 || out.buf.Len() == 0 {
			t.Errorf("%q: exit %d, %d bytes, stderr %q", args, code, out.buf.Len(), stderr.String())
		}
	}
}

// TestFailedStdoutNamed: a command that returns its own failed write to
// standard output says "stdout", as one whose write the errWriter caught
// does, not the file the write error carries. table and inspect said
// "write /dev/full: no space left on device" where query said "stdout:".
func TestFailedStdoutNamed(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full to fail the writes: %v", err)
	}
	defer full.Close()
	filter := filepath.Join(t.TempDir(), "f.bf")
	ok(t, "a\nb\n", "build", "-n", "10", "-p", "0.01", "-o", filter)
	for _, args := range [][]string{{"table"}, {"inspect", filter}, {"version"}, {"query", filter, "a"}} {
		var stderr strings.Builder
		code := run(args, strings.NewReader(""), full, &stderr)
		if code != 2 || stderr.String() != "bloomcast: stdout: no space left on device\n" {
			t.Errorf("%q to /dev/full: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}
