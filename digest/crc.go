package digest

import (
	"encoding/binary"

	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/envelope"
)

// The checksum of a patched array from the base's and the words the delta
// changes, without a pass over the others. CRC-32C is affine: for
// messages of one length, crc(a ⊕ x) = crc(a) ⊕ R(x), where R is the CRC
// register run from zero with no final inversion, linear in x; and
// R(x ‖ 0ⁿ) = R(x)·x^(8n) mod P, so runs of zero words cost one
// multiplication by a power of x, built from the squares x^(2^k) (the
// identity behind zlib's crc32_combine; Williams, "A Painless Guide to
// CRC Error Detection Algorithms", 1993, for the reflected form).

// castagnoliReflected is the CRC-32C polynomial, bit-reversed: bit 31 is
// the coefficient of x^0.
const castagnoliReflected = 0x82F63B78

// crcMul returns a·b mod P in the reflected representation.
func crcMul(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0 && a != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
			a ^= m
		}
		if b&1 != 0 {
			b = b>>1 ^ castagnoliReflected
		} else {
			b >>= 1
		}
	}
	return p
}

// crcX2n holds x^(2^k) mod P, k < 64.
var crcX2n = func() (t [64]uint32) {
	p := uint32(1) << 30 // x^1
	for k := range t {
		t[k] = p
		p = crcMul(p, p)
	}
	return t
}()

// crcShift returns the register r after n zero bytes: r·x^(8n) mod P.
func crcShift(r uint32, n uint64) uint32 {
	for k := 3; n != 0 && r != 0; n, k = n>>1, k+1 {
		if n&1 != 0 {
			r = crcMul(crcX2n[k], r)
		}
	}
	return r
}

// wordChange is a word a delta changes: its index and the XOR, for a
// Bloom filter's words as for a counting filter's counters.
type wordChange = counting.WordXOR

// zeroWords is a run of zero bytes fed to the CRC when that is cheaper
// than a multiplication.
var zeroWords [256]byte

// patchedChecksum returns the checksum of an array of nw words, whose
// checksum was crc, after the changes (in increasing index order) are
// applied: work proportional to the changes, not to nw.
func patchedChecksum(crc uint32, nw uint64, changes []wordChange) uint32 {
	return checksumAfter(crc, nw, changes, func(c wordChange) (uint64, uint64) { return c.Index, c.XOR })
}

// ChecksumAfter returns the checksum ([Checksum]) of a Bloom filter
// digest's nwords words after the changes, given crc, their checksum
// before: work proportional to the changes, not to the words (CRC-32C is
// affine, crc.go). The changes are in increasing Index order, Old and
// New each word's value before and after, as [counting.Filter.ChangedWords]
// reports them: a publisher that tracks its changed words so checksums
// each version without reading it whole.
func ChecksumAfter(crc uint32, nwords int, changes []counting.WordChange) uint32 {
	return checksumAfter(crc, uint64(nwords), changes, func(c counting.WordChange) (uint64, uint64) { return c.Index, c.Old ^ c.New })
}

// checksumAfter is patchedChecksum for changes of any form, at giving
// each change's word index and XOR.
func checksumAfter[C any](crc uint32, nw uint64, changes []C, at func(C) (uint64, uint64)) uint32 {
	var r uint32 // R of the XOR up to word next
	next := uint64(0)
	var b [8]byte
	for _, c := range changes {
		i, x := at(c)
		if gap := 8 * (i - next); gap <= uint64(len(zeroWords)) {
			r = ^envelope.UpdateChecksum(^r, zeroWords[:gap])
		} else {
			r = crcShift(r, gap)
		}
		binary.LittleEndian.PutUint64(b[:], x)
		r = ^envelope.UpdateChecksum(^r, b[:])
		next = i + 1
	}
	return crc ^ crcShift(r, 8*(nw-next))
}
