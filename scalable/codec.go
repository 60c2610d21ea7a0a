package scalable

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// ParamsSize is the length of the type-11 parameter block
// (docs/FORMAT.md, "Scalable Bloom filter (type 11)").
const ParamsSize = 40

// flagNonScaling, in the parameters' flags byte, marks a non-scaling
// filter.
const flagNonScaling = 1

// FrameHeader returns the header of the filter's frame (type 11, codec
// 0): its configuration and number of layers. The payload is the layers'
// frames, which package digest codes each on its own. A zero Filter's
// header has no layers, which no decoder accepts.
func (f *Filter) FrameHeader() envelope.Header {
	c := f.cfg
	p := make([]byte, ParamsSize)
	if c.NonScaling {
		p[0] = flagNonScaling
	}
	p[1] = byte(c.Layout)
	binary.LittleEndian.PutUint16(p[2:], uint16(len(f.layers)))
	binary.LittleEndian.PutUint32(p[4:], c.Expansion)
	binary.LittleEndian.PutUint64(p[8:], c.Capacity)
	binary.LittleEndian.PutUint64(p[16:], math.Float64bits(c.P))
	binary.LittleEndian.PutUint64(p[24:], math.Float64bits(c.Tightening))
	binary.LittleEndian.PutUint32(p[32:], uint32(c.BlockBits))
	var scheme uint8
	if c.Scheme != nil {
		scheme = uint8(c.Scheme.ID())
	}
	return envelope.Header{Type: envelope.TypeScalable, Codec: envelope.CodecRaw, Scheme: scheme, Seed: c.Seed, Params: p}
}

// EncodedSize returns the length of the raw encoding.
func (f *Filter) EncodedSize() int {
	n := envelope.HeaderSize + ParamsSize + envelope.TrailerSize
	for _, l := range f.layers {
		n += l.EncodedSize()
	}
	return n
}

// AppendBinary appends the filter's encoding (the bloomcast frame of type
// 11 with every layer's frame raw, docs/FORMAT.md) to b.
func (f *Filter) AppendBinary(b []byte) ([]byte, error) {
	if f.last == nil {
		return b, ErrZero
	}
	start := len(b)
	h := f.FrameHeader()
	b, err := envelope.AppendHeader(b, &h, uint64(f.EncodedSize()-envelope.HeaderSize-ParamsSize-envelope.TrailerSize))
	if err != nil {
		return b, err
	}
	for _, l := range f.layers {
		if b, err = l.AppendBinary(b); err != nil {
			return b, err
		}
	}
	return envelope.AppendTrailer(b, start), nil
}

// MarshalBinary returns the filter's encoding.
func (f *Filter) MarshalBinary() ([]byte, error) {
	return f.AppendBinary(make([]byte, 0, f.EncodedSize()))
}

// WriteTo writes the filter's encoding to w, streaming the layers' bits.
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	if f.last == nil {
		return 0, ErrZero
	}
	h := f.FrameHeader()
	fw, err := envelope.NewWriter(w, &h, uint64(f.EncodedSize()-envelope.HeaderSize-ParamsSize-envelope.TrailerSize))
	if err != nil {
		return 0, err
	}
	for _, l := range f.layers {
		if _, err := l.WriteTo(fw); err != nil {
			return fw.Count(), err
		}
	}
	err = fw.Close()
	return fw.Count(), err
}

// UnmarshalBinary replaces f with the filter encoded in data, with the
// default envelope.Limits.
func (f *Filter) UnmarshalBinary(data []byte) error {
	g, err := Decode(data, envelope.Limits{})
	if err != nil {
		return err
	}
	*f = *g
	return nil
}

// ReadFrom replaces f with one encoded filter read from r, with the
// default envelope.Limits. It reads exactly the frame's bytes.
func (f *Filter) ReadFrom(r io.Reader) (int64, error) {
	g, n, err := Read(r, envelope.Limits{})
	if err != nil {
		return n, err
	}
	*f = *g
	return n, nil
}

// Decode decodes a filter from data, which must hold exactly one frame
// of type 11 whose layers are raw. Input is treated as hostile: sizes are
// checked against the bytes present and lim before anything is
// allocated. Package digest decodes compressed layers.
func Decode(data []byte, lim envelope.Limits) (*Filter, error) {
	return envelope.DecodeFrame(data, lim, "scalable", FromFrame)
}

