//go:build amd64 && !purego

package counting

import "golang.org/x/sys/cpu"

// hasAVX512 reports whether this CPU and OS run blockCountersAVX512, which
// needs AVX-512 F (512-bit registers, VPERMI2Q, VPSRLVQ) and DQ (VPMULLQ,
// KORTESTB). It is a fact about the machine, read once, not a setting.
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// blockCountersAVX512 is blockCounters4 in AVX-512 assembly
// (blockcounters_amd64.s), eight probes per step. k must be at least 1.
// TestBlockCountersAssembly cross-checks the two on every k, and CI runs
// the package again with -tags purego, where only the Go form exists.
//
//go:noescape
func blockCountersAVX512(w *[32]uint64, lo, hi uint64, k int) bool

// classicCountersAVX512 is classicCounters4 in AVX-512 assembly
// (blockcounters_amd64.s): the r counters of c, 2^4 ≤ r < 2^32 and
// len(c) = ⌈r/16⌉, eight probes per step, gathered four at a time. k must
// be at least 1. TestClassicCountersAssembly cross-checks the two.
//
//go:noescape
func classicCountersAVX512(c []uint64, r, lo, hi uint64, k int) bool
