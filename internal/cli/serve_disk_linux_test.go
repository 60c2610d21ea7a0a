package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// readOnlyDir returns a directory serve cannot write in: a read-only
// tmpfs mounted for the test when running as root (whom permissions do
// not stop), else a directory of mode 0555.
func readOnlyDir(t *testing.T) (dir, why string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "cache")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return dir, "permission denied"
	}
	if err := syscall.Mount("none", dir, "tmpfs", syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot mount a read-only tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	return dir, "read-only file system"
}

// TestServeDiskNotWritable: serve --disk on a directory it cannot write
// in exits at once with status 2 and one line naming the directory,
// rather than serving and failing every store.
func TestServeDiskNotWritable(t *testing.T) {
	dir, why := readOnlyDir(t)
	addr := freeAddr(t)
	cmd := exec.Command(bloomcastBinary(t), "serve", "--listen", addr, "--disk", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("serve --disk %s still running after 10 s:\n%s", dir, stderr.String())
	}
	want := "bloomcast: disk store: cannot write in " + dir + ": " + why + "\n"
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || stderr.String() != want {
		t.Fatalf("serve --disk %s: %v, stderr %q, want status 2 and %q", dir, err, stderr.String(), want)
	}
}