// Read reads one encoded filter from r and returns it with the number of
// bytes consumed.
func Read(r io.Reader, lim envelope.Limits) (*Filter, int64, error) {
	return envelope.ReadFrame(r, lim, "scalable", FromFrame)
}

// FromFrame builds a filter from a parsed frame of type 11 whose layers
// are raw (codec 0).
func FromFrame(h envelope.Header, payload []byte) (*Filter, error) {
	fr, err := Split(h, payload, envelope.Limits{MaxPayload: uint64(len(payload))})
	if err != nil {
		return nil, err
	}
	layers := make([]*bloom.Filter, len(fr.Layers))
	for i, l := range fr.Layers {
		if l.Header.Codec != envelope.CodecRaw {
			return nil, fmt.Errorf("%w: layer %d has codec %s: decode compressed layers with package digest", ErrCorrupt, i, l.Header.Codec)
		}
		if layers[i], err = bloom.FromFrame(l.Header, l.Payload); err != nil {
			return nil, fmt.Errorf("%w: layer %d: %w", ErrCorrupt, i, err)
		}
	}
	return FromLayers(fr.Config, layers)
}

// Frame is a type-11 frame taken apart: the configuration and each
// layer's frame, not yet decoded. The zero Frame has no layers.
type Frame struct {
	Config Config
	Layers []LayerFrame
}

// LayerFrame is one layer's Bloom filter frame as it lies in a type-11
// payload: its header and payload (aliasing the frame), to be decoded by
// bloom.FromFrame when raw or by package digest. The zero LayerFrame is
// an empty frame of type 0, which no decoder accepts.
type LayerFrame struct {
	Header  envelope.Header
	Payload []byte
}

// Split parses the header and payload of a type-11 frame: the
// configuration (ParseConfig), then the layers' frames, each a whole
// bloomcast frame of type 1 with its own codec, whose seed, scheme and
// sequence must be the outer frame's. The layers' decoded bit arrays
// together must fit in lim (checked before anything is allocated), so
// that a decoder of compressed layers allocates at most that.
func Split(h envelope.Header, payload []byte, lim envelope.Limits) (Frame, error) {
	c, n, err := ParseConfig(h)
	if err != nil {
		return Frame{}, err
	}
	fr := Frame{Config: c, Layers: make([]LayerFrame, 0, n)}
	var bits uint64
	for i := range n {
		lh, lp, size, err := envelope.ParsePrefix(payload, envelope.Limits{MaxPayload: uint64(len(payload))})
		if err != nil {
			return Frame{}, fmt.Errorf("%w: layer %d: %w", ErrCorrupt, i, err)
		}
		payload = payload[size:]
		switch {
		case lh.Type != envelope.TypeBloom:
			return Frame{}, fmt.Errorf("%w: layer %d is a %s frame, not a Bloom filter", ErrCorrupt, i, lh.Type)
		case lh.Seed != h.Seed || lh.Scheme != h.Scheme:
			return Frame{}, fmt.Errorf("%w: layer %d's hashing differs from the filter's", ErrCorrupt, i)
		case lh.Sequence != h.Sequence:
			return Frame{}, fmt.Errorf("%w: layer %d has sequence %d, the filter %d", ErrCorrupt, i, lh.Sequence, h.Sequence)
		}
		shape, err := bloom.FrameShape(lh)
		if err != nil {
			return Frame{}, fmt.Errorf("%w: layer %d: %w", ErrCorrupt, i, err)
		}
		if err := c.checkShape(i, shape); err != nil {
			return Frame{}, err
		}
		if bits += shape.M; bits/8 > lim.Payload() {
			return Frame{}, fmt.Errorf("%w: layers of %d bits together exceed the limit of %d bytes", envelope.ErrTooLarge, bits, lim.Payload())
		}
		fr.Layers = append(fr.Layers, LayerFrame{Header: lh, Payload: lp})
	}
	if len(payload) != 0 {
		return Frame{}, fmt.Errorf("%w: %d bytes after the last layer", ErrCorrupt, len(payload))
	}
	return fr, nil
}

// checkShape says whether a layer i of shape s belongs to a filter of
// configuration c.
func (c Config) checkShape(i int, s params.Shape) error {
	if s.Layout != c.Layout || s.BlockBits != c.BlockBits {
		return fmt.Errorf("%w: layer %d is %s with blocks of %d bits, the filter %s with %d", ErrCorrupt, i, s.Layout, s.BlockBits, c.Layout, c.BlockBits)
	}
	return nil
}

