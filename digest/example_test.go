package digest_test

import (
	"bytes"
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
)

// A filter built for transmission (14 bits per key, 2 hash functions: the
// paper's example for a budget of 8 bits per key) travels compressed, and
// its next version as a delta.
func Example() {
	f, _ := bloom.New(bloom.Config{M: 14 * 10000, K: 2, Seed: 1})
	for i := range 10000 {
		f.AddString(fmt.Sprint("key-", i))
	}
	v1 := &digest.Digest{Sequence: 1, Bloom: f}
	full, _ := digest.Encode(v1, digest.Auto)
	fmt.Printf("raw %d bytes, compressed %d bytes (%.2f bits per key)\n",
		f.EncodedSize(), len(full), float64(8*len(full))/10000)

	g := f.Clone()
	for i := 10000; i < 10100; i++ { // 1% new keys
		g.AddString(fmt.Sprint("key-", i))
	}
	v2 := &digest.Digest{Sequence: 2, Bloom: g}
	delta, _ := digest.Diff(v1, v2, digest.Auto)
	fmt.Printf("delta %d bytes\n", len(delta))

	// A peer holding v1 applies the delta; a peer holding anything else
	// is refused and fetches the full digest instead.
	peer, _ := digest.Decode(full, envelope.Limits{})
	peer, err := digest.Patch(peer, delta, envelope.Limits{})
	fmt.Println(err, peer.Sequence, peer.Bloom.Equal(g), peer.Bloom.ContainsString("key-10050"))
	_, err = digest.Patch(peer, delta, envelope.Limits{})
	fmt.Println(err)
	// Output:
	// raw 17568 bytes, compressed 9957 bytes (7.97 bits per key)
	// delta 329 bytes
	// <nil> 2 true true
	// digest: delta does not apply to this base: the delta is from sequence 1, the base is 2
}

// A full digest with the raw codec is the filter's frame with a sequence
// number: Write and Read stream it, as a node serves it and a peer fetches
// it: 1200 bytes of bits and 64 of frame here.
func ExampleWrite() {
	f := bloom.MustNew(bloom.Config{N: 1000, P: 0.01, Seed: 1})
	for i := range 1000 {
		f.AddString(fmt.Sprint("key-", i))
	}
	var conn bytes.Buffer
	n, err := digest.Write(&conn, &digest.Digest{Sequence: 7, Bloom: f}, digest.Raw)
	if err != nil {
		panic(err)
	}
	d, _, err := digest.Read(&conn, envelope.Limits{MaxPayload: 1 << 20})
	if err != nil {
		panic(err)
	}
	fmt.Println(n, d.Sequence, d.Codec, d.Bloom.Equal(f))
	// Output:
	// 1264 7 raw true
}
