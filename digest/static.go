package digest

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/ribbon"
)

// Static digests.
//
// A static digest (frame type 13) summarises a set near the information
// bound n·log2(1/ε) and still follows its changes. Its base is a ribbon
// filter of the whole set (package ribbon; Dillinger and Walzer 2021),
// about 1.04–1.07 times the bound where a compressed Bloom filter costs
// 1.18 or more. A ribbon filter cannot be updated, so beside it travel two
// Bloom filters of one hash function each: the keys added since the
// ribbon was built, and the keys removed since (the deletion filter of
// Finch's notes on Bloom filters: removals as a second Bloom filter, at
// the price of false negatives). A receiver answers present when the
// ribbon or the added filter holds a key and the removed filter does not.
//
// The two filters have a fixed shape, sized for DeltaShare·n changes at
// rate ε, so between two publications the publisher sends the XOR of each
// with its previous version, compressed (Mitzenmacher, "Compressed Bloom
// filters", 2002: a filter of one hash function and its deltas are the
// smallest messages at a given rate): the same deltas as a Bloom digest,
// on filters that hold the changes rather than the set, so each change
// costs about log2(1/DeltaShare) bits less than on a filter of one hash
// function of the whole set at the same rate. The publisher rebuilds both filters from the exact sets each
// time, so a key removed and added back leaves the removed filter. When
// the changes outgrow the filters, or a delta would not be smaller than a
// new ribbon, it sends a new ribbon instead.
//
// A ribbon of a few hundred keys is far from its asymptotic size (its
// least is a few blocks of 64 slots). For such a set the whole frame may
// carry an empty ribbon instead, the set in the added filter (in
// StaticXOR's one: an empty ribbon answers every key wrongly), sized for
// the set and the changes a ribbon's filters are sized for: a
// compressed Bloom filter of one hash function in a static frame, whose
// deltas flip the set's own bits and leave the removed filter empty.
// The publisher sends whichever whole frame is smaller; the format and
// the receivers are the same.
//
// A receiver's rate is the ribbon's plus the added filter's, at most 2ε
// when the added filter is full; a present key is hidden with the removed
// filter's rate (a peer's hit missed, never a wrong answer).
//
// The two filters cost, besides their ones, which filter each one is in:
// the gap codes of a ones and of r ones in m bits take about
// (a+r)·H(a/(a+r)) bits more than that of a+r ones in one m-bit array,
// up to one bit a change. The form StaticXOR sends one filter
// instead, of the keys whose ribbon answer is wrong: the keys added since
// that the ribbon answers absent, and the keys removed since (which the
// ribbon, having no false negatives, answers present). A receiver answers
// ribbon(k) XOR filter(k). The filter's bits are the union of those the
// two filters would set (less the added keys the ribbon already holds by
// a false positive, which must stay out: XOR would hide them), so a
// change costs what it costs a compressed Bloom digest's delta of one
// hash function on a filter of the same bits, with no direction bit. An
// absent key is reported present with about the ribbon's rate plus the
// filter's, a present key hidden with the filter's; the filter holds the
// added and the removed keys, so the publisher builds a new ribbon when
// both together, not each, outgrow it. The bit saved is not free: on
// filters of the same bits, both rates rise with the added and the
// removed keys together, where the two filters' rise with one each.
// For a ≈ r changes, a filter of one form at the other's rates costs the
// same bytes.

// Static digest kinds, the first byte of the type-13 parameters.
//
// Kinds 1 and 3 carry each filter of a whole frame as a whole frame of
// its own, 66 bytes for an empty filter; kinds 5 and 6, which publishers
// write, carry it as a part of a few bytes (docs/FORMAT.md). Readers
// read all four.
const (
	staticKindWhole           = 1 // the ribbon and the added and removed filters, as frames
	staticKindDelta           = 2 // the two filters' deltas since the previous publication
	staticKindXORWhole        = 3 // the ribbon and the filter of its wrong answers, as a frame
	staticKindXORDelta        = 4 // that filter's delta since the previous publication
	staticKindWholeCompact    = 5 // kind 1 with the filters as parts
	staticKindXORWholeCompact = 6 // kind 3 with the filter as a part
)

// staticWhole reports whether kind is a whole frame's.
func staticWhole(kind byte) bool {
	switch kind {
	case staticKindWhole, staticKindXORWhole, staticKindWholeCompact, staticKindXORWholeCompact:
		return true
	}
	return false
}

// StaticForm chooses what a [StaticPublisher] sends beside its ribbon.
// The zero value is StaticAddedRemoved.
type StaticForm uint8

// The default stays StaticAddedRemoved, by measurement
// (docs/BENCHMARKS.md, "Held to the compressed Bloom digest's bytes"):
// held to the bytes of a compressed Bloom digest of one hash function at
// m/n 256, with as many removals as additions, StaticXOR sends 0.94–0.97
// of that digest's bytes where StaticAddedRemoved sends 1.03–1.05, but
// its receivers' predicted false-positive rate is 1.7–1.8 ε on average
// against 1.4 ε, and a present key is hidden about twice as often; under
// heavy churn its filter, holding additions and removals together,
// outgrows its bits twice as fast and forces new ribbons, and it sends
// 0.96–1.10 of the Bloom bytes against 1.01–1.03. Replayed end to end
// (bloomcast simulate, 4 and 16 nodes), its deltas are 5–11% smaller but
// it sends 2.7–2.9 times the ribbons on 4 nodes, more bytes in all, and
// on 16 nodes 4% fewer bytes with 12% more false hits. Fewer bytes for
// higher rates is a trade a deployment makes, not a default.
const (
	// StaticAddedRemoved, the default: two Bloom filters, the keys
	// added since the ribbon and the keys removed since (frame kinds 5
	// and 2). A present key is hidden only by the removed filter, an
	// absent one shown only by the added filter.
	StaticAddedRemoved StaticForm = iota
	// StaticXOR: one Bloom filter of the keys the ribbon answers
	// wrongly (frame kinds 6 and 4), without the bit a change that says
	// which of two filters it is in; both rates are the ribbon's plus
	// that filter's share of bits set.
	StaticXOR
)

