package fpset

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

// paramsSize is the size of the fpset parameter block (docs/FORMAT.md,
// "Fingerprint set (type 3)"): form u8, bits u8, count bits u8, Rice
// parameter u8, 4 reserved bytes, n u64.
const paramsSize = 16

// The forms of the payload.
const (
	formSorted = 1 // packed sorted fingerprints, then packed counts
	formRice   = 2 // Golomb–Rice coded gaps (and gamma-coded counts)
)

func (s shape) frameHeader(form byte, k uint, n uint64) envelope.Header {
	p := make([]byte, paramsSize)
	p[0], p[1], p[2], p[3] = form, byte(s.bits), byte(s.countBits), byte(k)
	binary.LittleEndian.PutUint64(p[8:], n)
	return envelope.Header{
		Type:   envelope.TypeFPSet,
		Codec:  envelope.CodecRaw,
		Scheme: uint8(hashing.XXH3),
		Seed:   s.seed,
		Params: p,
	}
}

func frameSize(arrays ...[]uint64) int {
	n := envelope.HeaderSize + paramsSize + envelope.TrailerSize
	for _, a := range arrays {
		n += 8 * len(a)
	}
	return n
}

// --- Sorted: form 1 ---

func (t *Sorted) header() envelope.Header { return t.frameHeader(formSorted, 0, t.n) }

// EncodedSize returns the length of the encoding.
func (t *Sorted) EncodedSize() int { return frameSize(t.fps.Words(), t.counts.Words()) }

// AppendBinary appends the encoding (the bloomcast frame, type 3, sorted
// form; docs/FORMAT.md) to b.
func (t *Sorted) AppendBinary(b []byte) ([]byte, error) {
	if t.bits == 0 {
		return b, errZero
	}
	return envelope.AppendWords(b, t.header(), t.fps.Words(), t.counts.Words())
}

// MarshalBinary returns the encoding.
func (t *Sorted) MarshalBinary() ([]byte, error) {
	return t.AppendBinary(make([]byte, 0, t.EncodedSize()))
}

// WriteTo writes the encoding to w.
func (t *Sorted) WriteTo(w io.Writer) (int64, error) {
	if t.bits == 0 {
		return 0, errZero
	}
	return envelope.WriteWords(w, t.header(), t.fps.Words(), t.counts.Words())
}

// UnmarshalBinary replaces t with the set encoded in data (either form),
// with the default envelope.Limits.
func (t *Sorted) UnmarshalBinary(data []byte) error {
	u, err := Decode(data, envelope.Limits{})
	if err == nil {
		*t = *u
	}
	return err
}

// ReadFrom replaces t with one encoded set (either form) read from r, with
// the default envelope.Limits. It reads exactly the frame's bytes.
func (t *Sorted) ReadFrom(r io.Reader) (int64, error) {
	h, payload, n, err := envelope.Read(r, envelope.Limits{})
	if err != nil {
		return n, fmt.Errorf("fpset: %w", err)
	}
	u, err := FromFrame(h, payload)
	if err == nil {
		*t = *u
	}
	return n, err
}

// --- Set: encoded as its sorted form ---

// EncodedSize returns the length of the encoding.
func (s *Set) EncodedSize() int {
	words := packedWords(s.n, uint64(s.bits)) + packedWords(s.n, uint64(s.countBits))
	return frameSize() + 8*int(words)
}

// AppendBinary appends the encoding of the set's sorted form (a Set and
// its Sorted encode identically) to b.
func (s *Set) AppendBinary(b []byte) ([]byte, error) { return s.Sorted().AppendBinary(b) }

// MarshalBinary returns the encoding of the set's sorted form.
func (s *Set) MarshalBinary() ([]byte, error) { return s.Sorted().MarshalBinary() }

// WriteTo writes the encoding of the set's sorted form to w.
func (s *Set) WriteTo(w io.Writer) (int64, error) { return s.Sorted().WriteTo(w) }

// UnmarshalBinary replaces s with the set encoded in data (either form).
func (s *Set) UnmarshalBinary(data []byte) error {
	t, err := Decode(data, envelope.Limits{})
	if err == nil {
		*s = *t.Set()
	}
	return err
}

// ReadFrom replaces s with one encoded set (either form) read from r.
func (s *Set) ReadFrom(r io.Reader) (int64, error) {
	var t Sorted
	n, err := t.ReadFrom(r)
	if err == nil {
		*s = *t.Set()
	}
	return n, err
}

// --- Compressed: form 2 ---

func (c *Compressed) header() envelope.Header { return c.frameHeader(formRice, c.k, c.n) }

// EncodedSize returns the length of the encoding.
func (c *Compressed) EncodedSize() int { return frameSize(c.words) }

