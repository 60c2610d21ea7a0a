// Package murmur3 is MurmurHash3 x64 128-bit, written from Austin
// Appleby's public-domain description of the algorithm
// (MurmurHash3_x64_128 in smhasher): 16-byte blocks mixed into two 64-bit
// lanes, a tail of up to 15 bytes, the length folded in, and the fmix64
// finaliser on each lane. The formats that hash as other software does
// (bits-and-blooms/bloom/v3, Guava) share it.
package murmur3

import (
	"encoding/binary"
	"math/bits"
)

const (
	c1 = 0x87c37b91114253d5
	c2 = 0x4cf5ad432745937f
)

// mixK1 and mixK2 scramble a block's first and second 8 bytes before they
// enter their lane.
func mixK1(k uint64) uint64 { return bits.RotateLeft64(k*c1, 31) * c2 }
func mixK2(k uint64) uint64 { return bits.RotateLeft64(k*c2, 33) * c1 }

// Mix mixes one 16-byte block, whose little-endian halves are k1 and k2,
// into the lanes h1, h2 (both the seed at the start).
func Mix(h1, h2, k1, k2 uint64) (uint64, uint64) {
	h1 ^= mixK1(k1)
	h1 = bits.RotateLeft64(h1, 27) + h2
	h1 = h1*5 + 0x52dce729
	h2 ^= mixK2(k2)
	h2 = bits.RotateLeft64(h2, 31) + h1
	h2 = h2*5 + 0x38495ab5
	return h1, h2
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// Finish hashes the tail (fewer than 16 bytes) into h1, h2 and finalises
// them for a message of length bytes.
func Finish(h1, h2 uint64, tail []byte, length uint64) (uint64, uint64) {
	var k1, k2 uint64
	for i := len(tail) - 1; i >= 8; i-- {
		k2 = k2<<8 | uint64(tail[i])
	}
	for i := min(len(tail), 8) - 1; i >= 0; i-- {
		k1 = k1<<8 | uint64(tail[i])
	}
	if len(tail) > 8 {
		h2 ^= mixK2(k2)
	}
	if len(tail) > 0 {
		h1 ^= mixK1(k1)
	}
	return finalize(h1, h2, length)
}

// finalize folds the message length into both lanes and runs fmix64 on
// each, cross-adding the lanes before and after: the last step of every
// hash.
func finalize(h1, h2, length uint64) (uint64, uint64) {
	h1 ^= length
	h2 ^= length
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}

// Sum128 returns the two 64-bit halves of MurmurHash3 x64 128 (seed 0) of
// data: h1 is the first eight bytes of the digest read little-endian.
func Sum128(data []byte) (h1, h2 uint64) {
	n := len(data) &^ 15
	for i := 0; i < n; i += 16 {
		h1, h2 = Mix(h1, h2, binary.LittleEndian.Uint64(data[i:]), binary.LittleEndian.Uint64(data[i+8:]))
	}
	return Finish(h1, h2, data[n:], uint64(len(data)))
}

// Sum128Uint64 is Sum128 of v's eight little-endian bytes, without
// building them.
func Sum128Uint64(v uint64) (h1, h2 uint64) {
	return finalize(mixK1(v), 0, 8)
}
