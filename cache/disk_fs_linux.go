//go:build linux

package cache

import (
	"io/fs"
	"syscall"
)

// fsBlockSize is the allocation unit of the file system holding dir
// (statfs(2)'s f_frsize, else f_bsize), or 4096 when it cannot be read.
func fsBlockSize(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 4096
	}
	if st.Frsize > 0 {
		return int64(st.Frsize) //nolint:unconvert // int32 on 386 and arm
	}
	if st.Bsize > 0 {
		return int64(st.Bsize) //nolint:unconvert // int32 on 386 and arm
	}
	return 4096
}

// fileBlocks is the bytes the file system allocated for a file (stat(2)'s
// st_blocks, in units of 512 bytes), as du counts them; 0 when unknown.
func fileBlocks(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return 0
}
