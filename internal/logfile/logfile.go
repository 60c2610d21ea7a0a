// Package logfile is the file `bloomcast serve` writes its access log
// to (cache.Config.AccessLog): appended to, standard output or nowhere,
// and reopened at its path after log rotation while writes go on.
package logfile

import (
	"io"
	"log/slog"
	"os"
	"sync"
)

// A File is where a proxy writes its access log (cache.Config.AccessLog):
// a file opened for appending, standard output ("-") or nowhere (""),
// which Reopen points at a path again (after log rotation, on SIGHUP)
// while writes go on; a write never goes to a closed file. Make one with
// Open; the zero value writes nowhere until Reopen.
type File struct {
	stdout io.Writer
	log    *slog.Logger // where a failed close of a replaced file is reported

	mu sync.Mutex
	w  io.Writer
	f  *os.File // nil for standard output or nowhere
}

// Open opens path for appending (creating it with mode 0644 less
// the umask): "-" is stdout, "" nowhere. A replaced file that fails to
// close is reported to log (nil: slog.Default()).
func Open(path string, stdout io.Writer, log *slog.Logger) (*File, error) {
	if log == nil {
		log = slog.Default()
	}
	l := &File{stdout: stdout, log: log}
	if err := l.Reopen(path); err != nil {
		return nil, err
	}
	return l, nil
}

// Reopen points l at path, as Open opens it, and closes the file
// it wrote to. On error l goes on writing where it did.
func (l *File) Reopen(path string) error {
	var w io.Writer
	var f *os.File
	switch path {
	case "":
		w = io.Discard
	case "-":
		w = l.stdout
		if w == nil {
			w = io.Discard
		}
	default:
		var err error
		if f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			return err
		}
		w = f
	}
	l.mu.Lock()
	old := l.f
	l.w, l.f = w, f
	l.mu.Unlock()
	if old != nil {
		if err := old.Close(); err != nil && l.log != nil {
			l.log.Error("closing the previous access log", "err", err)
		}
	}
	return nil
}

// Write writes p where l points.
func (l *File) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return len(p), nil
	}
	return l.w.Write(p)
}

// Close closes the file l writes to; later writes go nowhere.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	if l.f != nil {
		err = l.f.Close()
		l.f = nil
	}
	l.w = io.Discard
	return err
}
