// Package params holds the mathematics of Bloom filters: false-positive
// models for the filter layouts bloomcast builds, sizing (the smallest filter
// that meets a target rate), estimates read back from an observed filter,
// and the reference tables of Fan et al. The sizing of a counting filter's
// counters (the largest count, the overflow bounds) is package counting's.
//
// Notation: a filter has m bits, holds n distinct keys and probes k bits per
// key. The models assume the k probes are independent and uniform over the
// bits they may touch. Kirsch and Mitzenmacher ("Less hashing, same
// performance: building a better Bloom filter", ESA 2006) show that probes
// derived from two hash values as h1 + i·h2 reach the same asymptotic
// false-positive rate, so the models also describe filters built that way.
//
// The models:
//
//   - Classic (Bloom, "Space/time trade-offs in hash coding with allowable
//     errors", CACM 13(7), 1970): a bit stays 0 after n keys with probability
//     (1 − 1/m)^(k·n), so an absent key passes all k probes with probability
//     (1 − (1 − 1/m)^(k·n))^k. Fan, Cao, Almeida and Broder ("Summary cache:
//     a scalable wide-area web cache sharing protocol", IEEE/ACM Transactions
//     on Networking 8(3), 2000) approximate it by (1 − e^(−k·n/m))^k and
//     tabulate it (bloomcast table prints the tables).
//   - Partitioned (analysed by Kirsch–Mitzenmacher 2006 and used by Almeida
//     et al., "Scalable Bloom filters", IPL 101(6), 2007): k slices of
//     s = m/k bits, one probe per slice: (1 − (1 − 1/s)^n)^k.
//   - Blocked and Paged (Putze, Sanders and Singler, "Cache-, hash- and
//     space-efficient Bloom filters", WEA 2007, LNCS 4525): a key's probes
//     all fall in one block of B bits, chosen at random. The number of keys
//     sharing the queried block is about Poisson(λ = n·B/m), so the rate is
//     the mixture Σ_j Pois(j; λ)·E[(X_j/B)^k], X_j the number of bits that
//     j keys set in a block. Uneven block loads make it slightly worse than
//     the classic rate at equal m and k. Putze et al. take the block term
//     to be the classic (1 − (1 − 1/B)^(k·j))^k, which treats the bits of a
//     block as independent and understates small blocks by O(k²/B), 1–3%
//     for 512-bit blocks (Bose et al., "On the false-positive rate of Bloom
//     filters", IPL 108(4), 2008); [BlockedFalsePositive] uses the exact
//     block term, so filters sized with it meet their target.
//
// Estimates from an observed filter follow Swamidass and Baldi ("Mathematical
// correction for fingerprint similarity measures to improve chemical
// retrieval", J. Chem. Inf. Model. 47(3), 2007): x set bits out of m suggest
// n ≈ −(m/k)·ln(1 − x/m) keys.
//
// All formulas are evaluated with math.Log1p and math.Expm1 where a naive
// form would cancel, so they stay accurate for m and n up to 2^40 and for
// rates far below 1e−15. Errors wrap [ErrInvalid] and start with "params: ".
//
// The mathematics of the other structures lives with them: fingerprint
// sets (their width, rate, Rice-coded size and where they beat a Bloom
// filter) in package fpset, ribbon filters' shapes in package ribbon
// (ribbon.Size), the multilevel hash table's in package mht. [MinimumBits]
// is the information bound all of them are measured against, and
// `bloomcast calc --static` prints the static filters' sizes beside the
// Bloom layouts'.
package params
