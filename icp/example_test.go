package icp_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/bloomcast/bloomcast/icp"
)

// A sibling cache answers ICP queries from its store; a node asks it
// before fetching a URL from the origin.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// The sibling: a server over its cache's lookup.
	stored := map[string]bool{"http://www.example.com/": true}
	srv, err := icp.NewServer(icp.ServerConfig{Lookup: func(url string) bool { return stored[url] }})
	if err != nil {
		panic(err)
	}
	sibConn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		panic(err)
	}
	defer sibConn.Close()
	go srv.Serve(ctx, sibConn)
	sibling := sibConn.LocalAddr().(*net.UDPAddr).AddrPort()

	// The node: a client on its own socket.
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		panic(err)
	}
	client, err := icp.NewClient(conn, icp.ClientConfig{})
	if err != nil {
		panic(err)
	}
	defer client.Close()

	for _, url := range []string{"http://www.example.com/", "http://www.example.com/new"} {
		res, err := client.Query(ctx, []netip.AddrPort{sibling}, url, time.Second)
		if err != nil {
			panic(err)
		}
		fmt.Println(url, res.Hit, res.Replies[0].Opcode, res.Peer == sibling)
	}
	st := client.Stats()
	fmt.Printf("%d messages, %d bytes sent; %d messages, %d bytes received\n",
		st.MessagesSent, st.BytesSent, st.MessagesReceived, st.BytesReceived)
	// Output:
	// http://www.example.com/ true ICP_OP_HIT true
	// http://www.example.com/new false ICP_OP_MISS false
	// 2 messages, 99 bytes sent; 2 messages, 91 bytes received
}

func ExampleEncode() {
	b, err := icp.Encode(icp.Message{Opcode: icp.OpQuery, RequestNumber: 42, URL: "http://a/"})
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", b)
	m, err := icp.Decode(b, icp.Limits{})
	fmt.Println(m.Opcode, m.Version, m.RequestNumber, m.URL, err)
	// Output:
	// 01 02 00 22 00 00 00 2a 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 68 74 74 70 3a 2f 2f 61 2f 00
	// ICP_OP_QUERY 2 42 http://a/ <nil>
}
