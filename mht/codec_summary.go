package mht

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

// Summary frames (docs/MHT.md). Summaries are keyed by the table's hashes,
// so their frames carry seed 0 and scheme XXH3.
//
//   - type 7, interpolation search: d u8, b u8, six reserved bytes, n u64;
//     the payload is the n sorted entries.
//   - type 8, a filter of cells: kind u8 (1 Song, 3 SF, 4 counting SF),
//     d u8, k u8 (0 for Song), the cell or counter width u8, four reserved
//     bytes, items u64, cells u64 (for Song the table's buckets), then for
//     Song the d sub-table sizes u64; the payload is the packed cells (for
//     the counting SF, d counters per cell).
//   - type 9, multiple Bloom filters: kind u8 (5 plain, 6 counting), d u8,
//     the counter width u8 (1 when plain), five reserved bytes, items u64,
//     the d sizes u64, the d values of k u8; the payload is the filters'
//     packed bits or counters, one after another.

func summaryHeader(t envelope.Type, p []byte) envelope.Header {
	return envelope.Header{Type: t, Codec: envelope.CodecRaw, Scheme: uint8(hashing.XXH3), Params: p}
}

func (s *Interp) frame() (envelope.Header, [][]uint64) {
	p := make([]byte, 16)
	p[0], p[1] = byte(s.d), byte(s.b)
	binary.LittleEndian.PutUint64(p[8:], uint64(len(s.words)))
	return summaryHeader(envelope.TypeMHTInterp, p), [][]uint64{s.words}
}

func (s *Song) frame() (envelope.Header, [][]uint64) {
	p := make([]byte, 24+8*len(s.sizes))
	p[0], p[1], p[3] = byte(KindSong), byte(len(s.sizes)), byte(s.bits)
	binary.LittleEndian.PutUint64(p[8:], s.n)
	binary.LittleEndian.PutUint64(p[16:], s.off[len(s.off)-1]+s.sizes[len(s.sizes)-1])
	for i, m := range s.sizes {
		binary.LittleEndian.PutUint64(p[24+8*i:], m)
	}
	return summaryHeader(envelope.TypeMHTFilter, p), [][]uint64{s.c.a.Words()}
}

func (f *SF) frame() (envelope.Header, [][]uint64) {
	p := make([]byte, 24)
	p[0], p[1], p[2], p[3] = byte(f.Kind()), byte(f.d), byte(f.k), byte(f.cells.Width())
	binary.LittleEndian.PutUint64(p[8:], f.n)
	binary.LittleEndian.PutUint64(p[16:], f.m)
	return summaryHeader(envelope.TypeMHTFilter, p), [][]uint64{f.cells.Words()}
}

func (s *MBF) frame() (envelope.Header, [][]uint64) {
	d := len(s.m)
	p := make([]byte, 16+9*d)
	p[0], p[1], p[2] = byte(s.Kind()), byte(d), byte(s.f[0].Width())
	binary.LittleEndian.PutUint64(p[8:], s.n)
	var a [][]uint64
	for i := range d {
		binary.LittleEndian.PutUint64(p[16+8*i:], s.m[i])
		p[16+8*d+i] = byte(s.k[i])
		a = append(a, s.f[i].Words())
	}
	return summaryHeader(envelope.TypeMHTMBF, p), a
}

// framer is what every summary implements for its encoding.
type framer interface {
	frame() (envelope.Header, [][]uint64)
	Levels() int
}

// errZeroSummary is what the encoders of a zero summary return.
var errZeroSummary = fmt.Errorf("%w: zero summary (no sub-tables); make one with its New function, Plan.NewSummary or a decoder", ErrConfig)

func appendSummary(s framer, b []byte) ([]byte, error) {
	if s.Levels() == 0 {
		return b, errZeroSummary
	}
	h, a := s.frame()
	return envelope.AppendWords(b, h, a...)
}

func marshalSummary(s framer) ([]byte, error) {
	if s.Levels() == 0 {
		return nil, errZeroSummary
	}
	h, a := s.frame()
	n := 0
	for _, w := range a {
		n += 8 * len(w)
	}
	return envelope.AppendWords(make([]byte, 0, envelope.HeaderSize+len(h.Params)+n+envelope.TrailerSize), h, a...)
}

func writeSummary(s framer, w io.Writer) (int64, error) {
	if s.Levels() == 0 {
		return 0, errZeroSummary
	}
	h, a := s.frame()
	return envelope.WriteWords(w, h, a...)
}

// AppendBinary appends the summary's encoding (type 7) to b.
func (s *Interp) AppendBinary(b []byte) ([]byte, error) { return appendSummary(s, b) }

