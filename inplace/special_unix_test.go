//go:build unix

package inplace_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/inplace"
)

// TestNotRegularFiles: Open refuses a FIFO without opening it (which
// would wait for a writer); WriteFile writes a FIFO or /dev/null
// directly, leaving nothing beside it.
func TestNotRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	opened := make(chan error, 1)
	go func() {
		f, err := inplace.Open(fifo)
		if err == nil {
			f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err == nil {
			t.Error("Open of a FIFO succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open of a FIFO waits for a writer")
	}

	read := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			read <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		read <- string(b)
	}()
	write := func(w io.Writer) error { _, err := io.WriteString(w, "filter"); return err }
	if err := inplace.WriteFile(fifo, 0o644, write); err != nil {
		t.Fatalf("WriteFile to a FIFO: %v", err)
	}
	if got := <-read; got != "filter" {
		t.Errorf("read from the FIFO %q, want filter", got)
	}
	if err := inplace.WriteFile(os.DevNull, 0o644, write); err != nil {
		t.Errorf("WriteFile to %s: %v", os.DevNull, err)
	}
	boom := errors.New("boom")
	if err := inplace.WriteFile(os.DevNull, 0o644, func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("WriteFile to %s: %v, want the writer's error", os.DevNull, err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
	assertNoTemp(t, dir)
}
