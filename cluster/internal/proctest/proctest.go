// Package proctest runs the server processes that the cluster module's
// test helpers (redistest, natstest) start: a process waited for until
// it answers, and killed at once, as a crash would.
package proctest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"time"
)

// Process is one server process.
//
// The zero Process is not running: start one with Run.
type Process struct {
	// Name names the server in errors, e.g. "redis-server on port 6379".
	Name string
	// Log is the server's log file, whose last lines an error quotes
	// when the server exits before it answers. The server's standard
	// output and standard error go to Log + ".out": a crash (a Go
	// panic, an assertion) is written there, not to its log.
	Log string

	cmd    *exec.Cmd
	exited chan struct{}
	waited error // Wait's error, once exited is closed
}

// Run starts binary with args and waits up to 10 seconds, asking ready
// every 20 ms, until ready returns nil. If the server exits first, the
// error quotes its log and its output; at the deadline the server is
// killed and the error is ready's last one. Run starts a killed Process
// again.
func (p *Process) Run(binary string, args []string, ready func() error) error {
	if err := p.start(binary, args); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := ready()
		if err == nil {
			return nil
		}
		if exited, report := p.Exited(); exited {
			return fmt.Errorf("%s %s", p.Name, report)
		}
		if time.Now().After(deadline) {
			p.Kill()
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// start starts the process from a goroutine locked to its OS thread
// until the process exits. The kernel sends the parent-death signal
// (procAttr) when the thread that forked the child ends, not the
// process (prctl(2), PR_SET_PDEATHSIG; go.dev/issue/27505): were that
// thread free for other goroutines, one that locked it and returned
// would end it and kill the server mid-test.
func (p *Process) start(binary string, args []string) error {
	out, err := os.Create(p.Log + ".out")
	if err != nil {
		return err
	}
	p.cmd = exec.Command(binary, args...)
	p.cmd.SysProcAttr = procAttr()
	p.cmd.Stdout, p.cmd.Stderr = out, out
	p.exited = make(chan struct{})
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := p.cmd.Start()
		_ = out.Close() // the child holds its own descriptor
		started <- err
		if err != nil {
			return
		}
		p.waited = p.cmd.Wait()
		close(p.exited)
	}()
	return <-started
}

// Exited reports whether the process has exited and, if so, how: its
// exit status, the last lines of its log and of its output.
func (p *Process) Exited() (bool, string) {
	if p.exited == nil {
		return false, ""
	}
	select {
	case <-p.exited:
	default:
		return false, ""
	}
	status := "exited"
	if p.cmd.ProcessState != nil { // set by Wait, before exited closed
		status = "exited (" + p.cmd.ProcessState.String() + ")"
	} else if p.waited != nil {
		status = "exited (" + p.waited.Error() + ")"
	}
	log, _ := os.ReadFile(p.Log) // for the message only
	out, _ := os.ReadFile(p.Log + ".out")
	return true, fmt.Sprintf("%s: log: %s; output: %s", status, LastLines(log, 3), LastLines(out, 5))
}

// Kill stops the server at once (SIGKILL), as a crash would, and waits
// for it to exit.
func (p *Process) Kill() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Kill() // it may have exited already
	<-p.exited
}

// FreePort returns a loopback port that is free now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

// LastLines returns the last n lines of b joined by " | ", for one-line
// errors.
func LastLines(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(bytes.Join(lines[max(0, len(lines)-n):], []byte(" | ")))
}
