//go:build unix

package inplace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// Writable returns nil if the user may replace the file at path, else an
// error wrapping ErrNotWritable (or the error from looking at it). The
// user may if access(2) grants write permission on the file and write and
// search permission on its directory, and, because access(2) grants root
// everything, if the file's and the directory's modes give someone write
// permission: a file of mode 0444, or in a directory of mode 0555, is
// refused to root too. access(2) checks the real user and group IDs, and
// any access control lists.
func Writable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if noWriteBits(fi.Mode()) {
		return notWritable(path, "its mode "+fi.Mode().Perm().String()+" lets no one write it")
	}
	if err := unix.Access(path, unix.W_OK); err != nil {
		return notWritable(path, "the user may not write it")
	}
	return writableDir(filepath.Dir(path))
}

// writableDir is Writable for the directory a file is replaced in.
func writableDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if noWriteBits(fi.Mode()) {
		return notWritable(dir, "the directory's mode "+fi.Mode().Perm().String()+" lets no one create files in it")
	}
	if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
		return notWritable(dir, "the user may not create files in the directory")
	}
	return nil
}

// openLockable opens path for reading; flock works on any descriptor.
func openLockable(path string) (*os.File, error) { return os.Open(path) }

// lock waits for an exclusive flock(2) on f. It is released when f is
// closed.
func lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// tryLock takes an exclusive flock(2) on f if no one holds one.
func tryLock(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) || errors.Is(err, unix.EINTR) {
		return false, nil
	}
	return err == nil, err
}

// keepOwner gives tmp old's owner and group; if the process may not
// (only root may give a file away), the group alone (which the owner may
// set to any group it belongs to); if not that either, neither.
func keepOwner(tmp *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	if tmp.Chown(int(st.Uid), int(st.Gid)) != nil {
		_ = tmp.Chown(-1, int(st.Gid)) // best effort, as said above: the owner's group may be refused too
	}
}

// syncDir makes a rename in dir durable. File systems that cannot sync a
// directory say so with EINVAL or ENOTSUP, and are not an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		return nil
	}
	return err
}
