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

// TestServeFloorFront relays through a floor front to a floor server:
// the back's hit, its fields and body, counted by both.
func TestServeFloorFront(t *testing.T) {
	serve := func(f func(net.Listener) error) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- f(ln) }()
		t.Cleanup(func() {
			ln.Close()
			if err := <-done; !errors.Is(err, net.ErrClosed) {
				t.Errorf("serving ended with %v", err)
			}
		})
		return ln.Addr().String()
	}
	back := serve(func(ln net.Listener) error { return ServeFloor(ln, 10) })
	front := serve(func(ln net.Listener) error { return ServeFloorFront(ln, back) })
	c := proxyClient(front)
	defer c.CloseIdleConnections()
	for range 2 {
		h, err := get(context.Background(), c, "http://origin.test/obj-1")
		if err != nil || h.Get("X-Cache") != "HIT from floor" || h.Get("Content-Length") != "10" {
			t.Fatalf("through the front: %v, %v", h, err)
		}
	}
	for addr, want := range map[string]string{front: "hits 2 requests 2\n", back: "hits 2 requests 2\n"} {
		resp, err := http.Get("http://" + addr + floorCountersPath)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != want {
			t.Errorf("%s counted %q, want %q", addr, body, want)
		}
	}
}
