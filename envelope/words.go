package envelope

import (
	"encoding/binary"
	"io"
)

// payloadOf is the payload length of word arrays sent back to back.
func payloadOf(arrays [][]uint64) uint64 {
	n := 0
	for _, a := range arrays {
		n += len(a)
	}
	return 8 * uint64(n)
}

// AppendWords appends a whole frame whose payload is the given word arrays,
// one after another, each word little-endian: the raw codec of every
// bloomcast structure that lives in []uint64.
func AppendWords(dst []byte, h Header, arrays ...[]uint64) ([]byte, error) {
	start := len(dst)
	dst, err := AppendHeader(dst, &h, payloadOf(arrays))
	if err != nil {
		return dst, err
	}
	for _, a := range arrays {
		for _, w := range a {
			dst = binary.LittleEndian.AppendUint64(dst, w)
		}
	}
	return AppendTrailer(dst, start), nil
}

// WriteWords writes the frame AppendWords would append, streaming the words
// through a small buffer instead of building the frame in memory.
func WriteWords(w io.Writer, h Header, arrays ...[]uint64) (int64, error) {
	fw, err := NewWriter(w, &h, payloadOf(arrays))
	if err != nil {
		return 0, err
	}
	var buf [4096]byte
	for _, words := range arrays {
		for len(words) > 0 {
			n := min(len(words), len(buf)/8)
			for i, x := range words[:n] {
				binary.LittleEndian.PutUint64(buf[8*i:], x)
			}
			if _, err := fw.Write(buf[:8*n]); err != nil {
				return fw.Count(), err
			}
			words = words[n:]
		}
	}
	err = fw.Close()
	return fw.Count(), err
}