// filterCount returns how many filters travel beside the ribbon: 2, or
// 1 for StaticXOR.
func (f StaticForm) filterCount() int {
	if f == StaticXOR {
		return 1
	}
	return 2
}

// kinds returns the frame kinds of the form's whole frames and deltas
// as publishers write them.
func (f StaticForm) kinds() (whole, delta byte) {
	if f == StaticXOR {
		return staticKindXORWholeCompact, staticKindXORDelta
	}
	return staticKindWholeCompact, staticKindDelta
}

// kindForm returns the form of frame kind: StaticXOR for kinds 3, 4 and
// 6, else StaticAddedRemoved.
func kindForm(kind byte) StaticForm {
	switch kind {
	case staticKindXORWhole, staticKindXORDelta, staticKindXORWholeCompact:
		return StaticXOR
	}
	return StaticAddedRemoved
}

// String returns "added-removed" or "xor".
func (f StaticForm) String() string {
	switch f {
	case StaticAddedRemoved:
		return "added-removed"
	case StaticXOR:
		return "xor"
	}
	return fmt.Sprintf("StaticForm(%d)", uint8(f))
}

// staticParamsSize is the size of the type-13 parameter block: kind u8,
// 3 reserved bytes, the ribbon frame's CRC-32C u32, the ribbon's
// sequence u64, the previous sequence u64 (deltas; 0 in a whole frame).
const staticParamsSize = 24

// DefaultDeltaShare is StaticConfig.DeltaShare's default.
const DefaultDeltaShare = 1

// ErrStatic: a static delta that does not follow the view (another
// ribbon, or a publication missed). The receiver needs the publisher's
// whole frame ([StaticPublisher.Whole]).
var ErrStatic = errors.New("digest: static delta does not follow the view")

// StaticConfig configures a [StaticPublisher].
// The zero StaticConfig publishes at ribbon.DefaultRate (1/256), seed 0,
// DefaultDeltaShare, deltas coded by [Auto], two filters
// (StaticAddedRemoved).
type StaticConfig struct {
	// Rate is the false-positive rate of the ribbon and of the full
	// added and removed filters, in [2^−32, 1); 0 means
	// ribbon.DefaultRate.
	Rate float64
	// Seed is the hashing seed of every filter; keys are hashed once
	// with it (hashing.SumSeed).
	Seed uint64
	// DeltaShare sizes the added and removed filters for DeltaShare·n
	// keys each, n the ribbon's keys (at least 64): past that many
	// changes the publisher builds a new ribbon. In (0, 1]; 0 means
	// DefaultDeltaShare.
	DeltaShare float64
	// Codec codes the filters and their deltas ([Auto]: the smallest).
	Codec Codec
	// MaxAttempts bounds the ribbon's construction attempts (0:
	// ribbon.DefaultAttempts).
	MaxAttempts int
	// Form is what travels beside the ribbon: StaticAddedRemoved
	// (the zero value; two filters) or StaticXOR (one). Receivers read
	// both.
	Form StaticForm
}

func (c StaticConfig) rate() float64 {
	if c.Rate == 0 {
		return ribbon.DefaultRate
	}
	return c.Rate
}

func (c StaticConfig) share() float64 {
	if c.DeltaShare == 0 {
		return DefaultDeltaShare
	}
	return c.DeltaShare
}

// StaticPublisher publishes a changing set as static digests: each call
// of Publish returns a new ribbon or the added and removed filters'
// deltas, whichever is smaller.
// The zero StaticPublisher is not usable; use NewStaticPublisher. A
// StaticPublisher is not safe for concurrent use.
type StaticPublisher struct {
	cfg     StaticConfig
	base    []hashing.Hash128 // the ribbon's keys, sorted, distinct
	ribbon  []byte            // the ribbon's frame
	static  *ribbon.Filter    // StaticXOR: the ribbon, to query
	fullSeq uint64
	fullCRC uint32
	// published are the filters as last published: the added and
	// removed filters, or StaticXOR's one of the ribbon's wrong answers.
	published []*staticFilter
	seq       uint64
	filterCap float64 // the changes since the ribbon the filters are sized for
	saved     int64   // PublishWithin's bytes saved (Saved)
	made      bool    // by NewStaticPublisher
}

// NewStaticPublisher returns a publisher with configuration c. Errors
// wrap [ErrCodec] for a bad codec and ribbon.ErrConfig for a bad rate,
// share or attempt count.
func NewStaticPublisher(c StaticConfig) (*StaticPublisher, error) {
	if c.Codec > Fast {
		return nil, fmt.Errorf("%w: %v", ErrCodec, c.Codec)
	}
	// The errors wrap ribbon.ErrConfig, as documented, but say they are
	// this package's: the caller called digest, not ribbon.
	if c.Rate != 0 {
		if _, err := ribbon.Size(1, c.Rate); err != nil {
			return nil, fmt.Errorf("digest: static publisher: %w", err)
		}
	}
	if c.MaxAttempts < 0 || !(c.DeltaShare >= 0 && c.DeltaShare <= 1) {
		return nil, fmt.Errorf("digest: static publisher: %w: MaxAttempts = %d, DeltaShare = %g (want ≥ 0, and a share in [0, 1])", ribbon.ErrConfig, c.MaxAttempts, c.DeltaShare)
	}
	if c.Form > StaticXOR {
		return nil, fmt.Errorf("digest: static publisher: %w: Form = %v, want %v or %v", ribbon.ErrConfig, c.Form, StaticAddedRemoved, StaticXOR)
	}
	return &StaticPublisher{cfg: c, made: true}, nil
}

// Publish returns the frame that brings a receiver from the previous
// publication to the set keys (hashed with the configured seed;
// duplicates allowed) at sequence seq, which must exceed the previous
// call's: the filters' deltas, or a whole frame with a new ribbon (or,
// where that is smaller, an empty one beside a filter of the set) when
// the changes since the ribbon outgrow the filters, when the delta would
// not be smaller, and the first time. full says which. keys is not kept.
func (p *StaticPublisher) Publish(seq uint64, keys []hashing.Hash128) (frame []byte, full bool, err error) {
	return p.publish(seq, keys, -1)
}

