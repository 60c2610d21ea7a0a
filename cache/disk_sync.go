//go:build !windows

package cache

import "os"

// syncDir makes the directory's entries (a rename into it) durable: the
// renamed file's own sync does not cover the directory entry (rename(2),
// fsync(2)).
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
