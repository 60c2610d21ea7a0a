package digest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/envelope"
)

// Patcher applies deltas to a decoded Bloom or counting filter digest in
// place: a receiver that holds a peer's digest and applies each delta the
// peer sends. Where [Patch] copies the base and checksums it for every delta,
// Patcher keeps the base's checksum and updates it from the words a delta
// changes (CRC-32C is affine, see crc.go), so that a gap-coded delta
// costs time and memory proportional to the bits it changes. A raw
// delta is read where it lies in the frame, one pass over it and memory
// for the words it changes; a dense arith or fast one still decodes to a
// whole XOR.
//
// Patch calls must not overlap. Readers of the digest's filter may run
// meanwhile if they hold the lock Patch is given while they read: Patch
// decodes and checks the whole delta first and changes the words only
// under that lock, so that a reader sees the version before or after.
// The zero value is not usable: [NewPatcher] makes one; Patch then
// returns an error wrapping [ErrEmpty].
type Patcher struct {
	d   *Digest
	crc uint32
}

// NewPatcher returns a Patcher of d, a Bloom or counting filter digest,
// which it then owns: its filter's words are changed in place by Patch.
// It computes d's checksum once.
func NewPatcher(d *Digest) (*Patcher, error) {
	if d == nil || (d.Bloom == nil) == (d.Counting == nil) || d.Scalable != nil {
		return nil, fmt.Errorf("%w: a Patcher holds a Bloom or counting filter digest", ErrBase)
	}
	if d.Bloom != nil && d.Bloom.ReadOnly() {
		return nil, fmt.Errorf("%w: a Patcher changes its filter, and this one is a read-only view", ErrBase)
	}
	crc, err := Checksum(d)
	if err != nil {
		return nil, err
	}
	return &Patcher{d: d, crc: crc}, nil
}

// Digest returns the digest as last patched. Its Bloom field is replaced
// by each Patch (a filter over the same words, with the delta's count);
// its Counting field stays the same filter, patched.
func (p *Patcher) Digest() *Digest {
	if p == nil {
		return nil
	}
	return p.d
}

// Checksum returns the digest's checksum, as [Checksum] computes it.
func (p *Patcher) Checksum() uint32 {
	if p == nil {
		return 0
	}
	return p.crc
}

// Patch applies a delta digest (see [Patch]) to the digest in place; the
// base must be its version (sequence and checksum), else the error wraps
// [ErrBase]. lim bounds the frame and the XOR it decodes to. The words
// are changed, and the digest's Sequence, Codec and Bloom replaced, with
// lock held (nil: no lock). On any error the digest is unchanged.
func (p *Patcher) Patch(delta []byte, lim envelope.Limits, lock sync.Locker) error {
	if p == nil || p.d == nil {
		return fmt.Errorf("%w: zero Patcher", ErrEmpty)
	}
	dh, body, err := ParseDelta(delta, lim)
	if err != nil {
		return err
	}
	d := p.d
	want := envelope.TypeBloom
	if d.Counting != nil {
		want = envelope.TypeCounting
	}
	switch {
	case dh.BaseSequence != d.Sequence:
		return fmt.Errorf("%w: the delta is from sequence %d, the base is %d", ErrBase, dh.BaseSequence, d.Sequence)
	case dh.Target != want:
		return fmt.Errorf("%w: the delta updates a %v, the base is a %v", ErrBase, dh.Target, want)
	case dh.BaseChecksum != p.crc:
		return fmt.Errorf("%w: base checksum %08x, the delta expects %08x", ErrBase, p.crc, dh.BaseChecksum)
	}
	if d.Counting != nil {
		return p.patchCounting(dh, body, lim, lock)
	}
	f := d.Bloom
	shape, err := bloom.FrameShape(dh.Header)
	if err != nil || shape != f.Shape() || dh.Header.Seed != f.Seed() || dh.Header.Scheme != uint8(f.Scheme().ID()) {
		return fmt.Errorf("%w: the delta's shape, seed or scheme differs from the base's", ErrBase)
	}
	words := f.Words()
	// The result's filter over the same words: checks the target header
	// and reads its count; the words are not changed yet.
	next, err := bloom.FromWords(dh.Header, words)
	if err != nil {
		return err
	}
	changes, err := deltaChanges(dh.Codec, body, shape.M, lim)
	if err != nil {
		return err
	}
	crc := patchedChecksum(p.crc, uint64(len(words)), changes)
	if lock != nil {
		lock.Lock()
		defer lock.Unlock()
	}
	for _, c := range changes {
		words[c.Index] ^= c.XOR
	}
	d.Sequence, d.Codec, d.Bloom = dh.Sequence, dh.Codec, next
	p.crc = crc
	return nil
}

