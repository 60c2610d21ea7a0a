// Package natstest starts a real NATS server with JetStream (nats-server
// -js) on a free loopback port, in a directory of its own, for the
// cluster module's tests and its commands. It needs nats-server
// (Debian's nats-server package).
package natstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/bloomcast/bloomcast/cluster/internal/proctest"
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
	conf   string // the configuration file, or ""
	proc   proctest.Process
}

// Options are a server's settings beyond the command line's. The zero
// Options is nats-server's defaults.
type Options struct {
	// MaxPayload is the server's max_payload, the largest message a
	// client may publish (headers and payload) in bytes; 0 means the
	// server's default, 1 MiB. nats-server takes it only from a
	// configuration file, which StartWith writes into the directory.
	MaxPayload int
}

// Start runs nats-server -js on a free loopback port, keeping its
// JetStream files and log in dir (created if needed), and waits until
// JetStream answers.
func Start(dir string) (*Server, error) { return StartWith(dir, Options{}) }

// StartWith is Start with the settings of o.
func StartWith(dir string, o Options) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	if o.MaxPayload < 0 {
		return nil, fmt.Errorf("natstest: max_payload %d", o.MaxPayload)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var conf string
	if o.MaxPayload > 0 {
		conf = filepath.Join(dir, "nats.conf")
		if err := os.WriteFile(conf, fmt.Appendf(nil, "max_payload: %d\n", o.MaxPayload), 0o644); err != nil {
			return nil, err
		}
	}
	var last error
	for range 5 { // a port found free may be taken before the server binds it
		port, err := proctest.FreePort()
		if err != nil {
			return nil, err
		}
		s := &Server{URL: "nats://127.0.0.1:" + strconv.Itoa(port), Port: port, Dir: dir, binary: bin, conf: conf}
		if last = s.run(); last == nil {
			return s, nil
		}
	}
	return nil, last
}

// run starts the process and waits for JetStream.
func (s *Server) run() error {
	s.proc = proctest.Process{Name: "nats-server on port " + strconv.Itoa(s.Port), Log: filepath.Join(s.Dir, "nats.log")}
	args := []string{"-js", "-a", "127.0.0.1", "-p", strconv.Itoa(s.Port),
		"-sd", filepath.Join(s.Dir, "jetstream"), "-l", s.proc.Log}
	if s.conf != "" { // the command line's options override the file's
		args = append(args, "-c", s.conf)
	}
	err := s.proc.Run(s.binary, args, s.ping)
	if err != nil {
		return fmt.Errorf("natstest: %w", err)
	}
	return nil
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
func (s *Server) Kill() { s.proc.Kill() }

// Restart starts a killed server again on the same port with the same
// directory: its streams are read back from disk.
func (s *Server) Restart() error { return s.run() }

// FreeURL returns a nats:// URL of a loopback port that nothing listens
// on now: a server that cannot be reached.
func FreeURL() (string, error) {
	port, err := proctest.FreePort()
	if err != nil {
		return "", err
	}
	return "nats://127.0.0.1:" + strconv.Itoa(port), nil
}
