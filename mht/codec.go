package mht

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

// The table's parameter block (type 6; docs/MHT.md): d u8, three reserved
// bytes, the lazy-deletion threshold u32, live items u64, lazily deleted
// items u64, then the d sub-table sizes u64. The payload is, for each
// sub-table, its used bits, its deleted bits (⌈m/64⌉ words each) and its
// m buckets, three words each (key Lo, key Hi, value; zero when empty).
const tableParamsFixed = 24

func (t *Table) frameHeader() envelope.Header {
	d := len(t.levels)
	p := make([]byte, tableParamsFixed+8*d)
	p[0] = byte(d)
	binary.LittleEndian.PutUint32(p[4:], uint32(t.lazy))
	binary.LittleEndian.PutUint64(p[8:], uint64(t.count))
	binary.LittleEndian.PutUint64(p[16:], uint64(t.deleted))
	for i := range t.levels {
		binary.LittleEndian.PutUint64(p[tableParamsFixed+8*i:], t.levels[i].m)
	}
	return envelope.Header{
		Type: envelope.TypeMHT, Codec: envelope.CodecRaw,
		Scheme: uint8(hashing.XXH3), Seed: t.seed, Params: p,
	}
}

// wordArrays returns the payload as word arrays (the items are copied
// into words one sub-table at a time by the caller).
func (t *Table) wordArrays() [][]uint64 {
	var a [][]uint64
	for i := range t.levels {
		l := &t.levels[i]
		words := make([]uint64, 3*l.m)
		for b, it := range l.items {
			words[3*b], words[3*b+1], words[3*b+2] = it.key.Lo, it.key.Hi, it.val
		}
		a = append(a, l.used, l.gone, words)
	}
	return a
}

// tablePayloadWords is the payload's length in words.
func tablePayloadWords(sizes []uint64) uint64 {
	n := uint64(0)
	for _, m := range sizes {
		n += 2*((m+63)/64) + 3*m
	}
	return n
}

// EncodedSize returns the length of the encoding.
func (t *Table) EncodedSize() int {
	return envelope.HeaderSize + tableParamsFixed + 8*len(t.levels) + 8*int(tablePayloadWords(t.Sizes())) + envelope.TrailerSize
}

// AppendBinary appends the table's encoding (the bloomcast frame, type 6,
// raw codec) to b. The summary is not included: encode it on its own.
func (t *Table) AppendBinary(b []byte) ([]byte, error) {
	if len(t.levels) == 0 {
		return b, errZeroTable
	}
	return envelope.AppendWords(b, t.frameHeader(), t.wordArrays()...)
}

// errZeroTable is what the encoders of a zero Table return.
var errZeroTable = fmt.Errorf("%w: zero Table (no sub-tables); use New or a decoder", ErrConfig)

// MarshalBinary returns the table's encoding.
func (t *Table) MarshalBinary() ([]byte, error) {
	return t.AppendBinary(make([]byte, 0, t.EncodedSize()))
}

// WriteTo writes the table's encoding to w.
func (t *Table) WriteTo(w io.Writer) (int64, error) {
	if len(t.levels) == 0 {
		return 0, errZeroTable
	}
	return envelope.WriteWords(w, t.frameHeader(), t.wordArrays()...)
}

// UnmarshalBinary replaces t with the table encoded in data (without a
// summary), with the default envelope.Limits.
func (t *Table) UnmarshalBinary(data []byte) error {
	g, err := Decode(data, envelope.Limits{})
	if err == nil {
		*t = *g
	}
	return err
}

// ReadFrom replaces t with one encoded table read from r, with the default
// envelope.Limits. It reads exactly the frame's bytes.
func (t *Table) ReadFrom(r io.Reader) (int64, error) {
	g, n, err := Read(r, envelope.Limits{})
	if err == nil {
		*t = *g
	}
	return n, err
}

// Decode decodes a table from data, which must hold exactly one frame.
// Input is treated as hostile: sizes are checked against the bytes present
// and lim before anything is allocated, and every item is checked to sit
// in its own bucket, once.
func Decode(data []byte, lim envelope.Limits) (*Table, error) {
	return envelope.DecodeFrame(data, lim, "mht", FromFrame)
}

