package hits

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Peer hits: the summary cache's own path (Fan et al., "Summary Cache",
// 2000). Each proxy under test is a pair, a front that stores nothing
// and the peer behind it that holds every object: a request to the front
// misses there, the front finds the object in its view of the peer's
// digest and fetches it from the peer, where it is a hit. The node pair
// is two `bloomcast serve` processes, the front with --peer and a
// --max-object below the objects' size; the Squid pair two Squids, the
// front with the other as a cache_peer sibling whose Cache Digest it
// fetches and which keeps no object of that size, the peer with a cache_dir (Squid
// builds its digest from its cache_dir, not from cache_mem) rebuilt every
// 2 s. A round's hits are those the peer counted, its requests those the
// front counted, and its CPU both processes'.

// peerWait bounds the wait for a front to route every object to its
// peer: Squid fetches its sibling's digest once at startup and then not
// for 5 minutes, so the front Squid starts only after the peer's digest
// holds the objects.
const peerWait = 60 * time.Second

// startNodePair starts the node pair at GOMAXPROCS procs and warms it:
// the peer holds every object, the front routes each to it.
func startNodePair(ctx context.Context, cfg Config, bin string, procs int, rep *Report, o *origin) (*target, error) {
	peer, err := startNode(ctx, cfg.proxyCPUs, bin, procs, rep.NodeArguments)
	if err != nil {
		return nil, err
	}
	if err := warm(ctx, peer, o.addr, cfg.Objects); err != nil {
		return nil, errors.Join(fmt.Errorf("warming the peer node: %w", err), peer.stop())
	}
	args := make([]string, len(rep.FrontArguments))
	for i, a := range rep.FrontArguments {
		args[i] = strings.Replace(a, "PEER", peer.addr, 1)
	}
	front, err := startNode(ctx, cfg.proxyCPUs, bin, procs, args)
	if front != nil {
		front.back = peer
	} else {
		err = errors.Join(err, peer.stop())
	}
	return front, err
}

// frontNodeArguments are the front node's: no object stored (each is
// larger than --max-object), its peer polled every second.
func frontNodeArguments(objectBytes int) []string {
	return []string{"serve", "--listen", "127.0.0.1:PORT", "--name", "front", "--memory", "64MiB",
		"--max-object", strconv.Itoa(objectBytes - 1), "--peer", "http://PEER", "--poll", "1s", "--log-level", "warn"}
}

// startSquidPair starts the Squid pair in dir and warms it.
func startSquidPair(ctx context.Context, cfg Config, dir string, rep *Report, o *origin) (*target, error) {
	peerDir, frontDir := filepath.Join(dir, "squid-peer"), filepath.Join(dir, "squid-front")
	if err := chownToSquidUser(dir); err != nil { // Squid's user must reach both
		return nil, err
	}
	for _, d := range []string{peerDir, frontDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
		if err := chownToSquidUser(d); err != nil {
			return nil, err
		}
	}
	peerAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	rep.SquidConfig = squidPeerConf(peerAddr, peerDir)
	peer, err := runSquid(ctx, cfg.proxyCPUs, cfg.Squid, peerDir, peerAddr, rep.SquidConfig, true)
	if err != nil {
		return nil, errors.Join(err, stopTarget(peer))
	}
	if err := warm(ctx, peer, o.addr, cfg.Objects); err != nil {
		return nil, errors.Join(fmt.Errorf("warming the peer Squid: %w", err), peer.stop())
	}
	// Two rebuilds of the peer's digest (every 2 s) after its objects
	// were swapped out to its cache_dir.
	if err := sleep(ctx, 5*time.Second); err != nil {
		return nil, errors.Join(err, peer.stop())
	}
	frontAddr, err := freePort()
	if err != nil {
		return nil, errors.Join(err, peer.stop())
	}
	rep.SquidFrontConfig = squidFrontConf(frontAddr, frontDir, peerAddr, cfg.ObjectBytes)
	front, err := runSquid(ctx, cfg.proxyCPUs, cfg.Squid, frontDir, frontAddr, rep.SquidFrontConfig, false)
	if front != nil {
		front.back = peer
	} else {
		err = errors.Join(err, peer.stop())
	}
	if err != nil {
		return front, err
	}
	// Squid fetches a peer's digest once a request first needs it.
	c := proxyClient(frontAddr)
	defer c.CloseIdleConnections()
	if _, err := get(ctx, c, fmt.Sprintf("http://%s/obj-0", o.addr)); err != nil {
		return front, err
	}
	return front, waitUntil(ctx, peerWait, func() bool {
		return strings.Contains(squidManager(ctx, frontAddr, "digest_stats"), "usable: yes")
	})
}

