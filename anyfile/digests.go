package anyfile

import (
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
)

// The digest pipelines of "bloomcast compress", "decompress", "diff" and
// "patch": a Bloom or counting filter read from a file, coded again,
// compared with another version, or brought up to date by a delta.

// Recode returns f's Bloom, counting or scalable filter as a digest with sequence
// seq, coded by codec: with pieceBytes above 0, a Bloom filter's bit
// array in pieces of that many decoded bytes (digest.EncodePieces; arith
// or fast), else as one stream.
func (f *File) Recode(codec digest.Codec, seq uint64, pieceBytes int) (Frame, error) {
	d := f.Digest()
	if d == nil {
		return nil, errorf("%s is not coded as a digest: only Bloom and counting filters are", article(f.Kind()))
	}
	d.Sequence = seq
	if pieceBytes > 0 {
		if f.Kind() != Bloom {
			return nil, errorf("%s: only Bloom filters are coded in pieces", article(f.Kind()))
		}
		return digest.EncodePieces(d, codec, pieceBytes)
	}
	return digest.Encode(d, codec)
}

// Diff returns the delta digest that turns base into next (digest.Diff),
// coded by codec. Its sequence is next's, or base's plus one when next's
// is not greater.
func Diff(base, next *File, codec digest.Codec) (Frame, error) {
	b, n := base.Digest(), next.Digest()
	if b == nil || n == nil {
		return nil, errorf("a delta joins two versions of a Bloom or counting filter")
	}
	if n.Sequence <= b.Sequence {
		n.Sequence = b.Sequence + 1
	}
	return digest.Diff(b, n, codec)
}

// Patch applies delta, a delta digest's encoding read within lim, to f's
// Bloom or counting filter and returns the new version, with the delta's
// sequence; File.EncodeDigest writes it as f was written. A delta for
// another base is refused with digest.ErrBase.
func (f *File) Patch(delta []byte, lim envelope.Limits) (*digest.Digest, error) {
	base := f.Digest()
	if base == nil {
		return nil, errorf("%s takes no delta: only Bloom and counting filters do", article(f.Kind()))
	}
	return digest.Patch(base, delta, lim)
}
