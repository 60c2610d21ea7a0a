package digest

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// Pieces is a piecewise-compressed Bloom filter held as it travels: the
// coded pieces and their index, and a small cache of decoded pieces.
// Contains decodes only the pieces a key's probes fall in (one piece for
// the blocked and paged layouts), and Patch recodes only the pieces a
// delta changes, so that the whole array is never held decoded.
//
// A fast-coded piece is decoded whole the first time it is read, which
// checks its stream; the view then keeps the decoding table of its
// density ([entropy.BitsTable], one per distinct density) and the
// decoder's state every 128 bytes of the piece ([entropy.BitsMark]; every
// 256 or 512 bytes, or none, when the piece compresses too little for
// them), and later lookups decode the stream only from the mark before
// the bit they need, unless the piece is hot (read often lately) and is
// decoded whole into the cache. A lookup reads its probes nearest a mark
// first, so that a key that is absent mostly stops at the cheapest.
//
// Pieces is safe for concurrent use: lookups share the cache (a piece is
// decoded outside its lock), and Patch codes the changed pieces while
// lookups go on, then swaps them in under a write lock that waits for
// the lookups under way. The zero value is not usable: [DecodePieces], [NewPieces]
// and [PiecesOf] make them; its methods then return errors wrapping
// [ErrEmpty].
type Pieces struct {
	geo   bloom.Geometry
	shape params.Shape
	m     uint64
	// slots is the cache's size in pieces; pieceWords the words of a
	// decoded piece.
	slots, pieceWords int

	// patchMu serialises Patch; it guards crc.
	patchMu sync.Mutex
	crc     viewChecksum

	// rw guards st's pieces and header: lookups read them under the read
	// lock, Patch changes them under the write lock.
	rw sync.RWMutex
	st *viewState // set once

	mu      sync.Mutex // guards what follows
	cache   []cachedPiece
	free    [][]uint64 // decoded-piece buffers not in the cache
	clock   uint64
	decoded uint64 // piece decodings, for tests and metrics
	// tables are the decoding tables of the fast-coded pieces, one per
	// distinct density, built when a piece of that density is first read.
	tables map[uint32]*entropy.BitsTable
	// sound marks (a bit per piece) the fast-coded pieces whose streams
	// have been decoded whole and checked: a lookup in one of them decodes
	// its stream only up to the bit it needs, from the last of the piece's
	// marks before it, with what read[i] kept as it was decoded (at most
	// marksPer marks a piece; markCount in all).
	sound     []uint64
	read      []readPiece
	marksPer  int
	markCount int
	// recent are the last pieces read in part and how often since: a
	// piece read hotReads times while still among them is hot, and is
	// decoded whole into the cache.
	recent   [recentPieces]recentPiece
	recentAt int
}

// readPiece is what a lookup needs to read a sound piece in part, kept
// when it was decoded whole: the decoding table of its density (nil for
// a Raw or Const stream), and its marks and their spacing in bytes.
type readPiece struct {
	t     *entropy.BitsTable
	marks []entropy.BitsMark
	every uint64
}

// recentPiece is a piece read in part (piece+1; 0 is none) and the number
// of such reads since it was first remembered.
type recentPiece struct{ piece, reads uint64 }

// recentPieces is how many pieces read in part Pieces remembers, and
// hotReads how many reads make one hot: decoding a piece whole costs
// about as much as reading it in part six times, so that it pays to cache
// a piece read more often than the others, not any piece read twice.
const (
	recentPieces = 16
	hotReads     = 8
)

// viewState is the coded array. Patch replaces the streams of the pieces
// it changes, one by one: the others keep sharing the payload they came
// in.
type viewState struct {
	header envelope.Header // the raw frame header: parameters, seed, scheme, sequence
	x      pieceIndex      // as made: the piece size and codec, and the payload the unpatched pieces share
	pieces [][]byte        // each piece's stream
	own    []bool          // the piece's stream is its own allocation, not in x.streams
	// coded is the streams' total size; owned the pieces with streams of
	// their own and ownBytes their capacity.
	coded, owned, ownBytes int
}

// newViewState splits x into its pieces.
func newViewState(h envelope.Header, x pieceIndex) *viewState {
	st := &viewState{header: h, x: x, pieces: make([][]byte, len(x.ends)), own: make([]bool, len(x.ends)), coded: len(x.streams)}
	for i := range st.pieces {
		st.pieces[i] = x.stream(uint64(i))
	}
	return st
}

// decodePiece decodes piece i of an m-bit array into dst, which has the
// piece's words; the caller holds rw.
func (st *viewState) decodePiece(dst []uint64, m, i uint64) error {
	if err := entropy.DecodeBits(dst, st.pieces[i], pieceBits(m, st.x.pieceBytes, i), st.x.inner); err != nil {
		return fmt.Errorf("%w: piece %d: %w", ErrCorrupt, i, err)
	}
	return nil
}

