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
	"time"
)

// Process is one server process.
//
// The zero Process is not running: start one with Run.
type Process struct {
	// Name names the server in errors, e.g. "redis-server on port 6379".
	Name string
	// Log is the server's log file, whose last lines an error quotes
	// when the server exits before it answers.
	Log string

	cmd    *exec.Cmd
	exited chan struct{}
}

// Run starts binary with args and waits up to 10 seconds, asking ready
// every 20 ms, until ready returns nil. If the server exits first, the
// error quotes its log; at the deadline the server is killed and the
// error is ready's last one. Run starts a killed Process again.
func (p *Process) Run(binary string, args []string, ready func() error) error {
	p.cmd = exec.Command(binary, args...)
	p.cmd.SysProcAttr = procAttr()
	if err := p.cmd.Start(); err != nil {
		return err
	}
	p.exited = make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(p.exited) }() // the exit is seen through exited
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := ready()
		if err == nil {
			return nil
		}
		select {
		case <-p.exited:
			log, _ := os.ReadFile(p.Log) // for the message only
			return fmt.Errorf("%s exited: %s", p.Name, LastLines(log, 3))
		default:
		}
		if time.Now().After(deadline) {
			p.Kill()
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
