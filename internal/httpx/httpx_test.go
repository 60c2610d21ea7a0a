package httpx

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deadlineWriter records the writes it is given and the deadlines set
// before each.
type deadlineWriter struct {
	http.ResponseWriter
	log []string
}

func (d *deadlineWriter) Header() http.Header { return http.Header{} }
func (d *deadlineWriter) WriteHeader(int)     {}
func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.log = append(d.log, "write "+strconv.Itoa(len(p)))
	return len(p), nil
}
func (d *deadlineWriter) SetWriteDeadline(time.Time) error {
	d.log = append(d.log, "deadline")
	return nil
}

// TestCountingWriterDeadlines: with a WriteTimeout, a write gets a fresh
// deadline before each megabyte of it, so that the timeout bounds the
// client's silence, not the body's length; without one, no deadline is
// set; the held piece is written the same way, counted once.
func TestCountingWriterDeadlines(t *testing.T) {
	d := &deadlineWriter{}
	c := &CountingWriter{ResponseWriter: d, WriteTimeout: time.Minute}
	if n, err := c.Write(make([]byte, 5<<19)); n != 5<<19 || err != nil {
		t.Fatalf("wrote %d, %v", n, err)
	}
	c.Hold(make([]byte, 10))
	if err := c.WriteHeld(); err != nil {
		t.Fatal(err)
	}
	want := []string{"deadline", "write " + strconv.Itoa(1<<20), "deadline", "write " + strconv.Itoa(1<<20), "deadline", "write " + strconv.Itoa(1<<19),
		"deadline", "write " + strconv.Itoa(10)}
	if !slices.Equal(d.log, want) || c.Bytes != 5<<19+10+HeaderBytes(http.StatusOK, http.Header{}) {
		t.Errorf("with a timeout: %v, %d bytes counted; want %v", d.log, c.Bytes, want)
	}
	d.log = nil
	c = &CountingWriter{ResponseWriter: d}
	c.Write(make([]byte, 3<<20))
	if want := []string{"write " + strconv.Itoa(3<<20)}; !slices.Equal(d.log, want) {
		t.Errorf("without a timeout: %v, want %v", d.log, want)
	}
}

// TestShowURL: the error of a real request (to a port nobody listens
// on) with userinfo and a query shows its URL as asked, wrapped or not,
// and keeps its chain: the dial error is still found, and the URL that
// errors.As finds is not changed.
func TestShowURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = http.Get("http://alice:secret@" + addr + "/p?token=42")
	if err == nil {
		t.Fatal("a request to a closed port succeeded")
	}
	for _, e := range []error{err, fmt.Errorf("fetching: %w", err)} {
		shown := ShowURL(e, WithoutUserinfo)
		text := shown.Error()
		want := strconv.Quote("http://" + addr + "/p?token=42")
		if !strings.Contains(text, want) || strings.Contains(text, "alice") {
			t.Errorf("%q: want %s, no user", text, want)
		}
		if strings.ReplaceAll(text, want, "") != strings.ReplaceAll(e.Error(), strconv.Quote("http://alice:***@"+addr+"/p?token=42"), "") {
			t.Errorf("%q changed more than the URL of %q", text, e.Error())
		}
		var op *net.OpError
		var ue *url.Error
		if !errors.As(shown, &op) || op.Op != "dial" || !errors.As(shown, &ue) || ue.URL != "http://alice:***@"+addr+"/p?token=42" {
			t.Errorf("the chain of %q: dial error %v, url.Error %v", text, op, ue)
		}
	}
	plain := errors.New("no URL here")
	if got := ShowURL(plain, WithoutUserinfo); got.Error() != plain.Error() || !errors.Is(got, plain) || ShowURL(nil, WithoutUserinfo) != nil {
		t.Error("an error without a url.Error, or nil, came back changed")
	}
}