// replace sets piece i's stream; the caller holds rw for writing. Once
// half the pieces have their own, they are all copied into one payload
// again, so that the payload they came in is not held for a few pieces.
func (st *viewState) replace(i uint64, stream []byte) {
	st.coded += len(stream) - len(st.pieces[i])
	if st.own[i] {
		st.ownBytes -= cap(st.pieces[i])
	} else {
		st.own[i] = true
		st.owned++
	}
	st.pieces[i] = stream
	st.ownBytes += cap(stream)
	if 2*st.owned <= len(st.pieces) {
		return
	}
	all := make([]byte, 0, st.coded)
	for i, p := range st.pieces {
		all = append(all, p...)
		st.x.ends[i] = uint32(len(all))
	}
	st.x.streams = all
	for i := range st.pieces {
		st.pieces[i], st.own[i] = st.x.stream(uint64(i)), false
	}
	st.owned, st.ownBytes = 0, 0
}

// viewChecksum is the CRC-32C of the array (as [Checksum] computes it),
// which a delta names its base by, that of as many zero bytes, and the
// number of bits set; computed when first needed and kept current by
// Patch.
type viewChecksum struct {
	known      bool
	crc, zeros uint32
	ones       uint64
}

type cachedPiece struct {
	piece uint64
	used  uint64
	words []uint64
}

// DefaultPieceCache is the number of decoded pieces Pieces keeps unless
// told otherwise.
const DefaultPieceCache = 4

// DecodePieces reads a piecewise-compressed Bloom filter frame (codec 3)
// without decoding its pieces; cache is the number of decoded pieces to
// keep (0: DefaultPieceCache). The frame, its parameters and the pieces'
// index are checked as Decode checks them; a piece's stream is decoded,
// and checked, only when a query needs it (a corrupt piece is then an
// error from Contains).
func DecodePieces(data []byte, lim envelope.Limits, cache int) (*Pieces, error) {
	return envelope.DecodeFrame(data, lim, "digest", func(h envelope.Header, body []byte) (*Pieces, error) {
		return NewPieces(h, body, lim, cache)
	})
}

// NewPieces builds a Pieces from a parsed frame of a Bloom filter with codec
// 3. It keeps body (not a copy). lim bounds the decoded size of the array.
func NewPieces(h envelope.Header, body []byte, lim envelope.Limits, cache int) (*Pieces, error) {
	if h.Type != envelope.TypeBloom || h.Codec != envelope.CodecPieces {
		return nil, fmt.Errorf("%w: a %v frame with codec %v, not a Bloom filter in pieces", ErrCodec, h.Type, h.Codec)
	}
	v, err := newView(h, lim, cache)
	if err != nil {
		return nil, err
	}
	x, err := parsePieces(body, v.m)
	if err != nil {
		return nil, err
	}
	if err := v.setPieceBytes(x.pieceBytes, lim); err != nil {
		return nil, err
	}
	v.st = newViewState(h, x)
	v.sound = make([]uint64, (len(x.ends)+63)/64)
	return v, nil
}

// markBytes is the least spacing of a piece's marks in decoded bytes: a
// lookup in a piece decodes at most this many bytes of it (twice or four
// times as many in a piece whose stream leaves room for fewer marks).
const markBytes = 128

// maxStackMarks is the number of marks a piece's first whole decoding
// takes into a buffer on the stack: all of a 2 KiB piece's.
const maxStackMarks = 15

// marksFor returns the number of marks to keep of a piece whose stream
// is coded with t, and their spacing in decoded bytes: none unless a RANS
// stream. The spacing is markBytes, doubled until the stream and its
// marks come to at most 3/4 of the decoded piece (no marks when even one
// would not fit), so that a view stays well below its decoded array; it
// depends on the stream's length alone, so that the marks taken from a
// stream are read with the spacing they were taken at.
func (v *Pieces) marksFor(t *entropy.BitsTable, stream []byte) (int, uint64) {
	if t == nil || v.marksPer == 0 {
		return 0, 0
	}
	limit := 3 * v.pieceWords * 8 / 4
	every, n := markBytes, v.marksPer
	for len(stream)+n*entropy.BitsMarkBytes > limit {
		every *= 2
		if n = v.pieceWords*8/every - 1; n <= 0 {
			return 0, 0
		}
	}
	return n, uint64(every)
}

// keepReadLocked keeps piece i's table, marks and their spacing, once
// it has been decoded whole. The caller holds v.mu.
func (v *Pieces) keepReadLocked(i uint64, t *entropy.BitsTable, marks []entropy.BitsMark, every uint64) {
	if v.read == nil {
		v.read = make([]readPiece, len(v.st.pieces))
	}
	r := &v.read[i]
	r.t, r.every = t, every
	if len(marks) == 0 {
		v.markCount -= cap(r.marks)
		r.marks = nil
		return
	}
	if cap(r.marks) < len(marks) {
		v.markCount += len(marks) - cap(r.marks)
		r.marks = make([]entropy.BitsMark, len(marks))
	}
	r.marks = r.marks[:len(marks)]
	copy(r.marks, marks)
}

