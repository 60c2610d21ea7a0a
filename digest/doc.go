// Package digest is what travels: a bloomcast structure (a Bloom filter of
// any layout, or a counting filter) in the bloomcast frame, its payload
// coded raw or with an entropy coder, and deltas between two versions of
// one structure.
//
// It implements the messages of Mitzenmacher, "Compressed Bloom filters"
// (IEEE/ACM Transactions on Networking 10(5), 2002): a filter tuned for
// transmission has few hash functions and a density of ones far from 1/2,
// so an arithmetic coder sends it in about m·H(p) bits, and an update is
// the XOR of two versions, whose density q ≈ 2·p·(1 − e^(−k·c·n/m)) for a
// fraction c of the elements replaced makes it cheap to send as well
// (the paper's delta compression). Package params chooses the shapes ([params.OptimizeTransmit],
// [params.DeltaBits]); package entropy codes the bits.
//
// # Codecs
//
// The frame's codec byte names how the payload is coded
// (docs/FORMAT.md, "Digests"):
//
//   - raw (0): the structure's words, little-endian; what bloom and
//     counting write themselves.
//   - arith (1): the reference adaptive arithmetic coder
//     ([entropy.Arith]): the smallest, at 10–20 MB/s.
//   - fast (2): [entropy.Fast] for bit arrays (rANS with the static model
//     of the array's density, within about 30 bytes of m·H(p̂), at several
//     hundred MB/s) and [entropy.EncodeCounters] for 4- and 8-bit counters.
//
// [Auto], the default, encodes with every codec that applies and keeps
// the smallest; callers that publish often (the cache node) ask for [Fast].
// Decoding accepts every codec.
//
// # Deltas
//
// [AppendDiff] codes next XOR base, tagged with the base's sequence number
// and the CRC-32C of its words; [Patch] refuses a delta for any other base
// with [ErrBase], and the caller then fetches a full digest. Sequence
// numbers increase with every publication.
//
// # Static digests
//
// [StaticPublisher] sends a set near the information bound: a ribbon
// filter of it (package ribbon) with two Bloom filters of the keys added
// and removed since, then only those filters' deltas; a receiver holds a
// [StaticView] and answers (ribbon or added) and not removed. See
// static.go and docs/FORMAT.md, "Static digest (type 13)".
//
// # Hostile input
//
// Every decoder checks the frame (CRC-32C included) and the size the
// payload decodes to against [envelope.Limits] before allocating, and
// fails with an error wrapping one of this package's errors or the
// envelope's, never a panic. A small compressed payload may legitimately
// decode to a large array (a nearly empty filter codes to a few bytes), so
// the limit on what a payload may expand to is the caller's defence; the
// default is envelope.DefaultMaxPayload.
package digest
