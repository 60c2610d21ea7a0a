package counting

import (
	"bytes"
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
)

// bloomParamsSize is the length of a bloom frame's parameter block; a
// deletion frame carries two of them.
const bloomParamsSize = 24

// FrameHeader returns the header of the deletion filter's frame
// (docs/FORMAT.md, "Deletion filter (type 10)"): the parameter blocks of
// its two Bloom filters, added then removed, whose counts are the keys
// added and the keys removed.
func (d *DeletionFilter) FrameHeader() envelope.Header {
	a, r := d.hasher().FrameHeader(), d.removed.FrameHeader()
	a.Type = envelope.TypeDeletion
	a.Params = append(append(make([]byte, 0, 2*bloomParamsSize), a.Params...), r.Params...)
	return a
}

// EncodedSize returns the length of the encoding.
func (d *DeletionFilter) EncodedSize() int {
	return envelope.HeaderSize + 2*bloomParamsSize + 16*len(d.hasher().Words()) + envelope.TrailerSize
}

// AppendBinary appends the deletion filter's encoding (the bloomcast
// frame, type 10, raw codec) to b.
func (d *DeletionFilter) AppendBinary(b []byte) ([]byte, error) {
	return envelope.AppendWords(b, d.FrameHeader(), d.added.Words(), d.removed.Words())
}

// MarshalBinary returns the deletion filter's encoding.
func (d *DeletionFilter) MarshalBinary() ([]byte, error) {
	return d.AppendBinary(make([]byte, 0, d.EncodedSize()))
}

// WriteTo writes the deletion filter's encoding to w.
func (d *DeletionFilter) WriteTo(w io.Writer) (int64, error) {
	return envelope.WriteWords(w, d.FrameHeader(), d.hasher().Words(), d.removed.Words())
}

// DecodeDeletion decodes a deletion filter from data, which must hold
// exactly one frame of type 10. Input is treated as hostile: sizes are
// checked against the bytes present and lim before anything is allocated.
func DecodeDeletion(data []byte, lim envelope.Limits) (*DeletionFilter, error) {
	return envelope.DecodeFrame(data, lim, "counting", DeletionFromFrame)
}

// ReadDeletion reads one encoded deletion filter from r and returns it
// with the number of bytes consumed.
func ReadDeletion(r io.Reader, lim envelope.Limits) (*DeletionFilter, int64, error) {
	return envelope.ReadFrame(r, lim, "counting", DeletionFromFrame)
}

// DeletionFromFrame builds a deletion filter from a parsed frame of type
// 10 with the raw codec: two Bloom filters of one shape, whose parameter
// blocks differ in their counts only, and whose words follow one another
// in the payload.
func DeletionFromFrame(h envelope.Header, payload []byte) (*DeletionFilter, error) {
	if h.Type != envelope.TypeDeletion {
		return nil, fmt.Errorf("%w: frame carries %s, not a deletion filter", ErrCorrupt, h.Type)
	}
	if h.Codec != envelope.CodecRaw {
		return nil, fmt.Errorf("%w: deletion filter with codec %s (only raw is defined)", ErrCorrupt, h.Codec)
	}
	if len(h.Params) != 2*bloomParamsSize {
		return nil, fmt.Errorf("%w: %d bytes of parameters, want %d", ErrCorrupt, len(h.Params), 2*bloomParamsSize)
	}
	pa, pr := h.Params[:bloomParamsSize], h.Params[bloomParamsSize:]
	if !bytes.Equal(pa[:16], pr[:16]) {
		return nil, fmt.Errorf("%w: the added and removed filters differ in shape", ErrCorrupt)
	}
	if len(payload)%16 != 0 {
		return nil, fmt.Errorf("%w: payload of %d bytes is not two word arrays of one length", ErrCorrupt, len(payload))
	}
	half := len(payload) / 2
	sub := func(p, words []byte) (*bloom.Filter, error) {
		bh := h
		bh.Type, bh.Params = envelope.TypeBloom, p
		f, err := bloom.FromFrame(bh, words)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return f, nil
	}
	added, err := sub(pa, payload[:half])
	if err != nil {
		return nil, err
	}
	removed, err := sub(pr, payload[half:])
	if err != nil {
		return nil, err
	}
	return &DeletionFilter{added: added, removed: removed}, nil
}

// FalseDeletionRate is the fraction of keys added and never removed that
// the filter nonetheless reports absent: the removed filter's
// false-positive rate, estimated from its set bits.
func (d *DeletionFilter) FalseDeletionRate() float64 {
	d.hasher()
	return d.removed.FalsePositiveRate()
}