// newView checks a Bloom filter frame's header, and the size of its array
// decoded against lim, and returns Pieces of its shape with no pieces yet.
// The array is never held whole, but a short stream may claim 2^40 bits:
// coding it in pieces, or checking every piece, takes time and an index
// in proportion.
func newView(h envelope.Header, lim envelope.Limits, cache int) (*Pieces, error) {
	shape, err := bloom.FrameShape(h)
	if err != nil {
		return nil, err
	}
	if size := 8 * ((shape.M + 63) / 64); size > lim.Payload() {
		return nil, fmt.Errorf("%w: %d bits (limit %d bytes)", ErrTooLarge, shape.M, lim.Payload())
	}
	scheme, err := hashing.Lookup(hashing.SchemeID(h.Scheme))
	if err != nil {
		return nil, err
	}
	geo, err := bloom.NewGeometry(shape, h.Seed, scheme)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if cache <= 0 {
		cache = DefaultPieceCache
	}
	return &Pieces{geo: geo, shape: shape, m: shape.M, slots: cache}, nil
}

// setPieceBytes checks a piece's decoded size against lim and sizes the
// cache's buffers.
func (v *Pieces) setPieceBytes(b uint64, lim envelope.Limits) error {
	piece := min(b, 8*((v.m+63)/64))
	if piece > lim.Payload() {
		return fmt.Errorf("%w: pieces of %d bytes (limit %d bytes)", ErrTooLarge, piece, lim.Payload())
	}
	v.pieceWords = int(piece / 8)
	v.marksPer = max(v.pieceWords*8/markBytes-1, 0)
	return nil
}

// PiecesOf reads a Bloom filter frame with any codec and returns it as a
// Pieces: a frame coded in pieces as DecodePieces reads it, any other coded
// again in pieces of PieceBytes(shape, pieceBytes) bytes with c ([Arith],
// or [Fast]; [Auto] means Fast, which decodes faster). The array is
// decoded and coded one piece at a time, so that it is never held whole:
// what a receiver does once with a digest sent as one stream. cache is
// as for DecodePieces.
func PiecesOf(data []byte, lim envelope.Limits, c Codec, pieceBytes, cache int) (*Pieces, error) {
	var inner entropy.Codec
	switch c {
	case Arith:
		inner = entropy.Arith
	case Fast, Auto:
		inner = entropy.Fast
	default:
		return nil, fmt.Errorf("%w: pieces are coded with arith or fast, not %v", ErrCodec, c)
	}
	if pieceBytes < 1 {
		return nil, fmt.Errorf("%w: piece size %d bytes", ErrCodec, pieceBytes)
	}
	return envelope.DecodeFrame(data, lim, "digest", func(h envelope.Header, body []byte) (*Pieces, error) {
		if h.Type == envelope.TypeBloom && h.Codec == envelope.CodecPieces {
			return NewPieces(h, body, lim, cache)
		}
		if h.Type != envelope.TypeBloom {
			return nil, fmt.Errorf("%w: a %v frame, not a Bloom filter", ErrCodec, h.Type)
		}
		v, err := newView(h, lim, cache)
		if err != nil {
			return nil, err
		}
		b := PieceBytes(v.shape, pieceBytes)
		if err := v.setPieceBytes(uint64(b), lim); err != nil {
			return nil, err
		}
		src, err := newWordStream(h.Codec, body, v.m)
		if err != nil {
			return nil, err
		}
		buf := make([]uint64, v.pieceWords)
		var crc uint32
		var ones uint64
		crcBuf := new(crcBuffer)
		extra := len(body) + 40*int(pieceCount(v.m, uint64(b))) // a RANS piece adds 37 bytes
		coded, err := codePieces(v.m, b, inner, extra, func(_, nw uint64) ([]uint64, error) {
			if err := src.read(buf[:nw]); err != nil {
				return nil, err
			}
			crc = updateWordsChecksum(crc, buf[:nw], crcBuf)
			ones += onesCount(buf[:nw])
			return buf[:nw], nil
		})
		if err != nil {
			return nil, err
		}
		x, err := parsePieces(trim(coded), v.m)
		if err != nil {
			return nil, err
		}
		h.Codec, h.Params = envelope.CodecPieces, slices.Clone(h.Params) // not the frame's bytes
		v.st = newViewState(h, x)
		v.sound = make([]uint64, (len(x.ends)+63)/64)
		v.crc = viewChecksum{known: true, crc: crc, zeros: zerosChecksum(uint64(v.Words())), ones: ones}
		return v, nil
	})
}

// trim returns b, or a copy of it without the spare capacity when that is
// more than an eighth of it: Pieces holds its coded pieces for long.
func trim(b []byte) []byte {
	if cap(b)-len(b) > len(b)/8 {
		return slices.Clone(b)
	}
	return b
}

// wordStream reads a payload of m bits, coded with codec, a run of words
// at a time.
type wordStream struct {
	raw  []byte // CodecRaw: the words, little-endian
	m    uint64
	next uint64
	r    *entropy.BitReader
	g    *entropy.GapReader // CodecGaps
}