// ParseConfig validates the header of a type-11 frame and returns the
// configuration it carries and its number of layers.
func ParseConfig(h envelope.Header) (Config, int, error) {
	if h.Type != envelope.TypeScalable {
		return Config{}, 0, fmt.Errorf("%w: frame carries %s, not a scalable filter", ErrCorrupt, h.Type)
	}
	if h.Codec != envelope.CodecRaw {
		return Config{}, 0, fmt.Errorf("%w: codec %s (the layers' frames name their own codecs; the filter's is 0)", ErrCorrupt, h.Codec)
	}
	p := h.Params
	if len(p) != ParamsSize {
		return Config{}, 0, fmt.Errorf("%w: %d bytes of parameters, want %d", ErrCorrupt, len(p), ParamsSize)
	}
	scheme, err := hashing.Lookup(hashing.SchemeID(h.Scheme))
	if err != nil {
		return Config{}, 0, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if p[0]&^flagNonScaling != 0 || binary.LittleEndian.Uint32(p[36:]) != 0 {
		return Config{}, 0, fmt.Errorf("%w: unknown flags %#x or reserved bytes set", ErrCorrupt, p[0])
	}
	c := Config{
		NonScaling: p[0]&flagNonScaling != 0,
		Layout:     bloom.Layout(p[1]),
		Expansion:  binary.LittleEndian.Uint32(p[4:]),
		Capacity:   binary.LittleEndian.Uint64(p[8:]),
		P:          math.Float64frombits(binary.LittleEndian.Uint64(p[16:])),
		Tightening: math.Float64frombits(binary.LittleEndian.Uint64(p[24:])),
		BlockBits:  uint64(binary.LittleEndian.Uint32(p[32:])),
		Seed:       h.Seed,
		Scheme:     scheme,
	}
	n := int(binary.LittleEndian.Uint16(p[2:]))
	if c.Layout == 0 || c.Expansion == 0 || c.Tightening == 0 {
		return Config{}, 0, fmt.Errorf("%w: layout, expansion and tightening must be given", ErrCorrupt)
	}
	nc, err := c.normalize()
	if err != nil {
		return Config{}, 0, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	switch {
	case nc.BlockBits != c.BlockBits:
		return Config{}, 0, fmt.Errorf("%w: block bits %d for layout %s", ErrCorrupt, c.BlockBits, c.Layout)
	case c.Layout == bloom.Paged && (c.BlockBits%64 != 0 || c.BlockBits > bloom.MaxPageBits):
		return Config{}, 0, fmt.Errorf("%w: page of %d bits", ErrCorrupt, c.BlockBits)
	case n < 1 || n > MaxLayers:
		return Config{}, 0, fmt.Errorf("%w: %d layers, want 1 to %d", ErrCorrupt, n, MaxLayers)
	case c.NonScaling && n != 1:
		return Config{}, 0, fmt.Errorf("%w: a non-scaling filter with %d layers", ErrCorrupt, n)
	}
	if _, ok := c.LayerCapacity(n - 1); !ok {
		return Config{}, 0, fmt.Errorf("%w: layer %d's capacity exceeds %d keys", ErrCorrupt, n-1, uint64(MaxCapacity))
	}
	return nc, n, nil
}

// FromLayers builds a filter of configuration c (as ParseConfig returns
// it) from its decoded layers, oldest first, which it adopts. The layers
// must have c's layout, hashing scheme and seed.
func FromLayers(c Config, layers []*bloom.Filter) (*Filter, error) {
	if len(layers) < 1 || len(layers) > MaxLayers {
		return nil, fmt.Errorf("%w: %d layers, want 1 to %d", ErrCorrupt, len(layers), MaxLayers)
	}
	c, err := c.normalize()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	for i, l := range layers {
		if l == nil || l.Scheme() == nil {
			return nil, fmt.Errorf("%w: layer %d is nil", ErrCorrupt, i)
		}
		if err := c.checkShape(i, l.Shape()); err != nil {
			return nil, err
		}
		if l.Seed() != c.Seed || l.Scheme().ID() != c.Scheme.ID() {
			return nil, fmt.Errorf("%w: layer %d's hashing differs from the filter's", ErrCorrupt, i)
		}
	}
	if _, ok := c.LayerCapacity(len(layers) - 1); !ok {
		return nil, fmt.Errorf("%w: layer %d's capacity exceeds %d keys", ErrCorrupt, len(layers)-1, uint64(MaxCapacity))
	}
	return fromLayers(c, layers), nil
}
