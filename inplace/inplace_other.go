//go:build !unix && !windows

package inplace

import (
	"io/fs"
	"os"
)

// Writable returns nil if the user may replace the file at path, else an
// error wrapping ErrNotWritable: here, if its mode gives someone write
// permission.
func Writable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if noWriteBits(fi.Mode()) {
		return notWritable(path, "its mode "+fi.Mode().Perm().String()+" lets no one write it")
	}
	return nil
}

func writableDir(dir string) error {
	_, err := os.Stat(dir)
	return err
}

func openLockable(path string) (*os.File, error) { return os.Open(path) }

// lock does nothing: this platform has no advisory locks, so concurrent
// updates are not serialised.
func lock(f *os.File) error { return nil }

func tryLock(f *os.File) (bool, error) { return true, nil }

func keepOwner(tmp *os.File, old fs.FileInfo) {}

func syncDir(dir string) error { return nil }
