package bloomier

// packed is an array of fields of a fixed width (0..64 bits) stored end to
// end in 64-bit words, field i at bits [i·width, (i+1)·width) of the words
// read as one little-endian bit string. A field may straddle two words.
// (fpset has the same helper; it belongs in a shared lower package.)
type packed struct {
	words []uint64
	width uint64
	mask  uint64
}

// packedWords returns the number of words that n fields of width bits
// take.
func packedWords(n, width uint64) uint64 { return (n*width + 63) / 64 }

func newPacked(n uint64, width int) packed {
	return packedOver(make([]uint64, packedWords(n, uint64(width))), width)
}

// packedOver makes a packed array over existing words.
func packedOver(words []uint64, width int) packed {
	w := uint64(width)
	return packed{words: words, width: w, mask: ^uint64(0) >> (64 - w)} // a shift by 64 gives 0
}

func (p *packed) get(i uint64) uint64 {
	bit := i * p.width
	w, off := bit>>6, bit&63
	v := p.words[w] >> off
	if off+p.width > 64 {
		v |= p.words[w+1] << (64 - off)
	}
	return v & p.mask
}

func (p *packed) set(i, v uint64) {
	bit := i * p.width
	w, off := bit>>6, bit&63
	p.words[w] = p.words[w]&^(p.mask<<off) | v<<off
	if off+p.width > 64 {
		s := 64 - off
		p.words[w+1] = p.words[w+1]&^(p.mask>>s) | v>>s
	}
}
