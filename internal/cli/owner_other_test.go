//go:build !unix

package cli

import "io/fs"

// fileOwner returns -1, -1: no Unix owners here.
func fileOwner(fi fs.FileInfo) (uid, gid int) { return -1, -1 }
