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
type scalableKind struct {
	none
	s       *scalable.Filter
	entropy float64
	// layerCodec is the codec the layers were read with (Auto when they
	// differ), which writing the filter back keeps.
	layerCodec digest.Codec
}

func decodeScalable(f *File, payload []byte, opt Options) error {
	d, err := digest.FromFrame(f.Header, payload, opt.Limits)
	if err != nil {
		return err
	}
	f.k = &scalableKind{s: d.Scalable, entropy: d.EntropyBits(), layerCodec: layerCodec(f.Header, payload)}
	return nil
}

func (*scalableKind) Kind() Kind { return Scalable }

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

func (k *scalableKind) contains(_ *File, key []byte) (bool, error) { return k.s.Contains(key), nil }

// add grows a new layer when the newest is full; ErrFull for a
// non-scaling filter at its capacity.
func (k *scalableKind) add(_ *File, key []byte) error { return k.s.Add(key) }

func (k *scalableKind) encoding(f *File, codec digest.Codec) (io.WriterTo, error) {
	return f.EncodeDigest(k.digest(f), codec)
}

func (k *scalableKind) convertFrame(f *File, codec digest.Codec) (io.WriterTo, error) {
	return k.encoding(f, codec)
}

func (k *scalableKind) digest(f *File) *digest.Digest {
	return &digest.Digest{Sequence: f.Header.Sequence, Codec: f.Header.Codec, Scalable: k.s}
}

func (k *scalableKind) combine(_, g *File, intersect bool) error {
	if intersect {
		return errorf("scalable filters have no intersection here (a key may sit in different layers of the two)")
	}
	return k.s.Union(kindOf[*scalableKind](g).s)
}

func (*scalableKind) foldable(*File) error {
	return errorf("a scalable Bloom filter is not folded: its layers are sized for their rates, and halving one raises the compound rate above its target")
}

func (k *scalableKind) fold(f *File, _ uint64) error { return k.foldable(f) }

func (k *scalableKind) structures() []any { return []any{k.s} }

func (k *scalableKind) codec(*File) digest.Codec { return k.layerCodec }

func (k *scalableKind) entropyBits() float64 { return k.entropy }