// PublishWithin is Publish for a publisher held to the bytes of a
// compressed Bloom digest of the same set: bloom is the length of what
// that digest's publisher sends for the same publication (its whole
// frame the first time, then its delta from the previous publication;
// a node's Publisher.Respond gives it). The publisher keeps the bytes
// saved ([StaticPublisher.Saved]: the sum of bloom less the sum of its
// frames) and spends them only on new ribbons: when Publish would build
// one, PublishWithin does so only if the saved bytes and bloom pay for
// it, and sends the delta otherwise, past the filters' size if need be
// (the receivers' rate then rises past 2ε, as FalsePositiveRate says,
// until a ribbon is paid for), but never past twice it: there the
// ribbon is built whatever it costs, so that a receiver's rate stays
// below about 3ε. A publisher should be driven by one of Publish and
// PublishWithin throughout.
//
// So after the first publication the frames sum to no more than the
// Bloom frames while the set keeps its size, save where a delta is
// larger than the Bloom delta of the same change and nothing is saved
// to pay for it: a static delta says, one bit a change, whether a key
// was added or removed, which a Bloom delta need not. That holds of
// StaticAddedRemoved only: a StaticXOR delta flips the bits a Bloom
// delta of one hash function and the same bits would, and says nothing
// more. The first frame is a whole frame: the ribbon's frame inside the
// static frame, and a part of a few bytes a filter (154 or 149 bytes
// besides the ribbon's and the filters' ones), larger than the Bloom
// digest's of the set below about 1 000 keys (k = 2, m/n 31) or 2 000
// (k = 1, m/n 256) by up to those bytes, with or without a ribbon.
//
// The cost is the caller's: coding the Bloom publication, which a Bloom
// digest's publisher does for its peers anyway.
func (p *StaticPublisher) PublishWithin(seq uint64, keys []hashing.Hash128, bloomBytes int) (frame []byte, full bool, err error) {
	if bloomBytes < 0 {
		return nil, false, fmt.Errorf("digest: static publisher: %w: a Bloom publication of %d bytes", ribbon.ErrConfig, bloomBytes)
	}
	return p.publish(seq, keys, bloomBytes)
}

// Saved returns the bytes PublishWithin's frames have saved against the
// Bloom digest's so far: the sum of their bloom less the sum of the
// frames (negative when the frames are larger; 0 under Publish).
func (p *StaticPublisher) Saved() int64 {
	if p == nil {
		return 0
	}
	return p.saved
}

// publish makes the publication of keys at seq; bloomBytes is
// PublishWithin's, or −1 for Publish.
func (p *StaticPublisher) publish(seq uint64, keys []hashing.Hash128, bloomBytes int) (frame []byte, full bool, err error) {
	if p == nil || !p.made {
		return nil, false, fmt.Errorf("%w: zero StaticPublisher; use NewStaticPublisher", ErrEmpty)
	}
	if p.ribbon != nil && seq <= p.seq {
		return nil, false, fmt.Errorf("%w: previous %d, next %d", ErrSequence, p.seq, seq)
	}
	bounded := bloomBytes >= 0
	set := sortedKeys(keys)
	var delta []byte
	var next []*staticFilter
	fits := false // the changes fit the filters: a delta is exact
	if p.ribbon != nil {
		lists := p.changes(diffSorted(p.base, set))
		within := true
		fits = true
		for _, l := range lists {
			fits = fits && float64(len(l)) <= p.capacity()
			within = within && float64(len(l)) <= maxOverflow*p.capacity()
		}
		if fits || (bounded && within) {
			fs := p.filters(seq, lists, p.published[0].geo)
			if delta, next, err = p.delta(seq, fs); err != nil {
				return nil, false, err
			}
			least := p.leastWhole(len(set))
			if fits && len(delta) < least ||
				bounded && int64(least) > p.saved+int64(bloomBytes) {
				// The delta is smaller than any whole frame, or no whole
				// frame could be paid for (below): none is built.
				return p.sent(delta, false, bloomBytes, func() { p.published, p.seq = next, seq })
			}
		}
	}
	w, err := p.smallerWhole(seq, set)
	if err != nil {
		return nil, false, err
	}
	if fits && delta != nil && len(delta) < len(w.frame) {
		// The whole frame came out larger than its least (a ribbon
		// built at its second attempt or more, or no frame without one
		// that a view holds in as little): the delta.
		return p.sent(delta, false, bloomBytes, func() { p.published, p.seq = next, seq })
	}
	if bounded && delta != nil && int64(len(w.frame)) > p.saved+int64(bloomBytes) {
		// The whole frame is not paid for: the delta, past the
		// filters' size or not smaller than the whole frame, until it
		// is.
		return p.sent(delta, false, bloomBytes, func() { p.published, p.seq = next, seq })
	}
	return p.sent(w.frame, true, bloomBytes, func() { p.commitWhole(w, seq) })
}

// commitWhole makes w, a whole frame at seq, the last publication.
func (p *StaticPublisher) commitWhole(w whole, seq uint64) {
	p.ribbon, p.base, p.fullSeq, p.fullCRC, p.seq = w.rf, w.base, seq, w.crc, seq
	if p.cfg.Form == StaticXOR {
		p.static = w.static
	}
	p.published, p.filterCap = w.filters, w.capacity
}

// whole is a whole frame a publisher may send, and what it holds.
type whole struct {
	frame    []byte
	rf       []byte            // the ribbon's frame
	crc      uint32            // its checksum
	static   *ribbon.Filter    // the ribbon
	base     []hashing.Hash128 // its keys
	filters  []*staticFilter
	capacity float64 // the changes since the ribbon the filters are sized for
}

