package proctest

import (
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func shell(t *testing.T) string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	return sh
}

// TestRunReportsCrash: a server that exits before it answers is
// reported with its exit status and what it wrote to its standard
// error, which a crash writes and its log does not hold.
func TestRunReportsCrash(t *testing.T) {
	p := Process{Name: "crasher", Log: filepath.Join(t.TempDir(), "crasher.log")}
	err := p.Run(shell(t), []string{"-c", "echo 'panic: boom' >&2; exit 3"}, func() error { return errNotYet })
	if err == nil {
		t.Fatal("Run succeeded for a server that exited")
	}
	for _, want := range []string{"crasher exited", "exit status 3", "panic: boom"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Run's error %q does not say %q", err, want)
		}
	}
	if d := p.Describe(); !strings.Contains(d, "exit status 3") {
		t.Errorf("Describe: %q", d)
	}
}

// TestServerOutlivesThreads: goroutines that lock their OS thread and
// return end their threads, as any library may; a running server is not
// killed by its parent-death signal when the thread that started it is
// among them.
func TestServerOutlivesThreads(t *testing.T) {
	p := Process{Name: "sleeper", Log: filepath.Join(t.TempDir(), "sleeper.log")}
	if err := p.Run(shell(t), []string{"-c", "exec sleep 60"}, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() {
			runtime.LockOSThread() // and return locked: the thread exits
		})
		wg.Wait()
	}
	time.Sleep(100 * time.Millisecond) // the signal is asynchronous
	if exited, report := p.Exited(); exited {
		t.Fatalf("the server died with the threads: %s", report)
	}
	if d := p.Describe(); !strings.Contains(d, "sleeper is running") {
		t.Errorf("Describe: %q", d)
	}
}

var errNotYet = errors.New("not yet")
