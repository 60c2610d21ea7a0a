package digest

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/scalable"
)

// A scalable filter travels as one digest per layer: its frame (type 11)
// holds each layer's Bloom filter frame, coded on its own with the codecs
// above. A delta between two versions (type 5 with target type 11)
// carries only the layers from the first that changed: a delta of each
// layer the base had, a full digest of each new one. A filter that only
// took keys changed its newest layer and perhaps added some, so its delta
// holds one layer delta and the new layers (docs/FORMAT.md).

// scalablePrefix is the size of the scalable delta's payload before the
// layers' frames: first layer u16, base layers u16, 4 reserved bytes.
const scalablePrefix = 8

// layerDigest is layer i of f as a digest of sequence seq.
func layerDigest(f *scalable.Filter, i int, seq uint64) *Digest {
	return &Digest{Sequence: seq, Bloom: f.Layer(i)}
}

// appendScalable appends d's frame: the type-11 header and each layer
// coded by c.
func appendScalable(dst []byte, d *Digest, c Codec) ([]byte, error) {
	f := d.Scalable
	if f.Layers() == 0 {
		return dst, fmt.Errorf("%w: zero scalable.Filter", ErrEmpty)
	}
	var body []byte
	for i := range f.Layers() {
		var err error
		if body, err = Append(body, layerDigest(f, i, d.Sequence), c); err != nil {
			return dst, err
		}
	}
	h := f.FrameHeader()
	h.Sequence = d.Sequence
	return appendFrame(dst, &h, body)
}

// scalableFromFrame decodes a type-11 frame whose layers have any codec.
// The layers' arrays together must fit in lim.
func scalableFromFrame(h envelope.Header, body []byte, lim envelope.Limits) (*Digest, error) {
	fr, err := scalable.Split(h, body, lim)
	if err != nil {
		return nil, fmt.Errorf("digest: %w", err)
	}
	layers := make([]*bloom.Filter, len(fr.Layers))
	for i, l := range fr.Layers {
		ld, err := FromFrame(l.Header, l.Payload, lim)
		if err != nil {
			return nil, fmt.Errorf("%w: layer %d: %w", ErrCorrupt, i, err)
		}
		layers[i] = ld.Bloom
	}
	f, err := scalable.FromLayers(fr.Config, layers)
	if err != nil {
		return nil, fmt.Errorf("digest: %w", err)
	}
	return &Digest{Sequence: h.Sequence, Codec: h.Codec, Scalable: f}, nil
}

// scalableChecksum is the CRC-32C of every layer's words, oldest first:
// how a delta names its scalable base.
func scalableChecksum(f *scalable.Filter) uint32 {
	var crc uint32
	buf := new(crcBuffer)
	for i := range f.Layers() {
		crc = updateWordsChecksum(crc, f.Layer(i).Words(), buf)
	}
	return crc
}

// appendScalableDiff appends the delta from base to next, two versions of
// a scalable filter of one configuration; next has at least base's
// layers.
func appendScalableDiff(dst []byte, base, next *Digest, c Codec) ([]byte, error) {
	b, n := base.Scalable, next.Scalable
	if err := b.Compatible(n); err != nil {
		return dst, fmt.Errorf("%w: %w", ErrBase, err)
	}
	if n.Layers() < b.Layers() {
		return dst, fmt.Errorf("%w: next has %d layers, the base %d (a scalable filter does not shrink)", ErrBase, n.Layers(), b.Layers())
	}
	if next.Sequence <= base.Sequence {
		return dst, fmt.Errorf("%w: base %d, next %d", ErrSequence, base.Sequence, next.Sequence)
	}
	first := b.Layers()
	for i := range b.Layers() {
		bl, nl := b.Layer(i), n.Layer(i)
		if !bl.Equal(nl) || bl.Count() != nl.Count() || bl.CountEstimated() != nl.CountEstimated() {
			first = i
			break
		}
	}
	body := make([]byte, scalablePrefix, 1024)
	binary.LittleEndian.PutUint16(body, uint16(first))
	binary.LittleEndian.PutUint16(body[2:], uint16(b.Layers()))
	var err error
	for i := first; i < n.Layers(); i++ {
		nd := layerDigest(n, i, next.Sequence)
		if i < b.Layers() {
			body, err = AppendDiff(body, layerDigest(b, i, base.Sequence), nd, c)
		} else {
			body, err = Append(body, nd, c)
		}
		if err != nil {
			return dst, fmt.Errorf("%w (layer %d)", err, i)
		}
	}
	th := n.FrameHeader()
	h := envelope.Header{
		Type:     envelope.TypeDelta,
		Codec:    envelope.CodecRaw,
		Scheme:   th.Scheme,
		Seed:     th.Seed,
		Sequence: next.Sequence,
		Params:   deltaParams(th, scalableChecksum(b), base.Sequence),
	}
	return appendFrame(dst, &h, body)
}

