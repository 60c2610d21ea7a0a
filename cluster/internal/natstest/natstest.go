// Package natstest starts a real NATS server with JetStream (nats-server
// -js) on a free loopback port, in a directory of its own, for the
// cluster module's tests and its commands. It needs nats-server
// (Debian's nats-server package).
package natstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// RequireEnv is the environment variable that makes tests fail, rather
// than skip, without nats-server.
const RequireEnv = "BLOOMCAST_REQUIRE_NATS"

// ErrNotInstalled is returned by Binary when nats-server is not found.
var ErrNotInstalled = errors.New("natstest: nats-server not installed (Debian: apt-get install nats-server)")

// Binary returns the path of nats-server.
func Binary() (string, error) {
	p, err := exec.LookPath("nats-server")
	if err != nil {
		return "", ErrNotInstalled
	}
	return p, nil
}

// Server is one nats-server process with JetStream.
//
// The zero Server is not running: make one with Start.
type Server struct {
	URL    string // nats://127.0.0.1:port
	Port   int
	Dir    string
	binary string
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start runs nats-server -js on a free loopback port, keeping its
// JetStream files and log in dir (created if needed), and waits until
// JetStream answers.
func Start(dir string) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var last error
	for range 5 { // a port found free may be taken before the server binds it
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s := &Server{URL: "nats://127.0.0.1:" + strconv.Itoa(port), Port: port, Dir: dir, binary: bin}
		if last = s.run(); last == nil {
			return s, nil
		}
	}
	return nil, last
}

// run starts the process and waits for JetStream.
func (s *Server) run() error {
	s.cmd = exec.Command(s.binary, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(s.Port),
		"-sd", filepath.Join(s.Dir, "jetstream"), "-l", filepath.Join(s.Dir, "nats.log"))
	s.cmd.SysProcAttr = procAttr()
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exited = make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(s.exited) }() // the exit is seen through exited
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.ping()
		if err == nil {
			return nil
		}
		select {
		case <-s.exited:
			log, _ := os.ReadFile(filepath.Join(s.Dir, "nats.log")) // for the message only
			return fmt.Errorf("natstest: nats-server on port %d exited: %s", s.Port, lastLines(log, 3))
		default:
		}
		if time.Now().After(deadline) {
			s.Kill()
			return fmt.Errorf("natstest: nats-server on port %d: %w", s.Port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ping connects and asks JetStream for the account's information.
func (s *Server) ping() error {
	nc, err := nats.Connect(s.URL, nats.Timeout(time.Second), nats.NoReconnect())
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

// Kill stops the server at once (SIGKILL), as a crash would, and waits
// for it to exit.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill() // it may have exited already
	<-s.exited
}

// Restart starts a killed server again on the same port with the same
// directory: its streams are read back from disk.
func (s *Server) Restart() error { return s.run() }

// freePort returns a loopback port that is free now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

// FreeURL returns a nats:// URL of a loopback port that nothing listens
// on now: a server that cannot be reached.
func FreeURL() (string, error) {
	port, err := freePort()
	if err != nil {
		return "", err
	}
	return "nats://127.0.0.1:" + strconv.Itoa(port), nil
}

func lastLines(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(bytes.Join(lines[max(0, len(lines)-n):], []byte(" | ")))
}