// filterBytes returns the bytes w's filters hold, in the publisher and
// in a view of w alike.
func (w *whole) filterBytes() uint64 {
	n := uint64(0)
	for _, f := range w.filters {
		n += uint64(f.bits.bytes())
	}
	return n
}

// smallerWhole returns the smaller of the two whole frames of set at
// seq: a ribbon of the set beside empty filters, and, where a ribbon of
// set's size is far from its asymptotic size, an empty ribbon beside a
// filter of the whole set (the added filter, or StaticXOR's one, since
// an empty ribbon answers every key wrongly), sized for the set and the
// changes a ribbon's filters are sized for. The second is a compressed
// Bloom digest of one hash function in a static frame, and its removals
// cost no direction bit: the added filter holds the set. The second is
// taken only where a view holds at most an eighth more for it than for
// the first (its filter's ones against the ribbon's least solution), so
// that a receiver's memory, which its limit bounds, does not grow much
// for the bytes it saves. The ribbon is built only when the first could be the
// smaller.
func (p *StaticPublisher) smallerWhole(seq uint64, set []hashing.Hash128) (whole, error) {
	share := max(64, p.cfg.share()*float64(len(set)))
	ribbonLeast := StaticFullSize(uint64(len(set)), p.cfg.rate())
	var best whole
	if p.ribbonless(len(set), ribbonLeast) {
		lists := make([][]hashing.Hash128, p.cfg.Form.filterCount())
		lists[0] = set
		w, err := p.wholeOf(seq, nil, lists, p.ribbonlessCapacity(len(set)))
		if err != nil {
			return whole{}, err
		}
		if rb := ribbonSolutionBytes(ribbonLeast); w.filterBytes() <= rb+rb/8 {
			if len(w.frame) <= ribbonLeast {
				return w, nil // no frame with a ribbon of set is as small
			}
			best = w
		}
	}
	w, err := p.wholeOf(seq, set, make([][]hashing.Hash128, p.cfg.Form.filterCount()), share)
	if err != nil {
		return whole{}, err
	}
	if best.frame != nil && len(best.frame) <= len(w.frame) {
		return best, nil
	}
	return w, nil
}

// ribbonless reports whether a whole frame of n keys without a ribbon
// could be smaller than one with: whether its filter's ones, at their
// entropy and a bit a key besides (a gap code costs about 1.44 more;
// Mitzenmacher 2002), cost less than ribbonLeast, the least whole frame
// with a ribbon (StaticFullSize). With many keys a ribbon costs about 1.05·log2(1/ε)
// bits a key (package ribbon) and the filter at least log2(1/ε) + 2, so
// this holds only for small sets. Whether a view would hold no more for
// it is known only once its filter is built (smallerWhole).
func (p *StaticPublisher) ribbonless(n, ribbonLeast int) bool {
	return n > 0 && float64(staticWholeOverhead)+(p.ribbonlessBits(n)+float64(n))/8 < float64(ribbonLeast)
}

// ribbonSolutionBytes returns the bytes of the solution of the ribbon of
// a whole frame of least bytes (StaticFullSize): what a view of it holds
// besides its filters; 0 where no ribbon is (least MaxInt).
func ribbonSolutionBytes(least int) uint64 {
	if least == math.MaxInt {
		return 0
	}
	return uint64(least - staticRibbonFrameBytes)
}

// ribbonlessBits returns the entropy of the ones of the filter of a
// whole frame of n keys without a ribbon, n·log2(m/n): the least its
// coding costs.
func (p *StaticPublisher) ribbonlessBits(n int) float64 {
	if n == 0 {
		return 0
	}
	m := filterBits(p.ribbonlessCapacity(n), p.cfg.rate())
	return float64(n) * math.Log2(float64(m)/float64(n))
}

// ribbonlessCapacity returns the keys the filter of a whole frame of n
// keys without a ribbon is sized for: the set, and the changes a
// ribbon's filters would be sized for.
func (p *StaticPublisher) ribbonlessCapacity(n int) float64 {
	return max(64, p.cfg.share()*float64(n)) + float64(n)
}

// leastWhole returns the least length of a whole frame of n keys: that of
// one with a ribbon (StaticFullSize), or, where one without could be
// smaller, the lesser of that and the least of one without.
func (p *StaticPublisher) leastWhole(n int) int {
	least := StaticFullSize(uint64(n), p.cfg.rate())
	if p.ribbonless(n, least) {
		least = min(least, staticWholeOverhead+int(p.ribbonlessBits(n)/8))
	}
	return least
}

// staticWholeOverhead is the bytes of a whole frame of kind 5 besides
// its ribbon's solution and its filters' ones: the type-13 frame, the
// ribbon's frame and two parts.
const staticWholeOverhead = 154

// wholeOf returns the whole frame at seq of a ribbon of base and
// filters of lists, sized for capacity changes.
func (p *StaticPublisher) wholeOf(seq uint64, base []hashing.Hash128, lists [][]hashing.Hash128, capacity float64) (whole, error) {
	f, err := ribbon.BuildHashes(ribbon.Config{Rate: p.cfg.rate(), Seed: p.cfg.Seed, MaxAttempts: p.cfg.MaxAttempts}, base)
	if err != nil {
		return whole{}, fmt.Errorf("digest: static full digest: %w", err)
	}
	rf, err := f.AppendBinary(nil)
	if err != nil {
		return whole{}, err
	}
	geo, err := bloom.NewGeometry(params.Shape{Layout: bloom.Classic, M: filterBits(capacity, p.cfg.rate()), K: 1}, p.cfg.Seed, nil)
	if err != nil {
		return whole{}, fmt.Errorf("digest: static delta filter: %w", err)
	}
	w := whole{rf: rf, crc: envelope.Checksum(rf), static: f, base: base, capacity: capacity,
		filters: p.filters(seq, lists, geo)}
	w.frame, err = p.wholeFrame(rf, w.crc, seq, seq, w.filters)
	return w, err
}

// sent commits a publication: it runs commit and counts the bytes
// saved against bloom (unless −1).
func (p *StaticPublisher) sent(frame []byte, full bool, bloomBytes int, commit func()) ([]byte, bool, error) {
	commit()
	if bloomBytes >= 0 {
		p.saved += int64(bloomBytes) - int64(len(frame))
	}
	return frame, full, nil
}

