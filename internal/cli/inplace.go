package cli

import (
	"errors"
	"io"
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
// user may not write it; a new one gets mode 0644 less the umask. SIGINT
// or SIGTERM during the write stops it (see interrupted).
func (e *env) writeFile(path string, f io.WriterTo) error {
	write := func(w io.Writer) error {
		_, err := f.WriteTo(w)
		return err
	}
	ctx, release := catchSignals()
	var err error
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