// patchCounting is Patch for a counting filter digest: the delta's
// payload is the XOR of the counter words.
func (p *Patcher) patchCounting(dh DeltaHeader, body []byte, lim envelope.Limits, lock sync.Locker) error {
	f := p.d.Counting
	if _, width, err := counting.PayloadCounters(dh.Header); err != nil || width != uint(f.Width()) {
		return fmt.Errorf("%w: the delta's counters differ from the base's", ErrBase)
	}
	changes, err := deltaChanges(dh.Codec, body, f.M()*uint64(f.Width()), lim)
	if err != nil {
		return err
	}
	crc := patchedChecksum(p.crc, uint64(len(f.Counters())), changes)
	if lock != nil {
		lock.Lock()
		defer lock.Unlock()
	}
	// PatchWords checks everything before it changes a word.
	if err := f.PatchWords(dh.Header, changes); err != nil {
		if errors.Is(err, counting.ErrIncompatible) {
			err = fmt.Errorf("%w: %w", ErrBase, err)
		}
		return err
	}
	p.d.Sequence, p.d.Codec = dh.Sequence, dh.Codec
	p.crc = crc
	return nil
}

// deltaChanges decodes a delta's payload of m bits into the words it
// changes, in order: for a gap-coded payload, in time proportional to its
// ones.
func deltaChanges(codec envelope.Codec, body []byte, m uint64, lim envelope.Limits) ([]wordChange, error) {
	if codec == envelope.CodecRaw {
		return rawChanges(body, m, lim)
	}
	if codec != envelope.CodecGaps {
		xor, err := decodeXOR(codec, body, m, lim, nil, nil)
		if err != nil {
			return nil, err
		}
		if tail := m % 64; tail != 0 && len(xor) > 0 && xor[len(xor)-1]>>tail != 0 {
			return nil, fmt.Errorf("%w: bits set past bit %d", ErrCorrupt, m)
		}
		var changes []wordChange
		for i, w := range xor {
			if w != 0 {
				changes = append(changes, wordChange{Index: uint64(i), XOR: w})
			}
		}
		return changes, nil
	}
	r, err := entropy.NewGapReader(body, m)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	changes := make([]wordChange, 0, min(r.Ones(), uint64(len(body))*8))
	for {
		pos, ok, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if !ok {
			break
		}
		i, bit := pos/64, uint64(1)<<(pos%64)
		if n := len(changes); n > 0 && changes[n-1].Index == i {
			changes[n-1].XOR |= bit
		} else {
			changes = append(changes, wordChange{Index: i, XOR: bit})
		}
	}
	if err := r.Close(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return changes, nil
}

// rawChanges reads a raw delta's words where they lie in the frame and
// keeps the ones that change anything: one pass over the body, and
// memory for the changed words only.
func rawChanges(body []byte, m uint64, lim envelope.Limits) ([]wordChange, error) {
	nw := m/64 + min(m%64, 1)
	if nw > math.MaxInt/8 || 8*nw > lim.Payload() {
		return nil, fmt.Errorf("%w: %d bits (limit %d bytes)", ErrTooLarge, m, lim.Payload())
	}
	if uint64(len(body)) != 8*nw {
		return nil, fmt.Errorf("%w: raw payload of %d bytes, %d bits need %d", ErrCorrupt, len(body), m, 8*nw)
	}
	var changes []wordChange
	for i := range nw {
		if w := binary.LittleEndian.Uint64(body[8*i:]); w != 0 {
			changes = append(changes, wordChange{Index: i, XOR: w})
		}
	}
	if tail := m % 64; tail != 0 && nw > 0 && binary.LittleEndian.Uint64(body[8*(nw-1):])>>tail != 0 {
		return nil, fmt.Errorf("%w: bits set past bit %d", ErrCorrupt, m)
	}
	return changes, nil
}
