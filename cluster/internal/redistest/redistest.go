// Package redistest starts real Redis servers on free loopback ports, each
// in a directory of its own, for the cluster module's tests and its
// benchmark command: a single server, or a Redis Cluster of masters joined
// by redis-cli --cluster create. It needs redis-server and redis-cli
// (Debian's redis-server and redis-tools packages).
package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bloomcast/bloomcast/cluster/internal/proctest"
	"github.com/redis/go-redis/v9"
)

// RequireEnv is the environment variable that makes tests fail, rather
// than skip, without redis-server and redis-cli.
const RequireEnv = "BLOOMCAST_REQUIRE_REDIS"

// ErrNotInstalled is returned by Binaries when redis-server or redis-cli
// is not found.
var ErrNotInstalled = errors.New("redistest: redis-server and redis-cli not installed (Debian: apt-get install redis-server redis-tools)")

// Binaries returns the paths of redis-server and redis-cli.
func Binaries() (server, cli string, err error) {
	server, err1 := exec.LookPath("redis-server")
	cli, err2 := exec.LookPath("redis-cli")
	if err1 != nil || err2 != nil {
		return "", "", ErrNotInstalled
	}
	return server, cli, nil
}

// Server is one redis-server process.
//
// The zero Server is not running: make one with Start.
type Server struct {
	Addr    string // 127.0.0.1:port
	Port    int
	Dir     string
	binary  string
	conf    string
	cluster bool
	proc    proctest.Process
}

// Start runs redis-server on a free loopback port with its files in dir
// (created if needed), as a cluster node if cluster is true, with the
// extra lines of redis.conf in extra, and waits until it answers PING.
func Start(dir string, cluster bool, extra ...string) (*Server, error) {
	server, _, err := Binaries()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var last error
	for range 5 { // a port found free may be taken before the server binds it
		port, err := freePort(cluster)
		if err != nil {
			return nil, err
		}
		s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), Port: port, Dir: dir, binary: server, cluster: cluster}
		lines := []string{
			"port " + strconv.Itoa(port),
			"bind 127.0.0.1",
			"protected-mode no",
			"dir " + dir,
			"logfile " + filepath.Join(dir, "redis.log"),
			`save ""`,
			"appendonly no",
		}
		if cluster {
			lines = append(lines, "cluster-enabled yes", "cluster-config-file nodes.conf", "cluster-node-timeout 1000")
		}
		lines = append(lines, extra...)
		s.conf = filepath.Join(dir, "redis.conf")
		if err := os.WriteFile(s.conf, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			return nil, err
		}
		if last = s.run(); last == nil {
			return s, nil
		}
	}
	return nil, last
}

// run starts the process and waits for PING.
func (s *Server) run() error {
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer func() { _ = c.Close() }() // a client that only pinged
	ping := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return c.Ping(ctx).Err()
	}
	s.proc = proctest.Process{Name: "redis-server on port " + strconv.Itoa(s.Port), Log: filepath.Join(s.Dir, "redis.log")}
	if err := s.proc.Run(s.binary, []string{s.conf}, ping); err != nil {
		return fmt.Errorf("redistest: %w", err)
	}
	return nil
}

// Kill stops the server at once (SIGKILL), as a crash would, and waits
// for it to exit.
func (s *Server) Kill() { s.proc.Kill() }

// Restart starts a killed server again with the same port, directory and
// configuration (its AOF and nodes.conf, if any, are read back).
func (s *Server) Restart() error { return s.run() }

// freePort returns a loopback port that is free, and, for a cluster node,
// whose bus port (port + 10000) is free too.
func freePort(cluster bool) (int, error) {
	for range 50 {
		port, err := proctest.FreePort()
		if err != nil || !cluster {
			return port, err
		}
		if port+10000 > 65535 {
			continue
		}
		bus, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000))
		if err != nil {
			continue
		}
		return port, bus.Close()
	}
	return 0, errors.New("redistest: no free pair of ports for a cluster node")
}

// Cluster is a Redis Cluster of masters without replicas.
//
// The zero Cluster has no nodes.
type Cluster struct {
	Nodes []*Server
}

// StartCluster starts n cluster nodes in subdirectories of dir, joins them
// with redis-cli --cluster create (n masters, no replicas, the slots split
// evenly) and waits until every node reports cluster_state:ok. extra is
// passed to Start.
func StartCluster(dir string, n int, extra ...string) (*Cluster, error) {
	_, cli, err := Binaries()
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	args := []string{"--cluster", "create"}
	for i := range n {
		s, err := Start(filepath.Join(dir, "node"+strconv.Itoa(i)), true, extra...)
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.Nodes = append(c.Nodes, s)
		args = append(args, s.Addr)
	}
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		c.Stop()
		return nil, fmt.Errorf("redistest: redis-cli --cluster create: %w: %s", err, proctest.LastLines(out, 5))
	}
	if err := c.WaitOK(30 * time.Second); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// Addrs returns the nodes' addresses.
func (c *Cluster) Addrs() []string {
	a := make([]string, len(c.Nodes))
	for i, s := range c.Nodes {
		a[i] = s.Addr
	}
	return a
}

// WaitOK waits until every node reports cluster_state:ok and knows an
// owner for each of the 16384 slots.
func (c *Cluster) WaitOK(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, s := range c.Nodes {
		rc := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
		for {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			info, err := rc.ClusterInfo(ctx).Result()
			var shards []redis.ClusterShard
			if err == nil {
				shards, err = rc.ClusterShards(ctx).Result()
			}
			cancel()
			covered := int64(0)
			for _, sh := range shards {
				for _, r := range sh.Slots {
					covered += r.End - r.Start + 1
				}
			}
			if err == nil && strings.Contains(info, "cluster_state:ok") && covered == 16384 {
				break
			}
			if time.Now().After(deadline) {
				_ = rc.Close() // only queried
				if err != nil {
					return fmt.Errorf("redistest: cluster node %s not ok after %v: %w", s.Addr, timeout, err)
				}
				return fmt.Errorf("redistest: cluster node %s not ok after %v: %q, %d slots assigned", s.Addr, timeout, firstLine(info), covered)
			}
			time.Sleep(50 * time.Millisecond)
		}
		_ = rc.Close() // only queried
	}
	return nil
}

// Stop kills every node.
func (c *Cluster) Stop() {
	for _, s := range c.Nodes {
		s.Kill()
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}
