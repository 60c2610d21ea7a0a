package anyfile

import (
	"io"
	"math"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
)

// bloomKind is a Bloom filter (envelope.TypeBloom), read whole into
// File.Bloom or, coded in pieces with Options.LazyPieces, kept as
// File.Pieces and decoded as queries and changes need it.
type bloomKind struct{ none }

func (bloomKind) structures(f *File) []any {
	var ss []any
	if f.Bloom != nil {
		ss = append(ss, f.Bloom)
	}
	if f.Pieces != nil {
		ss = append(ss, f.Pieces)
	}
	return ss
}

// decodeBloom decodes a Bloom or counting filter's frame; a counting
// filter's bit view is copied into File.Bloom.
func decodeBloom(f *File, payload []byte, opt Options) error {
	h, lim := f.Header, opt.Limits
	if h.Type == envelope.TypeBloom && h.Codec == envelope.CodecPieces {
		var err error
		if f.Pieces, err = digest.NewPieces(h, payload, lim, 0); err != nil || opt.LazyPieces {
			return err
		}
	}
	d, err := digest.FromFrame(h, payload, lim)
	if err != nil {
		return err
	}
	f.Bloom, f.Counting, f.EntropyBits = d.Bloom, d.Counting, d.EntropyBits()
	if d.Counting != nil {
		f.Bloom = d.Counting.BitView().Clone()
	}
	return nil
}

func (bloomKind) contains(f *File, key []byte) (bool, error) {
	if f.Bloom == nil {
		return f.Pieces.Contains(key)
	}
	return f.Bloom.Contains(key), nil
}

func (bloomKind) add(f *File, key []byte) error {
	if err := f.decodeView(); err != nil {
		return err
	}
	f.Bloom.Add(key)
	return nil
}

func (k bloomKind) encoding(f *File, codec digest.Codec) (io.WriterTo, error) {
	if codec == digest.Raw && f.Header.Sequence == 0 && f.Pieces == nil {
		// What digest.Encode writes, streamed from the array.
		return f.Bloom, nil
	}
	d := k.digest(f)
	if d == nil {
		return nil, f.decodeView()
	}
	return f.EncodeDigest(d, codec)
}

func (k bloomKind) convertFrame(f *File, codec digest.Codec) (io.WriterTo, error) {
	return k.encoding(f, codec)
}

func (bloomKind) digest(f *File) *digest.Digest {
	if f.decodeView() != nil {
		return nil
	}
	return &digest.Digest{Sequence: f.Header.Sequence, Codec: f.Header.Codec, Bloom: f.Bloom}
}

func (bloomKind) combine(f, g *File, intersect bool) error { return combineBits(f, g, intersect) }

func (bloomKind) foldable(*File) error { return nil }

func (bloomKind) fold(f *File, toBits uint64) error {
	if err := f.decodeView(); err != nil {
		return err
	}
	if toBits == 0 {
		return f.Bloom.Fold()
	}
	return f.Bloom.FoldTo(toBits)
}

// combineBits ORs (or ANDs) g's bits into f's, two Bloom filters or
// Squid digests of one shape; a Squid digest's header then sums the
// deletions and takes the count estimated from the bits.
func combineBits(f, g *File, intersect bool) error {
	if err := f.decodeView(); err != nil {
		return err
	}
	if err := g.decodeView(); err != nil {
		return err
	}
	if err := f.Bloom.Compatible(g.Bloom); err != nil {
		return err
	}
	op := f.Bloom.Union
	if intersect {
		op = f.Bloom.Intersect
	}
	if err := op(g.Bloom); err != nil {
		return err
	}
	if d := f.Squid; d != nil {
		d.Header.DelCount = uint32(min(uint64(d.Header.DelCount)+uint64(g.Squid.Header.DelCount), math.MaxInt32))
		d.Header.Count = uint32(min(math.Round(f.Bloom.EstimateCount()), math.MaxInt32))
	}
	return nil
}
