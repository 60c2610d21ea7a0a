package cache

import (
	"net/http"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// syncBuffer and fakeClock are the module's shared test buffer and clock.
type (
	syncBuffer = testutil.SyncBuffer
	fakeClock  = testutil.Clock
)

// waitFor waits for ok, as [testutil.WaitFor] does.
func waitFor(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	testutil.WaitFor(t, limit, what, ok)
}

// discardWriter is a ResponseWriter that keeps the status and header and
// drops the body, as cheaply as it can, so that a benchmark counts the
// handler's own work.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(status int)      { d.status = status }
func (d *discardWriter) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }

// mountTmpfs, liveHeap and rawStallOrigin are the module's shared ones.
func mountTmpfs(t *testing.T, size int) string { t.Helper(); return testutil.MountTmpfs(t, size) }
func liveHeap() int64                          { return testutil.LiveHeap() }
func rawStallOrigin(t *testing.T) string       { return testutil.StallOrigin(t) }
