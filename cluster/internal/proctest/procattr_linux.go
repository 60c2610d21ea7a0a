package proctest

import "syscall"

// procAttr has the kernel kill a server when the process that started it
// dies, so that a crashed test leaves no server behind.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
