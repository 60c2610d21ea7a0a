package anyfile

import (
	"io"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/scalable"
)

// scalableKind is a scalable Bloom filter (envelope.TypeScalable): its
// layers decoded whatever their codecs, written back with the codec they
// shared.
type scalableKind struct{ none }

func (scalableKind) structures(f *File) []any { return []any{f.Scalable} }

func decodeScalable(f *File, payload []byte, opt Options) error {
	d, err := digest.FromFrame(f.Header, payload, opt.Limits)
	if err != nil {
		return err
	}
	f.Scalable, f.EntropyBits = d.Scalable, d.EntropyBits()
	f.layerCodec = layerCodec(f.Header, payload)
	return nil
}

// layerCodec is the codec shared by the layers of a valid type-11
// frame, or Auto when they differ.
func layerCodec(h envelope.Header, payload []byte) digest.Codec {
	fr, err := scalable.Split(h, payload, envelope.Limits{})
	if err != nil || len(fr.Layers) == 0 {
		return digest.Auto
	}
	c := fr.Layers[0].Header.Codec
	for _, l := range fr.Layers[1:] {
		if l.Header.Codec != c {
			return digest.Auto
		}
	}
	return codecOf(c)
}

func (scalableKind) contains(f *File, key []byte) (bool, error) { return f.Scalable.Contains(key), nil }

// add grows a new layer when the newest is full; ErrFull for a
// non-scaling filter at its capacity.
func (scalableKind) add(f *File, key []byte) error { return f.Scalable.Add(key) }

func (k scalableKind) encoding(f *File, codec digest.Codec) (io.WriterTo, error) {
	return f.EncodeDigest(k.digest(f), codec)
}

func (k scalableKind) convertFrame(f *File, codec digest.Codec) (io.WriterTo, error) {
	return k.encoding(f, codec)
}

func (scalableKind) digest(f *File) *digest.Digest {
	return &digest.Digest{Sequence: f.Header.Sequence, Codec: f.Header.Codec, Scalable: f.Scalable}
}

func (scalableKind) combine(f, g *File, intersect bool) error {
	if intersect {
		return errorf("scalable filters have no intersection here (a key may sit in different layers of the two)")
	}
	return f.Scalable.Union(g.Scalable)
}

func (scalableKind) foldable(*File) error {
	return errorf("a scalable Bloom filter is not folded: its layers are sized for their rates, and halving one raises the compound rate above its target")
}

func (k scalableKind) fold(f *File, _ uint64) error { return k.foldable(f) }