func newWordStream(codec envelope.Codec, body []byte, m uint64) (*wordStream, error) {
	s := &wordStream{m: m}
	var err error
	switch codec {
	case envelope.CodecRaw:
		if uint64(len(body)) != 8*((m+63)/64) {
			return nil, fmt.Errorf("%w: raw payload of %d bytes, %d bits need %d", ErrCorrupt, len(body), m, 8*((m+63)/64))
		}
		s.raw = body
	case envelope.CodecArith:
		s.r, err = entropy.NewBitReader(body, m, entropy.Arith)
	case envelope.CodecFast:
		s.r, err = entropy.NewBitReader(body, m, entropy.Fast)
	case envelope.CodecGaps:
		s.g, err = entropy.NewGapReader(body, m)
	default:
		return nil, fmt.Errorf("%w: codec %v for a bit array", ErrCodec, codec)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return s, nil
}

// read fills dst with the next len(dst) words.
func (s *wordStream) read(dst []uint64) error {
	if s.r != nil {
		if err := s.r.Read(dst); err != nil {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return nil
	}
	if s.g != nil {
		clear(dst)
		err := s.g.XOR(dst, s.next)
		s.next += uint64(len(dst))
		if err == nil && s.next == (s.m+63)/64 {
			err = s.g.Close()
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return nil
	}
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint64(s.raw[8*(s.next+uint64(i)):])
	}
	s.next += uint64(len(dst))
	if s.next == (s.m+63)/64 && s.m%64 != 0 && dst[len(dst)-1]>>(s.m%64) != 0 {
		return fmt.Errorf("%w: bits set past the array", ErrCorrupt)
	}
	return nil
}

// state returns the coded array, or an error for the zero Pieces.
func (v *Pieces) state() (*viewState, error) {
	if v == nil {
		return nil, fmt.Errorf("%w: nil Pieces", ErrEmpty)
	}
	st := v.st
	if st == nil {
		return nil, fmt.Errorf("%w: zero Pieces", ErrEmpty)
	}
	return st, nil
}

// bit reports bit q of piece i: from the cache; or, for a fast-coded
// piece already found sound that is not hot, by decoding its stream only
// up to the bit, with the decoding table of its density; or by decoding
// the piece whole (outside the lock, into a buffer of its own), which
// checks it, and caching it in place of the least recently used piece.
func (v *Pieces) bit(st *viewState, i, q uint64) (bool, error) {
	v.mu.Lock()
	v.clock++
	for j := range v.cache {
		if c := &v.cache[j]; c.piece == i {
			c.used = v.clock
			set := c.words[q/64]>>(q%64)&1 != 0
			v.mu.Unlock()
			return set, nil
		}
	}
	stream := st.pieces[i]
	nbits := pieceBits(v.m, st.x.pieceBytes, i)
	var t *entropy.BitsTable // nil for the Raw and Const streams of fast
	if st.x.inner == entropy.Fast {
		if v.sound[i/64]>>(i%64)&1 != 0 && !v.hotLocked(i) {
			// The mark before the bit's byte, copied: another lookup may
			// be taking the piece's marks again.
			r := &v.read[i]
			t = r.t
			var mark [1]entropy.BitsMark
			n := 0
			if q/8 >= r.every && len(r.marks) > 0 {
				n = copy(mark[:], r.marks[min(q/8/r.every, uint64(len(r.marks)))-1:])
			}
			v.mu.Unlock()
			set, err := t.Bit(stream, nbits, q, mark[:n])
			if err != nil {
				return false, fmt.Errorf("%w: piece %d: %w", ErrCorrupt, i, err)
			}
			return set, nil
		}
		t = v.tableLocked(stream)
	}
	var words []uint64
	if n := len(v.free); n > 0 {
		words, v.free = v.free[n-1], v.free[:n-1]
	}
	// The marks are taken into a buffer of this lookup's, on the stack
	// for pieces of up to 2 KiB, and copied under the lock.
	var stackMarks [maxStackMarks]entropy.BitsMark
	var marks []entropy.BitsMark
	var every uint64
	if t != nil && v.sound[i/64]>>(i%64)&1 == 0 {
		var n int
		n, every = v.marksFor(t, stream)
		if marks = stackMarks[:0]; n > len(stackMarks) {
			marks = make([]entropy.BitsMark, n)
		}
		marks = marks[:n]
	}
	v.mu.Unlock()
	if words == nil {
		words = make([]uint64, v.pieceWords)
	}
	dst := words[:(nbits+63)/64]
	var err error
	if st.x.inner == entropy.Fast {
		if err = t.DecodeMarks(dst, stream, nbits, max(every, 8), marks); err != nil {
			err = fmt.Errorf("%w: piece %d: %w", ErrCorrupt, i, err)
		}
	} else {
		err = st.decodePiece(dst, v.m, i)
	}
	set := words[q/64]>>(q%64)&1 != 0

	v.mu.Lock()
	defer v.mu.Unlock()
	if err != nil {
		v.release(words)
		return false, err
	}
	v.decoded++
	if st.x.inner == entropy.Fast && v.sound[i/64]>>(i%64)&1 == 0 {
		v.keepReadLocked(i, t, marks, every)
		v.sound[i/64] |= 1 << (i % 64)
	}
	if slices.ContainsFunc(v.cache, func(c cachedPiece) bool { return c.piece == i }) {
		v.release(words) // decoded by another lookup too
		return set, nil
	}
	if len(v.cache) < v.slots {
		v.cache = append(v.cache, cachedPiece{piece: i, used: v.clock, words: words})
		return set, nil
	}
	lru := &v.cache[0]
	for j := range v.cache {
		if v.cache[j].used < lru.used {
			lru = &v.cache[j]
		}
	}
	v.release(lru.words)
	*lru = cachedPiece{piece: i, used: v.clock, words: words}
	return set, nil
}

// tableLocked returns the decoding table of a fast-coded stream's
// density, building it the first time, or nil for a stream that is not
// RANS. The caller holds v.mu. The tables are dropped when they outnumber
// the pieces, which only patches that change densities again and again
// can make them do.
func (v *Pieces) tableLocked(stream []byte) *entropy.BitsTable {
	d, ok := entropy.StreamDensity(stream)
	if !ok {
		return nil
	}
	if t := v.tables[d]; t != nil {
		return t
	}
	if v.tables == nil || len(v.tables) >= len(v.sound)*64 {
		// The pieces read with the tables dropped are decoded whole
		// again when next read, and take the new ones.
		v.tables = make(map[uint32]*entropy.BitsTable)
		clear(v.sound)
		for j := range v.read {
			v.read[j].t = nil
		}
	}
	t := entropy.NewBitsTable(d)
	v.tables[d] = t
	return t
}

// hotLocked counts a read of piece i and reports whether it makes the
// piece hot: hotReads reads while it is among the last recentPieces pieces
// read in part. The caller holds v.mu.
func (v *Pieces) hotLocked(i uint64) bool {
	for j := range v.recent {
		if r := &v.recent[j]; r.piece == i+1 {
			r.reads++
			if r.reads < hotReads {
				return false
			}
			*r = recentPiece{}
			return true
		}
	}
	v.recent[v.recentAt] = recentPiece{piece: i + 1, reads: 1}
	v.recentAt = (v.recentAt + 1) % recentPieces
	return false
}

// release keeps a decoded-piece buffer for reuse, up to the cache's size.
// The caller holds v.mu.
func (v *Pieces) release(words []uint64) {
	if len(v.free) < v.slots {
		v.free = append(v.free, words)
	}
}

// Contains reports whether key may be in the filter, decoding only the
// pieces its probes fall in. A piece that does not decode is an error.
func (v *Pieces) Contains(key []byte) (bool, error) {
	if _, err := v.state(); err != nil {
		return false, err
	}
	return v.ContainsHash(v.geo.Hash(key))
}

// ContainsString is Contains for a string key.
func (v *Pieces) ContainsString(key string) (bool, error) {
	if _, err := v.state(); err != nil {
		return false, err
	}
	return v.ContainsHash(v.geo.HashString(key))
}

// ContainsHash is Contains for the key whose hash is h.
func (v *Pieces) ContainsHash(h hashing.Hash128) (bool, error) {
	st, err := v.state()
	if err != nil {
		return false, err
	}
	v.rw.RLock() // for the whole lookup: one version's pieces
	defer v.rw.RUnlock()
	var buf [params.MaxK]uint64
	bitsPer := 8 * st.x.pieceBytes
	ps := v.geo.Positions(h, &buf)
	// Most probes of a key that is absent find a clear bit, which ends
	// the lookup: the probes are read nearest their piece's mark first
	// (the fewest bytes to decode), so that a miss mostly decodes the
	// least. The order changes no answer.
	for j := 1; j < len(ps); j++ {
		for l := j; l > 0 && markDistance(ps[l], bitsPer) < markDistance(ps[l-1], bitsPer); l-- {
			ps[l], ps[l-1] = ps[l-1], ps[l]
		}
	}
	for _, p := range ps {
		i := p / bitsPer
		set, err := v.bit(st, i, p-i*bitsPer)
		if err != nil || !set {
			return false, err
		}
	}
	return true, nil
}

// markDistance is the number of bytes a lookup of bit p decodes in a
// piece read in part with marks every markBytes bytes.
func markDistance(p, bitsPer uint64) uint64 { return p % bitsPer / 8 % markBytes }

// Geometry returns the filter's shape, scheme and seed.
func (v *Pieces) Geometry() *bloom.Geometry { return &v.geo }

// Sequence returns the digest's sequence number.
func (v *Pieces) Sequence() uint64 {
	st, err := v.state()
	if err != nil {
		return 0
	}
	v.rw.RLock()
	defer v.rw.RUnlock()
	return st.header.Sequence
}

// Words returns the number of 64-bit words of the decoded array.
func (v *Pieces) Words() int {
	if v == nil {
		return 0
	}
	return int((v.m + 63) / 64)
}

// Pieces returns the number of pieces.
func (v *Pieces) Pieces() int {
	st, err := v.state()
	if err != nil {
		return 0
	}
	return len(st.x.ends)
}

// PieceBytes returns the decoded size of a piece.
func (v *Pieces) PieceBytes() int {
	st, err := v.state()
	if err != nil {
		return 0
	}
	return int(st.x.pieceBytes)
}

// Codec returns the codec of the pieces' streams: Arith or Fast (Auto
// for the zero Pieces).
func (v *Pieces) Codec() Codec {
	st, err := v.state()
	switch {
	case err != nil:
		return Auto
	case st.x.inner == entropy.Arith:
		return Arith
	}
	return Fast
}

// CodedBytes returns the size of the pieces payload: header, index and
// streams.
func (v *Pieces) CodedBytes() int {
	st, err := v.state()
	if err != nil {
		return 0
	}
	v.rw.RLock()
	defer v.rw.RUnlock()
	return piecesHead + 4*len(st.pieces) + st.coded
}

// MemoryBytes returns what the view holds: the coded payload and its
// index, and the decoded pieces in its cache and kept for reuse.
func (v *Pieces) MemoryBytes() int {
	st, err := v.state()
	if err != nil {
		return 0
	}
	// The payload the pieces came in (its index included, and the
	// parsed one beside it), the streams of their own, and their slices.
	v.rw.RLock()
	n := piecesHead + 8*len(st.x.ends) + cap(st.x.streams) + st.ownBytes + 25*len(st.pieces)
	v.rw.RUnlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, c := range v.cache {
		n += 8 * cap(c.words)
	}
	for _, w := range v.free {
		n += 8 * cap(w)
	}
	// The decoding tables, with about 40 bytes of map entry each, and the
	// marks of sound pieces.
	n += len(v.tables)*(entropy.BitsTableBytes+40) + 8*len(v.sound) + 40*len(v.read) + entropy.BitsMarkBytes*v.markCount
	return n
}

// Decoded returns how many times a piece has been decoded whole: once
// when it is first read (which checks its stream), and again when it is
// hot or was patched. A fast-coded piece found sound is otherwise read in
// part, decoding its stream from the mark before the bit a lookup needs.
func (v *Pieces) Decoded() uint64 {
	if v == nil {
		return 0
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.decoded
}

// Filter decodes every piece into a bloom.Filter.
func (v *Pieces) Filter() (*bloom.Filter, error) {
	st, err := v.state()
	if err != nil {
		return nil, err
	}
	words := make([]uint64, (v.m+63)/64)
	v.rw.RLock()
	h := st.header
	wpp := st.x.pieceBytes / 8
	for i := range uint64(len(st.pieces)) {
		lo := i * wpp
		hi := lo + (pieceBits(v.m, st.x.pieceBytes, i)+63)/64
		if err := st.decodePiece(words[lo:hi], v.m, i); err != nil {
			v.rw.RUnlock()
			return nil, err
		}
	}
	v.rw.RUnlock()
	h.Codec = envelope.CodecRaw
	return bloom.FromWords(h, words)
}

// Checksum returns the CRC-32C of the array's words, as [Checksum]
// computes it for a Digest: the first call decodes the pieces one at a
// time (unless it was coded by PiecesOf, which knows it), and Patch
// keeps it current without decoding the pieces it does not change.
func (v *Pieces) Checksum() (uint32, error) {
	st, err := v.state()
	if err != nil {
		return 0, err
	}
	v.patchMu.Lock()
	defer v.patchMu.Unlock()
	return v.checksumLocked(st)
}

// checksumLocked computes the checksum if needed; the caller holds
// patchMu, so that st is the current state.
func (v *Pieces) checksumLocked(st *viewState) (uint32, error) {
	if v.crc.known {
		return v.crc.crc, nil
	}
	buf := make([]uint64, v.pieceWords)
	var crc uint32
	var ones uint64
	crcBuf := new(crcBuffer)
	wpp := st.x.pieceBytes / 8
	// Only Patch changes the pieces, and the caller holds patchMu.
	for i := range uint64(len(st.pieces)) {
		nw := min(wpp, (v.m+63)/64-i*wpp)
		if err := st.decodePiece(buf[:nw], v.m, i); err != nil {
			return 0, err
		}
		crc = updateWordsChecksum(crc, buf[:nw], crcBuf)
		ones += onesCount(buf[:nw])
	}
	v.crc = viewChecksum{known: true, crc: crc, zeros: zerosChecksum((v.m + 63) / 64), ones: ones}
	return crc, nil
}

// SetBits returns the number of bits set, computed with the checksum (see
// Checksum) and kept current by Patch.
func (v *Pieces) SetBits() (uint64, error) {
	st, err := v.state()
	if err != nil {
		return 0, err
	}
	v.patchMu.Lock()
	defer v.patchMu.Unlock()
	if _, err := v.checksumLocked(st); err != nil {
		return 0, err
	}
	return v.crc.ones, nil
}

func onesCount(words []uint64) uint64 {
	var n int
	for _, w := range words {
		n += bits.OnesCount64(w)
	}
	return uint64(n)
}

// zerosChecksum is the CRC-32C of nw zero words. CRC-32C is affine in its
// input: for messages of one length, crc(a ⊕ b) = crc(a) ⊕ crc(b) ⊕
// crc(0…0), which is how Patch updates the checksum of Pieces from the XOR it
// applies alone.
func zerosChecksum(nw uint64) uint32 {
	zeros := new(crcBuffer)
	var crc uint32
	for n := 8 * nw; n > 0; {
		k := min(n, uint64(len(zeros)))
		crc = envelope.UpdateChecksum(crc, zeros[:k])
		n -= k
	}
	return crc
}

// Patch applies a delta digest (see Patch) to the view: the base must be
// the view's version (sequence and checksum). Only the pieces the delta
// changes are decoded, changed and coded again; the others keep their
// coded bytes where they are. A gap-coded or raw delta that changes
// fewer bits than the view has pieces is read as the words it changes (a
// raw one where it lies in the frame), and the checksum updated from
// them, so that it allocates in proportion to the delta's changes and the
// pieces it touches; a denser one is read one piece at a time and the
// pieces coded into one new payload. Neither the array nor a dense XOR is ever
// held whole. Lookups run meanwhile and see the view before or after the
// patch: the changed pieces are swapped in under a write lock. On any
// error the view is unchanged.
func (v *Pieces) Patch(delta []byte, lim envelope.Limits) error {
	st, err := v.state()
	if err != nil {
		return err
	}
	v.patchMu.Lock()
	defer v.patchMu.Unlock()
	// Only Patch changes st, and patchMu is held: it is read unlocked.
	dh, body, err := ParseDelta(delta, lim)
	if err != nil {
		return err
	}
	if dh.Target != envelope.TypeBloom {
		return fmt.Errorf("%w: a delta of a %v, the view is a Bloom filter", ErrBase, dh.Target)
	}
	if dh.BaseSequence != st.header.Sequence {
		return fmt.Errorf("%w: the delta's base is sequence %d, the view is %d", ErrBase, dh.BaseSequence, st.header.Sequence)
	}
	shape, err := bloom.FrameShape(dh.Header)
	if err != nil || shape != v.shape || dh.Header.Seed != st.header.Seed || dh.Header.Scheme != st.header.Scheme {
		return fmt.Errorf("%w: the delta's shape, seed or scheme differs from the view's", ErrBase)
	}
	base, err := v.checksumLocked(st)
	if err != nil {
		return err
	}
	if base != dh.BaseChecksum {
		return fmt.Errorf("%w: the delta's base checksum %08x, the view's %08x", ErrBase, dh.BaseChecksum, base)
	}
	pc := piecePatch{v: v, st: st, ones: v.crc.ones, pbuf: make([]uint64, v.pieceWords)}
	var crc uint32
	if sparseForPieces(dh.Codec, body, v.m, len(st.pieces)) {
		changes, err := deltaChanges(dh.Codec, body, v.m, lim)
		if err != nil {
			return err
		}
		wpp := st.x.pieceBytes / 8
		for j := 0; j < len(changes); {
			i := changes[j].Index / wpp
			k := j + 1
			for k < len(changes) && changes[k].Index/wpp == i {
				k++
			}
			xor := func(words []uint64) {
				for _, c := range changes[j:k] {
					words[c.Index-i*wpp] ^= c.XOR
				}
			}
			if err := pc.recode(i, xor); err != nil {
				return err
			}
			j = k
		}
		crc = patchedChecksum(base, (v.m+63)/64, changes)
	} else {
		xs, err := newWordStream(dh.Codec, body, v.m)
		if err != nil {
			return err
		}
		xbuf := make([]uint64, v.pieceWords)
		var xcrc uint32
		crcBuf := new(crcBuffer)
		// A dense delta touches most pieces: the payload is coded again
		// whole, in one buffer, the untouched pieces' bytes copied.
		pc.whole = make([]byte, 0, st.coded+st.coded/16+1024)
		pc.ends = make([]uint32, len(st.pieces))
		for i := range uint64(len(st.pieces)) {
			nw := (pieceBits(v.m, st.x.pieceBytes, i) + 63) / 64
			if err := xs.read(xbuf[:nw]); err != nil {
				return err
			}
			xcrc = updateWordsChecksum(xcrc, xbuf[:nw], crcBuf)
			if !slices.ContainsFunc(xbuf[:nw], func(w uint64) bool { return w != 0 }) {
				pc.whole = append(pc.whole, st.pieces[i]...)
				pc.ends[i] = uint32(min(uint64(len(pc.whole)), math.MaxUint32))
				continue
			}
			xor := func(words []uint64) {
				for j := range words {
					words[j] ^= xbuf[j]
				}
			}
			if err := pc.recode(i, xor); err != nil {
				return err
			}
			pc.ends[i] = uint32(min(uint64(len(pc.whole)), math.MaxUint32))
		}
		crc = base ^ xcrc ^ v.crc.zeros
		pc.coded = len(pc.whole)
	}
	if uint64(pc.coded) > math.MaxUint32 {
		return fmt.Errorf("%w: pieces larger than 4 GiB", ErrCodec)
	}
	h := dh.Header
	h.Codec, h.Sequence, h.Params = envelope.CodecPieces, dh.Sequence, slices.Clone(h.Params) // not the delta's bytes
	v.rw.Lock()
	if pc.whole != nil {
		st.x.ends, st.x.streams = pc.ends, trim(pc.whole)
		st.coded = len(st.x.streams)
		for i := range st.pieces {
			st.pieces[i], st.own[i] = st.x.stream(uint64(i)), false
		}
		st.owned, st.ownBytes = 0, 0
	} else {
		for _, c := range pc.out {
			st.replace(c.piece, c.stream)
		}
	}
	st.header = h
	v.mu.Lock()
	for _, c := range pc.out {
		// A new stream: decoded whole again, and marked, when next read.
		v.sound[c.piece/64] &^= 1 << (c.piece % 64)
	}
	v.cache = slices.DeleteFunc(v.cache, func(c cachedPiece) bool {
		if _, found := slices.BinarySearchFunc(pc.out, c.piece, func(p recoded, i uint64) int { return cmp.Compare(p.piece, i) }); found {
			v.release(c.words)
			return true
		}
		return false
	})
	v.mu.Unlock()
	v.rw.Unlock()
	v.crc.crc, v.crc.ones = crc, pc.ones
	return nil
}

// sparseForPieces reports whether a gap-coded or raw delta changes fewer
// bits than the view has pieces: then it is read as its changed words,
// else (most pieces touched) a piece at a time like a dense one, which
// needs no list of the changes. Deltas of the other codecs are dense.
func sparseForPieces(codec envelope.Codec, body []byte, m uint64, pieces int) bool {
	switch codec {
	case envelope.CodecGaps:
		r, err := entropy.NewGapReader(body, m)
		return err != nil || r.Ones() < uint64(pieces) // a corrupt one fails in deltaChanges
	case envelope.CodecRaw:
		// The words are counted where they lie in the frame, up to
		// pieces ones; one of the wrong length fails in deltaChanges.
		if uint64(len(body)) != 8*(m/64+min(m%64, 1)) {
			return true
		}
		ones := 0
		for i := 0; i+8 <= len(body) && ones < pieces; i += 8 {
			ones += bits.OnesCount64(binary.LittleEndian.Uint64(body[i:]))
		}
		return ones < pieces
	}
	return false
}

// piecePatch is a patch of Pieces under way: the pieces coded again.
type piecePatch struct {
	v     *Pieces
	st    *viewState
	ones  uint64
	coded int // the streams' total size after the patch
	pbuf  []uint64
	out   []recoded // the pieces coded again, in order
	// whole, when not nil, is the new payload the pieces are coded into
	// one after the other, ends its index.
	whole []byte
	ends  []uint32
}

type recoded struct {
	piece  uint64
	stream []byte
}

// recode decodes piece i, applies xor to its words and codes it again.
func (pc *piecePatch) recode(i uint64, xor func([]uint64)) error {
	v, st := pc.v, pc.st
	if pc.out == nil {
		pc.coded = st.coded
	}
	bits := pieceBits(v.m, st.x.pieceBytes, i)
	words := pc.pbuf[:(bits+63)/64]
	if err := st.decodePiece(words, v.m, i); err != nil {
		return err
	}
	pc.ones -= onesCount(words)
	xor(words)
	pc.ones += onesCount(words)
	if pc.whole != nil {
		var err error
		pc.whole, err = entropy.EncodeBits(pc.whole, words, bits, st.x.inner)
		pc.out = append(pc.out, recoded{piece: i})
		return err
	}
	stream, err := entropy.EncodeBits(nil, words, bits, st.x.inner)
	if err != nil {
		return err
	}
	pc.coded += len(stream) - len(st.pieces[i])
	pc.out = append(pc.out, recoded{i, stream})
	return nil
}

// AppendBinary appends the view's frame (codec 3) to b.
func (v *Pieces) AppendBinary(b []byte) ([]byte, error) {
	st, err := v.state()
	if err != nil {
		return b, err
	}
	v.rw.RLock()
	body := make([]byte, 0, piecesHead+4*len(st.pieces)+st.coded)
	body = binary.LittleEndian.AppendUint32(body, uint32(st.x.pieceBytes))
	body = append(body, byte(innerEnvelope(st.x.inner)), 0, 0, 0)
	end := uint32(0)
	for _, p := range st.pieces {
		end += uint32(len(p))
		body = binary.LittleEndian.AppendUint32(body, end)
	}
	for _, p := range st.pieces {
		body = append(body, p...)
	}
	h := st.header
	v.rw.RUnlock()
	return appendFrame(b, &h, body)
}