// Read reads one encoded table from r and returns it with the number of
// bytes consumed.
func Read(r io.Reader, lim envelope.Limits) (*Table, int64, error) {
	return envelope.ReadFrame(r, lim, "mht", FromFrame)
}

// FromFrame builds a table from a parsed frame of type 6.
func FromFrame(h envelope.Header, payload []byte) (*Table, error) {
	if err := checkFrame(h, envelope.TypeMHT); err != nil {
		return nil, err
	}
	p := h.Params
	if len(p) < tableParamsFixed {
		return nil, corruptf("%d bytes of parameters, want at least %d", len(p), tableParamsFixed)
	}
	d := int(p[0])
	if d < 1 || d > MaxLevels || len(p) != tableParamsFixed+8*d {
		return nil, corruptf("%d sub-tables in %d bytes of parameters", d, len(p))
	}
	if p[1] != 0 || p[2] != 0 || p[3] != 0 {
		return nil, corruptf("reserved bytes are not zero")
	}
	sizes := make([]uint64, d)
	for i := range sizes {
		sizes[i] = binary.LittleEndian.Uint64(p[tableParamsFixed+8*i:])
	}
	if err := checkSizes(sizes); err != nil {
		return nil, corruptf("%v", err)
	}
	if want := 8 * tablePayloadWords(sizes); uint64(len(payload)) != want {
		return nil, corruptf("payload of %d bytes, sub-tables of %v buckets need %d", len(payload), sizes, want)
	}
	lazy := binary.LittleEndian.Uint32(p[4:])
	count := binary.LittleEndian.Uint64(p[8:])
	deleted := binary.LittleEndian.Uint64(p[16:])
	if lazy > 1<<31-1 {
		return nil, corruptf("lazy-deletion threshold %d", lazy)
	}
	t := &Table{seed: h.Seed, lazy: int(lazy)}
	word := func() uint64 {
		v := binary.LittleEndian.Uint64(payload)
		payload = payload[8:]
		return v
	}
	used, gone := uint64(0), uint64(0)
	for _, m := range sizes {
		l := newLevel(m)
		for i := range l.used {
			l.used[i] = word()
		}
		for i := range l.gone {
			l.gone[i] = word()
		}
		for i := range l.items {
			l.items[i] = item{key: hashing.Hash128{Lo: word(), Hi: word()}, val: word()}
		}
		if tail := m % 64; tail != 0 && (l.used[len(l.used)-1]>>tail != 0 || l.gone[len(l.gone)-1]>>tail != 0) {
			return nil, corruptf("bits set past bucket %d", m)
		}
		for i := range l.used {
			if l.gone[i]&^l.used[i] != 0 {
				return nil, corruptf("an empty bucket is marked deleted")
			}
			l.count += uint64(bits.OnesCount64(l.used[i]))
			gone += uint64(bits.OnesCount64(l.gone[i]))
		}
		used += l.count
		t.levels = append(t.levels, l)
	}
	switch {
	case count+deleted != used || deleted != gone:
		return nil, corruptf("%d live and %d deleted items, %d buckets used and %d marked", count, deleted, used, gone)
	case lazy == 0 && deleted != 0, lazy > 0 && deleted >= uint64(lazy):
		return nil, corruptf("%d deleted items with threshold %d", deleted, lazy)
	}
	t.count, t.deleted = int(count), int(deleted)
	for i := range t.levels {
		l := &t.levels[i]
		for b := range l.items {
			it := l.items[b]
			if !l.isUsed(uint64(b)) {
				if it != (item{}) {
					return nil, corruptf("an empty bucket holds data")
				}
				continue
			}
			if j, c, _ := t.find(it.key); j != i || c != uint64(b) {
				return nil, corruptf("sub-table %d bucket %d holds a key that is not its own or is stored twice", i+1, b)
			}
		}
	}
	return t, nil
}

func checkFrame(h envelope.Header, want envelope.Type) error {
	switch {
	case h.Type != want:
		return corruptf("frame carries %s, not %s", h.Type, want)
	case h.Codec != envelope.CodecRaw:
		return corruptf("codec %s is not supported by this build", h.Codec)
	case h.Scheme != uint8(hashing.XXH3):
		return corruptf("hashing scheme %d; mht uses XXH3 (%d)", h.Scheme, hashing.XXH3)
	}
	return nil
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}