// MemoryBytes returns the bytes the publisher holds between
// publications: the ribbon's keys (16 bytes each) and frame (and, for
// StaticXOR, its solution again, to query), and the filters as last
// published, held as the positions of their ones (about 2 + log2(m/n)
// bits a one: see sparseBits; 0 before the first publication).
func (p *StaticPublisher) MemoryBytes() int {
	if p == nil || p.ribbon == nil {
		return 0
	}
	n := 16*len(p.base) + len(p.ribbon)
	if p.static != nil {
		n += int(p.static.SizeBits() / 8)
	}
	for _, f := range p.published {
		n += f.bits.bytes()
	}
	return n
}

// changes returns the keys of each filter of the publisher's form, given
// the keys added and removed since the ribbon (sorted, distinct): the
// two lists, or for StaticXOR the keys the ribbon answers wrongly, in
// one list: the added keys it answers absent and every removed key (it
// has no false negatives). An added key the ribbon answers present, a
// false positive of the ribbon, stays out: in the filter, XOR would
// report it absent.
func (p *StaticPublisher) changes(added, removed []hashing.Hash128) [][]hashing.Hash128 {
	if p.cfg.Form != StaticXOR {
		return [][]hashing.Hash128{added, removed}
	}
	wrong := removed
	for _, h := range added {
		if !p.static.ContainsHash(h) {
			wrong = append(wrong, h)
		}
	}
	return [][]hashing.Hash128{wrong}
}

// capacity is the changes since the ribbon the filters are sized for.
func (p *StaticPublisher) capacity() float64 { return p.filterCap }

// maxOverflow bounds how far PublishWithin lets the added and removed
// filters run past their capacity while a new ribbon is not paid for:
// at twice it a filter's rate is about 2ε, so a receiver's is at most
// about 3ε (the ribbon's ε besides); past it the ribbon is built, bytes
// or not.
const maxOverflow = 2

// filterBits is m for a filter of one hash function holding n keys at
// rate p: n/−ln(1 − p), since with k = 1 the rate is 1 − e^(−n/m).
func filterBits(n, p float64) uint64 {
	return max(64, uint64(math.Ceil(n/-math.Log1p(-p))))
}

// filters returns the filters of geometry geo at sequence seq of the
// key lists (as changes returns them): the bits of the keys, held as
// their positions.
func (p *StaticPublisher) filters(seq uint64, lists [][]hashing.Hash128, geo bloom.Geometry) []*staticFilter {
	fs := make([]*staticFilter, len(lists))
	for i, keys := range lists {
		f := &staticFilter{geo: geo, count: uint64(len(keys)), seq: seq}
		pos := make([]uint64, len(keys))
		for j, h := range keys {
			pos[j] = f.position(h)
		}
		slices.Sort(pos)
		f.bits = newSparseBits(geo.M(), slices.Compact(pos))
		fs[i] = f
	}
	return fs
}

// diffSorted returns the keys of set not in base and those of base not
// in set; both are sorted and distinct.
func diffSorted(base, set []hashing.Hash128) (added, removed []hashing.Hash128) {
	i, j := 0, 0
	for i < len(base) || j < len(set) {
		switch {
		case j == len(set) || i < len(base) && compareHash(base[i], set[j]) < 0:
			removed = append(removed, base[i])
			i++
		case i == len(base) || compareHash(base[i], set[j]) > 0:
			added = append(added, set[j])
			j++
		default:
			i++
			j++
		}
	}
	return added, removed
}

// delta returns the delta frame from the published filters to fs (in
// the order of published), and the filters the receiver will hold: a
// filter whose bits did not change is left out of the frame and kept as
// it was. Each part is the
// XOR's payload as a type-5 delta codes it (appendXORPayload), without
// the type-5 frame around it (docs/FORMAT.md): the outer frame already
// names the version it follows and checks the bytes.
func (p *StaticPublisher) delta(seq uint64, fs []*staticFilter) ([]byte, []*staticFilter, error) {
	var body []byte
	var parts byte
	next := slices.Clone(p.published)
	for i, d := range fs {
		old := next[i].bits.appendPositions(nil)
		xor, err := xorSorted(old, d.bits.appendPositions(make([]uint64, 0, d.bits.ones())), math.MaxUint64)
		if err != nil {
			return nil, nil, err
		}
		if len(xor) == 0 {
			continue
		}
		if body, err = appendStaticPart(body, d.count, xor, d.bits.m, p.cfg.Codec); err != nil {
			return nil, nil, err
		}
		parts |= 1 << i
		next[i] = d
	}
	_, kind := p.cfg.Form.kinds()
	h := staticHeader(kind, p.cfg.Seed, seq, p.fullCRC, p.fullSeq, p.seq)
	h.Params[1] = parts
	frame, err := appendFrame(nil, &h, body)
	return frame, next, err
}

// appendStaticPart appends a static delta's part (docs/FORMAT.md, kind
// 2): the codec, the filter's key count, and the XOR of an m-bit array,
// the positions xor, coded (with its length) by c.
func appendStaticPart(dst []byte, count uint64, xor []uint64, m uint64, c Codec) ([]byte, error) {
	dst = append(dst, 0) // the codec, once coded
	at := len(dst) - 1
	dst = binary.AppendUvarint(dst, count)
	dst, codec, err := appendXORPayload(dst, xor, m, c)
	if err != nil {
		return nil, err
	}
	dst[at] = byte(codec)
	return dst, nil
}

// Whole returns the whole frame of the last publication: the ribbon and
// the filters as they are, for a receiver that has no view or missed
// a delta (nil before the first publication).
func (p *StaticPublisher) Whole() ([]byte, error) {
	if p == nil || p.ribbon == nil {
		return nil, nil
	}
	return p.wholeFrame(p.ribbon, p.fullCRC, p.fullSeq, p.seq, p.published)
}

