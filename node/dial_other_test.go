//go:build !unix

package node

import (
	"net"
	"testing"
)

// dialSmallReceiveBuffer skips the test: the receive buffer is set
// through a Unix socket option.
func dialSmallReceiveBuffer(t *testing.T, addr string) (net.Conn, error) {
	t.Skip("needs SO_RCVBUF on a Unix socket")
	return nil, nil
}
