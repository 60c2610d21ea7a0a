package node

import (
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/cache"
)

func TestNodeIsSelf(t *testing.T) {
	host, _ := os.Hostname()
	for _, c := range []struct {
		listen, name string
		peer         PeerConfig
		self         bool
	}{
		{"127.0.0.1:3128", "a", PeerConfig{Proxy: "http://127.0.0.1:3128"}, true},
		{"127.0.0.1:3128", "a", PeerConfig{Proxy: "http://localhost:3128"}, true},
		{"127.0.0.1:3128", "a", PeerConfig{Proxy: "http://127.0.0.1:3129"}, false},
		{"127.0.0.1:3128", "a", PeerConfig{Proxy: "http://127.0.0.2:3128"}, false},
		{"127.0.0.1:3128", "a", PeerConfig{Proxy: "http://10.0.0.1:3128", Name: "a"}, true},
		{"127.0.0.1:3128", "a", PeerConfig{Proxy: "http://10.0.0.1:3128", Name: "b"}, false},
		{"0.0.0.0:3128", "a", PeerConfig{Proxy: "http://127.0.0.1:3128"}, true},
		{":3128", "a", PeerConfig{Proxy: "http://[::1]:3128"}, true},
		{"[::]:3128", "a", PeerConfig{Proxy: "http://" + host + ":3128"}, host != ""},
		{"0.0.0.0:3128", "a", PeerConfig{Proxy: "http://192.0.2.1:3128"}, false},
		{"localhost:3128", "a", PeerConfig{Proxy: "http://127.0.0.1:3128"}, true},
		{"10.0.0.5:80", "a", PeerConfig{Proxy: "http://10.0.0.5"}, true},
		{"", "", PeerConfig{Proxy: "http://127.0.0.1:3128"}, true}, // the defaults
		{"", "", PeerConfig{Proxy: "http://10.0.0.1:3128", Name: hostName()}, true},
	} {
		cfg := NodeConfig{Listen: c.listen, Name: c.name}
		if got := cfg.IsSelf(c.peer); got != c.self {
			t.Errorf("listen %q name %q, peer %+v: self %v, want %v", c.listen, c.name, c.peer, got, c.self)
		}
	}
	_, err := NewNode(NodeConfig{Listen: "127.0.0.1:3999", Name: "a", Peers: []PeerConfig{{Proxy: "http://localhost:3999"}}})
	if !errors.Is(err, cache.ErrConfig) || !strings.Contains(err.Error(), "is this node") {
		t.Fatalf("self peer: %v", err)
	}
	if _, err := NewNode(NodeConfig{Name: "a b"}); !errors.Is(err, cache.ErrConfig) {
		t.Fatalf("name with a space: %v", err)
	}
}

// TestNodeNameAndPeerXCache: the default name is the host name, and a
// peer's X-Cache stays in the response beside the node's own.
func TestNodeNameAndPeerXCache(t *testing.T) {
	origin := newTestOrigin(t)
	lnA, lnB := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	a := startNode(t, lnA, nil, NodeConfig{Name: "node-a", Peers: []PeerConfig{{Name: "b", Proxy: "http://" + lnB.Addr().String()}}})
	b := startNode(t, lnB, nil, NodeConfig{})
	obj := origin.URL + "/obj/1"
	_, resp := b.get(t, obj)
	want := hostName()
	if got := resp.Header.Values("X-Cache"); !slices.Equal(got, []string{"MISS from " + want}) {
		t.Fatalf("b's X-Cache %q, want the host name %q", got, want)
	}
	if via := resp.Header.Get("Via"); !strings.HasSuffix(via, " "+want) {
		t.Fatalf("b's Via %q", via)
	}
	b.Publisher().Publish()
	a.Directory().Refresh(context.Background())
	_, resp = a.get(t, obj)
	if got := resp.Header.Values("X-Cache"); !slices.Equal(got, []string{"HIT from " + want, "MISS from node-a"}) {
		t.Fatalf("a's X-Cache %q", got)
	}
	if origin.count("/obj/1") != 1 {
		t.Fatalf("origin asked %d times", origin.count("/obj/1"))
	}
}

// TestPeersOfOneNameRefused: two peers of one name, given or the default
// host:port of a proxy, are refused by NewNode and by Reconfigure; a
// node that took them served /metrics as a 500 (each peer's series
// collected twice).
func TestPeersOfOneNameRefused(t *testing.T) {
	twins := [][]PeerConfig{
		{{Name: "x", Proxy: "http://127.0.0.1:1"}, {Name: "x", Proxy: "http://127.0.0.1:2"}},
		{{Name: "127.0.0.1:2", Proxy: "http://127.0.0.1:1"}, {Proxy: "http://127.0.0.1:2"}},
	}
	for _, peers := range twins {
		cfg := NodeConfig{Listen: "127.0.0.1:9", Peers: peers}
		testNodeDefaults(&cfg)
		if _, err := NewNode(cfg); !errors.Is(err, cache.ErrConfig) || !strings.Contains(err.Error(), "same name") {
			t.Errorf("NewNode with peers %+v: %v", peers, err)
		}
	}
	tn := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Peers: []PeerConfig{{Name: "x", Proxy: "http://127.0.0.1:1"}}})
	cfg := tn.cfg
	cfg.Peers = twins[0]
	if _, err := tn.Reconfigure(cfg); !errors.Is(err, cache.ErrConfig) {
		t.Fatalf("Reconfigure with two peers named x: %v", err)
	}
	resp, err := http.Get(tn.url() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(tn.directory.Peers()) != 1 {
		t.Fatalf("/metrics %s with %d peers", resp.Status, len(tn.directory.Peers()))
	}
}

// TestPeerNameOrHost: PeerConfig.NameOrHost, the name the CLI checks
// peers' names by, is the name a node gives each peer it builds: its
// Name, or else its proxy's host and port as written, without userinfo.
func TestPeerNameOrHost(t *testing.T) {
	peers := []PeerConfig{
		{Name: "x", Proxy: "http://127.0.0.1:1"},
		{Proxy: "http://127.0.0.1:2"},
		{Proxy: "http://u:pw@127.0.0.1:3/"},
		{Proxy: "https://peer.example"},
		{Proxy: "http://[::1]:4"},
	}
	want := []string{"x", "127.0.0.1:2", "127.0.0.1:3", "peer.example", "[::1]:4"}
	tn := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Peers: peers})
	for i, p := range tn.directory.Peers() {
		if got := peers[i].NameOrHost(); got != p.Name() || got != want[i] {
			t.Errorf("peer %+v: NameOrHost %q, the node's name %q, want %q", peers[i], got, p.Name(), want[i])
		}
	}
	if got := (PeerConfig{Proxy: "http://bad host"}).NameOrHost(); got != "http://bad host" {
		t.Errorf("a proxy URL that does not parse: %q", got)
	}
}
