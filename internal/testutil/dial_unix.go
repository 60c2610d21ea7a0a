//go:build unix

package testutil

import (
	"net"
	"syscall"
	"testing"
)

// DialSmallReceiveBuffer connects to addr with a 4 KiB receive buffer,
// so that a client that does not read stalls the server's writes at once.
func DialSmallReceiveBuffer(t testing.TB, addr string) (net.Conn, error) {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	return d.Dial("tcp", addr)
}
