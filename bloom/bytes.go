package bloom

import (
	"encoding/binary"
	"fmt"
)

// BitBytes is the length of the bit array as bytes, ceil(m/8).
func (f *Filter) BitBytes() int { return int((f.m + 7) / 8) }

// AppendBitBytes appends the bit array as BitBytes() bytes, bit b at
// byte b/8, bit b%8: the layout of Squid's digest masks and of most
// byte-oriented Bloom-filter formats.
func (f *Filter) AppendBitBytes(dst []byte) []byte {
	n := f.BitBytes()
	var buf [8]byte
	for i := 0; n > 0; i++ {
		binary.LittleEndian.PutUint64(buf[:], f.words[i])
		take := min(n, 8)
		dst = append(dst, buf[:take]...)
		n -= take
	}
	return dst
}

// SetBitBytes replaces the bit array with b, laid out as AppendBitBytes
// writes it. b must be exactly BitBytes() long, with no bit set at or past
// m. The count is left as it was.
func (f *Filter) SetBitBytes(b []byte) error {
	f.mustWrite("SetBitBytes")
	if len(b) != f.BitBytes() {
		return fmt.Errorf("%w: %d bytes for %d bits, want %d", ErrCorrupt, len(b), f.m, f.BitBytes())
	}
	if tail := f.m % 8; tail != 0 && b[len(b)-1]>>tail != 0 {
		return fmt.Errorf("%w: bits set past bit %d", ErrCorrupt, f.m)
	}
	for i := range f.words {
		var w [8]byte
		copy(w[:], b[min(8*i, len(b)):])
		f.words[i] = binary.LittleEndian.Uint64(w[:])
	}
	return nil
}
