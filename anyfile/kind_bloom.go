package anyfile

import (
	"io"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
)

// bloomKind is a Bloom filter (envelope.TypeBloom), read whole or, coded
// in pieces with Options.LazyPieces, kept as its pieces and decoded as
// queries and changes need it.
type bloomKind struct {
	none
	bits    *bloom.Filter  // nil while read lazily and not yet decoded
	pieces  *digest.Pieces // set when coded in pieces (codec 3)
	entropy float64
}

// decodeBloom decodes a Bloom or counting filter's frame.
func decodeBloom(f *File, payload []byte, opt Options) error {
	h, lim := f.Header, opt.Limits
	k := &bloomKind{}
	if h.Type == envelope.TypeBloom && h.Codec == envelope.CodecPieces {
		var err error
		if k.pieces, err = digest.NewPieces(h, payload, lim, 0); err != nil {
			return err
		}
		if opt.LazyPieces {
			f.k = k
			return nil
		}
	}
	d, err := digest.FromFrame(h, payload, lim)
	if err != nil {
		return err
	}
	if d.Counting != nil {
		f.k = newCountingKind(d.Counting, d.EntropyBits())
		return nil
	}
	k.bits, k.entropy = d.Bloom, d.EntropyBits()
	f.k = k
	return nil
}

func (*bloomKind) Kind() Kind { return Bloom }

// decoded decodes a filter read lazily in pieces whole.
func (k *bloomKind) decoded() error {
	if k.bits != nil || k.pieces == nil {
		return nil
	}
	b, err := k.pieces.Filter()
	k.bits = b
	return err
}

func (k *bloomKind) contains(_ *File, key []byte) (bool, error) {
	if k.bits == nil {
		return k.pieces.Contains(key)
	}
	return k.bits.Contains(key), nil
}

func (k *bloomKind) add(_ *File, key []byte) error {
	if err := k.decoded(); err != nil {
		return err
	}
	k.bits.Add(key)
	return nil
}

func (k *bloomKind) encoding(f *File, codec digest.Codec) (io.WriterTo, error) {
	if codec == digest.Raw && f.Header.Sequence == 0 && k.pieces == nil {
		// What digest.Encode writes, streamed from the array.
		return k.bits, nil
	}
	d := k.digest(f)
	if d == nil {
		return nil, k.decoded()
	}
	return f.EncodeDigest(d, codec)
}

func (k *bloomKind) convertFrame(f *File, codec digest.Codec) (io.WriterTo, error) {
	return k.encoding(f, codec)
}

func (k *bloomKind) digest(f *File) *digest.Digest {
	if k.decoded() != nil {
		return nil
	}
	return &digest.Digest{Sequence: f.Header.Sequence, Codec: f.Header.Codec, Bloom: k.bits}
}

func (k *bloomKind) combine(_, g *File, intersect bool) error {
	o := kindOf[*bloomKind](g)
	if err := k.decoded(); err != nil {
		return err
	}
	if err := o.decoded(); err != nil {
		return err
	}
	return combineBits(k.bits, o.bits, intersect)
}

func (*bloomKind) foldable(*File) error { return nil }

func (k *bloomKind) fold(_ *File, toBits uint64) error {
	if err := k.decoded(); err != nil {
		return err
	}
	if toBits == 0 {
		return k.bits.Fold()
	}
	return k.bits.FoldTo(toBits)
}

func (k *bloomKind) structures() []any {
	var ss []any
	if k.bits != nil {
		ss = append(ss, k.bits)
	}
	if k.pieces != nil {
		ss = append(ss, k.pieces)
	}
	return ss
}

func (k *bloomKind) codec(f *File) digest.Codec {
	if k.pieces != nil {
		return k.pieces.Codec()
	}
	return codecOf(f.Header.Codec)
}

func (k *bloomKind) entropyBits() float64 { return k.entropy }

// combineBits ORs (or ANDs) b's bits into a's, two Bloom filters (or
// Squid digests' masks) of one shape.
func combineBits(a, b *bloom.Filter, intersect bool) error {
	if err := a.Compatible(b); err != nil {
		return err
	}
	if intersect {
		return a.Intersect(b)
	}
	return a.Union(b)
}