// scalableDelta is a scalable delta's payload taken apart.
type scalableDelta struct {
	config     scalable.Config
	layers     int // the result's
	first      int // the first layer the delta carries
	baseLayers int
	frames     [][]byte // layers first..layers−1: deltas below baseLayers, full digests above
}

// parseScalableDelta splits a scalable delta's payload, checking its
// layout but decoding nothing.
func parseScalableDelta(dh DeltaHeader, body []byte, lim envelope.Limits) (scalableDelta, error) {
	var sd scalableDelta
	if dh.Codec != envelope.CodecRaw {
		return sd, fmt.Errorf("%w: scalable delta with codec %s (its layers name their own)", ErrCorrupt, dh.Codec)
	}
	c, n, err := scalable.ParseConfig(dh.Header)
	if err != nil {
		return sd, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if len(body) < scalablePrefix {
		return sd, fmt.Errorf("%w: scalable delta of %d bytes", ErrCorrupt, len(body))
	}
	sd.config, sd.layers = c, n
	sd.first = int(binary.LittleEndian.Uint16(body))
	sd.baseLayers = int(binary.LittleEndian.Uint16(body[2:]))
	switch {
	case binary.LittleEndian.Uint32(body[4:]) != 0:
		return sd, fmt.Errorf("%w: reserved bytes of a scalable delta set", ErrCorrupt)
	case sd.baseLayers < 1 || sd.baseLayers > n || sd.first > sd.baseLayers:
		return sd, fmt.Errorf("%w: scalable delta from layer %d of %d to %d layers", ErrCorrupt, sd.first, sd.baseLayers, n)
	}
	rest := body[scalablePrefix:]
	for i := sd.first; i < n; i++ {
		_, _, size, err := envelope.ParsePrefix(rest, envelope.Limits{MaxPayload: min(uint64(len(rest)), lim.Payload())})
		if err != nil {
			return sd, fmt.Errorf("%w: layer %d: %w", ErrCorrupt, i, err)
		}
		sd.frames = append(sd.frames, rest[:size])
		rest = rest[size:]
	}
	if len(rest) != 0 {
		return sd, fmt.Errorf("%w: %d bytes after the last layer", ErrCorrupt, len(rest))
	}
	return sd, nil
}

// patchScalable applies a scalable delta to base.
func patchScalable(base *Digest, dh DeltaHeader, body []byte, lim envelope.Limits) (*Digest, error) {
	b := base.Scalable
	if dh.Target != envelope.TypeScalable {
		return nil, fmt.Errorf("%w: the delta updates a %v, the base is a scalable filter", ErrBase, dh.Target)
	}
	if dh.BaseSequence != base.Sequence {
		return nil, fmt.Errorf("%w: the delta is from sequence %d, the base is %d", ErrBase, dh.BaseSequence, base.Sequence)
	}
	if crc := scalableChecksum(b); crc != dh.BaseChecksum {
		return nil, fmt.Errorf("%w: base checksum %08x, the delta expects %08x", ErrBase, crc, dh.BaseChecksum)
	}
	sd, err := parseScalableDelta(dh, body, lim)
	if err != nil {
		return nil, err
	}
	if sd.baseLayers != b.Layers() {
		return nil, fmt.Errorf("%w: the delta is for a base of %d layers, the base has %d", ErrBase, sd.baseLayers, b.Layers())
	}
	layers := make([]*bloom.Filter, sd.layers)
	var bits uint64
	for i := range sd.layers {
		var l *bloom.Filter
		switch {
		case i < sd.first:
			l = b.Layer(i).Clone()
		case i < sd.baseLayers:
			d, err := Patch(layerDigest(b, i, base.Sequence), sd.frames[i-sd.first], lim)
			if err != nil {
				return nil, fmt.Errorf("%w (layer %d)", err, i)
			}
			if d.Sequence != dh.Sequence {
				return nil, fmt.Errorf("%w: layer %d's delta is to sequence %d, the filter's %d", ErrCorrupt, i, d.Sequence, dh.Sequence)
			}
			l = d.Bloom
		default:
			d, err := Decode(sd.frames[i-sd.first], envelope.Limits{MaxPayload: lim.Payload() - min(bits/8, lim.Payload())})
			if err != nil {
				return nil, fmt.Errorf("%w: layer %d: %w", ErrCorrupt, i, err)
			}
			if d.Bloom == nil || d.Sequence != dh.Sequence {
				return nil, fmt.Errorf("%w: layer %d is not a Bloom filter of the delta's sequence", ErrCorrupt, i)
			}
			l = d.Bloom
		}
		if bits += l.M(); bits/8 > lim.Payload() {
			return nil, fmt.Errorf("%w: layers of %d bits (limit %d bytes)", ErrTooLarge, bits, lim.Payload())
		}
		layers[i] = l
	}
	f, err := scalable.FromLayers(sd.config, layers)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if err := b.Compatible(f); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBase, err)
	}
	return &Digest{Sequence: dh.Sequence, Codec: dh.Codec, Scalable: f}, nil
}

