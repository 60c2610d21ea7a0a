// Package entropy codes bit arrays and small counter arrays close to their
// entropy, for sending Bloom filters as messages (Mitzenmacher, "Compressed
// Bloom filters", IEEE/ACM ToN 2002). It knows nothing of filters: it
// codes words and lengths.
//
// # Model
//
// A bit array of m bits, bit b = words[b/64]>>(b%64)&1, is modelled as
// independent bits that are 1 with probability p. No code does better on
// average than m·H(p) bits, H(p) = −p·log2 p − (1−p)·log2(1−p) ([Entropy]).
// The encoders measure p from the array itself (p̂ = ones/m), so the
// yardstick for a given array is m·H(p̂). A filter with few hash functions
// and a larger array has p far from 1/2 and codes to much less than m bits;
// the density of ones or of zeros, whichever is smaller, is what matters,
// and every coder here treats p and 1−p alike.
//
// # Coders
//
// [Arith] is the reference: the paper's adaptive binary model (both counts
// start at 1, each bit coded with probability c0/(c0+c1), the counts then
// updated) driving a 32-bit range coder (Witten, Neal and Cleary 1987;
// Subbotin's and Schindler's range coders). It needs no parameters, codes
// to within log2(m+1) + 48 bits of m·H(p̂) (in practice m·H(p̂) + 5 or 6
// bytes) and runs at 10–20 MB/s of array on one core.
//
// [Fast] picks per array: [Const] for an array of all zeros or all ones (2
// bytes); [Raw] when p̂ is so close to 1/2 that coding would save less than
// 0.2% (plus 40 bytes), or when coding came out larger; otherwise [RANS]:
// the array's bytes as symbols with the static binomial model of p̂
// (P(byte) = p̂^j·(1−p̂)^(8−j) for a byte of j ones, 24-bit precision), coded
// by four interleaved range-variant ANS states (Duda 2013). Its size is
// m·H(p̂) plus about 25–35 bytes, and it encodes and decodes at 250–500
// MB/s of array on one core.
// A receiver that decodes many streams, or single bits of them, keeps a
// [BitsTable] per density instead: built once, under 500 bytes, and able
// to start decoding from a [BitsMark] taken on an earlier pass.
//
// [EncodeCounters] codes n counters of 4 or 8 bits (a counting Bloom
// filter's, packed as the counting package packs them) with an order-0
// model: the frequency of each value present is sent, and the counters are
// coded with the same rANS engine ([Order0]); the size is within a fraction
// of a percent of n times the empirical order-0 entropy, plus a header.
//
// [AppendGaps] codes a sparse array as the positions of its ones ([Gaps]):
// the gaps between them, each as its exponent under an adaptive model and
// its low bits, through [Arith]'s range coder. Its work is proportional
// to the number of ones, not to m, which makes it the coder of a delta
// (the XOR of two versions of a filter) that changes few bits;
// [XORGaps] and [GapReader] apply such a stream to words in place.
//
// Decoders treat input as hostile: truncated, corrupted or mismatched
// streams give errors wrapping [ErrTruncated], [ErrCorrupt], [ErrTrailing]
// or [ErrCodec]; they never panic, allocate nothing but the error they
// return, and do work bounded by the length asked for and the input's
// size. [RANS] and [Arith] streams
// carry a 32-bit check for free (the final rANS states; the arithmetic
// coder's final code value), so corruption is almost always reported; a
// [Raw] stream cannot tell. Frames that need certainty carry a checksum
// (package envelope).
//
// # Stream formats
//
// This section is the byte-level contract, for docs/FORMAT.md.
// Every stream starts with one codec byte, the [Codec] value. Lengths (m
// bits, n counters, the counter width) are not in the stream: the
// container records them and the decoder is told. Fixed-size integers are
// little-endian unless said otherwise; a varint is an unsigned LEB128
// (encoding/binary's Uvarint), at most 10 bytes.
//
// The bytes of an array: byte i holds bits 8i to 8i+7, bit 8i+j being
// (byte >> j) & 1, which is the little-endian layout of the words. An
// m-bit array has N = ⌈m/8⌉ bytes; the bits of the last byte past m are 0.
// Counters are symbols of w bits (w = 4 or 8): counter i is bits
// [i·w, i·w+w) of the array, so an array of n counters is an (n·w)-bit
// array.
//
// Raw, codec 3:
//
//	0x03, then the N bytes of the array (bits past m zero)
//
// for bits; for counters, the ⌈n·w/8⌉ bytes of the packed counters.
//
// Const, codec 4:
//
//	0x04, v (0 or 1): all m bits are v
//
// RANS, codec 5:
//
//	0x05, pq (uint32), then a rANS payload of the N bytes as symbols
//
// pq is the density of ones in units of 2^−32 (the encoder writes
// round(ones·2^32/m) clamped to [1, 2^32−1]; the decoder accepts any
// value). The model is computed from pq with integers only, so that every
// implementation builds the same one. Numbers are fixed point with 63
// fraction bits (1.0 = 2^63) and mul(a, b) = ⌊a·b/2^63⌋ (exact, 128-bit
// product):
//
//	p = pq·2^31, q = 2^63 − p
//	P[0] = Q[0] = 2^63; P[j] = mul(P[j−1], p), Q[j] = mul(Q[j−1], q) for j = 1..8
//	f[j] = max(1, ⌊(mul(P[j], Q[8−j]) + 2^38) / 2^39⌋) for j = 0..8
//	S = Σ C(8, j)·f[j]; then f[8] += 2^24 − S if f[8] > f[0], else f[0] += 2^24 − S
//
// f[j] is the frequency of each byte with j ones; the frequencies sum to
// M = 2^24. The cumulative layout takes the bytes in order of number of
// ones, then value: byte 0x00, then 0x01, 0x02, 0x04, …, 0x80, then 0x03,
// 0x05, …, and 0xFF last; c(s) is the sum of the frequencies of the bytes
// before s.
//
// Order0, codec 6 (counters only):
//
//	0x06, k (varint): the number of distinct counter values, then
//	k times: gap (varint), freq (varint, absent for the last value),
//	then, if k ≥ 2, a rANS payload of the n counters as symbols
//
// The values present are v_1 < v_2 < … < v_k with v_i = v_(i−1) + 1 + gap_i
// (v_0 = −1), each below 2^w; k = 0 exactly when n = 0. Value v_i has
// frequency freq_i ≥ 1, the last one 2^24 minus the others (at least 1);
// the cumulative layout is by increasing value. With k = 1, every counter
// is v_1 and nothing follows.
//
// A rANS payload codes nsym symbols (N bytes, or n counters):
//
//	x_0, x_1, x_2, x_3 (uint64 each, in [2^31, 2^63)), then 32-bit words
//
// Decoding, for symbol i = 0 … nsym−1 in turn, with x = x_(i mod 4):
//
//	slot = x mod 2^24
//	s = the symbol with c(s) ≤ slot < c(s) + f(s)
//	x = f(s)·⌊x/2^24⌋ + slot − c(s)
//	if x < 2^31: x = x·2^32 + the next word
//
// and symbol s is bits [i·w, i·w+w) of the array (w = 8 for RANS). After
// the last symbol every state must be 2^31 again and every word consumed;
// anything else is a corrupt stream. (The encoder runs this backwards:
// states start at 2^31; for i = nsym−1 down to 0, with x = x_(i mod 4), if
// x ≥ f(s)·2^39 it emits the low 32 bits of x and shifts them out, then
// x = ⌊x/f(s)⌋·2^24 + (x mod f(s)) + c(s); the emitted words are stored in
// the reverse of the order emitted, after the four final states.)
//
// Gaps, codec 7 (sparse arrays; the payload of delta codec 4):
//
//	0x07, n (varint): the number of ones, then, if n ≥ 1, the bytes of a
//	binary fraction, most significant first
//
// n must not exceed m. The fraction codes the ones' positions
// p_1 < p_2 < … < p_n as gaps g_i = p_i − p_(i−1) ≥ 1 (p_0 = −1), each
// split as e = ⌊log2 g⌋ and the e bits of g below its leading one. The
// range coder is Arith's (below), with 126 adaptive nodes instead of one:
// node j has counts c0[j] = 1, t[j] = 2 at the start, and a bit coded at
// node j splits as Arith's bit does with c0[j] and t[j], then updates
// them. Decoding one gap:
//
//	j = 1; for 6 times: bit = decode at node j; j = 2·j + bit
//	e = j − 64; g = 1
//	if e ≥ 1: e = e − 1; bit = decode at node 64 + e; g = 2·g + bit
//	while e > 0:
//	    c = min(e, 16); e = e − c
//	    rng = ⌊rng / 2^c⌋; v = ⌊code / rng⌋ (v ≥ 2^c is an error)
//	    code = code − v·rng; g = g·2^c + v
//	    while rng < 2^24: code = (code·256 + the next byte) mod 2^32, rng = rng·256
//	p = p_prev + g (≥ m is an error)
//
// (the exponent's six bits most significant first down a binary tree of
// nodes 1–63; the first bit under the leading one at node 64 + e, one
// node per exponent; the other bits at probability 1/2, up to 16 at a
// time). After the n-th gap code must be 0 and every byte consumed; with
// n = 0 nothing follows the count. The encoder is Arith's with the same
// splits; a bit of probability 1/2 in a chunk of c bits adds
// v·⌊rng/2^c⌋ to low and sets rng = ⌊rng/2^c⌋.
//
// Arith, codec 1:
//
//	0x01, then the bytes of a binary fraction, most significant first
//
// Decoding, with all arithmetic on unsigned integers:
//
//	code = the first 4 bytes, big-endian; rng = 2^32 − 1; c0 = 1; t = 2
//	for each bit b = 0 … m−1:
//	    r = ⌊(2^64 − 1)/t⌋
//	    s = max(1, ⌊rng·c0·r / 2^64⌋)     (rng·c0·r exact, up to 160 bits)
//	    if code < s: bit b is 0, rng = s, c0 = c0 + 1
//	    else:        bit b is 1, code = code − s, rng = rng − s
//	    t = t + 1
//	    while rng < 2^24: code = (code·256 + the next byte) mod 2^32, rng = rng·256
//
// then code must be 0 and every byte consumed. The split s is the model's
// probability of a 0, c0/t, scaled to the range (t − c0 is the count of
// ones plus 1). The encoder keeps low (33 bits, a carry in bit 32) and
// rng, does the same split (a 0 keeps low and sets rng = s; a 1 adds s to
// low and sets rng = rng − s) and shifts out the top byte of low while
// rng < 2^24, holding back a byte and any run of 0xFF bytes until a carry
// is settled (Schindler); at the end it shifts out the four bytes of low.
//
// # Choosing
//
// Fast's choice is the encoder's, not part of the format: any stream of
// codecs 3, 4 or 5 decodes with [Fast]. An encoder may also be asked for
// [Raw] or [RANS] directly.
package entropy
