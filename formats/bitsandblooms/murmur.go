package bitsandblooms

import (
	"encoding/binary"

	"github.com/bloomcast/bloomcast/internal/murmur3"
)

// The MurmurHash3 x64 128-bit code is the module's own, in
// internal/murmur3.

// baseHashes returns the four 64-bit values bloom/v3 derives from a key:
// the MurmurHash3 x64 128-bit hash (seed 0) of the key, then that of the
// key with one byte 0x01 appended. The blocks they share are mixed once.
func baseHashes(data []byte) [4]uint64 {
	var h1, h2 uint64
	n := len(data) &^ 15
	for i := 0; i < n; i += 16 {
		h1, h2 = murmur3.Mix(h1, h2, binary.LittleEndian.Uint64(data[i:]), binary.LittleEndian.Uint64(data[i+8:]))
	}
	tail := data[n:]
	a1, a2 := murmur3.Finish(h1, h2, tail, uint64(len(data)))

	var buf [16]byte
	copy(buf[:], tail)
	buf[len(tail)] = 1
	ext := buf[:len(tail)+1]
	if len(ext) == 16 {
		h1, h2 = murmur3.Mix(h1, h2, binary.LittleEndian.Uint64(ext), binary.LittleEndian.Uint64(ext[8:]))
		ext = ext[:0]
	}
	b1, b2 := murmur3.Finish(h1, h2, ext, uint64(len(data))+1)
	return [4]uint64{a1, a2, b1, b2}
}

// location is bloom/v3's i-th probe (before reduction modulo m): the
// double hashing h[i%2] + i*h[2+((i+i%2)%4)/2] over the four base hashes.
func location(h [4]uint64, i uint64) uint64 {
	return h[i%2] + i*h[2+((i+i%2)%4)/2]
}
