package cache

import (
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/bloomcast/bloomcast/internal/ratelog"
	"github.com/bloomcast/bloomcast/internal/storefail"
)

// faultLogEvery is the least time between two warnings of one reason:
// a full disk fails every store, and one line a minute says so.
const faultLogEvery = time.Minute

// faults records a store's failures: counts by reason, the fault that
// lasts (a write that failed, until one succeeds) and the rate limit of
// the warnings. Its own lock, so that it may be used with the store's
// held or not.
type faults struct {
	log *slog.Logger
	now func() time.Time

	warnings *ratelog.Limiter // by reason

	mu      sync.Mutex
	counts  map[string]uint64
	current error     // the last write's error; nil once a write succeeds
	since   time.Time // when current began
}

func newFaults(log *slog.Logger) *faults {
	return &faults{log: log, now: time.Now, warnings: ratelog.New(faultLogEvery), counts: map[string]uint64{}}
}

// failed counts and, at most once a minute per reason, logs a failure
// of op on dir. A failed write (write true) is the store's fault until a
// write succeeds.
func (f *faults) failed(dir, op string, write bool, err error) {
	reason := storefail.Reason(err)
	now := f.now()
	f.mu.Lock()
	f.counts[reason]++
	if write {
		if f.current == nil {
			f.since = now
		}
		f.current = err
	}
	f.mu.Unlock()
	ok, n := f.warnings.Allow(reason, now)
	if !ok {
		return
	}
	f.log.Warn("cache: disk store failing", "dir", dir, "op", op, "reason", reason, "err", err,
		"suppressedSinceLastWarning", n)
}

// count counts a failure without logging it (the caller logs it).
func (f *faults) count(err error) {
	f.mu.Lock()
	f.counts[storefail.Reason(err)]++
	f.mu.Unlock()
}

// wrote records a successful write, ending the fault if there was one.
func (f *faults) wrote(dir string) {
	f.mu.Lock()
	was, since := f.current, f.since
	f.current = nil
	f.mu.Unlock()
	if was != nil {
		f.log.Info("cache: disk store recovered", "dir", dir, "failingFor", f.now().Sub(since).Round(time.Millisecond), "lastErr", was)
	}
}

func (f *faults) fault() error {
	if f == nil { // a zero Disk
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.current
}

func (f *faults) failures() map[string]uint64 {
	if f == nil { // a zero Disk
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.counts)
}
