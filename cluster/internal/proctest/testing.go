package proctest

import (
	"errors"
	"fmt"
	"os"
	"testing"
)

// Require skips t when missing, the error of looking for a server's
// binaries, is not nil, or fails t when the environment variable env is
// set (CI sets it, so that a test that should run never skips).
func Require(t testing.TB, missing error, env string) {
	t.Helper()
	if missing != nil {
		if os.Getenv(env) != "" {
			t.Fatalf("%v, and %s is set", missing, env)
		}
		t.Skip(missing)
	}
}

// Installed reports whether missing, the error of looking for a server's
// binaries, is nil; it fails, as an error, when it is not and env is set.
// pkg names the caller in the error.
func Installed(missing error, env, pkg string) (bool, error) {
	if missing != nil && os.Getenv(env) != "" {
		return false, errors.Join(missing, errors.New(pkg+": "+env+" is set"))
	}
	return missing == nil, nil
}

// Cleanup has ps killed at t's cleanup, after logging what Describe
// says of each if t failed (the servers' side of the failure).
func Cleanup(t testing.TB, ps ...*Process) {
	t.Cleanup(func() {
		for _, p := range ps {
			if t.Failed() {
				t.Log(p.Describe())
			}
			p.Kill()
		}
	})
}

// Describe returns what a failed test should know of p: the last lines
// of its log and whether it is still running, or how it exited and what
// it wrote to its standard output and error.
func (p *Process) Describe() string {
	if exited, report := p.Exited(); exited {
		return p.Name + " " + report
	}
	log, _ := os.ReadFile(p.Log)
	return fmt.Sprintf("%s is running; the last lines of its log:\n%s", p.Name, LastLines(log, 20))
}
