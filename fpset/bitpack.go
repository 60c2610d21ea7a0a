package fpset

import "github.com/bloomcast/bloomcast/internal/bitpack"

// packed is the shared packed field array (internal/bitpack).
type packed = bitpack.Array

var (
	packedWords = bitpack.Words
	newPacked   = bitpack.New
	packedOver  = bitpack.Over
)
