//go:build !unix

package testutil

import (
	"net"
	"testing"
)

// DialSmallReceiveBuffer skips the test: the receive buffer is set
// through a Unix socket option.
func DialSmallReceiveBuffer(t testing.TB, addr string) (net.Conn, error) {
	t.Skip("needs SO_RCVBUF on a Unix socket")
	return nil, nil
}
