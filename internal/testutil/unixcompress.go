package testutil

// UnixCompress is a compress(1) encoder for the tests of
// internal/unixcompress and of the compress transfer coding, written from
// the format's description: LZW codes least significant bit first in
// groups of eight, each group padded to its full size when the code width
// changes. With clearWhenFull, a block-mode stream empties its table with
// CLEAR as soon as it is full (compress does so when the ratio drops).
func UnixCompress(data []byte, maxBits uint, block, clearWhenFull bool) []byte {
	flags := byte(maxBits)
	if block {
		flags |= 0x80 // block mode: code 256 is CLEAR
	}
	w := &groupWriter{out: []byte{0x1f, 0x9d, flags}, width: 9}
	if len(data) == 0 {
		return w.out
	}
	first := 256
	if block {
		first = 257
	}
	dict := map[int]int{}
	free := first
	grow := func() {
		if free > 1<<w.width-1 && (w.width < maxBits || w.width == 9) {
			w.pad()
			w.width++
		}
	}
	ent := int(data[0])
	for _, c := range data[1:] {
		if code, ok := dict[ent<<8|int(c)]; ok {
			ent = code
			continue
		}
		w.put(ent)
		grow()
		switch {
		case free < 1<<maxBits:
			dict[ent<<8|int(c)] = free
			free++
		case block && clearWhenFull:
			w.put(256)
			w.pad()
			w.width = 9
			clear(dict)
			free = first
		}
		ent = int(c)
	}
	w.put(ent)
	grow()
	return w.flush()
}

type groupWriter struct {
	out   []byte
	group []byte // the group being written
	bits  uint   // bits of it used
	width uint
}

func (w *groupWriter) put(code int) {
	for i := uint(0); i < w.width; i++ {
		if w.bits%8 == 0 {
			w.group = append(w.group, 0)
		}
		w.group[w.bits/8] |= byte(code>>i&1) << (w.bits % 8)
		w.bits++
	}
	if w.bits == 8*w.width {
		w.out = append(w.out, w.group...)
		w.group, w.bits = w.group[:0], 0
	}
}

// pad ends a group that has begun, padded to width bytes.
func (w *groupWriter) pad() {
	if w.bits > 0 {
		w.group = append(w.group, make([]byte, int(w.width)-len(w.group))...)
		w.out = append(w.out, w.group...)
		w.group, w.bits = w.group[:0], 0
	}
}

func (w *groupWriter) flush() []byte { return append(w.out, w.group...) }
