package cli

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bloomcast/bloomcast/inplace"
)

// In-place commands (add, remove, bloomier update) change a file: they
// lock it first (lockInPlace), read it through the lock (openInput) and
// write it back under the same lock (writeFilter), so concurrent
// commands on one file take turns and none loses another's keys. Package
// inplace does the locking, the permission check and the replacement.

// lockInPlace takes the exclusive lock on the file at path for the rest
// of the command; the caller must call the returned function to release
// it. A file the user may not write is refused here, before anything is
// read.
func (e *env) lockInPlace(path string) (release func(), err error) {
	f, err := inplace.Open(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	e.locked, e.lockedPath = f, path
	return func() {
		// The new content, if any, is already in place (renamed over
		// the old file); closing releases the lock, which the process's
		// exit would release as well, so its error changes nothing.
		_ = f.Close()
		e.locked, e.lockedPath = nil, ""
	}, nil
}

// openInput opens the file at path for reading and returns it with its
// description and the function that closes it. The file an in-place
// command holds locked is read through its lock.
func (e *env) openInput(path string) (io.Reader, os.FileInfo, func(), error) {
	if e.locked != nil && path == e.lockedPath {
		return e.locked, e.locked.Info(), func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, fileErr(path, err)
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		err = errors.New("is a directory")
	}
	if err != nil {
		closeInput(f)
		return nil, nil, nil, fileErr(path, err)
	}
	return f, fi, func() { closeInput(f) }, nil
}

// writeFile writes f to the file at path atomically (package inplace):
// under the lock the command holds, or else taking it if the file exists.
// An existing file keeps its mode, owner and group, and is refused if the
// user may not write it; a new one gets mode 0644 less the umask. What is
// not a regular file (a FIFO, /dev/null) is written directly, as cp
// does; a terminal only with --force, as standard output. SIGINT or
// SIGTERM during an atomic write stops it (see interrupted); a direct one
// leaves nothing to remove, and they end it as usual (also while a FIFO
// waits for its reader).
func (e *env) writeFile(path string, f io.WriterTo) error {
	direct, err := e.directOutput(path)
	if err != nil {
		return err
	}
	write := func(w io.Writer) error {
		_, err := f.WriteTo(w)
		return err
	}
	ctx, release := context.Background(), func() os.Signal { return nil }
	if !direct {
		ctx, release = catchSignals()
	}
	if e.locked != nil && path == e.lockedPath {
		err = e.locked.ReplaceContext(ctx, write)
	} else {
		err = inplace.WriteFileContext(ctx, path, 0o644, write)
	}
	if sig := release(); sig != nil {
		return &interrupted{sig: sig, path: path, written: err == nil}
	}
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			err = errors.New("is a directory: -o names the file to write (such as " + filepath.Join(path, "out.bf") + ")")
		}
		return fileErr(path, err)
	}
	return nil
}

// directOutput reports whether path names a file that inplace writes
// directly: one that exists and is neither a regular file nor a
// directory. A terminal is refused unless --force.
func (e *env) directOutput(path string) (bool, error) {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() || fi.IsDir() {
		return false, nil //nolint:nilerr // the write reports a path it cannot make
	}
	if fi.Mode()&fs.ModeCharDevice != 0 && !e.force && isTerminalPath(path) {
		return true, fileErr(path, errTerminal)
	}
	return true, nil
}

// isTerminalPath reports whether the character device at path is a
// terminal (/dev/tty, /dev/stdout on a terminal).
func isTerminalPath(path string) bool {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false // the write reports it
	}
	defer closeInput(f)
	return isTerminal(f)
}
