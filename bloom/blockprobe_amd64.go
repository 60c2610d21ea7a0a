//go:build amd64 && !purego

package bloom

import "golang.org/x/sys/cpu"

// hasAVX512 reports whether this CPU and OS run blockAllSetAVX512, which
// needs AVX-512 F (512-bit registers, VPERMQ, VPSRLVQ) and DQ (VPMULLQ,
// KORTESTB). It is read once; it is a fact about the machine, not a
// setting.
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// blockAllSetAVX512 is blockAllSet in AVX-512 assembly
// (blockprobe_amd64.s), eight probes per step. k must be at least 1.
// TestBlockAllSetAssembly cross-checks the two on every k, and CI runs the
// package again with -tags purego, where only the Go form exists.
//
//go:noescape
func blockAllSetAVX512(w *[8]uint64, lo, hi uint64, k int) bool
