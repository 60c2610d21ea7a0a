package cli

import (
	"bytes"
	"fmt"

	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnswersStopAtFailedWrite: query, count, bloomier get and mht get
// stop reading keys at the first write to standard output that fails,
// exit 2 and say so in one line, where they read their whole input. The
// keys come through a pipe that holds far more than the answers written
// before the failure; the test counts how many of its bytes were read.
func TestAnswersStopAtFailedWrite(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full to fail the writes: %v", err)
	}
	defer full.Close()
	dir := t.TempDir()
	var pairs strings.Builder
	for i := range 100 {
		fmt.Fprintf(&pairs, "k%d\t%d\n", i, i)
	}
	keys := filepath.Join(dir, "keys")
	writeFile(t, keys, pairs.String())
	bf, cf, bl, mh := filepath.Join(dir, "f.bf"), filepath.Join(dir, "c.bf"), filepath.Join(dir, "b.bl"), filepath.Join(dir, "m.mht")
	ok(t, pairs.String(), "build", "-n", "100", "-p", "0.01", "-o", bf)
	ok(t, pairs.String(), "build", "--counting", "-n", "100", "-p", "0.01", "-o", cf)
	ok(t, pairs.String(), "bloomier", "build", "-o", bl)
	ok(t, pairs.String(), "mht", "build", "-o", mh)

	const input = 16 << 20 // bytes of keys offered: 16 MiB
	for _, args := range [][]string{{"query", bf}, {"count", cf}, {"bloomier", "get", bl}, {"mht", "get", mh}} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		offered := make(chan int64)
		go func() {
			lines := bytes.Repeat([]byte("k1\n"), 4096)
			var n int64
			for n < input {
				m, err := w.Write(lines)
				n += int64(m)
				if err != nil {
					break
				}
			}
			w.Close()
			offered <- n
		}()
		var errOut strings.Builder
		code := run(args, r, full, &errOut)
		r.Close() // the writer stops at its next write
		n := <-offered
		if code != 2 || errOut.String() != "bloomcast: stdout: no space left on device\n" {
			t.Errorf("%q to /dev/full: exit %d, stderr %q; want 2 and one line", args, code, errOut.String())
		}
		// The answers fill a 64 KiB buffer before the first write; the
		// key reader and the pipe hold a few more.
		if n > 4<<20 {
			t.Errorf("%q to /dev/full: read %d of %d bytes of keys; want it to stop at the first failed write", args, n, int64(input))
		}
	}
}
