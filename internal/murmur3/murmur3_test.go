package murmur3

import (
	"encoding/binary"
	"encoding/hex"
	"testing"
)

// TestSum128Vectors checks digests of MurmurHash3_x64_128 (seed 0) as the
// reference implementation and Guava's Hashing.murmur3_128 print them: the
// two halves little-endian, h1 first.
func TestSum128Vectors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "00000000000000000000000000000000"},
		{"The quick brown fox jumps over the lazy dog", "6c1b07bc7bbc4be347939ac4a93c437a"},
	} {
		h1, h2 := Sum128([]byte(c.in))
		var d [16]byte
		binary.LittleEndian.PutUint64(d[:], h1)
		binary.LittleEndian.PutUint64(d[8:], h2)
		if got := hex.EncodeToString(d[:]); got != c.want {
			t.Errorf("Sum128(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestSum128Uint64(t *testing.T) {
	for _, v := range []uint64{0, 1, 42, 1 << 63, ^uint64(0), 0x0123456789abcdef} {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		a1, a2 := Sum128(b[:])
		b1, b2 := Sum128Uint64(v)
		if a1 != b1 || a2 != b2 {
			t.Errorf("Sum128Uint64(%#x) = %#x %#x, Sum128 of its bytes = %#x %#x", v, b1, b2, a1, a2)
		}
	}
}
