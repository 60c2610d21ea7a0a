package node

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/originclient"
	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// codeTunnel is the result code of a CONNECT tunnel (Squid's TCP_TUNNEL).
const codeTunnel = "TCP_TUNNEL"

// Tunnel defaults: the ports CONNECT may reach, and Squid's read_timeout
// and client_lifetime.
const (
	DefaultTunnelIdle     = 15 * time.Minute
	DefaultTunnelLifetime = 24 * time.Hour
	tunnelDialTimeout     = 30 * time.Second
)

// defaultConnectPorts are the ports a CONNECT may reach when
// NodeConfig.ConnectPorts is empty: HTTPS.
var defaultConnectPorts = []uint16{443}

// tunnelMetrics count CONNECT tunnels: opened, refused, failed, and their
// bytes in each direction.
type tunnelMetrics struct {
	tunnels *prometheus.CounterVec
	bytes   *prometheus.CounterVec
}

func newTunnelMetrics(r *prometheus.Registry) *tunnelMetrics {
	m := &tunnelMetrics{
		tunnels: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bloomcast_tunnels_total",
			Help: "CONNECT requests by result: tunnelled, denied (a port not in --connect-ports), failed (the server could not be reached).",
		}, []string{"result"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bloomcast_tunnel_bytes_total",
			Help: "Bytes carried by CONNECT tunnels, by direction: client_to_server, server_to_client.",
		}, []string{"direction"}),
	}
	for _, res := range []string{"tunnelled", "denied", "failed"} {
		m.tunnels.WithLabelValues(res)
	}
	for _, d := range []string{"client_to_server", "server_to_client"} {
		m.bytes.WithLabelValues(d)
	}
	r.MustRegister(m.tunnels, m.bytes)
	return m
}

// tunnel answers a CONNECT from an allowed client (RFC 9110 §9.3.6): to a
// port in ConnectPorts it connects to host:port, answers 200 and copies
// bytes both ways until both sides have closed, nothing crossed for
// TunnelIdle, or the tunnel is TunnelLifetime old; to any other port it
// answers 403. Nothing is cached. The access log gets Squid's line:
// TCP_TUNNEL/200 with the bytes sent to the client, HIER_DIRECT and the
// server's address; both directions are counted in /metrics.
func (n *Node) tunnel(w http.ResponseWriter, r *http.Request) {
	n.live.enter()
	defer n.live.leave()
	start := n.now()
	target := r.RequestURI
	if target == "" {
		target = r.Host
	}
	rec := cache.Record{Time: start, Client: httpx.ClientIP(r.RemoteAddr), Method: r.Method, URL: target, Hierarchy: squidlog.HierNone}
	finish := func(code string, status int, msg string) {
		rec.Code, rec.Status = code, status
		if msg != "" {
			httpx.AddVia(w.Header(), 1, 1, n.cfg.Name)
			http.Error(w, msg, status)
			rec.Bytes = int64(len(msg) + 1)
			rec.ContentType = "text/plain"
		}
		rec.Elapsed = n.now().Sub(start)
		n.proxy.LogAccess(rec)
	}
	_, portText, err := net.SplitHostPort(target)
	port, perr := strconv.ParseUint(portText, 10, 16)
	if err != nil || perr != nil {
		n.tunnels.tunnels.WithLabelValues("denied").Inc()
		finish(squidlog.CodeDenied, http.StatusBadRequest, "node: CONNECT wants host:port")
		return
	}
	if !slices.Contains(n.cfg.ConnectPorts, uint16(port)) {
		n.tunnels.tunnels.WithLabelValues("denied").Inc()
		finish(squidlog.CodeDenied, http.StatusForbidden, fmt.Sprintf("node: CONNECT to port %d is not allowed", port))
		return
	}
	d := net.Dialer{Timeout: min(tunnelDialTimeout, n.cfg.TunnelLifetime), Control: n.tunnelControl()}
	server, err := d.DialContext(r.Context(), "tcp", target)
	if errors.Is(err, errTunnelSelf) {
		n.tunnels.tunnels.WithLabelValues("denied").Inc()
		finish(squidlog.CodeDenied, http.StatusForbidden, "node: CONNECT to "+target+": the node's own address")
		return
	}
	if errors.Is(err, originclient.ErrDenied) {
		n.tunnels.tunnels.WithLabelValues("denied").Inc()
		n.log.Info("node: CONNECT denied", "target", logCut(target, maxLogTarget), "err", logCut(err.Error(), maxLogErr))
		finish(squidlog.CodeDenied, http.StatusForbidden, "node: CONNECT to "+target+" is not allowed")
		return
	}
	if err != nil {
		n.tunnels.tunnels.WithLabelValues("failed").Inc()
		n.log.Info("node: CONNECT failed", "target", logCut(target, maxLogTarget), "err", logCut(err.Error(), maxLogErr))
		status := http.StatusBadGateway
		if httpx.IsTimeout(err) {
			status = http.StatusGatewayTimeout
		}
		finish(squidlog.CodeNone, status, "node: cannot reach "+target)
		return
	}
	defer closeConn(server)
	n.live.add(server)
	defer n.live.remove(server)
	client, buffered, err := http.NewResponseController(w).Hijack()
	if err != nil {
		n.tunnels.tunnels.WithLabelValues("failed").Inc()
		finish(squidlog.CodeNone, http.StatusInternalServerError, "node: CONNECT over this connection is not supported")
		return
	}
	client = tunnelConn(client)
	defer closeConn(client)
	n.live.add(client)
	defer n.live.remove(client)
	n.tunnels.tunnels.WithLabelValues("tunnelled").Inc()
	rec.Hierarchy, rec.From = squidlog.HierDirect, httpx.ClientIP(server.RemoteAddr().String())
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		finish(codeTunnel, http.StatusOK, "")
		return
	}
	up, down := n.splice(client, buffered.Reader, server, start)
	n.tunnels.bytes.WithLabelValues("client_to_server").Add(float64(up))
	n.tunnels.bytes.WithLabelValues("server_to_client").Add(float64(down))
	n.log.Debug("node: CONNECT closed", "target", logCut(target, maxLogTarget), "client_to_server", up, "server_to_client", down)
	rec.Bytes = down
	finish(codeTunnel, http.StatusOK, "")
}

