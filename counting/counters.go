package counting

// Counters are packed little-endian into 64-bit words: counter b occupies
// bits [b·w, b·w+w) of the array, which is word b/(64/w), shift
// (b mod 64/w)·w. Widths are powers of two that divide 64, so a counter
// never straddles two words and every index is a shift and a mask.

// locate returns the word index and shift of counter b.
func (f *Filter) locate(b uint64) (uint64, uint64) {
	return b >> f.perShift, (b & f.perMask) << f.wShift
}

// get returns counter b.
func (f *Filter) get(b uint64) uint64 {
	i, sh := f.locate(b)
	return f.counters[i] >> sh & f.max
}

// increment adds one to counter b, saturating: a counter at max stays
// there. A counter leaving 0 turns its bit on (if there is a view); one
// reaching max becomes sticky and is counted.
func (f *Filter) increment(b uint64) {
	i, sh := f.locate(b)
	w := &f.counters[i]
	switch c := *w >> sh & f.max; c {
	case f.max:
		return
	case 0:
		f.flip(b)
	case f.max - 1:
		f.sat++
	}
	*w += 1 << sh
}

// setBit turns bit b of the view on if it is off. Without a view it does
// nothing.
func (f *Filter) setBit(b uint64) {
	if f.bits != nil && f.bits[b>>6]&(1<<(b&63)) == 0 {
		f.flip(b)
	}
}

// clearBit turns bit b of the view off if it is on. Without a view it does
// nothing.
func (f *Filter) clearBit(b uint64) {
	if f.bits != nil && f.bits[b>>6]&(1<<(b&63)) != 0 {
		f.flip(b)
	}
}

// flip inverts bit b of the view, noting the word's old value for the
// change tracker first. Without a view it does nothing.
func (f *Filter) flip(b uint64) {
	if f.bits == nil {
		return
	}
	i := b >> 6
	if f.track.state == trackList {
		f.track.note(i, f.bits)
	}
	f.bits[i] ^= 1 << (b & 63)
}

// nonZero returns one bit per counter of word w, set where the counter is
// non-zero: 64/width bits, counter j of the word at bit j. It rebuilds the
// bit view from the counters a word at a time.
func nonZero(w uint64, width uint) uint64 {
	switch width {
	case 4:
		x := (w | w>>1 | w>>2 | w>>3) & 0x1111111111111111
		x = (x | x>>3) & 0x0303030303030303
		x = (x | x>>6) & 0x000F000F000F000F
		x = (x | x>>12) & 0x000000FF000000FF
		return (x | x>>24) & 0xFFFF
	case 8:
		x := w | w>>4
		x = (x | x>>2 | x>>1 | x>>3) & 0x0101010101010101
		x = (x | x>>7) & 0x0003000300030003
		x = (x | x>>14) & 0x0000000F0000000F
		return (x | x>>28) & 0xFF
	}
	x := w | w>>8
	x |= x >> 4
	x = (x | x>>2 | x>>1 | x>>3) & 0x0001000100010001
	x = (x | x>>15) & 0x0000000300000003
	return (x | x>>30) & 0xF
}

// rebuildBits recomputes the bit view (if there is one) and the
// saturation count from the counters (after decoding). The tracker is not
// told: it must be off.
func (f *Filter) rebuildBits() {
	if f.bits != nil {
		f.project(f.bits)
	}
	f.sat = 0
	for _, w := range f.counters {
		f.sat += f.saturatedIn(w)
	}
}

// project writes the bit projection of the counters into bits (⌈m/64⌉
// words): bit b set exactly when counter b is non-zero.
func (f *Filter) project(bits []uint64) {
	per := uint64(64) >> f.wShift
	clear(bits)
	for i, w := range f.counters {
		if w != 0 {
			b := uint64(i) * per
			bits[b>>6] |= nonZero(w, f.width) << (b & 63)
		}
	}
}