// AppendBinary appends the encoding (type 3, Rice-coded form) to b.
func (c *Compressed) AppendBinary(b []byte) ([]byte, error) {
	if c.bits == 0 {
		return b, errZero
	}
	return envelope.AppendWords(b, c.header(), c.words)
}

// MarshalBinary returns the encoding.
func (c *Compressed) MarshalBinary() ([]byte, error) {
	return c.AppendBinary(make([]byte, 0, c.EncodedSize()))
}

// WriteTo writes the encoding to w.
func (c *Compressed) WriteTo(w io.Writer) (int64, error) {
	if c.bits == 0 {
		return 0, errZero
	}
	return envelope.WriteWords(w, c.header(), c.words)
}

// UnmarshalBinary replaces c with the set encoded in data (either form).
func (c *Compressed) UnmarshalBinary(data []byte) error {
	d, err := DecodeCompressed(data, envelope.Limits{})
	if err == nil {
		*c = *d
	}
	return err
}

// ReadFrom replaces c with one encoded set (either form) read from r.
func (c *Compressed) ReadFrom(r io.Reader) (int64, error) {
	h, payload, n, err := envelope.Read(r, envelope.Limits{})
	if err != nil {
		return n, fmt.Errorf("fpset: %w", err)
	}
	d, err := CompressedFromFrame(h, payload)
	if err == nil {
		*c = *d
	}
	return n, err
}

// --- decoding ---

// Decode decodes a set from data, which must hold exactly one frame of
// either form, into the sorted form. Input is treated as hostile: sizes
// are checked against the bytes present and lim before anything is
// allocated.
func Decode(data []byte, lim envelope.Limits) (*Sorted, error) {
	return envelope.DecodeFrame(data, lim, "fpset", FromFrame)
}

// Read reads one encoded set from r into the sorted form and returns it
// with the number of bytes consumed.
func Read(r io.Reader, lim envelope.Limits) (*Sorted, int64, error) {
	return envelope.ReadFrame(r, lim, "fpset", FromFrame)
}

// DecodeCompressed decodes a set from data (either form) into the
// compressed form.
func DecodeCompressed(data []byte, lim envelope.Limits) (*Compressed, error) {
	return envelope.DecodeFrame(data, lim, "fpset", CompressedFromFrame)
}

// FromFrame builds the sorted form from a parsed frame of either form,
// validating every field and the payload.
func FromFrame(h envelope.Header, payload []byte) (*Sorted, error) {
	sorted, compressed, err := fromFrame(h, payload)
	if compressed != nil {
		sorted = compressed.Sorted()
	}
	return sorted, err
}

// CompressedFromFrame builds the compressed form from a parsed frame of
// either form.
func CompressedFromFrame(h envelope.Header, payload []byte) (*Compressed, error) {
	sorted, compressed, err := fromFrame(h, payload)
	if sorted != nil {
		compressed = sorted.Compress()
	}
	return compressed, err
}

// frameParams is the parsed parameter block.
type frameParams struct {
	shape
	form byte
	k    uint
	n    uint64
}

func fromFrame(h envelope.Header, payload []byte) (*Sorted, *Compressed, error) {
	p, err := parseParams(h)
	if err != nil {
		return nil, nil, err
	}
	if len(payload)%8 != 0 {
		return nil, nil, errorf(ErrCorrupt, "payload of %d bytes is not whole 64-bit words", len(payload))
	}
	if p.form == formSorted {
		t, err := decodeSorted(p, payload)
		return t, nil, err
	}
	c, err := decodeRice(p, payload)
	return nil, c, err
}

func parseParams(h envelope.Header) (frameParams, error) {
	var p frameParams
	switch {
	case h.Type != envelope.TypeFPSet:
		return p, errorf(ErrCorrupt, "frame carries %s, not a fingerprint set", h.Type)
	case h.Codec != envelope.CodecRaw:
		return p, errorf(ErrCorrupt, "codec %s is not supported by this build", h.Codec)
	case h.Scheme != uint8(hashing.XXH3):
		return p, errorf(ErrCorrupt, "hashing scheme %d; fingerprint sets use XXH3 (%d)", h.Scheme, hashing.XXH3)
	case len(h.Params) != paramsSize:
		return p, errorf(ErrCorrupt, "%d bytes of parameters, want %d", len(h.Params), paramsSize)
	}
	b := h.Params
	p.form, p.bits, p.countBits, p.k = b[0], int(b[1]), int(b[2]), uint(b[3])
	p.seed, p.n = h.Seed, binary.LittleEndian.Uint64(b[8:])
	switch {
	case p.form != formSorted && p.form != formRice:
		return p, errorf(ErrCorrupt, "unknown form %d", p.form)
	case p.bits < MinBits || p.bits > MaxBits:
		return p, errorf(ErrCorrupt, "fingerprint width %d outside [%d, %d]", p.bits, MinBits, MaxBits)
	case p.countBits > MaxCountBits:
		return p, errorf(ErrCorrupt, "count width %d above %d", p.countBits, MaxCountBits)
	case p.form == formSorted && p.k != 0, p.k >= uint(p.bits):
		return p, errorf(ErrCorrupt, "Rice parameter %d for the form and width", p.k)
	case binary.LittleEndian.Uint32(b[4:]) != 0:
		return p, errorf(ErrCorrupt, "reserved bytes are not zero")
	case p.n > MaxLen || p.n > p.universe():
		return p, errorf(ErrCorrupt, "%d fingerprints of %d bits", p.n, p.bits)
	}
	return p, nil
}

