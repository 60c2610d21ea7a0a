package natstest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Require skips t when nats-server is not installed, or fails it when
// RequireEnv is set.
func Require(t testing.TB) {
	t.Helper()
	if _, err := Binary(); err != nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("%v, and %s is set", err, RequireEnv)
		}
		t.Skip(err)
	}
}

// New starts a server for t, killed at t's cleanup (Require first).
func New(t testing.TB) *Server {
	t.Helper()
	Require(t)
	s, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() { // the server's side of the failure
			log, _ := os.ReadFile(filepath.Join(s.Dir, "nats.log"))
			t.Logf("the last lines of nats-server's log:\n%s", lastLines(log, 20))
		}
		s.Kill()
	})
	return s
}

// Installed reports whether nats-server is installed; it fails, as an
// error, when it is not and RequireEnv is set.
func Installed() (bool, error) {
	_, err := Binary()
	if err != nil && os.Getenv(RequireEnv) != "" {
		return false, errors.Join(err, errors.New("natstest: "+RequireEnv+" is set"))
	}
	return err == nil, nil
}
