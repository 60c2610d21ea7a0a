// Package inplace updates files in place without losing data: every
// update of a file, from reading it to replacing it, holds an exclusive
// advisory lock on it, so concurrent updaters take turns and none loses
// another's change; the new content goes to a temporary file in the same
// directory, synced to disk, with the old file's mode (and owner and
// group where the process may set them), and is renamed over the old one,
// so readers see the old content or the new, never a part; and a file the
// user may not write is refused, even for root.
//
// The lock is advisory: it orders the processes that use this package
// (flock(2) on Unix, LockFileEx on Windows), not other writers. A
// replaced file is a new file: hard links to the old one keep the old
// content. A symbolic link is followed, and the file it names is
// replaced.
//
// WriteFile writes what is not a regular file (a FIFO, a character device
// such as /dev/null or a terminal, /dev/stdout when it is a pipe)
// directly, as cp does: it cannot be replaced, and nothing is left to
// remove if the write fails. Open refuses it, without opening it.
//
// ReplaceContext and WriteFileContext stop writing when their context is
// done (a command's SIGINT, say): the temporary file is removed and the
// file left as it was. WriteFileContext also stops waiting for the lock.
//
// The recipe is the usual one for crash-safe replacement (write, fsync,
// rename, fsync the directory), as described for example in the
// PostgreSQL and SQLite documentation on durable writes; lock-then-recheck
// (after the lock is granted, the path must still name the locked file,
// else a previous holder replaced it and the lock is taken again on the
// new file) is the standard way to lock a file that is replaced by rename.
package inplace

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// ErrNotOpen is returned by the methods of a File that Open did not make.
var ErrNotOpen = errors.New("inplace: file not opened by Open")

// ErrNotWritable is returned, wrapped with the path, for a file or
// directory the user may not write; see Writable.
var ErrNotWritable = errors.New("inplace: not writable")

// A File is a file opened for an update: it holds the exclusive lock
// from Open until Close. Read it through its Read method, then Replace
// it. A File not made by Open (the zero value, or nil) holds nothing: its
// methods return ErrNotOpen, and Info returns nil.
type File struct {
	path string      // the file, symbolic links resolved
	f    *os.File    // the open, locked file
	info fs.FileInfo // f's mode, size, owner when opened
	done bool        // Replace succeeded
}

// Open opens the existing regular file at path for an update: it checks
// that the user may replace it (Writable), then waits for the exclusive
// lock. The caller must Close the File.
func Open(path string) (*File, error) { return openContext(context.Background(), path) }

// openContext is Open that stops waiting for the lock when ctx is done.
func openContext(ctx context.Context, path string) (*File, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	for {
		if err := regular(real); err != nil {
			return nil, err
		}
		if err := Writable(real); err != nil {
			return nil, err
		}
		f, err := openLockable(real)
		if err != nil {
			return nil, err
		}
		if err := lockContext(ctx, f); err != nil {
			return nil, errors.Join(&fs.PathError{Op: "lock", Path: path, Err: err}, f.Close())
		}
		info, err := f.Stat()
		if err != nil {
			return nil, errors.Join(err, f.Close())
		}
		if !info.Mode().IsRegular() {
			return nil, errors.Join(&fs.PathError{Op: "open", Path: path, Err: errNotRegular}, f.Close())
		}
		// The previous holder of the lock may have replaced the file:
		// then the lock is on a file no longer at path.
		now, err := os.Stat(real)
		if err == nil && os.SameFile(info, now) {
			return &File{path: real, f: f, info: info}, nil
		}
		if cerr := f.Close(); err == nil && cerr != nil {
			return nil, cerr
		}
		if err != nil {
			return nil, err
		}
	}
}

// errNotRegular refuses to update what is not a regular file.
var errNotRegular = errors.New("inplace: not a regular file")

// regular refuses what is not a regular file before it is opened: opening
// a FIFO for reading would wait for a writer.
func regular(path string) error {
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: errNotRegular}
	}
	return err
}

// lockPoll is how often lockContext tries for a lock held by another.
const lockPoll = 20 * time.Millisecond

// lockContext is lock that gives up when ctx is done. It tries for the
// lock every lockPoll rather than wait in the system call, which a signal
// does not end: Go restarts it.
func lockContext(ctx context.Context, f *os.File) error {
	if ctx.Done() == nil {
		return lock(f)
	}
	for {
		if got, err := tryLock(f); got || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(lockPoll):
		}
	}
}

// Read reads the file's content as it was when the lock was granted.
func (f *File) Read(p []byte) (int, error) {
	if f == nil || f.f == nil {
		return 0, ErrNotOpen
	}
	return f.f.Read(p)
}

// Info describes the file as it was when the lock was granted.
func (f *File) Info() fs.FileInfo {
	if f == nil {
		return nil
	}
	return f.info
}

// Replace writes the new content with write, to a temporary file in the
// file's directory, gives it the old file's mode (and owner and group,
// where permitted), syncs it, renames it over the file and syncs the
// directory. If write or any step fails, the temporary file is removed
// and the file is left as it was. Replace may be called once; the lock
// is still held until Close.
func (f *File) Replace(write func(w io.Writer) error) error {
	return f.ReplaceContext(context.Background(), write)
}

