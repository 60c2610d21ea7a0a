package inplace

import (
	"fmt"
	"io/fs"
)

// notWritable is the error for a path the user may not write.
func notWritable(path, why string) error {
	return &fs.PathError{Op: "replace", Path: path, Err: fmt.Errorf("%w: %s", ErrNotWritable, why)}
}

// noWriteBits reports whether mode grants no one write permission.
func noWriteBits(mode fs.FileMode) bool { return mode.Perm()&0o222 == 0 }