// decodeSorted checks the payload's length against n before allocating,
// then checks that the fingerprints increase strictly, that every count
// is at least 1, and that the padding is zero.
func decodeSorted(p frameParams, payload []byte) (*Sorted, error) {
	fw, cw := packedWords(p.n, uint64(p.bits)), packedWords(p.n, uint64(p.countBits))
	if uint64(len(payload)) != 8*(fw+cw) {
		return nil, errorf(ErrCorrupt, "payload of %d bytes, %d fingerprints need %d", len(payload), p.n, 8*(fw+cw))
	}
	words := make([]uint64, fw+cw)
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(payload[8*i:])
	}
	t := &Sorted{shape: p.shape, n: p.n,
		fps: packedOver(words[:fw:fw], p.bits), counts: packedOver(words[fw:], p.countBits)}
	if err := checkPadding(t.fps, p.n); err != nil {
		return nil, err
	}
	if err := checkPadding(t.counts, p.n); err != nil {
		return nil, err
	}
	prev := uint64(0)
	for i := uint64(0); i < p.n; i++ {
		f, c := t.fps.Get(i), t.countAt(i)
		if f <= prev {
			return nil, errorf(ErrCorrupt, "fingerprint %d (%#x) does not exceed the one before", i, f)
		}
		if c == 0 {
			return nil, errorf(ErrCorrupt, "fingerprint %d has count 0", i)
		}
		prev, t.total = f, t.total+c
	}
	return t, nil
}

// checkPadding checks that no bit past field n−1 is set.
func checkPadding(p packed, n uint64) error {
	if !p.PaddingClear(n) {
		return errorf(ErrCorrupt, "bits set past the last field")
	}
	return nil
}

// decodeRice checks that the payload can hold n codes before allocating
// the index, then decodes every code, checking that it ends inside the
// payload and that fingerprints stay within Bits bits; the codes must end
// in the last word, followed by zero bits.
func decodeRice(p frameParams, payload []byte) (*Compressed, error) {
	avail := 8 * uint64(len(payload))
	perCode := uint64(p.k) + 1
	if p.countBits > 0 {
		perCode++
	}
	if p.n > avail/perCode {
		return nil, errorf(ErrCorrupt, "%d codes cannot fit in %d bits", p.n, avail)
	}
	words := make([]uint64, len(payload)/8)
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(payload[8*i:])
	}
	c := &Compressed{shape: p.shape, n: p.n, k: p.k, words: words,
		index: make([]sample, 0, (p.n+sampleStride-1)/sampleStride)}
	r := bitReader{words: words}
	if err := c.decodeCodes(&r, avail); err != nil {
		return nil, err
	}
	c.nbits = r.pos
	if (r.pos+63)/64 != uint64(len(words)) {
		return nil, errorf(ErrCorrupt, "payload of %d words, the codes take %d bits", len(words), r.pos)
	}
	if tail := r.pos % 64; tail != 0 && words[len(words)-1]>>tail != 0 {
		return nil, errorf(ErrCorrupt, "bits set past the codes")
	}
	return c, nil
}

// decodeCodes decodes and checks all n codes, building the index.
func (c *Compressed) decodeCodes(r *bitReader, avail uint64) error {
	u, prev := c.universe(), uint64(0)
	for i := uint64(0); i < c.n; i++ {
		if i%sampleStride == 0 {
			c.index = append(c.index, sample{prev: prev, offset: r.pos})
		}
		q, ok := r.unary()
		if !ok || q > (u-prev)>>c.k {
			return errorf(ErrCorrupt, "code %d is cut short or overflows %d bits", i, c.bits)
		}
		g := q<<c.k | r.read(c.k)
		if g >= u-prev {
			return errorf(ErrCorrupt, "fingerprint %d overflows %d bits", i, c.bits)
		}
		count := uint64(1)
		if c.countBits > 0 {
			if count, ok = r.gamma(uint(c.countBits)); !ok {
				return errorf(ErrCorrupt, "count %d is cut short or above %d bits", i, c.countBits)
			}
		}
		if r.pos > avail {
			return errorf(ErrCorrupt, "code %d runs past the payload", i)
		}
		prev += 1 + g
		c.total += count
	}
	return nil
}
