package envelope_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
)

// Every bloomcast structure travels in the same frame: a 36-byte header
// (magic, version, type, codec, seed, sequence, parameters), the payload
// and a CRC-32C. A reader that does not know what a file holds reads the
// frame, looks at its type, and hands header and payload to the package
// that decodes that type.
func Example() {
	f := bloom.MustNew(bloom.Config{Layout: bloom.Blocked, N: 1000, P: 0.01, Seed: 42})
	f.AddString("http://www.example.com/")
	var file bytes.Buffer
	if _, err := f.WriteTo(&file); err != nil {
		panic(err)
	}

	fmt.Println(envelope.Sniff(file.Bytes()))
	h, payload, n, err := envelope.Read(&file, envelope.Limits{MaxPayload: 1 << 20})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d bytes: type %v, codec %v, seed %d, %d parameter bytes, %d payload bytes\n",
		n, h.Type, h.Codec, h.Seed, len(h.Params), len(payload))
	if h.Type == envelope.TypeBloom {
		g, err := bloom.FromFrame(h, payload)
		if err != nil {
			panic(err)
		}
		fmt.Println(g.ContainsString("http://www.example.com/"))
	}
	// Output:
	// true
	// 1344 bytes: type bloom, codec raw, seed 42, 24 parameter bytes, 1280 payload bytes
	// true
}

// NewWriter frames a payload as it is written, for payloads too large to
// hold twice; Parse reads a frame held in memory, and refuses one whose
// checksum does not match.
func ExampleNewWriter() {
	var buf bytes.Buffer
	payload := []byte("eight by")
	w, err := envelope.NewWriter(&buf, &envelope.Header{Type: envelope.TypeFPSet, Seed: 1}, uint64(len(payload)))
	if err != nil {
		panic(err)
	}
	if _, err := w.Write(payload); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	frame := buf.Bytes()
	h, got, err := envelope.Parse(frame, envelope.Limits{})
	fmt.Println(len(frame), h.Type, string(got), err)

	frame[envelope.HeaderSize] ^= 1 // one bit of the payload
	_, _, err = envelope.Parse(frame, envelope.Limits{})
	fmt.Println(errors.Is(err, envelope.ErrChecksum))
	// Output:
	// 48 fpset eight by <nil>
	// true
}
