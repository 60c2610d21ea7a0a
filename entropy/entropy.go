package entropy

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Codec names a coder. Its value is also the first byte of every stream,
// so a stream says how it was coded. Values are part of the format and are
// never reused.
// The zero value names no coder: EncodeBits and DecodeBits return ErrCodec
// for it.
type Codec uint8

// Codecs. [Arith] and [Fast] are what callers ask for; [Fast] is only a
// request and never appears in a stream: the encoder records the variant
// it picked ([Raw], [Const] or [RANS]). [Raw] and [RANS] may also be asked
// for directly (tests, benchmarks). [Order0] is the counter coder's stream.
const (
	Arith  Codec = 1 // adaptive binary arithmetic (range) coder, the reference
	Fast   Codec = 2 // request: pick Raw, Const or RANS by density
	Raw    Codec = 3 // the bits (or counters) verbatim
	Const  Codec = 4 // every bit equal
	RANS   Codec = 5 // static byte model from the density, interleaved rANS
	Order0 Codec = 6 // counters: order-0 model with frequencies sent, rANS
	Gaps   Codec = 7 // a sparse bit array as the gaps between its ones (AppendGaps)
)

func (c Codec) String() string {
	switch c {
	case Arith:
		return "arith"
	case Fast:
		return "fast"
	case Raw:
		return "raw"
	case Const:
		return "const"
	case RANS:
		return "rans"
	case Order0:
		return "order0"
	case Gaps:
		return "gaps"
	}
	return "codec(" + strconv.Itoa(int(c)) + ")"
}

// Errors. Decoders wrap them with details; test with errors.Is.
var (
	// ErrTruncated: the stream ends before the data it promises.
	ErrTruncated = errors.New("entropy: truncated stream")
	// ErrCorrupt: the stream is not one an encoder of this package writes.
	ErrCorrupt = errors.New("entropy: corrupt stream")
	// ErrTrailing: bytes remain after a complete stream.
	ErrTrailing = errors.New("entropy: trailing bytes after stream")
	// ErrCodec: an unknown codec, or a stream of another codec than asked.
	ErrCodec = errors.New("entropy: unknown or mismatched codec")
	// ErrLength: a word slice does not match the stated length.
	ErrLength = errors.New("entropy: word slice does not match length")
	// ErrWidth: a counter width other than 4 or 8.
	ErrWidth = errors.New("entropy: unsupported counter width")
)

func errTruncated(what string) error { return fmt.Errorf("%w: %s", ErrTruncated, what) }
func errCorrupt(what string) error   { return fmt.Errorf("%w: %s", ErrCorrupt, what) }
func errTrailing(n int) error        { return fmt.Errorf("%w: %d bytes", ErrTrailing, n) }

// Entropy returns H(p) = −p·log2 p − (1−p)·log2(1−p), the bits per bit of
// an i.i.d. source whose bits are 1 with probability p; 0 at p = 0 and 1,
// NaN outside [0, 1].
func Entropy(p float64) float64 {
	if !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	if p == 0 || p == 1 {
		return 0
	}
	return -p*math.Log2(p) - (1-p)*math.Log2(1-p)
}

// wordsFor is ⌈m/64⌉ without overflow.
func wordsFor(m uint64) uint64 {
	n := m / 64
	if m%64 != 0 {
		n++
	}
	return n
}

// bytesFor is ⌈m/8⌉ without overflow.
func bytesFor(m uint64) uint64 {
	n := m / 8
	if m%8 != 0 {
		n++
	}
	return n
}

// tailMask is the mask of the valid bits of the last word of an m-bit
// array (all ones when m is a multiple of 64).
func tailMask(m uint64) uint64 {
	if m%64 == 0 {
		return ^uint64(0)
	}
	return uint64(1)<<(m%64) - 1
}

// grow extends dst by n bytes and returns the extended slice.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst[:len(dst)+n]
	}
	out := make([]byte, len(dst)+n, len(dst)+n+len(dst)/4)
	copy(out, dst)
	return out
}
