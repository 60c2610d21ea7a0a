package node

import (
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bloomcast/bloomcast/cache"
)

// Reconfigure applies cfg to the running node without dropping its cache
// or its views of the peers it keeps: the peers (a peer whose
// configuration is unchanged keeps its view; a new one is polled at once;
// one no longer listed is forgotten), the address ranges allowed as
// clients and as peers, AllowHosts, and the digest's Threshold and
// MaxDigestAge. It
// returns the names of the other fields of cfg that differ from the
// running configuration, which take effect only when the node is started
// again (AccessLog, Logger, Client, Transport, Manual and Now are not compared:
// they are the caller's to swap). cfg is checked as NewNode checks it; on
// an error nothing changes.
func (n *Node) Reconfigure(cfg NodeConfig) (restart []string, err error) {
	if n.proxy == nil {
		return nil, errZeroNode
	}
	if cfg.Logger == nil {
		cfg.Logger = n.log
	}
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	threshold, maxAge, err := publisherTimes(cfg.Threshold, cfg.MaxDigestAge)
	if err != nil {
		return nil, err
	}
	peers, err := n.directory.preparePeers(cfg.Peers)
	if err != nil {
		return nil, err
	}
	old := n.cfg
	for _, f := range []struct {
		name string
		a, b any
	}{
		{"Listen", old.Listen, cfg.Listen}, {"ICPListen", old.ICPListen, cfg.ICPListen}, {"Name", old.Name, cfg.Name},
		{"MemoryBytes", old.MemoryBytes, cfg.MemoryBytes}, {"DiskDir", old.DiskDir, cfg.DiskDir},
		{"DiskBytes", old.DiskBytes, cfg.DiskBytes}, {"MaxObjectBytes", old.MaxObjectBytes, cfg.MaxObjectBytes},
		{"Capacity", old.Capacity, cfg.Capacity}, {"BitsPerEntry", old.BitsPerEntry, cfg.BitsPerEntry},
		{"HashFunctions", old.HashFunctions, cfg.HashFunctions}, {"Codec", old.Codec, cfg.Codec},
		{"SquidBitsPerEntry", old.SquidBitsPerEntry, cfg.SquidBitsPerEntry}, {"Route", old.Route, cfg.Route},
		{"PollInterval", old.PollInterval, cfg.PollInterval}, {"PeerExpiry", old.PeerExpiry, cfg.PeerExpiry},
		{"PushInterval", old.PushInterval, cfg.PushInterval},
		{"MaxDigestBytes", old.MaxDigestBytes, cfg.MaxDigestBytes}, {"NoDelta", old.NoDelta, cfg.NoDelta},
		{"PeerViews", old.PeerViews, cfg.PeerViews}, {"FullDigests", old.FullDigests, cfg.FullDigests},
		{"PeerTimeout", old.PeerTimeout, cfg.PeerTimeout}, {"ICPTimeout", old.ICPTimeout, cfg.ICPTimeout},
		{"ICPReplies", old.ICPReplies, cfg.ICPReplies}, {"MaxConnections", old.MaxConnections, cfg.MaxConnections},
		{"ConnectPorts", old.ConnectPorts, cfg.ConnectPorts}, {"TunnelIdle", old.TunnelIdle, cfg.TunnelIdle},
		{"TunnelLifetime", old.TunnelLifetime, cfg.TunnelLifetime}, {"ReadTimeout", old.ReadTimeout, cfg.ReadTimeout},
		{"MaxRequestHeaderBytes", old.MaxRequestHeaderBytes, cfg.MaxRequestHeaderBytes},
	} {
		if !reflect.DeepEqual(f.a, f.b) {
			restart = append(restart, f.name)
		}
	}
	n.publisher.setTimes(threshold, maxAge)
	n.setPeers(peers)
	n.allowClients.Store(&cfg.AllowClients)
	n.allowPeers.Store(&cfg.AllowPeers)
	n.allowHosts.Store(&cfg.AllowHosts)
	return restart, nil
}