// squidPeerConf is the peer Squid's configuration: SquidConf's, plus a
// cache_dir for its digest, rebuilt and rewritten every 2 s.
func squidPeerConf(addr, dir string) string {
	conf := strings.Replace(squidConf(addr, dir, 64), "visible_hostname localhost\n", "visible_hostname peer\n", 1)
	return conf + fmt.Sprintf(`cache_dir ufs %s 50 4 16
digest_generation on
digest_rebuild_period 2 seconds
digest_rewrite_period 2 seconds
`, filepath.Join(dir, "cache"))
}

// squidFrontConf is the front Squid's configuration: SquidConf's, storing
// no object of objectBytes (larger than its maximum_object_size_in_memory,
// with no cache_dir; "cache deny all" would make it go direct, asking no
// peer), with the peer as a sibling asked by its digest only (no ICP),
// and loopback not taken for a nearer origin (without minimum_direct_*
// Squid goes direct on loopback).
func squidFrontConf(addr, dir, peerAddr string, objectBytes int) string {
	host, port, _ := strings.Cut(peerAddr, ":")
	conf := strings.Replace(squidConf(addr, dir, 64), "visible_hostname localhost\n", "visible_hostname front\n", 1)
	conf = strings.Replace(conf, "maximum_object_size_in_memory 1 MB\n",
		fmt.Sprintf("maximum_object_size_in_memory %d bytes\n", objectBytes-1), 1)
	return conf + fmt.Sprintf(`cache_peer %s sibling %s 0 no-query name=peer
digest_generation off
minimum_direct_rtt 0
minimum_direct_hops 0
`, host, port)
}

// runSquid writes conf into dir and runs Squid (on cpus, unless "") (after squid -z when it
// has a cache_dir) until its cache manager answers.
func runSquid(ctx context.Context, cpus, bin, dir, addr, conf string, cacheDir bool) (*target, error) {
	path := filepath.Join(dir, "squid.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	if cacheDir {
		// -z creates the cache_dir's swap directories and exits.
		if out, err := exec.CommandContext(ctx, bin, "-N", "-z", "-f", path).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("squid -z: %w\n%s", err, out)
		}
	}
	t := &target{proxy: ProxySquid, addr: addr, cmd: pinned(context.Background(), cpus, bin, "-N", "-f", path)}
	t.cmd.Stderr = os.Stderr
	if err := t.start(); err != nil {
		return nil, err
	}
	return t, waitUntil(ctx, 20*time.Second, func() bool {
		_, _, err := t.counters(ctx)
		return err == nil
	})
}

// squidManager returns a cache manager report of the Squid at addr, ""
// when it cannot be read.
func squidManager(ctx context.Context, addr, report string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/squid-internal-mgr/"+report, nil)
	if err != nil {
		return ""
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	b, err := io.ReadAll(resp.Body)
	err = errors.Join(err, resp.Body.Close())
	if err != nil || resp.StatusCode != http.StatusOK {
		return ""
	}
	return string(b)
}

// warmPeer requests every object through the front of a pair until
// none reaches the origin: the front routes each to its peer.
func warmPeer(ctx context.Context, t *target, o *origin, objects int) error {
	c := proxyClient(t.addr)
	defer c.CloseIdleConnections()
	deadline := time.Now().Add(peerWait)
	for i := 0; i < objects; {
		before := o.requests.Load()
		if _, err := get(ctx, c, fmt.Sprintf("http://%s/obj-%d", o.addr, i)); err != nil {
			return err
		}
		if o.requests.Load() == before {
			i++
			continue
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("hits: obj-%d still fetched from the origin after %v", i, peerWait)
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// stopTarget stops t if it started.
func stopTarget(t *target) error {
	if t == nil {
		return nil
	}
	return t.stop()
}