// MarshalBinary returns the summary's encoding.
func (s *Interp) MarshalBinary() ([]byte, error) { return marshalSummary(s) }

// WriteTo writes the summary's encoding to w.
func (s *Interp) WriteTo(w io.Writer) (int64, error) { return writeSummary(s, w) }

// AppendBinary appends the summary's encoding (type 8) to b.
func (s *Song) AppendBinary(b []byte) ([]byte, error) { return appendSummary(s, b) }

// MarshalBinary returns the summary's encoding.
func (s *Song) MarshalBinary() ([]byte, error) { return marshalSummary(s) }

// WriteTo writes the summary's encoding to w.
func (s *Song) WriteTo(w io.Writer) (int64, error) { return writeSummary(s, w) }

// AppendBinary appends the summary's encoding (type 8) to b.
func (f *SF) AppendBinary(b []byte) ([]byte, error) { return appendSummary(f, b) }

// MarshalBinary returns the summary's encoding.
func (f *SF) MarshalBinary() ([]byte, error) { return marshalSummary(f) }

// WriteTo writes the summary's encoding to w.
func (f *SF) WriteTo(w io.Writer) (int64, error) { return writeSummary(f, w) }

// AppendBinary appends the summary's encoding (type 9) to b.
func (s *MBF) AppendBinary(b []byte) ([]byte, error) { return appendSummary(s, b) }

// MarshalBinary returns the summary's encoding.
func (s *MBF) MarshalBinary() ([]byte, error) { return marshalSummary(s) }

// WriteTo writes the summary's encoding to w.
func (s *MBF) WriteTo(w io.Writer) (int64, error) { return writeSummary(s, w) }

// DecodeSummary decodes a summary of any kind from data, which must hold
// exactly one frame of type 7, 8 or 9. Input is treated as hostile, as by
// [Decode].
func DecodeSummary(data []byte, lim envelope.Limits) (Summary, error) {
	return envelope.DecodeFrame(data, lim, "mht", SummaryFromFrame)
}

// ReadSummary reads one encoded summary from r and returns it with the
// number of bytes consumed.
func ReadSummary(r io.Reader, lim envelope.Limits) (Summary, int64, error) {
	return envelope.ReadFrame(r, lim, "mht", SummaryFromFrame)
}

