package storefail

import (
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

func TestReason(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.ENOSPC}, NoSpace},
		{fmt.Errorf("w: %w", syscall.EDQUOT), NoSpace},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}, Missing},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EROFS}, ReadOnly},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}, ReadOnly},
		{fmt.Errorf("%w: bad crc", ErrCorrupt), Corrupt},
		{&fs.PathError{Op: "read", Path: "x", Err: syscall.EIO}, IO},
		{fmt.Errorf("anything else"), IO},
	} {
		if got := Reason(c.err); got != c.want {
			t.Errorf("Reason(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}