// splice copies client to server and server to client (the client's
// bytes already buffered first) and returns the bytes copied each way.
// A side that ends its stream has its end passed on (a half close); the
// tunnel ends when both have, when nothing has crossed either way for
// TunnelIdle, or at TunnelLifetime.
func (n *Node) splice(client net.Conn, buffered *bufio.Reader, server net.Conn, start time.Time) (up, down int64) {
	end := start.Add(n.cfg.TunnelLifetime)
	var last atomic.Int64 // unix nanoseconds of the last bytes in either direction
	last.Store(time.Now().UnixNano())
	idle := n.cfg.TunnelIdle
	copyDir := func(dst, src net.Conn, r io.Reader, count *int64) error {
		buf := make([]byte, 32<<10)
		for {
			deadline := time.Unix(0, last.Load()).Add(idle)
			if deadline.After(end) {
				deadline = end
			}
			// Without its deadline a read could outlast the tunnel's
			// lifetime: a socket that refuses one ends the tunnel.
			if err := src.SetReadDeadline(deadline); err != nil {
				return err
			}
			k, err := r.Read(buf)
			if k > 0 {
				last.Store(time.Now().UnixNano())
				if err := dst.SetWriteDeadline(time.Now().Add(idle)); err != nil {
					return err
				}
				if _, werr := dst.Write(buf[:k]); werr != nil {
					return werr
				}
				*count += int64(k)
			}
			switch {
			case err == nil:
			case errors.Is(err, io.EOF):
				return nil
			case httpx.IsTimeout(err) && time.Now().Before(end) && time.Since(time.Unix(0, last.Load())) < idle:
				// The other direction was busy: not idle yet.
			default:
				return err
			}
		}
	}
	// pipe copies one direction, then passes its end on; a failure ends
	// the tunnel both ways.
	pipe := func(dst, src net.Conn, r io.Reader, count *int64) {
		if err := copyDir(dst, src, r, count); err != nil {
			closeConn(client)
			closeConn(server)
			return
		}
		closeWrite(dst)
	}
	var fromClient io.Reader = client
	if buffered != nil && buffered.Buffered() > 0 {
		fromClient = io.MultiReader(io.LimitReader(buffered, int64(buffered.Buffered())), client)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pipe(server, client, fromClient, &up)
	}()
	pipe(client, server, server, &down)
	wg.Wait()
	return up, down
}

// closeWrite passes on the end of a stream: a TCP half close. A failed
// half close is a connection already gone, which the other direction's
// copy then meets; so its error is dropped.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	closeConn(c)
}

// closeConn closes one side of a finished or failed tunnel. Its error is
// dropped: the tunnel is over either way, and a socket that fails to close
// leaves nothing to retry or report to anyone.
func closeConn(c net.Conn) { _ = c.Close() }

// Bounds of what the operational log writes of a CONNECT's target, which
// the client chose (up to the request head's limit, 64 KiB), and of a
// dial error, which names it: a host name is at most 253 bytes.
const (
	maxLogTarget = 512
	maxLogErr    = 1024
)

// logCut returns s cut to at most limit bytes, at a UTF-8 boundary, so
// that no log line grows with what a client sent.
func logCut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return strings.ToValidUTF8(s[:limit], "") + "..."
}
