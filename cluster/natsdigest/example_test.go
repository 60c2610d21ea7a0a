package natsdigest_test

import (
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/cluster/natsdigest"
)

// A transport names each node's subject after the node, escaping what
// a subject token may not hold; New checks the configuration without
// connecting (Start connects, and node.Node starts it when it serves:
// set it as node.NodeConfig.Transport).
func Example() {
	tr, err := natsdigest.New(natsdigest.Config{URL: "nats://127.0.0.1:4222"})
	if err != nil {
		panic(err)
	}
	fmt.Println(tr.Name(), tr.Subject("cache1.example.org"))
	_, err = natsdigest.New(natsdigest.Config{URL: "http://127.0.0.1:4222"})
	fmt.Println(errors.Is(err, natsdigest.ErrConfig))
	// Output:
	// nats bloomcast.digest.cache1%2Eexample%2Eorg
	// true
}