// wholeFrame returns the whole frame at seq of the ribbon frame rf
// (checksum crc, built at fullSeq) and the filters fs (in the order of
// published).
func (p *StaticPublisher) wholeFrame(rf []byte, crc uint32, fullSeq, seq uint64, fs []*staticFilter) ([]byte, error) {
	body := slices.Clone(rf)
	var err error
	for _, f := range fs {
		if body, err = f.appendCompact(body, fullSeq, p.cfg.Codec); err != nil {
			return nil, err
		}
	}
	kind, _ := p.cfg.Form.kinds()
	h := staticHeader(kind, p.cfg.Seed, seq, crc, fullSeq, 0)
	return appendFrame(nil, &h, body)
}

// StaticFullSize returns the least length of a whole static digest of n
// keys at rate p: the type-13 frame around a ribbon frame of the shape
// ribbon.Size gives, without the filters' parts (MaxInt for a rate it
// refuses).
func StaticFullSize(n uint64, p float64) int {
	s, err := ribbon.Size(n, p)
	if err != nil {
		return math.MaxInt
	}
	return staticRibbonFrameBytes + int(s.SizeBits()/8)
}

// staticRibbonFrameBytes is the bytes of a whole static frame besides its
// ribbon's solution and its filters' parts: the type-13 frame and the
// ribbon's frame around the solution.
const staticRibbonFrameBytes = 2*(envelope.HeaderSize+envelope.TrailerSize) + staticParamsSize + 40

// sortedKeys returns the distinct hashes of keys, sorted.
func sortedKeys(keys []hashing.Hash128) []hashing.Hash128 {
	s := slices.Clone(keys)
	slices.SortFunc(s, compareHash)
	return slices.Compact(s)
}

func compareHash(a, b hashing.Hash128) int {
	if c := cmp.Compare(a.Hi, b.Hi); c != 0 {
		return c
	}
	return cmp.Compare(a.Lo, b.Lo)
}

func staticHeader(kind byte, seed, seq uint64, crc uint32, fullSeq, prevSeq uint64) envelope.Header {
	b := make([]byte, staticParamsSize)
	b[0] = kind
	binary.LittleEndian.PutUint32(b[4:], crc)
	binary.LittleEndian.PutUint64(b[8:], fullSeq)
	binary.LittleEndian.PutUint64(b[16:], prevSeq)
	return envelope.Header{Type: envelope.TypeStatic, Codec: envelope.CodecRaw, Scheme: uint8(hashing.XXH3),
		Seed: seed, Sequence: seq, Params: b}
}

// StaticView is a receiver's copy of a peer's static digest. A view does
// not change: Apply returns a new one, so queries may run while the next
// is made.
// The zero StaticView holds nothing: it reports every key absent and
// accepts only a whole frame.
type StaticView struct {
	seq, fullSeq   uint64
	fullCRC        uint32
	static         *ribbon.Filter
	added, removed *staticFilter // kinds 5, 1 and 2; held as their ones: see sparseBits
	flip           *staticFilter // kinds 6, 3 and 4: the ribbon's wrong answers
}

// parts returns the view's filters: the added and removed filters, or
// the one of the ribbon's wrong answers.
func (v *StaticView) parts() []*staticFilter {
	if v.flip != nil {
		return []*staticFilter{v.flip}
	}
	return []*staticFilter{v.added, v.removed}
}

// partSlots returns pointers to the view's filters, as parts returns
// them, and their names.
func (v *StaticView) partSlots() ([]**staticFilter, []string) {
	if v.flip != nil {
		return []**staticFilter{&v.flip}, []string{"XOR"}
	}
	return []**staticFilter{&v.added, &v.removed}, []string{"added", "removed"}
}

// Apply returns the view after the static digest frame: a whole frame
// replaces everything; a delta must follow the view's last frame, name
// its ribbon and be of its form (a delta of one filter on a view of two,
// or the reverse; else [ErrStatic]: apply the publisher's whole frame).
// A frame whose sequence does not exceed the view's is refused with
// [ErrSequence]. Errors wrap [ErrCorrupt] for a frame that does not
// decode, [ErrTooLarge] past lim, and the envelope's errors; v is
// unchanged.
func (v *StaticView) Apply(frame []byte, lim envelope.Limits) (*StaticView, error) {
	h, body, err := envelope.Parse(frame, lim)
	if err != nil {
		return nil, fmt.Errorf("digest: %w", err)
	}
	w, prev, err := staticFromFrame(h, body, lim)
	if err != nil {
		return nil, err
	}
	if v != nil && v.static != nil && w.seq <= v.seq {
		return nil, fmt.Errorf("%w: held %d, frame %d", ErrSequence, v.seq, w.seq)
	}
	if w.static != nil {
		return w, nil
	}
	switch {
	case v == nil || v.static == nil:
		return nil, fmt.Errorf("%w: a delta, and no whole frame held", ErrStatic)
	case w.fullSeq != v.fullSeq || w.fullCRC != v.fullCRC:
		return nil, fmt.Errorf("%w: the delta's ribbon is %d (CRC %08x), the view's %d (CRC %08x)", ErrStatic, w.fullSeq, w.fullCRC, v.fullSeq, v.fullCRC)
	case prev != v.seq:
		return nil, fmt.Errorf("%w: the delta follows %d, the view is at %d", ErrStatic, prev, v.seq)
	case kindForm(h.Params[0]) != v.Form():
		return nil, fmt.Errorf("%w: a delta of kind %d on a view of %d filters", ErrStatic, h.Params[0], len(v.parts()))
	}
	present := h.Params[1]
	next := *v
	next.seq = w.seq
	ones, maxBits := staticLimits(v.static, lim)
	slots, names := next.partSlots()
	for i, f := range slots {
		if present&(1<<i) == 0 {
			continue
		}
		var others uint64
		for j, g := range slots {
			if j != i {
				others += (*g).bits.ones()
			}
		}
		if *f, body, err = applyStaticPart(*f, body, w.seq, ones-min(ones, others), maxBits); err != nil {
			return nil, fmt.Errorf("%s filter: %w", names[i], err)
		}
	}
	if len(body) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the static delta's parts", ErrCorrupt, len(body))
	}
	if held := uint64(next.MemoryBytes()); held > lim.Payload() {
		return nil, fmt.Errorf("%w: a static digest holding %d bytes (limit %d)", ErrTooLarge, held, lim.Payload())
	}
	return &next, nil
}

