package cache

import (
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

// mountTmpfs, liveHeap and rawStallOrigin are the module's shared ones.
func mountTmpfs(t *testing.T, size int) string { t.Helper(); return testutil.MountTmpfs(t, size) }
func liveHeap() int64                          { return testutil.LiveHeap() }
func rawStallOrigin(t *testing.T) string       { return testutil.StallOrigin(t) }
