package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// The tests that need real processes (concurrent writers, the version a
// build stamps) run a bloomcast binary built once per test run.
var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
	binaryDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
	os.Exit(code)
}

// bloomcastBinary builds cmd/bloomcast with "go build" (version control
// stamping as Go decides for this checkout) and returns its path.
func bloomcastBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the bloomcast binary; skipped with -short")
	}
	binaryOnce.Do(func() {
		binaryDir, binaryErr = os.MkdirTemp("", "bloomcast-bin-")
		if binaryErr != nil {
			return
		}
		name := "bloomcast"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		binaryPath = filepath.Join(binaryDir, name)
		cmd := exec.Command("go", "build", "-buildvcs=auto", "-o", binaryPath, "../../cmd/bloomcast")
		out, err := cmd.CombinedOutput()
		if err != nil {
			binaryErr = &buildError{err, string(out)}
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

type buildError struct {
	err error
	out string
}

func (b *buildError) Error() string { return "go build: " + b.err.Error() + "\n" + b.out }
