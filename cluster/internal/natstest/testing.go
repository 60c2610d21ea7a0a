package natstest

import (
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cluster/internal/proctest"
)

// Require skips t when nats-server is not installed, or fails it when
// RequireEnv is set.
func Require(t testing.TB) {
	t.Helper()
	_, err := Binary()
	proctest.Require(t, err, RequireEnv)
}

// New starts a server for t, killed at t's cleanup (Require first).
func New(t testing.TB) *Server {
	t.Helper()
	return NewWith(t, Options{})
}

// NewWith is New with the settings of o.
func NewWith(t testing.TB, o Options) *Server {
	t.Helper()
	Require(t)
	s, err := StartWith(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	proctest.Cleanup(t, &s.proc)
	return s
}

// WaitConnected fails t unless c, a digest transport called name, says
// it is connected within 30 s: a loaded machine may take a retry of the
// first connection.
func WaitConnected(t testing.TB, name string, c interface{ Connected() bool }) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !c.Connected(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: transport not connected after 30 s", name)
		}
	}
}

// Installed reports whether nats-server is installed; it fails, as an
// error, when it is not and RequireEnv is set.
func Installed() (bool, error) {
	_, err := Binary()
	return proctest.Installed(err, RequireEnv, "natstest")
}
