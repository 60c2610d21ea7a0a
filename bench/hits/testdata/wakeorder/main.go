// Command wakeorder prints, at GOMAXPROCS=1, the order in which
// goroutines blocked reading loopback connections run once the
// connections became readable one after another, 0 first, while the
// only P was busy: the order of one poll of the network poller's.
// TestFIFOOverlay builds it with and without FIFOOverlay.
package main

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"time"
)

const conns = 8

func main() {
	runtime.GOMAXPROCS(1)
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "wakeorder:", err)
		os.Exit(1)
	}
}

func run() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	clients, servers := make([]net.Conn, conns), make([]net.Conn, conns)
	for i := range conns {
		if clients[i], err = net.Dial("tcp", ln.Addr().String()); err != nil {
			return err
		}
		if servers[i], err = ln.Accept(); err != nil {
			return err
		}
	}
	order := make(chan int, conns)
	for i, s := range servers {
		go func() {
			var b [1]byte
			if _, err := s.Read(b[:]); err == nil {
				order <- i
			}
		}()
	}
	time.Sleep(20 * time.Millisecond) // every reader parks in the poller
	for _, c := range clients {       // readable in turn; writing does not yield
		if _, err := c.Write([]byte{1}); err != nil {
			return err
		}
	}
	var got []string
	for range conns { // blocking here lets the scheduler poll
		got = append(got, fmt.Sprint(<-order))
	}
	fmt.Println(strings.Join(got, " "))
	return nil
}
