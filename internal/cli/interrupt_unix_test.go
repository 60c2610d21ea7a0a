//go:build unix

package cli

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/inplace"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// slowFilter writes like a filter of many gigabytes, slowly, up to a
// bound that keeps a failing test from filling the disk.
type slowFilter struct{}

func (slowFilter) WriteTo(w io.Writer) (int64, error) {
	piece := make([]byte, 1<<20)
	var n int64
	for range 256 {
		m, err := w.Write(piece)
		n += int64(m)
		if err != nil {
			return n, err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return n, errors.New("the slow filter was not interrupted")
}

// TestHelperProcess is not a test: run by TestInterruptedWrite in a
// process of its own, it writes a slowFilter to BLOOMCAST_HELPER_OUT as
// build does (a new file, or an existing one, locked first) or as add
// does (under the lock), and exits with finish's status. "writing" on
// standard output says the write begins.
func TestHelperProcess(t *testing.T) {
	mode, out := os.Getenv("BLOOMCAST_HELPER"), os.Getenv("BLOOMCAST_HELPER_OUT")
	if mode == "" {
		return
	}
	os.Exit(helperWrite(mode, out))
}

// helperWrite is TestHelperProcess's write, returning the exit status
// once the lock it took, if any, is released.
func helperWrite(mode, out string) int {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	if mode == "add" {
		release, err := e.lockInPlace(out)
		if err != nil {
			return e.finish(addCommand, err)
		}
		defer release()
	}
	fprintln(os.Stdout, "writing")
	return e.finish(buildCommand, e.writeFile(out, slowFilter{}))
}

// TestInterruptedWrite: SIGINT or SIGTERM while a filter is written, to a
// new file or over one in place, removes the temporary file, leaves the
// output as it was and exits with 130 or 143 and one line; also while the
// write waits for the lock another process holds.
func TestInterruptedWrite(t *testing.T) {
	for _, c := range []struct {
		mode string
		sig  syscall.Signal
		code int
	}{
		{"build", syscall.SIGINT, 130},
		{"build", syscall.SIGTERM, 143},
		{"add", syscall.SIGINT, 130},
		{"locked", syscall.SIGINT, 130},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "huge.bf")
		if c.mode != "build" {
			writeFile(t, out, "old filter")
		}
		if c.mode == "locked" {
			held, err := inplace.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
		}
		helperMode := strings.Replace(c.mode, "locked", "build", 1)
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "BLOOMCAST_HELPER="+helperMode, "BLOOMCAST_HELPER_OUT="+out)
		var stdout, stderr lockedBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, 20*time.Second, "the write to begin", func() bool {
			return strings.HasPrefix(stdout.String(), "writing")
		})
		if c.mode == "locked" {
			time.Sleep(200 * time.Millisecond) // into the wait for the lock
		} else {
			testutil.WaitFor(t, 20*time.Second, "the temporary file to grow", func() bool {
				tmp, _ := filepath.Glob(filepath.Join(dir, ".huge.bf.*.tmp"))
				fi, err := os.Stat(strings.Join(tmp, ""))
				return len(tmp) == 1 && err == nil && fi.Size() > 0
			})
		}
		if err := cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		var err error
		select {
		case err = <-waited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			err = <-waited
			t.Errorf("%s, %v: still running 20 s after the signal", c.mode, c.sig)
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != c.code {
			t.Errorf("%s, %v: %v, want exit status %d (stderr %q)", c.mode, c.sig, err, c.code, stderr.String())
		}
		if want := "bloomcast: interrupted; " + out + " not written\n"; stderr.String() != want {
			t.Errorf("%s, %v: stderr %q, want %q", c.mode, c.sig, stderr.String(), want)
		}
		entries, _ := os.ReadDir(dir)
		if c.mode != "build" && (len(entries) != 1 || readString(out) != "old filter") {
			t.Errorf("%s, %v: %v left, %q in the file; want the file as it was", c.mode, c.sig, entries, readString(out))
		}
		if c.mode == "build" && len(entries) != 0 {
			t.Errorf("build, %v: %v left behind", c.sig, entries)
		}
	}
}
