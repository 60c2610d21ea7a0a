//go:build !linux

package natstest

import "syscall"

// procAttr is the default elsewhere: no parent-death signal.
func procAttr() *syscall.SysProcAttr { return nil }
