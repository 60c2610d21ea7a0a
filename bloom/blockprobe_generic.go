//go:build !amd64 || purego

package bloom

import "github.com/bloomcast/bloomcast/hashing"

// hasAVX512 is false: this build has no assembly.
const hasAVX512 = false

// blockAllSetAVX512 stands in for the assembly of amd64 builds; with
// hasAVX512 false it is never called.
func blockAllSetAVX512(w *[8]uint64, lo, hi uint64, k int) bool {
	return blockAllSet(w, hashing.Hash128{Lo: lo, Hi: hi}, k)
}