// applyStaticPart reads one part of a static delta from body (codec,
// key count, length, the XOR's payload) and returns base with the XOR
// applied, in a new filter of at most ones ones (else ErrTooLarge), and
// the rest of body.
func applyStaticPart(base *staticFilter, body []byte, seq, ones, maxBits uint64) (*staticFilter, []byte, error) {
	if len(body) < 1 {
		return nil, nil, fmt.Errorf("%w: a static delta part cut short", ErrCorrupt)
	}
	codec := envelope.Codec(body[0])
	count, n := binary.Uvarint(body[1:])
	if n <= 0 {
		return nil, nil, fmt.Errorf("%w: a static delta part's key count", ErrCorrupt)
	}
	body = body[1+n:]
	size, n := binary.Uvarint(body)
	if n <= 0 || size > uint64(len(body)-n) {
		return nil, nil, fmt.Errorf("%w: a static delta part's length", ErrCorrupt)
	}
	xor, rest := body[n:n+int(size)], body[n+int(size):]
	switch codec {
	case envelope.CodecRaw, envelope.CodecArith, envelope.CodecFast, envelope.CodecGaps:
	default:
		return nil, nil, fmt.Errorf("%w: a static delta part of codec %v", ErrCorrupt, codec)
	}
	next, err := base.patch(codec, xor, seq, count, ones, maxBits)
	if err != nil {
		return nil, nil, err
	}
	return next, rest, nil
}

// staticParts splits body into n whole frames.
func staticParts(body []byte, lim envelope.Limits, n int) ([][]byte, error) {
	parts := make([][]byte, 0, n)
	for range n {
		_, _, size, err := envelope.ParsePrefix(body, lim)
		if err != nil {
			return nil, fmt.Errorf("%w: part %d: %w", ErrCorrupt, len(parts), err)
		}
		parts = append(parts, body[:size])
		body = body[size:]
	}
	if len(body) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the static digest's parts", ErrCorrupt, len(body))
	}
	return parts, nil
}

// staticFromFrame decodes a type-13 frame's header and, for a whole
// frame, its parts; it returns the view and, for a delta, the sequence it
// follows.
func staticFromFrame(h envelope.Header, body []byte, lim envelope.Limits) (*StaticView, uint64, error) {
	switch {
	case h.Type != envelope.TypeStatic:
		return nil, 0, fmt.Errorf("%w: a frame of type %v, not a static digest", ErrCorrupt, h.Type)
	case h.Codec != envelope.CodecRaw:
		return nil, 0, fmt.Errorf("%w: static digest of codec %v (want raw: its parts carry their own)", ErrCodec, h.Codec)
	case h.Scheme != uint8(hashing.XXH3):
		return nil, 0, fmt.Errorf("%w: static digest of hashing scheme %d (want %d, XXH3)", ErrCorrupt, h.Scheme, hashing.XXH3)
	case len(h.Params) != staticParamsSize:
		return nil, 0, fmt.Errorf("%w: static digest parameters of %d bytes, want %d", ErrCorrupt, len(h.Params), staticParamsSize)
	case h.Params[2] != 0 || h.Params[3] != 0 || h.Params[1]&^3 != 0 ||
		staticWhole(h.Params[0]) && h.Params[1] != 0 ||
		h.Params[0] == staticKindXORDelta && h.Params[1]&^1 != 0:
		return nil, 0, fmt.Errorf("%w: static digest reserved bits not zero", ErrCorrupt)
	}
	v := &StaticView{seq: h.Sequence, fullCRC: binary.LittleEndian.Uint32(h.Params[4:]), fullSeq: binary.LittleEndian.Uint64(h.Params[8:])}
	prev := binary.LittleEndian.Uint64(h.Params[16:])
	switch kind := h.Params[0]; {
	case staticWhole(kind):
		if v.fullSeq > v.seq || prev != 0 {
			return nil, 0, fmt.Errorf("%w: whole frame of sequence %d names ribbon %d and previous %d", ErrCorrupt, v.seq, v.fullSeq, prev)
		}
		if err := v.decodeWhole(h, body, lim); err != nil {
			return nil, 0, err
		}
		return v, 0, nil
	case kind == staticKindDelta || kind == staticKindXORDelta:
		if v.fullSeq > prev || prev >= v.seq {
			return nil, 0, fmt.Errorf("%w: delta of sequence %d after %d on ribbon %d", ErrCorrupt, v.seq, prev, v.fullSeq)
		}
		return v, prev, nil
	}
	return nil, 0, fmt.Errorf("%w: static digest kind %d (want 1, 3, 5 or 6 whole, 2 or 4 delta)", ErrCorrupt, h.Params[0])
}

