package httpx

import (
	"net/http"
	"slices"
	"strconv"
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
