package entropy

import "encoding/binary"

// BitReader decodes an m-bit array coded by [EncodeBits] (or, made by
// [NewCounterReader], counters coded by [EncodeCounters]) a run of words
// at a time, in order, for a caller that would rather not hold the whole
// array decoded: one that recodes a stream in pieces, or applies a sparse
// change to an array kept coded. The words, and the errors, are those of
// [DecodeBits]; the end of the stream is checked with the last word.
//
// The zero value is not usable: [NewBitReader] makes a BitReader, and
// Read on the zero value returns [ErrCodec].
type BitReader struct {
	src  []byte // the stream after its codec byte
	m    uint64
	next uint64 // words delivered
	tag  Codec
	err  error
	fill uint64 // Const: every word
	// Arith
	arith arithDec
	// RANS
	pos  int
	xs   [4]uint64
	dec  *ransDec
	sw   uint   // bits a symbol
	nsym uint64 // symbols in the array
}

// NewBitReader returns a reader of the m-bit array coded in src with
// codec c (as for [DecodeBits]: [Fast] for any variant Fast writes, or
// the codec the stream names). It reads the stream's header; an empty
// array's stream is checked whole.
func NewBitReader(src []byte, m uint64, c Codec) (*BitReader, error) {
	if len(src) == 0 {
		return nil, errTruncated("no codec byte")
	}
	tag := Codec(src[0])
	switch {
	case c == tag && (c == Arith || c == Raw || c == Const || c == RANS):
	case c == Fast && (tag == Raw || tag == Const || tag == RANS):
	default:
		return nil, ErrCodec
	}
	r := &BitReader{src: src[1:], m: m, tag: tag}
	var err error
	switch tag {
	case Arith:
		err = r.arith.start(r.src)
	case Raw:
		err = rawLength(r.src, m)
	case Const:
		switch {
		case len(r.src) < 1:
			err = errTruncated("constant")
		case len(r.src) > 1:
			err = errTrailing(len(r.src) - 1)
		case r.src[0] > 1:
			err = errCorrupt("constant bit is not 0 or 1")
		default:
			r.fill = -uint64(r.src[0])
		}
	case RANS:
		if len(r.src) < ransHeader-1 {
			return nil, errTruncated("RANS density")
		}
		pq := binary.LittleEndian.Uint32(r.src)
		r.src = r.src[ransHeader-1:]
		r.dec = new(ransDec)
		cs := byteClasses(pq)
		r.dec.build(cs[:])
		r.sw, r.nsym = 8, bytesFor(m)
		r.xs, err = ransStart(r.src)
		r.pos = ransStates
	}
	return r.started(err)
}

// started returns r, whose stream a constructor has begun reading with
// err, or err: an array of no bits must have ended its stream already.
func (r *BitReader) started(err error) (*BitReader, error) {
	if err == nil && r.m == 0 {
		err = r.finish()
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Words returns ⌈m/64⌉, the number of words of the array.
func (r *BitReader) Words() uint64 {
	if r == nil {
		return 0
	}
	return wordsFor(r.m)
}

// Read decodes the next len(dst) words of the array into dst; the last
// word holds the bits up to m, the bits past m zero. Reading past the
// last word is [ErrLength]. Once Read has returned an error it returns
// the same error.
func (r *BitReader) Read(dst []uint64) error {
	switch {
	case r == nil || r.tag == 0:
		return ErrCodec
	case r.err != nil:
		return r.err
	case uint64(len(dst)) > wordsFor(r.m)-r.next:
		return ErrLength
	case len(dst) == 0:
		return nil
	}
	var err error
	switch r.tag {
	case Arith:
		err = r.arith.words(dst, r.src, 64*r.next, r.m)
	case Raw:
		nb := bytesFor(r.m)
		for i := range dst {
			lo := 8 * (r.next + uint64(i))
			if lo+8 <= nb {
				dst[i] = binary.LittleEndian.Uint64(r.src[lo:])
				continue
			}
			var last uint64
			for j := nb; j > lo; j-- {
				last = last<<8 | uint64(r.src[j-1])
			}
			dst[i] = last
		}
	case Const:
		for i := range dst {
			dst[i] = r.fill
		}
	case RANS:
		per := uint64(64 / r.sw)
		nsym := min(per*uint64(len(dst)), r.nsym-per*r.next)
		r.pos, err = ransWords(dst, r.src, r.pos, nsym, r.sw, r.dec, &r.xs)
	}
	r.next += uint64(len(dst))
	if err == nil && r.next == wordsFor(r.m) {
		last := &dst[len(dst)-1]
		if r.tag == Const {
			*last &= tailMask(r.m)
		}
		if *last&^tailMask(r.m) != 0 {
			err = errCorrupt("bits set past the length")
		} else {
			err = r.finish()
		}
	}
	r.err = err
	return err
}

// finish checks the end of the stream after the last word.
func (r *BitReader) finish() error {
	switch r.tag {
	case Arith:
		return r.arith.finish(r.src)
	case RANS:
		return ransFinish(r.src, r.pos, r.xs)
	}
	return nil
}

// rawLength checks that a Raw stream (after its codec byte) holds the
// bytes of exactly m bits.
func rawLength(src []byte, m uint64) error {
	nb := bytesFor(m)
	if uint64(len(src)) < nb {
		return errTruncated("raw bits")
	}
	if uint64(len(src)) > nb {
		return errTrailing(len(src) - int(nb))
	}
	return nil
}
