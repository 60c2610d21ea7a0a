package readn

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
)

// TestAppend: exactly n bytes are appended, across chunks; a stream that
// ends early gives the whole chunks before and io.ErrUnexpectedEOF; and
// a claimed length far beyond the stream allocates about what arrived.
func TestAppend(t *testing.T) {
	src := bytes.Repeat([]byte("0123456789"), (Chunk+Chunk/2)/10)
	got, err := Append([]byte("head"), bytes.NewReader(src), uint64(len(src)))
	if err != nil || !bytes.Equal(got, append([]byte("head"), src...)) {
		t.Fatalf("%d bytes across two chunks: %d back, err %v", len(src), len(got), err)
	}
	got, err = Append(nil, bytes.NewReader(src), uint64(len(src))+1)
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(got) != Chunk {
		t.Errorf("one byte short: %d bytes kept, err %v; want %d and unexpected EOF", len(got), err, Chunk)
	}
	got, err = Append(nil, bytes.NewReader(src[:Chunk]), Chunk+1)
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(got) != Chunk {
		t.Errorf("a chunk that got no byte: %d bytes kept, err %v; want %d and unexpected EOF", len(got), err, Chunk)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Append(nil, bytes.NewReader(make([]byte, 4096)), 1<<30); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("1 GiB claimed, 4 KiB sent: err %v", err)
	}
	runtime.ReadMemStats(&after)
	if a := after.TotalAlloc - before.TotalAlloc; a > 4*Chunk {
		t.Errorf("1 GiB claimed, 4 KiB sent: %d bytes allocated", a)
	}
}
