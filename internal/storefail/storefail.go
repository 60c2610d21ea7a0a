// Package storefail names why a cache store's file operation failed: the
// reasons a disk store counts its failures by (cache.Disk.Failures), the
// label of the node's bloomcast_store_failures_total and the word its
// /healthz and logs give.
package storefail

import (
	"errors"
	"io/fs"
	"syscall"
)

// ErrCorrupt is cache.ErrCorrupt: an entry's file did not decode. It is
// defined here so that Reason can tell it from the other failures.
var ErrCorrupt = errors.New("cache: corrupt entry")

// Reasons a store's file operation failed.
const (
	NoSpace  = "no_space"  // the file system is full, or a quota reached (ENOSPC, EDQUOT)
	Missing  = "missing"   // the directory, or an entry's file, is gone (ENOENT)
	ReadOnly = "read_only" // the file system is read-only or the directory not writable (EROFS, EACCES, EPERM)
	Corrupt  = "corrupt"   // an entry's file did not decode (ErrCorrupt)
	IO       = "io"        // an I/O error (EIO), or any other
)

// Reasons lists every reason, in the order the metrics report them.
var Reasons = []string{NoSpace, Missing, ReadOnly, Corrupt, IO}

// Reason classifies a store's error into one of the reasons.
func Reason(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return NoSpace
	case errors.Is(err, fs.ErrNotExist):
		return Missing
	case errors.Is(err, syscall.EROFS), errors.Is(err, fs.ErrPermission):
		return ReadOnly
	case errors.Is(err, ErrCorrupt):
		return Corrupt
	}
	return IO
}
