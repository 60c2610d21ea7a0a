package node_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/node"
)

// Parse the names `bloomcast serve --route` and --peer-views take.
func ExampleParseRoute() {
	r, _ := node.ParseRoute("icp")
	d, _ := node.ParseRoute("")
	v, _ := node.ParsePeerViews("compressed")
	_, err := node.ParseRoute("dns")
	fmt.Println(r, d, v)
	fmt.Println(err)
	// Output:
	// icp digest compressed
	// cache: invalid configuration: route "dns" (want digest, icp or none)
}

// Parse the kinds `bloomcast serve --full-digests` takes.
func ExampleParseFullDigests() {
	f, _ := node.ParseFullDigests("static")
	d, _ := node.ParseFullDigests("")
	_, err := node.ParseFullDigests("xor")
	fmt.Println(f, d)
	fmt.Println(err)
	// Output:
	// static bloom
	// cache: invalid configuration: full digests "xor" (want bloom, static or static-xor)
}

func TestParseEnumerations(t *testing.T) {
	for _, r := range []node.Route{node.RouteDigest, node.RouteICP, node.RouteNone} {
		if got, err := node.ParseRoute(string(r)); got != r || err != nil {
			t.Errorf("ParseRoute(%q) = %q, %v", r, got, err)
		}
	}
	for _, v := range []node.PeerViews{node.PeerViewsDecoded, node.PeerViewsCompressed} {
		if got, err := node.ParsePeerViews(string(v)); got != v || err != nil {
			t.Errorf("ParsePeerViews(%q) = %q, %v", v, got, err)
		}
	}
	if v, err := node.ParsePeerViews(""); v != node.PeerViewsDecoded || err != nil {
		t.Errorf(`ParsePeerViews("") = %q, %v`, v, err)
	}
	if _, err := node.ParseRoute("Digest"); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("ParseRoute(Digest): %v", err)
	}
	if _, err := node.ParsePeerViews("pieces"); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("ParsePeerViews(pieces): %v", err)
	}
	// A static view is a form a status reports, not one to configure.
	if _, err := node.ParsePeerViews("static"); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("ParsePeerViews(static): %v", err)
	}
}
