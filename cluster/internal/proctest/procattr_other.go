//go:build !linux

package proctest

import "syscall"

// procAttr is the default elsewhere: no parent-death signal.
func procAttr() *syscall.SysProcAttr { return nil }