// scalableDeltaXOR decodes a scalable delta without its base, for
// inspection: the XOR of every layer it carries (a new layer's words
// count as its XOR with nothing), one after the other.
func scalableDeltaXOR(dh DeltaHeader, body []byte, lim envelope.Limits) ([]uint64, uint64, error) {
	sd, err := parseScalableDelta(dh, body, lim)
	if err != nil {
		return nil, 0, err
	}
	var xor []uint64
	var bits uint64
	for i, fr := range sd.frames {
		left := envelope.Limits{MaxPayload: max(1, lim.Payload()-min(8*uint64(len(xor)), lim.Payload()))}
		if i+sd.first < sd.baseLayers {
			d, err := DecodeDelta(fr, left)
			if err != nil {
				return nil, 0, fmt.Errorf("%w (layer %d)", err, i+sd.first)
			}
			if d.Target != envelope.TypeBloom {
				return nil, 0, fmt.Errorf("%w: layer %d's delta updates a %v", ErrCorrupt, i+sd.first, d.Target)
			}
			xor, bits = append(xor, d.XOR...), bits+d.Bits
			continue
		}
		d, err := Decode(fr, left)
		if err != nil {
			return nil, 0, fmt.Errorf("%w (layer %d)", err, i+sd.first)
		}
		if d.Bloom == nil {
			return nil, 0, fmt.Errorf("%w: layer %d is not a Bloom filter", ErrCorrupt, i+sd.first)
		}
		xor, bits = append(xor, d.Bloom.Words()...), bits+d.Bloom.M()
	}
	return xor, bits, nil
}

// errNotScalable is returned when one digest is scalable and the other not.
var errNotScalable = errors.New("a delta needs two structures of one kind")
