//go:build unix

package cli

import (
	"io/fs"
	"syscall"
)

// fileOwner returns the file's owner and group.
func fileOwner(fi fs.FileInfo) (uid, gid int) {
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}
