package digest

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/readn"
)

// claimLimit is the payload limit of the claim tests: the frames below
// claim arrays of half of it.
const claimLimit = 64 << 20

// claimFrames returns frames of a few hundred bytes at most that claim an
// array of the given bits (a multiple of 64) and whose streams break
// early: a
// truncated arithmetic code, a small filter's rANS stream, a small
// counting filter's order-0 stream, and a single piece of all the bits
// coded with a truncated arithmetic code.
func claimFrames(t testing.TB, bits uint64) map[string][]byte {
	t.Helper()
	bigBloom, err := Encode(&Digest{Sequence: 1, Bloom: bloomWith(t, bloom.Config{M: bits, K: 2, Seed: 1}, 0, 0)}, Fast)
	if err != nil {
		t.Fatal(err)
	}
	small, err := Encode(&Digest{Sequence: 1, Bloom: bloomWith(t, bloom.Config{M: 4096, K: 2, Seed: 11}, 0, 150)}, Fast)
	if err != nil {
		t.Fatal(err)
	}
	cc := counting.Config{M: 1024, K: 3, Seed: 5}
	smallCounting, err := Encode(&Digest{Sequence: 1, Counting: countingWith(t, cc, 0, 60)}, Fast)
	if err != nil {
		t.Fatal(err)
	}
	cc.M = bits / 4
	bigCounting, err := Encode(&Digest{Sequence: 1, Counting: countingWith(t, cc, 0, 0)}, Fast)
	if err != nil {
		t.Fatal(err)
	}
	truncatedArith := []byte{byte(entropy.Arith), 0, 0, 0, 0}
	pieces := binary.LittleEndian.AppendUint32(nil, uint32(bits/8))
	pieces = append(pieces, byte(envelope.CodecArith), 0, 0, 0)
	pieces = binary.LittleEndian.AppendUint32(pieces, uint32(len(truncatedArith)))
	pieces = append(pieces, truncatedArith...)
	with := func(frame []byte, codec envelope.Codec, body []byte) []byte {
		return reframed(t, frame, func(h *envelope.Header, _ []byte) []byte { h.Codec = codec; return body })
	}
	return map[string][]byte{
		"arith":    with(bigBloom, envelope.CodecArith, truncatedArith),
		"rans":     with(bigBloom, envelope.CodecFast, payloadOf(t, small)),
		"counters": with(bigCounting, envelope.CodecFast, payloadOf(t, smallCounting)),
		"pieces":   with(bigBloom, envelope.CodecPieces, pieces),
	}
}

// TestDecodeClaimNotAllocated: a compressed frame of a few bytes that
// claims a 32 MiB array and breaks early is refused having allocated
// about what its stream decoded (a run of readn.Chunk), not the claim.
func TestDecodeClaimNotAllocated(t *testing.T) {
	for name, frame := range claimFrames(t, 8*claimLimit/2) {
		var err error
		a := minAlloc(func() { _, err = Decode(frame, envelope.Limits{MaxPayload: claimLimit}) })
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s, %d bytes: err %v, want ErrCorrupt", name, len(frame), err)
		}
		if a > 2*readn.Chunk {
			t.Errorf("%s, %d bytes claiming 32 MiB: %d bytes allocated, want at most %d", name, len(frame), a, 2*readn.Chunk)
		}
	}
}

// TestDecodeGrows: arrays of several runs decode whole through the
// growing slice, with every codec.
func TestDecodeGrows(t *testing.T) {
	f := bloomWith(t, bloom.Config{M: 3*8*readn.Chunk + 100, K: 3, Seed: 2}, 0, 200000)
	cnt := countingWith(t, counting.Config{M: 3*16*readn.Chunk/8 + 7, K: 3, Seed: 2}, 0, 200000)
	for _, c := range []Codec{Arith, Fast} {
		for _, d := range []*Digest{{Bloom: f}, {Counting: cnt}} {
			if c == Arith && d.Counting != nil {
				continue
			}
			b, err := Encode(d, c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(b, envelope.Limits{})
			if err != nil || !got.Filter().Equal(d.Filter()) {
				t.Fatalf("codec %v, counting %t: %v, or a different filter", c, d.Counting != nil, err)
			}
		}
	}
}
