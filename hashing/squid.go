package hashing

import (
	"crypto/md5"
	"encoding/binary"
)

// SquidMD5 is the probe derivation of Squid's Cache Digests (Squid
// CacheDigest.cc, after Fan et al.'s Summary Cache): a key is hashed with
// MD5 (the key being Squid's store-key input, a method byte followed by
// the URL; package squid builds it), and probe i, for i = 0..3, is the
// i-th big-endian 32-bit word of the digest modulo the range. The seed is
// not used: Squid digests have none.
//
// In a Hash128 the 16 MD5 bytes are Lo = bytes 0–7 and Hi = bytes 8–15,
// each read big-endian, so the words are Lo>>32, uint32(Lo), Hi>>32 and
// uint32(Hi).
const SquidMD5 SchemeID = 2

// Squid is the SquidMD5 scheme. Its probes past the fourth repeat the
// four words; Squid digests always use k = 4 over the classic layout.
var Squid Scheme = squidScheme{}

type squidScheme struct{}

func (squidScheme) ID() SchemeID { return SquidMD5 }

func (squidScheme) Sum(key []byte, _ uint64) Hash128 { return md5Hash(md5.Sum(key)) }

func (squidScheme) SumString(key string, _ uint64) Hash128 {
	return md5Hash(md5.Sum([]byte(key)))
}

// Block is only meaningful for layouts Squid does not use; it reduces the
// second half like the default scheme.
func (squidScheme) Block(h Hash128, nblocks uint64) uint64 { return Reduce(h.Hi, nblocks) }

func (squidScheme) Probe(h Hash128, i int, n uint64) uint64 {
	return uint64(SquidWord(h, i)) % n
}

// SquidWord returns the i-th (mod 4) big-endian 32-bit word of an MD5
// digest held in a Hash128.
func SquidWord(h Hash128, i int) uint32 {
	switch i & 3 {
	case 0:
		return uint32(h.Lo >> 32)
	case 1:
		return uint32(h.Lo)
	case 2:
		return uint32(h.Hi >> 32)
	}
	return uint32(h.Hi)
}

// MD5Hash128 converts a 16-byte MD5 digest (a Squid store key) to a Hash128.
func MD5Hash128(sum [16]byte) Hash128 { return md5Hash(sum) }

func md5Hash(sum [16]byte) Hash128 {
	return Hash128{Lo: binary.BigEndian.Uint64(sum[:8]), Hi: binary.BigEndian.Uint64(sum[8:])}
}
