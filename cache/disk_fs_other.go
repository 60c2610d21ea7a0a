//go:build !linux

package cache

import "io/fs"

// fsBlockSize is the allocation unit files are rounded up to: 4096, the
// block of the common file systems (statfs is read on Linux only).
func fsBlockSize(string) int64 { return 4096 }

// fileBlocks is unknown here: files are charged by their size rounded up
// to the block.
func fileBlocks(fs.FileInfo) int64 { return 0 }