// decodeWhole decodes a whole frame's payload into v, whose sequences
// and ribbon checksum are the frame header's: the ribbon frame, then the
// filters, as frames (kinds 1 and 3) or as parts (kinds 5 and 6).
func (v *StaticView) decodeWhole(h envelope.Header, body []byte, lim envelope.Limits) error {
	kind := h.Params[0]
	compact := kind == staticKindWholeCompact || kind == staticKindXORWholeCompact
	nf := kindForm(kind).filterCount()
	var frames [][]byte
	if compact {
		_, _, size, err := envelope.ParsePrefix(body, lim)
		if err != nil {
			return fmt.Errorf("%w: the ribbon: %w", ErrCorrupt, err)
		}
		frames = [][]byte{body[:size]}
		body = body[size:]
	} else {
		var err error
		if frames, err = staticParts(body, lim, 1+nf); err != nil {
			return err
		}
		body = nil // staticParts took it whole
	}
	f, err := v.decodeRibbon(frames[0], h.Seed, lim)
	if err != nil {
		return err
	}
	ones, maxBits := staticLimits(f, lim)
	fs := make([]*staticFilter, nf)
	for i := range fs {
		var d *staticFilter
		if compact {
			d, body, err = decodeCompactFilter(body, h.Seed, v.fullSeq, ones, maxBits)
		} else {
			d, err = decodeStaticFilter(frames[1+i], lim, h.Seed, ones, maxBits)
		}
		if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrCorrupt) {
			return fmt.Errorf("filter %d: %w", i, err)
		}
		if err != nil {
			return fmt.Errorf("%w: filter %d: %w", ErrCorrupt, i, err)
		}
		if d.seq > h.Sequence || d.seq < v.fullSeq {
			return fmt.Errorf("%w: filter %d is not a Bloom filter of one hash function, the frame's seed, and a sequence from the ribbon's to the frame's", ErrCorrupt, i)
		}
		ones -= d.bits.ones()
		fs[i] = d
	}
	if len(body) != 0 {
		return fmt.Errorf("%w: %d bytes after the static digest's parts", ErrCorrupt, len(body))
	}
	v.static = f
	if nf == 1 {
		v.flip = fs[0]
	} else {
		if fs[0].geo.Shape() != fs[1].geo.Shape() || fs[0].geo.Scheme().ID() != fs[1].geo.Scheme().ID() {
			return fmt.Errorf("%w: the added and removed filters differ in shape", ErrCorrupt)
		}
		v.added, v.removed = fs[0], fs[1]
	}
	if held := uint64(v.MemoryBytes()); held > lim.Payload() {
		return fmt.Errorf("%w: a static digest holding %d bytes (limit %d)", ErrTooLarge, held, lim.Payload())
	}
	return nil
}

// decodeRibbon decodes a whole frame's ribbon frame rf, which must be
// the one the header's checksum names, of the frame's seed.
func (v *StaticView) decodeRibbon(rf []byte, seed uint64, lim envelope.Limits) (*ribbon.Filter, error) {
	if crc := envelope.Checksum(rf); crc != v.fullCRC {
		return nil, fmt.Errorf("%w: ribbon frame CRC %08x, header says %08x", ErrCorrupt, crc, v.fullCRC)
	}
	f, err := ribbon.Decode(rf, lim)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if f.Seed() != seed {
		return nil, fmt.Errorf("%w: ribbon seed %#x in a frame of seed %#x", ErrCorrupt, f.Seed(), seed)
	}
	return f, nil
}

// ContainsHash reports whether the key hashed to h (with the view's seed)
// may be in the peer's set: in the ribbon or the added filter, and not
// in the removed filter; or, for a view of one filter (kinds 6, 3, 4),
// in exactly one of the ribbon and that filter. It allocates nothing.
func (v *StaticView) ContainsHash(h hashing.Hash128) bool {
	if v == nil || v.static == nil {
		return false
	}
	if v.flip != nil {
		return v.static.ContainsHash(h) != v.flip.containsHash(h)
	}
	return (v.static.ContainsHash(h) || v.added.containsHash(h)) && !v.removed.containsHash(h)
}

// Contains is ContainsHash for a key.
func (v *StaticView) Contains(key []byte) bool {
	if v == nil || v.static == nil {
		return false
	}
	return v.ContainsHash(hashing.SumSeed(key, v.static.Seed()))
}

// ContainsString is Contains for a string key.
func (v *StaticView) ContainsString(key string) bool {
	if v == nil || v.static == nil {
		return false
	}
	return v.ContainsHash(hashing.SumStringSeed(key, v.static.Seed()))
}

// Sequence returns the sequence of the last frame applied (0 for the
// zero view).
func (v *StaticView) Sequence() uint64 {
	if v == nil {
		return 0
	}
	return v.seq
}

// Base returns the sequence of the view's full digest (0 for none).
func (v *StaticView) Base() uint64 {
	if v == nil || v.static == nil {
		return 0
	}
	return v.fullSeq
}

// FalsePositiveRate returns the view's predicted false-positive rate:
// the ribbon's plus the added filter's (an upper bound; the removed
// filter only lowers it), or for a view of one filter the ribbon's plus
// that filter's, the share of its bits set (an upper bound: an absent
// key is reported present when exactly one of them holds it). A present
// key is reported absent with the removed filter's rate, or the one
// filter's.
func (v *StaticView) FalsePositiveRate() float64 {
	if v == nil || v.static == nil {
		return 0
	}
	return min(1, v.static.FalsePositiveRate()+v.parts()[0].fill())
}

// Sizes returns the keys the ribbon holds and the bits of each filter
// beside it (0s for the zero view), as they travel: the view holds only
// their bits set (MemoryBytes).
func (v *StaticView) Sizes() (ribbonKeys, filterBits uint64) {
	if v == nil || v.static == nil {
		return 0, 0
	}
	return v.static.Len(), v.parts()[0].bits.m
}

// Form returns the form of the frames the view was read from:
// StaticXOR for kinds 6, 3 and 4, else StaticAddedRemoved (also for the
// zero view).
func (v *StaticView) Form() StaticForm {
	if v == nil || v.flip == nil {
		return StaticAddedRemoved
	}
	return StaticXOR
}

// Seed returns the hashing seed of the view's filters (0 for none).
func (v *StaticView) Seed() uint64 {
	if v == nil || v.static == nil {
		return 0
	}
	return v.static.Seed()
}

// MemoryBytes returns the bytes the view's filters hold: the ribbon's
// solution and the filters beside it, held as the positions of
// their ones (about 2 + log2(m/n) bits a one: see sparseBits; nothing
// for an empty filter, and 0 for the zero view). A new ribbon's filters are empty, so a view holds
// about the ribbon plus 16 bytes a key changed since.
func (v *StaticView) MemoryBytes() int {
	if v == nil || v.static == nil {
		return 0
	}
	n := int(v.static.SizeBits() / 8)
	for _, f := range v.parts() {
		n += f.bits.bytes()
	}
	return n
}
