// Package bitpack stores arrays of fixed-width fields (0..64 bits) end to
// end in 64-bit words: field i occupies bits [i·width, (i+1)·width) of the
// words read as one little-endian bit string, so a field may straddle two
// words. fpset keeps fingerprints and counts this way, bloomier its cells.
package bitpack

// Array is a packed array of fields. The zero Array has no fields.
type Array struct {
	words []uint64
	width uint64
	mask  uint64
}

// Words returns the number of words that n fields of width bits take.
func Words(n, width uint64) uint64 { return (n*width + 63) / 64 }

// New returns a zeroed array of n fields of width bits.
func New(n uint64, width int) Array {
	return Over(make([]uint64, Words(n, uint64(width))), width)
}

// Over makes an array of width-bit fields over existing words, which it
// aliases.
func Over(words []uint64, width int) Array {
	w := uint64(width)
	return Array{words: words, width: w, mask: ^uint64(0) >> (64 - w)} // a shift by 64 gives 0
}

// Words returns the underlying words (aliased).
func (p *Array) Words() []uint64 { return p.words }

// Get returns field i.
func (p *Array) Get(i uint64) uint64 {
	bit := i * p.width
	w, off := bit>>6, bit&63
	v := p.words[w] >> off
	if off+p.width > 64 {
		v |= p.words[w+1] << (64 - off)
	}
	return v & p.mask
}

// Set stores v (which must fit the width) in field i.
func (p *Array) Set(i, v uint64) {
	bit := i * p.width
	w, off := bit>>6, bit&63
	p.words[w] = p.words[w]&^(p.mask<<off) | v<<off
	if off+p.width > 64 {
		s := 64 - off
		p.words[w+1] = p.words[w+1]&^(p.mask>>s) | v>>s
	}
}

// Width returns the field width in bits.
func (p *Array) Width() uint64 { return p.width }

// PaddingClear reports whether no bit past field n−1 is set in the last
// word, as a decoder must check for canonical input.
func (p *Array) PaddingClear(n uint64) bool {
	tail := n * p.width % 64
	return tail == 0 || p.words[len(p.words)-1]>>tail == 0
}