// SummaryFromFrame builds a summary from a parsed frame. It validates
// every field and the payload's length before allocating.
func SummaryFromFrame(h envelope.Header, payload []byte) (Summary, error) {
	if h.Codec != envelope.CodecRaw || h.Scheme != uint8(hashing.XXH3) || h.Seed != 0 {
		return nil, corruptf("codec %s, scheme %d, seed %#x: summaries use raw, XXH3 and 0", h.Codec, h.Scheme, h.Seed)
	}
	var s Summary
	var err error
	switch h.Type {
	case envelope.TypeMHTInterp:
		s, err = interpFromFrame(h.Params, payload)
	case envelope.TypeMHTFilter:
		s, err = filterFromFrame(h.Params, payload)
	case envelope.TypeMHTMBF:
		s, err = mbfFromFrame(h.Params, payload)
	default:
		return nil, corruptf("frame carries %s, not an mht summary", h.Type)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// payloadWords checks that payload holds exactly n words and returns them.
func payloadWords(payload []byte, n uint64) ([]uint64, error) {
	if uint64(len(payload)) != 8*n {
		return nil, corruptf("payload of %d bytes, want %d", len(payload), 8*n)
	}
	w := make([]uint64, n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(payload[8*i:])
	}
	return w, nil
}

func zero(b []byte) bool { return !slices.ContainsFunc(b, func(c byte) bool { return c != 0 }) }

func interpFromFrame(p, payload []byte) (*Interp, error) {
	if len(p) != 16 || !zero(p[2:8]) {
		return nil, corruptf("interpolation-search parameters: %d bytes or reserved bytes set", len(p))
	}
	s, err := NewInterp(InterpConfig{Levels: int(p[0]), HashBits: int(p[1])})
	if err != nil || p[1] == 0 {
		return nil, corruptf("interpolation search over %d-bit hashes for %d sub-tables", p[1], p[0])
	}
	n := binary.LittleEndian.Uint64(p[8:])
	if n > uint64(len(payload))/8 {
		return nil, corruptf("%d entries in a payload of %d bytes", n, len(payload))
	}
	if s.words, err = payloadWords(payload, n); err != nil {
		return nil, err
	}
	mask := s.hashMask()
	for i, w := range s.words {
		if w&^mask >= uint64(s.d) {
			return nil, corruptf("entry %d: type %d of %d, or stray bits", i, w&^mask+1, s.d)
		}
		if i > 0 && s.words[i-1]&mask >= w&mask {
			return nil, corruptf("entries %d and %d out of order or equal", i-1, i)
		}
	}
	return s, nil
}

func filterFromFrame(p, payload []byte) (Summary, error) {
	if len(p) < 24 || !zero(p[4:8]) {
		return nil, corruptf("filter parameters: %d bytes or reserved bytes set", len(p))
	}
	kind, d, k, width := Kind(p[0]), int(p[1]), int(p[2]), int(p[3])
	n := binary.LittleEndian.Uint64(p[8:])
	m := binary.LittleEndian.Uint64(p[16:])
	var words []uint64
	var err error
	switch kind {
	case KindSong:
		if d < 1 || d > MaxLevels || len(p) != 24+8*d || k != 0 {
			return nil, corruptf("Song counters for %d sub-tables in %d bytes, k = %d", d, len(p), k)
		}
		sizes := make([]uint64, d)
		total := uint64(0)
		for i := range sizes {
			sizes[i] = binary.LittleEndian.Uint64(p[24+8*i:])
			total += min(sizes[i], MaxBuckets)
		}
		if err := checkSizes(sizes); err != nil || total != m || width < 1 || width > MaxCounterBits {
			return nil, corruptf("Song counters of %d bits for sub-tables %v (%d buckets)", width, sizes, m)
		}
		if words, err = payloadWords(payload, packedWords(m, width)); err != nil {
			return nil, err
		}
		s := &Song{sizes: sizes, bits: width, n: n}
		s.layout()
		s.c = counters{packedOver(words, width)}
		if !s.c.a.PaddingClear(m) {
			return nil, corruptf("bits set past the last counter")
		}
		return s, nil
	case KindSF, KindCountingSF:
		if len(p) != 24 {
			return nil, corruptf("%d bytes of single-filter parameters", len(p))
		}
		c := SFConfig{Levels: d, Cells: m, K: k}
		if kind == KindCountingSF {
			c.CounterBits = width
		}
		if err := c.check(); err != nil || (kind == KindSF && width != sfCellBits(d)) || width < 1 {
			return nil, corruptf("single filter of %d cells of %d bits, d = %d, k = %d", m, width, d, k)
		}
		cells := m
		if kind == KindCountingSF {
			cells *= uint64(d)
		}
		if words, err = payloadWords(payload, packedWords(cells, width)); err != nil {
			return nil, err
		}
		f := &SF{d: d, k: k, m: m, count: kind == KindCountingSF, n: n, cells: packedOver(words, width)}
		if !f.cells.PaddingClear(cells) {
			return nil, corruptf("bits set past the last cell")
		}
		if !f.count {
			for i := range m {
				if f.cells.Get(i) > uint64(d) {
					return nil, corruptf("cell %d holds type %d of %d", i, f.cells.Get(i), d)
				}
			}
		}
		return f, nil
	}
	return nil, corruptf("filter kind %d", kind)
}

func mbfFromFrame(p, payload []byte) (*MBF, error) {
	if len(p) < 16 || !zero(p[3:8]) {
		return nil, corruptf("multiple-filter parameters: %d bytes or reserved bytes set", len(p))
	}
	kind, d, width := Kind(p[0]), int(p[1]), int(p[2])
	if (kind != KindMBF && kind != KindCountingMBF) || d < 1 || d > MaxLevels || len(p) != 16+9*d ||
		(kind == KindMBF && width != 1) {
		return nil, corruptf("multiple filters: kind %d, %d filters in %d bytes, width %d", kind, d, len(p), width)
	}
	c := MBFConfig{Bits: make([]uint64, d), K: make([]int, d)}
	if kind == KindCountingMBF {
		c.CounterBits = width
	}
	total := uint64(0)
	for i := range d {
		c.Bits[i] = binary.LittleEndian.Uint64(p[16+8*i:])
		c.K[i] = int(p[16+8*d+i])
		if c.Bits[i] <= MaxCells {
			total += packedWords(c.Bits[i], max(1, width))
		}
	}
	if err := c.validate(); err != nil || width < 1 {
		return nil, corruptf("multiple filters %v, k %v, width %d", c.Bits, c.K, width)
	}
	words, err := payloadWords(payload, total)
	if err != nil {
		return nil, err
	}
	s := &MBF{m: c.Bits, k: c.K, count: kind == KindCountingMBF, n: binary.LittleEndian.Uint64(p[8:])}
	for i := range d {
		nw := packedWords(c.Bits[i], width)
		f := packedOver(words[:nw:nw], width)
		words = words[nw:]
		if !f.PaddingClear(c.Bits[i]) {
			return nil, corruptf("filter %d: bits set past its end", i+1)
		}
		s.f = append(s.f, f)
	}
	return s, nil
}