// ReplaceContext is Replace that stops when ctx is done before the new
// content is renamed into place: the writer given to write then fails
// with ctx's cause (context.Cause), and Replace returns an error wrapping
// it, with the temporary file removed and the file left as it was.
func (f *File) ReplaceContext(ctx context.Context, write func(w io.Writer) error) error {
	if f == nil || f.f == nil {
		return ErrNotOpen
	}
	if f.done {
		return errors.New("inplace: Replace called twice")
	}
	if err := replace(ctx, f.path, f.info, 0, write); err != nil {
		return err
	}
	f.done = true
	return nil
}

// Close releases the lock and closes the file.
func (f *File) Close() error {
	if f == nil || f.f == nil {
		return ErrNotOpen
	}
	// Closing the handle releases the lock on every platform.
	return f.f.Close()
}

// WriteFile writes a whole file atomically: like Replace, under the lock
// if path exists (keeping its mode, owner and group, and refused if it is
// not Writable), else as a new file with mode perm (less the umask). An
// existing path that is not a regular file nor a directory (a FIFO, a
// device) is written directly, not atomically and without the lock; a
// directory is refused.
func WriteFile(path string, perm fs.FileMode, write func(w io.Writer) error) error {
	return WriteFileContext(context.Background(), path, perm, write)
}

// WriteFileContext is WriteFile that stops, as ReplaceContext does, when
// ctx is done, also while it waits for the lock; not while it opens what
// is not a regular file (a FIFO waits for a reader).
func WriteFileContext(ctx context.Context, path string, perm fs.FileMode, write func(w io.Writer) error) error {
	// Stat follows what EvalSymlinks cannot: /dev/stdout's link to a
	// pipe, which names no file.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return &fs.PathError{Op: "write", Path: path, Err: errors.New("inplace: is a directory")}
		}
		return writeDirect(ctx, path, write)
	}
	real, err := filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		real = path
		if target, lerr := os.Readlink(path); lerr == nil {
			// A dangling symbolic link: create the file it names.
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(path), target)
			}
			real = target
		}
		if err := writableDir(dirOf(real)); err != nil {
			return err
		}
		return replace(ctx, real, nil, perm&fs.ModePerm, write)
	case err != nil:
		return err
	}
	f, err := openContext(ctx, real)
	if err != nil {
		return err
	}
	err = f.ReplaceContext(ctx, write)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeDirect writes the content to the existing file at path, which is
// not a regular file, as cp does.
func writeDirect(ctx context.Context, path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(&ctxWriter{ctx: ctx, w: f}, 64<<10)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// dirOf is the directory holding path.
func dirOf(path string) string {
	return filepath.Dir(path)
}

// replace writes path's new content with write. old describes the file
// being replaced, whose mode, owner and group the new one keeps; for a
// new file (old nil) the mode is perm less the umask. It stops when ctx
// is done, up to the rename.
func replace(ctx context.Context, path string, old fs.FileInfo, perm fs.FileMode, write func(io.Writer) error) error {
	dir := dirOf(path)
	createPerm := perm
	if old != nil {
		createPerm = 0o600 // until fill sets the old mode
	}
	tmp, err := createTemp(dir, filepath.Base(path), createPerm)
	if err != nil {
		return err
	}
	err = fill(ctx, tmp, write, old)
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx) // the sync may have been long
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		// The temporary file is ours and unfinished; if it cannot be
		// removed either, both errors are reported.
		return errors.Join(err, os.Remove(tmp.Name()))
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("inplace: %s replaced, but its directory was not synced: %w", path, err)
	}
	return nil
}

// createTemp creates a new file ".BASE.RANDOM.tmp" in dir with mode perm
// (less the umask).
func createTemp(dir, base string, perm fs.FileMode) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}

// fill writes the content to tmp; for a replacement it gives tmp old's
// owner and group (where permitted) and mode; it syncs and closes tmp.
func fill(ctx context.Context, tmp *os.File, write func(io.Writer) error, old fs.FileInfo) error {
	w := bufio.NewWriterSize(&ctxWriter{ctx: ctx, w: tmp}, 64<<10)
	err := write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil && old != nil {
		keepOwner(tmp, old) // where the process may: best effort
		// After the owner: chown clears the set-user-ID and set-group-ID
		// bits.
		err = tmp.Chmod(old.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	return err
}

// ctxWriter writes to w until ctx is done, then fails with its cause. It
// passes a large write on in pieces of ctxPiece bytes, so that even one
// write of a whole multi-gigabyte filter stops soon after ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

const ctxPiece = 4 << 20

func (c *ctxWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		if c.ctx.Err() != nil {
			return n, context.Cause(c.ctx)
		}
		m, err := c.w.Write(p[:min(len(p), ctxPiece)])
		n += m
		if err != nil {
			return n, err
		}
		p = p[m:]
	}
	return n, nil
}
