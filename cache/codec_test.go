package cache

import (
	"bytes"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"time"
)

func sampleEntry() *Entry {
	return &Entry{
		URL:          "http://example.com/x?y",
		Status:       200,
		Header:       http.Header{"Content-Type": {"text/html"}, "Vary": {"Accept-Encoding"}, "X-Multi": {"1", "2"}},
		ReqHeader:    http.Header{"Accept-Encoding": {"gzip"}},
		Body:         []byte("<p>hello</p>"),
		RequestTime:  t0,
		ResponseTime: t0.Add(1500 * time.Millisecond),
	}
}

func entriesEqual(a, b *Entry) bool {
	return a.URL == b.URL && a.Status == b.Status && bytes.Equal(a.Body, b.Body) &&
		a.RequestTime.Equal(b.RequestTime) && a.ResponseTime.Equal(b.ResponseTime) &&
		headersEqual(a.Header, b.Header) && headersEqual(a.ReqHeader, b.ReqHeader)
}

func headersEqual(a, b http.Header) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func TestEntryCodecRoundTrip(t *testing.T) {
	e := sampleEntry()
	b := appendEntry(nil, e)
	got, err := decodeEntry(b)
	if err != nil {
		t.Fatal(err)
	}
	if !entriesEqual(got, e) {
		t.Fatalf("round trip: %+v, want %+v", got, e)
	}
	if !bytes.Equal(appendEntry(nil, got), b) {
		t.Fatal("re-encoding differs")
	}
	// Every truncation and every single-bit flip is detected.
	for n := range len(b) {
		if _, err := decodeEntry(b[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
	for i := range len(b) * 8 {
		c := bytes.Clone(b)
		c[i/8] ^= 1 << (i % 8)
		if _, err := decodeEntry(c); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("bit %d flipped: %v", i, err)
		}
	}
	empty := &Entry{URL: "http://e/", Status: 204, RequestTime: t0, ResponseTime: t0}
	if got, err := decodeEntry(appendEntry(nil, empty)); err != nil || !entriesEqual(got, empty) {
		t.Fatalf("empty entry: %+v %v", got, err)
	}
}

// FuzzDecodeEntry feeds arbitrary bytes to the disk entry decoder, with
// and without the checksum (so the fuzzer reaches the structure): it must
// never panic, never allocate much beyond the input, and whatever it
// accepts must encode back to an entry that decodes the same.
func FuzzDecodeEntry(f *testing.F) {
	good := appendEntry(nil, sampleEntry())
	f.Add(good)
	f.Add(good[:len(good)-4])
	f.Add(good[:20])
	f.Add([]byte("BCCE\x01\xff\xff\xff\xff\x0f"))
	f.Add(append([]byte("BCCE\x01\x00\x00\x00\x00"), 0xff, 0xff, 0xff, 0xff, 0x07))
	f.Fuzz(func(t *testing.T, b []byte) {
		if e, err := decodeEntry(b); err == nil {
			checkReencode(t, e)
		}
		e, err := decodeEntryPayload(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if e.Size() > int64(512+64*len(b)) {
			t.Fatalf("%d input bytes decoded to an entry of %d", len(b), e.Size())
		}
		checkReencode(t, e)
	})
}

func checkReencode(t *testing.T, e *Entry) {
	again, err := decodeEntry(appendEntry(nil, e))
	if err != nil {
		t.Fatalf("re-encoded entry rejected: %v", err)
	}
	if !entriesEqual(again, e) {
		t.Fatalf("re-encoded entry differs: %+v vs %+v", again, e)
	}
}
