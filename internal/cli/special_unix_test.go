//go:build unix

package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputNotARegularFile: -o naming a FIFO, /dev/null or /dev/stdout
// on a pipe writes it directly, as cp does, leaving nothing beside it; a
// directory is refused in one line.
func TestOutputNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	_, keys := keyLines("k", 100)
	keyFile := writeFile(t, path("keys.txt"), keys)
	ok(t, "", "build", "-n", "100", "-o", path("want.bf"), keyFile)
	want, _ := os.ReadFile(path("want.bf"))

	if err := syscall.Mkfifo(path("ff"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	read := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path("ff"))
		if err != nil {
			read <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		read <- b
	}()
	ok(t, "", "build", "-n", "100", "-o", path("ff"), keyFile)
	if got := <-read; !bytes.Equal(got, want) {
		t.Errorf("build -o FIFO: read %d bytes, want the %d of the filter", len(got), len(want))
	}
	ok(t, "", "build", "-n", "100", "-o", os.DevNull, keyFile)
	ok(t, "", "fold", "-q", "--to", "512", "-o", os.DevNull, path("want.bf"))
	if err := os.Mkdir(path("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	failsWith(t, path("sub")+": is a directory: -o names the file to write", "build", "-o", path("sub"), keyFile)

	cmd := exec.Command(bloomcastBinary(t), "build", "-n", "100", "-o", "/dev/stdout", keyFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() != 0 || !bytes.Equal(stdout.Bytes(), want) {
		t.Errorf("build -o /dev/stdout to a pipe: %v, stderr %q, %d bytes written, want %d", err, stderr.String(), stdout.Len(), len(want))
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("%s left behind", e.Name())
		}
	}
}
