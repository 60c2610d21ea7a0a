//go:build windows

package inplace

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// Writable returns nil if the user may replace the file at path, else an
// error wrapping ErrNotWritable (or the error from looking at it). On
// Windows a file is refused if it has the read-only attribute (Go shows
// it as a mode without write bits); other denials (access control lists)
// show when the file is replaced.
func Writable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if noWriteBits(fi.Mode()) {
		return notWritable(path, "it is read-only")
	}
	return nil
}

// writableDir checks that dir exists: the read-only attribute of a
// Windows directory does not stop files being created in it.
func writableDir(dir string) error {
	_, err := os.Stat(dir)
	return err
}

// openLockable opens path for reading with FILE_SHARE_DELETE, so that the
// rename in Replace may replace the file while it is open and locked.
func openLockable(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// lockOffsetHigh places the locked byte far beyond any file's end:
// Windows byte-range locks are mandatory, and a lock on the content would
// stop other processes reading it.
const lockOffsetHigh = 0x7fffffff

// lock waits for an exclusive LockFileEx on one byte of f. It is released
// when f is closed.
func lock(f *os.File) error {
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol)
}

// tryLock takes the lock of lock if no one holds it.
func tryLock(f *os.File) (bool, error) {
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}

// keepOwner does nothing: a new file on Windows takes its directory's
// inherited access control lists.
func keepOwner(tmp *os.File, old fs.FileInfo) {}

// syncDir does nothing: Windows has no directory sync; NTFS journals
// the rename.
func syncDir(dir string) error { return nil }
