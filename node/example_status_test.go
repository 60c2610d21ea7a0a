package node_test

import (
	"fmt"
	"log/slog"

	"github.com/bloomcast/bloomcast/node"
)

// ExampleNode_Status reads what a node's status page shows, without
// serving it: here a node with one peer it has not yet polled.
func ExampleNode_Status() {
	n, err := node.NewNode(node.NodeConfig{
		Name: "cache1", Version: "v1.0.0", Capacity: 1000,
		Peers:  []node.PeerConfig{{Name: "cache2", Proxy: "http://127.0.0.1:3129"}},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	st := n.Status()
	fmt.Println(st.Node.Name, st.Node.Version, st.Node.Healthy, st.Node.BudgetBytes>>20, "MiB")
	fmt.Println("digest capacity", st.Digest.Capacity, "bits per entry", st.Digest.BitsPerEntry)
	fmt.Println("minutes charted", len(st.Requests.Minutes))
	for _, p := range st.Peers {
		fmt.Println("peer", p.Name, p.Protocol, p.State)
	}
	// Output:
	// cache1 v1.0.0 true 256 MiB
	// digest capacity 1000 bits per entry 16
	// minutes charted 60
	// peer cache2 bloomcast no digest
}
