package bitsandblooms

import (
	"encoding/binary"
	"math/bits"
)

// MurmurHash3 x64 128-bit with seed 0, written from Austin Appleby's
// public-domain description of the algorithm (MurmurHash3_x64_128 in
// smhasher): 16-byte blocks mixed into two 64-bit lanes, a tail of up to
// 15 bytes, the length folded in, and the fmix64 finaliser on each lane.

const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
)

// mixK1 and mixK2 scramble a block's first and second 8 bytes before they
// enter their lane.
func mixK1(k uint64) uint64 { return bits.RotateLeft64(k*murmurC1, 31) * murmurC2 }
func mixK2(k uint64) uint64 { return bits.RotateLeft64(k*murmurC2, 33) * murmurC1 }

// murmurMix mixes one 16-byte block, k1 and k2, into the lanes.
func murmurMix(h1, h2, k1, k2 uint64) (uint64, uint64) {
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

// murmurFinish hashes the tail (fewer than 16 bytes) into h1, h2 and
// finalises them for a message of length bytes.
func murmurFinish(h1, h2 uint64, tail []byte, length uint64) (uint64, uint64) {
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

// baseHashes returns the four 64-bit values bloom/v3 derives from a key:
// the MurmurHash3 x64 128-bit hash (seed 0) of the key, then that of the
// key with one byte 0x01 appended. The blocks they share are mixed once.
func baseHashes(data []byte) [4]uint64 {
	var h1, h2 uint64
	n := len(data) &^ 15
	for i := 0; i < n; i += 16 {
		h1, h2 = murmurMix(h1, h2, binary.LittleEndian.Uint64(data[i:]), binary.LittleEndian.Uint64(data[i+8:]))
	}
	tail := data[n:]
	a1, a2 := murmurFinish(h1, h2, tail, uint64(len(data)))

	var buf [16]byte
	copy(buf[:], tail)
	buf[len(tail)] = 1
	ext := buf[:len(tail)+1]
	if len(ext) == 16 {
		h1, h2 = murmurMix(h1, h2, binary.LittleEndian.Uint64(ext), binary.LittleEndian.Uint64(ext[8:]))
		ext = ext[:0]
	}
	b1, b2 := murmurFinish(h1, h2, ext, uint64(len(data))+1)
	return [4]uint64{a1, a2, b1, b2}
}

// location is bloom/v3's i-th probe (before reduction modulo m): the
// double hashing h[i%2] + i*h[2+((i+i%2)%4)/2] over the four base hashes.
func location(h [4]uint64, i uint64) uint64 {
	return h[i%2] + i*h[2+((i+i%2)%4)/2]
}