// setPeers makes next the node's peers and drops the per-peer series
// (metrics and status counts) of the peers no longer named, which would
// otherwise stay in /metrics, frozen, until the node restarts.
func (n *Node) setPeers(next []*Peer) {
	n.metrics.peerSeries.Lock()
	defer n.metrics.peerSeries.Unlock()
	prev := n.directory.Peers()
	n.directory.setPeers(next)
	for _, p := range prev {
		if n.peerNamed(p.name) {
			continue
		}
		n.metrics.peerAsks.DeletePartialMatch(prometheus.Labels{"peer": p.name})
		n.metrics.peerFetchFailures.DeleteLabelValues(p.name)
		n.metrics.status.peers.Delete(p.name)
	}
}

// countForPeer runs count, which counts for the peer named name, unless
// a reload has removed that peer (setPeers).
func (n *Node) countForPeer(name string, count func()) {
	n.metrics.peerSeries.RLock()
	defer n.metrics.peerSeries.RUnlock()
	if n.peerNamed(name) {
		count()
	}
}

// peerNamed reports whether one of the node's peers is named name.
func (n *Node) peerNamed(name string) bool {
	for _, p := range n.directory.Peers() {
		if p.name == name {
			return true
		}
	}
	return false
}

// publisherTimes fills in and checks a Threshold and a MaxAge as
// newPublisher does.
func publisherTimes(threshold float64, maxAge time.Duration) (float64, time.Duration, error) {
	if threshold == 0 {
		threshold = DefaultThreshold
	}
	if maxAge == 0 {
		maxAge = 5 * time.Minute
	}
	if !(threshold > 0 && threshold <= 1) {
		return 0, 0, fmt.Errorf("%w: digest threshold %g, want (0, 1]", cache.ErrConfig, threshold)
	}
	if maxAge < cache.MinInterval {
		return 0, 0, fmt.Errorf("%w: digest max age %v (want ≥ %v)", cache.ErrConfig, maxAge, cache.MinInterval)
	}
	return threshold, maxAge, nil
}

// setThreshold changes the publisher's Threshold and MaxAge (0 meaning
// their defaults, as in publisherConfig); the next change or tick is
// judged by them.
func (p *Publisher) setThreshold(threshold float64, maxAge time.Duration) error {
	if p.kick == nil { // a zero Publisher (kick, unlike filter, never changes)
		return errZeroPublisher
	}
	threshold, maxAge, err := publisherTimes(threshold, maxAge)
	if err != nil {
		return err
	}
	p.setTimes(threshold, maxAge)
	return nil
}

func (p *Publisher) setTimes(threshold float64, maxAge time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cfg.Threshold, p.cfg.MaxAge = threshold, maxAge
	p.maybePublishLocked()
}

// replacePeers replaces the directory's peers. A peer whose configuration is
// unchanged (after defaults) keeps its view and its counters; Run polls a
// new one at once and stops polling one no longer listed. On an error
// (a peer's configuration is invalid) nothing changes. It is for a
// program that manages a directory's peers itself; Node.Reconfigure does
// the same for a node's own.
func (d *Directory) replacePeers(peers []PeerConfig) error {
	if d.changed == nil {
		return errZeroDirectory
	}
	next, err := d.preparePeers(peers)
	if err != nil {
		return err
	}
	d.setPeers(next)
	return nil
}

func (d *Directory) preparePeers(peers []PeerConfig) ([]*Peer, error) {
	old := d.Peers()
	next := make([]*Peer, 0, len(peers))
	for _, pc := range peers {
		p, err := newPeer(pc)
		if err != nil {
			return nil, err
		}
		for _, o := range old {
			if o.cfg == p.cfg {
				p = o
				break
			}
		}
		next = append(next, p)
	}
	if err := checkPeerNames(next); err != nil {
		return nil, err
	}
	return next, nil
}

func (d *Directory) setPeers(next []*Peer) {
	if prev := d.peers.Swap(&next); prev != nil {
		for _, p := range *prev {
			if !slices.Contains(next, p) {
				p.closeIdle()
			}
		}
	}
	select {
	case d.changed <- struct{}{}:
	default:
	}
}
