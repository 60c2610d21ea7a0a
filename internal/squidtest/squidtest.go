// Package squidtest runs a real Squid (Debian's squid 5.x) for the tests
// that check bloomcast's digests against it: finding the binary (the test
// skips without one, and fails when BLOOMCAST_REQUIRE_SQUID is set, as CI
// sets it), writing a configuration with one digest sibling, starting and
// stopping the process, and reading its cache manager. Only test files
// import it.
package squidtest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// RequireEnv makes Binary fail the test, instead of skipping it, when no
// squid binary is installed: .ci/run installs Debian's squid and sets it.
const RequireEnv = "BLOOMCAST_REQUIRE_SQUID"

// Binary returns the path of the squid binary. Without one it skips the
// test (fails it when RequireEnv is set); under -short it skips too.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("squid")
	if err != nil {
		bin = "/usr/sbin/squid"
		if _, serr := os.Stat(bin); serr != nil {
			if os.Getenv(RequireEnv) != "" {
				t.Fatalf("%s is set but squid is not installed", RequireEnv)
			}
			t.Skip("squid not installed (apt-get install squid); .ci/run runs this test")
		}
	}
	if testing.Short() {
		t.Skip("starts a Squid")
	}
	return bin
}

// Config says how to run a Squid. The zero Config is not usable: Bin,
// Addr and Sibling are needed.
type Config struct {
	Bin     string // the squid binary (Binary)
	Addr    string // host:port Squid listens on for HTTP
	Sibling string // host:port of its one sibling, whose digest it fetches
	// StoreDigest gives Squid a small disk cache and has it rebuild its
	// own store digest (from that cache) every 2 s, for a sibling to
	// fetch; without it Squid keeps objects in memory only and makes no
	// digest.
	StoreDigest bool
}

// Process is a Squid started by Start. The zero Process is not usable.
type Process struct {
	Addr      string // where it listens
	Conf      string // its configuration file
	AccessLog string // its access log (Squid's native format, buffered)
	CacheLog  string // its cache.log
	bin       string
	cmd       *exec.Cmd
	exited    chan struct{}
}

// Start writes a configuration into a new directory and runs squid in the
// foreground until the test ends; Stop and Restart stop it and run it
// again on the same configuration and cache_dir. When the test has
// failed, the ends of cache.log and access.log are logged.
func Start(t testing.TB, cfg Config) *Process {
	t.Helper()
	// Squid drops to its own user, which must reach the directory: not
	// t.TempDir, which is private to the test's user.
	dir, err := os.MkdirTemp("", "bloomcast-squid-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) }) // a temporary directory
	host, port, err := net.SplitHostPort(cfg.Sibling)
	if err != nil {
		t.Fatal(err)
	}
	sq := &Process{Addr: cfg.Addr, bin: cfg.Bin, Conf: filepath.Join(dir, "squid.conf"),
		AccessLog: filepath.Join(dir, "access.log"), CacheLog: filepath.Join(dir, "cache.log")}
	store := "digest_generation off\n"
	if cfg.StoreDigest {
		store = fmt.Sprintf(`# Squid builds its store digest from its cache_dirs, not from memory.
cache_dir ufs %s 50 4 16
digest_generation on
digest_rebuild_period 2 seconds
digest_rewrite_period 2 seconds
refresh_pattern . 60 50%% 4320
`, filepath.Join(dir, "cache"))
	}
	conf := fmt.Sprintf(`http_port %s
icp_port 0
htcp_port 0
visible_hostname localhost
pid_filename none
cache_log %s
access_log stdio:%s squid
cache_mem 16 MB
# The sibling: Squid fetches its digest (no no-digest) and asks it over
# HTTP only (no-query: no ICP).
cache_peer %s sibling %s 0 no-query name=bloomcast
http_access allow localhost
http_access deny all
# Everything is on loopback: without these Squid measures the origin as
# near (pinger hops and RTT) and goes direct instead of to the sibling.
minimum_direct_rtt 0
minimum_direct_hops 0
pinger_enable off
%sshutdown_lifetime 1 second
`, cfg.Addr, sq.CacheLog, sq.AccessLog, host, port, store)
	if err := os.WriteFile(sq.Conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	chownToSquidUser(t, dir)
	if cfg.StoreDigest {
		// -z creates the cache_dir's swap directories and exits.
		if out, err := exec.Command(cfg.Bin, "-N", "-z", "-f", sq.Conf).CombinedOutput(); err != nil {
			t.Fatalf("squid -z: %v\n%s", err, out)
		}
	}
	sq.Restart(t)
	t.Cleanup(func() {
		sq.Stop()
		if t.Failed() {
			if b, err := os.ReadFile(sq.CacheLog); err == nil {
				t.Logf("squid cache.log:\n%s", Tail(string(b), 40))
			}
			if b, err := os.ReadFile(sq.AccessLog); err == nil {
				t.Logf("squid access.log (end):\n%s", Tail(string(b), 60))
			}
		}
	})
	return sq
}

// Restart runs squid (again) and waits until it listens.
func (sq *Process) Restart(t testing.TB) {
	t.Helper()
	sq.cmd = exec.Command(sq.bin, "-N", "-f", sq.Conf)
	sq.cmd.Stdout, sq.cmd.Stderr = io.Discard, io.Discard
	if err := sq.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	sq.exited = exited
	cmd := sq.cmd
	go func() { _ = cmd.Wait(); close(exited) }() // its status is of no interest
	testutil.WaitFor(t, 20*time.Second, "squid to listen on "+sq.Addr, func() bool {
		c, err := net.DialTimeout("tcp", sq.Addr, time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	})
}

// Stop ends squid (SIGTERM; it writes its store index and exits after
// shutdown_lifetime, or is killed after 10 s) and waits until it has
// exited. Stopping a stopped Squid does nothing.
func (sq *Process) Stop() {
	if sq.exited == nil {
		return
	}
	_ = sq.cmd.Process.Signal(syscall.SIGTERM) // an exited process is what we want
	select {
	case <-sq.exited:
	case <-time.After(10 * time.Second):
		_ = sq.cmd.Process.Kill()
		<-sq.exited
	}
	sq.exited = nil
}

// chownToSquidUser gives the directory to Squid's unprivileged user when
// the test runs as root (Squid then drops to that user).
func chownToSquidUser(t testing.TB, dir string) {
	if os.Geteuid() != 0 {
		return
	}
	u, err := user.Lookup("proxy")
	if err != nil {
		return
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
}

// Manager fetches a cache manager report (such as "digest_stats") from the
// Squid at addr, or "" when it cannot.
func Manager(addr, report string) string {
	resp, err := http.Get("http://" + addr + "/squid-internal-mgr/" + report)
	if err != nil {
		return ""
	}
	defer func() { _ = resp.Body.Close() }() // read only
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// Tail returns the last lines of s.
func Tail(s string, lines int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}
