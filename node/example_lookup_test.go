package node_test

import (
	"fmt"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/node"
)

// ExampleDirectory_SetLookup routes by a peer's static digest, which
// reaches the node another way than its directory's polling: the
// directory answers for the peer through the view the frame built.
func ExampleDirectory_SetLookup() {
	n, err := node.NewNode(node.NodeConfig{Name: "a", Peers: []node.PeerConfig{{Name: "b", Proxy: "http://127.0.0.1:3129"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer n.Store().Close()
	pub, err := digest.NewStaticPublisher(digest.StaticConfig{Rate: 0.001})
	if err != nil {
		fmt.Println(err)
		return
	}
	frame, _, err := pub.Publish(1, []hashing.Hash128{hashing.SumStringSeed("http://example.com/held", 0)})
	if err != nil {
		fmt.Println(err)
		return
	}
	var view *digest.StaticView
	if view, err = view.Apply(frame, envelope.Limits{MaxPayload: 1 << 20}); err != nil {
		fmt.Println(err)
		return
	}
	dir := n.Directory()
	dir.SetLookup(dir.Peers()[0], view.ContainsString)
	fmt.Println(len(dir.Candidates("http://example.com/held")), len(dir.Candidates("http://example.com/other")))
	// Output: 1 0
}
