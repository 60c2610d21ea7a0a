package mht

import "github.com/bloomcast/bloomcast/internal/bitpack"

// packedArray is a bitpack.Array that remembers its mask for saturation.
type packedArray struct {
	bitpack.Array
	mask uint64
}

func newPacked(n uint64, width int) packedArray {
	return packedArray{bitpack.New(n, width), uint64(1)<<width - 1}
}

func packedOver(words []uint64, width int) packedArray {
	return packedArray{bitpack.Over(words, width), uint64(1)<<width - 1}
}

func packedWords(n uint64, width int) uint64 { return bitpack.Words(n, uint64(width)) }
