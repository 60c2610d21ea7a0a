package hits

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestServeFloor asks a floor server on loopback through a proxy client:
// an object is a hit of the size given with a hit's fields, anything else
// 404, and /counters counts both.
func TestServeFloor(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ServeFloor(ln, 100) }()
	defer func() {
		ln.Close()
		if err := <-done; !errors.Is(err, net.ErrClosed) {
			t.Errorf("ServeFloor ended with %v", err)
		}
	}()
	c := proxyClient(ln.Addr().String())
	defer c.CloseIdleConnections()
	for range 3 {
		h, err := get(context.Background(), c, "http://origin.test/obj-7")
		if err != nil {
			t.Fatal(err)
		}
		if h.Get("X-Cache") != "HIT from floor" || h.Get("Content-Length") != "100" || h.Get("Age") != "0" {
			t.Fatalf("header %v", h)
		}
	}
	if _, err := get(context.Background(), c, "http://origin.test/other"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a path not of an object: %v", err)
	}
	resp, err := http.Get("http://" + ln.Addr().String() + floorCountersPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	hits, requests, err := FloorCounters(string(body))
	if err != nil || hits != 3 || requests != 4 {
		t.Errorf("counters %q: %d hits, %d requests, %v", body, hits, requests, err)
	}
	if _, _, err := FloorCounters("hits x"); err == nil {
		t.Error("FloorCounters took a line without numbers")
	}
}

func TestFloorNotWithPeer(t *testing.T) {
	cfg := Config{Peer: true, Floor: true}
	if err := cfg.defaults(); err == nil || !strings.Contains(err.Error(), "floor") {
		t.Errorf("Peer and Floor together: %v", err)
	}
}
