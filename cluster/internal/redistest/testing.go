package redistest

import (
	"testing"

	"github.com/bloomcast/bloomcast/cluster/internal/proctest"
)

// Require skips t when redis-server or redis-cli is not installed, or
// fails it when RequireEnv is set.
func Require(t testing.TB) {
	t.Helper()
	_, _, err := Binaries()
	proctest.Require(t, err, RequireEnv)
}

// Single starts a single server for t, killed at t's cleanup (Require
// first). If t failed, the cleanup logs the server's state first.
func Single(t testing.TB, extra ...string) *Server {
	t.Helper()
	Require(t)
	s, err := Start(t.TempDir(), false, extra...)
	if err != nil {
		t.Fatal(err)
	}
	proctest.Cleanup(t, &s.proc)
	return s
}

// NewCluster starts a cluster of n masters for t, killed at t's cleanup
// (Require first).
func NewCluster(t testing.TB, n int, extra ...string) *Cluster {
	t.Helper()
	Require(t)
	c, err := StartCluster(t.TempDir(), n, extra...)
	if err != nil {
		t.Fatal(err)
	}
	procs := make([]*proctest.Process, len(c.Nodes))
	for i, s := range c.Nodes {
		procs[i] = &s.proc
	}
	proctest.Cleanup(t, procs...)
	return c
}

// Installed reports whether redis-server and redis-cli are installed; it
// fails, as an error, when they are not and RequireEnv is set.
func Installed() (bool, error) {
	_, _, err := Binaries()
	return proctest.Installed(err, RequireEnv, "redistest")
}
