// Package unixcompress reads the format of the Unix compress(1) program
// (".Z" files), which HTTP registers as the "compress" coding (RFC 9110
// §8.4.1.1). It is the LZW method of T. A. Welch, "A Technique for
// High-Performance Data Compression" (IEEE Computer, 1984), in the
// variant of Thomas, McKie, Davies, Turkowski, Woods and Orost's
// compress: codes packed least significant bit first, growing from 9
// bits to a maximum of 9 to 16, and a CLEAR code that empties the table.
//
// The standard library's compress/lzw reads the GIF, TIFF and PDF
// variants, not this one: compress also writes codes in groups of eight
// and, whenever the code width changes, pads the group it was writing to
// its full size, and a decoder must skip that padding.
package unixcompress

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// Errors a Reader returns, wrapped with what was wrong.
var (
	// ErrHeader reports a stream without compress's header or with
	// flags it does not define.
	ErrHeader = errors.New("unixcompress: invalid header")
	// ErrCorrupt reports a code no encoder could have written.
	ErrCorrupt = errors.New("unixcompress: corrupt data")
)

const (
	magic0, magic1 = 0x1f, 0x9d
	flagBlockMode  = 0x80 // code 256 is CLEAR
	flagMaxBits    = 0x1f // the widest code, 9 to 16
	flagReserved   = 0x60
	minBits        = 9
	maxBits        = 16
	clearCode      = 256
)

// Reader decodes a compress stream. Create one with NewReader. It holds
// a table of 2^maxbits entries (at most 256 KiB with its output buffer)
// and nothing that grows with the input.
type Reader struct {
	src     io.ByteReader
	maxBits uint
	block   bool

	bits      uint32 // input bits not yet used, least significant first
	nbits     uint   // how many
	width     uint   // the current code width
	groupBits uint   // bits read since the start of the current group run
	eof       bool   // the input has ended
	readErr   error  // why, when not io.EOF

	next   int  // the next free table entry
	prev   int  // the previous code, or -1 after the start or a CLEAR
	first  byte // the first byte of prev's string
	prefix []uint16
	suffix []byte
	stack  []byte // a string is decoded backwards into its end
	out    []byte // decoded bytes not yet returned
	err    error
}

// NewReader reads the three-byte header from r and returns a Reader of
// the data after it. It reads r a byte at a time, through a bufio.Reader
// unless r is an io.ByteReader.
func NewReader(r io.Reader) (*Reader, error) {
	br, ok := r.(io.ByteReader)
	if !ok {
		br = bufio.NewReader(r)
	}
	var h [3]byte
	for i := range h {
		b, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		h[i] = b
	}
	if h[0] != magic0 || h[1] != magic1 {
		return nil, errWrap(ErrHeader, "no 1f 9d magic")
	}
	mb := uint(h[2] & flagMaxBits)
	if h[2]&flagReserved != 0 || mb < minBits || mb > maxBits {
		return nil, errWrap(ErrHeader, "flags byte has reserved bits or a width outside 9..16")
	}
	z := &Reader{
		src:     br,
		maxBits: mb,
		block:   h[2]&flagBlockMode != 0,
		width:   minBits,
		prefix:  make([]uint16, 1<<mb),
		suffix:  make([]byte, 1<<mb),
		stack:   make([]byte, 1<<mb+1),
	}
	z.reset()
	return z, nil
}

// reset empties the table, as at the start and after a CLEAR.
func (z *Reader) reset() {
	z.next = 256
	if z.block {
		z.next = clearCode + 1
	}
	z.prev = -1
	z.width = minBits
}

// Read returns decoded bytes; io.EOF when the input has ended.
func (z *Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(z.out) > 0 {
			c := copy(p[n:], z.out)
			z.out = z.out[c:]
			n += c
			continue
		}
		if z.err != nil {
			break
		}
		z.err = z.decode()
	}
	if n > 0 {
		return n, nil
	}
	return 0, z.err
}

// decode reads one code and sets z.out to its string.
func (z *Reader) decode() error {
	if z.next >= 1<<z.width && (z.width < z.maxBits || z.width == minBits) {
		// compress 4.0 (and gzip's reader after it) widens 9-bit codes
		// to 10 once the table fills, even when 9 is the maximum.
		z.skipGroup()
		z.width++
	}
	code, ok := z.readCode()
	if !ok {
		if z.readErr != nil {
			return z.readErr
		}
		return io.EOF
	}
	if z.block && code == clearCode {
		z.skipGroup()
		z.reset()
		return nil
	}
	if z.prev < 0 {
		if code >= 256 {
			return errWrap(ErrCorrupt, "the first code is not a byte")
		}
		top := len(z.stack) - 1
		z.stack[top] = byte(code)
		z.out = z.stack[top:]
		z.prev, z.first = code, byte(code)
		return nil
	}
	top := len(z.stack)
	c := code
	if code >= z.next {
		if code > z.next {
			return errWrap(ErrCorrupt, "a code beyond the table")
		}
		// The string being defined: the previous one and its first byte
		// (the "KwKwK" case of Welch's paper).
		top--
		z.stack[top] = z.first
		c = z.prev
	}
	for c >= 256 { // each prefix is an earlier entry, so this ends
		top--
		z.stack[top] = z.suffix[c]
		c = int(z.prefix[c])
	}
	top--
	z.stack[top] = byte(c)
	z.first = byte(c)
	if z.next < len(z.prefix) {
		z.prefix[z.next] = uint16(z.prev)
		z.suffix[z.next] = z.first
		z.next++
	}
	z.prev = code
	z.out = z.stack[top:]
	return nil
}

// readCode returns the next code of the current width; false when fewer
// bits than that remain, which is the end of the data (the last byte's
// unused bits are padding).
func (z *Reader) readCode() (int, bool) {
	for z.nbits < z.width {
		if !z.fill() {
			return 0, false
		}
	}
	code := int(z.bits & (1<<z.width - 1))
	z.bits >>= z.width
	z.nbits -= z.width
	z.groupBits += z.width
	return code, true
}

// skipGroup skips to the end of the group of eight codes being read:
// compress pads the group to its full width·8 bits whenever the width
// changes (a wider code or a CLEAR), and the next code starts after it.
func (z *Reader) skipGroup() {
	size := z.width * 8
	skip := (size - z.groupBits%size) % size
	for skip > 0 {
		if z.nbits == 0 && !z.fill() {
			break
		}
		n := min(skip, z.nbits)
		z.bits >>= n
		z.nbits -= n
		skip -= n
	}
	z.groupBits = 0
}

// fill adds the next input byte to z.bits; false at the end of the input
// or on a read error, which it keeps for decode to return.
func (z *Reader) fill() bool {
	if z.eof {
		return false
	}
	b, err := z.src.ReadByte()
	if err != nil {
		z.eof = true
		if !errors.Is(err, io.EOF) {
			z.readErr = err
		}
		return false
	}
	z.bits |= uint32(b) << z.nbits
	z.nbits += 8
	return true
}

func errWrap(base error, msg string) error { return fmt.Errorf("%w: %s", base, msg) }
