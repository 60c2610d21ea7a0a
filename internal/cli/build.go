package cli

import (
	"fmt"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/squid"
)

var buildCommand = &command{
	name:    "build",
	summary: "build a filter from keys, one per line",
	usage: `usage: bloomcast build [-n N -p P | -m BITS -k K] [--layout L] [--block-bits B]
                       [--seed S] [--folds F]
                       [--counting [--width W] [--minimal-increase] | --deletion]
                       [--quiet] [--strict] -o OUT [FILE...]
       bloomcast build --fpset [-n N] [-p P | --bits B | -c C] [--count-bits W]
                       [--rice] [--seed S] [--quiet] -o OUT [FILE...]
       bloomcast build --budget BYTES [--packet BYTES] [-n N] [--layout L]
                       [--max-m BITS | --max-bpk X] [--max-k K] [--seed S]
                       -o OUT [FILE...]
       bloomcast build --squid [-n CAPACITY] [--bits-per-entry B] [--quiet]
                       [--strict] -o OUT [FILE...]
       bloomcast build --format guava|bits-and-blooms|bits-and-blooms-json|parquet-sbbf
                       [-n N -p P | -m BITS -k K] [--key-type T] [--quiet]
                       [--strict] -o OUT [FILE...]
       bloomcast build --format parquet-sbbf --fit [-n MAX] [-p P]
                       [--key-type T] [--quiet] [--strict] -o OUT [FILE...]
       bloomcast build --scalable [-n CAPACITY] [-p P] [--expansion S]
                       [--tightening R] [--non-scaling] [--layout L]
                       [--block-bits B] [--seed S] -o OUT [FILE...]

Build a Bloom filter from keys, one per line, read from the FILEs in turn
or from standard input ("-" also means standard input). A trailing "\r" is
dropped and empty lines are skipped. OUT is written atomically (a
temporary file in the same directory, then a rename); "-o -" writes to
standard output.

Sizing: -n N -p P sizes the filter for N distinct keys at false-positive
rate P; -m BITS -k K takes the shape as given. Without -n, and unless both
-m and -k are given, all keys are read first and the filter is sized for
the number of distinct keys. Any other mix is solved as "bloomcast calc"
solves it: -n -k gives the smallest m for that k at P, -n -m the best k.
-p is ignored with -m unless given explicitly.

The count the filter records is the number of distinct keys read
(duplicates are counted once; exactly up to 16777216 distinct keys, by
their 64-bit hashes; beyond that it is the estimate from the bits, and
"bloomcast inspect" says "estimated"). A counting filter counts every key
it adds, as "bloomcast remove" takes them away one by one.

Warnings, one line each on standard error (exit status 0; under --strict
exit status 2 and OUT is not written): no keys read; -n 0 (which is no
size: the filter is sized as without -n); a predicted false-positive rate
for the distinct keys read more than 10 times the target -p; more than 90%
of the bits set; a shape that misses -p for -n keys.

Folding headroom: m is then rounded up so that the filter can be halved
F times ("bloomcast fold", down to 1/2^F of its size): its number of bits
(classic), bits per slice (partitioned) or blocks (blocked, paged) is made
a multiple of 2^F. The default F = 4 (1/16) adds at most 15 of those
units: under 1% of the bits for a filter of 1500 units or more (blocked:
96 KiB). Counting filters do not fold and are not rounded.

flags:
  -n N             number of distinct keys to size for
  -p P             target false-positive rate (default 0.01)
  -m BITS          size in bits, rounded up to the layout's granularity
                   and for --folds (a blocked -m 512 becomes 8192 bits;
                   --folds 0 keeps it)
  -k K             probes per key, 1..64
  --layout L       classic, partitioned, blocked or paged (default blocked)
  --block-bits B   page size of the paged layout in bits (default 32768)
  --seed S         hashing seed, decimal or 0x-hex (default 0)
  --folds F        folding headroom: the filter can be halved F times,
                   0..32 (default 4)
  --counting       build a counting filter (one counter per bit position,
                   keys can be removed; see "bloomcast remove")
  --width W        counter width of a counting filter: 4, 8 or 16 bits
                   (default 4)
  --minimal-increase
                   counting filter whose adds raise only the smallest
                   counters: better counts, no removal
  --deletion       build a deletion filter: a second Bloom filter of the
                   same shape holds the keys removed ("bloomcast remove");
                   a key is present when in the first and not the second,
                   so a removed key is gone for good, and a kept key that
                   the second filter matches by chance is lost
  --fpset          build a set of fingerprints instead (see "Fingerprint
                   sets" below)
  --budget BYTES   build the filter with the lowest rate whose file fits
                   BYTES, as "bloomcast calc -n N --budget BYTES" chooses
                   it (layout, m, k, raw or coded; -n defaults to the
                   number of distinct keys), and write it coded; the
                   file is checked to fit
  --packet BYTES   with --budget: round the budget down to whole packets
  --max-m BITS, --max-bpk X, --max-k K
                   with --budget: caps on m (default 4 × 8 × BYTES bits)
                   and k, as in "bloomcast calc --budget 1 -h"
  --squid          write a Squid Cache Digest (version 5) instead: the keys
                   are URLs requested with GET, -n is the digest's capacity
                   (default: the number of keys), the layout is Squid's
  --bits-per-entry B
                   bits per entry of a Squid digest (default 5, Squid's)
  -o OUT           output file (required; "-" for standard output)
  --force          write to standard output even when it is a terminal
  -q, --quiet      no progress display on a terminal, no warnings
  --max-key-bytes N
                   longest key line (default 1048576, 1 MiB); a longer
                   line is an error

Key files and standard input compressed with gzip or zstd are recognised
by their first bytes and read decompressed. Input with NUL bytes in its
first 4 KiB (after decompression) gets a warning: binary data is seldom
meant as keys.
  --strict         a warning is an error: exit status 2, OUT not written

Fingerprint sets (--fpset): a b-bit hash of each distinct key, sorted
(queried by interpolation search), or with --rice Golomb–Rice coded for
transmission. The width is the narrowest with a rate of at most -p P for N
keys, --bits B, or ceil(C·log2 N) with -c C (default 2), as "bloomcast calc
--fpset" sizes it; without -n, N is the number of distinct keys read.
--count-bits W keeps a count of W bits per fingerprint (a multiset).
` + buildFormatHelp + buildScalableUsage,
	run: runBuild,
}

func runBuild(e *env, args []string) error {
	if wantsFPSet(args) {
		return runBuildFPSet(e, args)
	}
	if wantsScalable(args) {
		return runBuildScalable(e, args)
	}
	args, done, err := buildWithFormat(e, args) // build_format.go
	if done {
		return err
	}
	fs := newFlagSet("build")
	e.keyFlags(fs)
	var n, m, blockBits countValue
	p := rateValue(0.01)
	var k probesValue
	layout := layoutValue{layout: params.Blocked}
	var seed uint64
	var folds countValue = bloom.DefaultFolds
	var out string
	var kind filterKind
	kind.flags(fs)
	var squidOut bool
	var bitsPerEntry countValue = squid.DefaultBitsPerEntry
	fs.BoolVar(&squidOut, "squid", false, "")
	fs.Var(&bitsPerEntry, "bits-per-entry", "")
	fs.Var(&n, "n", "")
	fs.Var(&p, "p", "")
	fs.Var(&m, "m", "")
	fs.Var(&k, "k", "")
	fs.Var(&layout, "layout", "")
	fs.Var(&blockBits, "block-bits", "")
	fs.Uint64Var(&seed, "seed", 0, "")
	fs.Var(&folds, "folds", "")
	e.outFlag(fs, &out, "")
	var budget buildBudgetFlags
	budget.register(fs)
	e.quietFlag(fs)
	e.strictFlag(fs)
	inputs, err := parseFlagsOut(fs, args, &out)
	if err != nil {
		return err
	}
	if flagSet(fs, "budget") && !squidOut { // build_budget.go
		return buildBudget(e, fs, budget.options(uint64(n), uint64(blockBits), layout.layout, flagSet(fs, "layout")), seed, inputs, out)
	}
	for _, f := range []string{"packet", "max-m", "max-bpk", "max-k"} {
		if flagSet(fs, f) {
			return fmt.Errorf("build: --%s needs --budget BYTES", f)
		}
	}
	if squidOut {
		for _, f := range []string{"m", "k", "p", "layout", "block-bits", "seed", "folds", "counting", "deletion", "budget", "packet", "max-m", "max-bpk", "max-k"} {
			if flagSet(fs, f) {
				return usagef("--%s does not apply to a Squid digest (its shape is Squid's)", f)
			}
		}
		if bitsPerEntry < 1 || bitsPerEntry > 255 {
			return usagef("--bits-per-entry must be 1..255")
		}
		return squidBuild(e, inputs, uint64(n), flagSet(fs, "n"), uint8(bitsPerEntry), out)
	}
	if blockBits != 0 && layout.layout != params.Paged {
		return usagef("--block-bits is the page size of the paged layout; add --layout paged")
	}
	if err := kind.check(fs); err != nil {
		return err
	}
	if folds > 32 {
		return usagef("--folds must be 0..32")
	}
	if kind.counting {
		if flagSet(fs, "folds") {
			return usagef("--folds does not apply to a counting filter (counting filters do not fold)")
		}
		folds = 0
	}

	q := params.Query{N: uint64(n), M: uint64(m), K: int(k), Layout: layout.layout, BlockBits: uint64(blockBits)}
	if m == 0 || flagSet(fs, "p") {
		q.P = float64(p)
	}
	b, err := anyfile.NewBuilder(anyfile.BuildConfig{Kind: kind.kind(), Query: q, Seed: seed, Folds: int(folds),
		Width: int(kind.width), MinimalIncrease: kind.minInc, MaxExactDistinct: maxExactDistinct})
	if err != nil {
		return err
	}
	src := e.keys(inputs)
	if !e.quiet && isTerminal(e.stderr) {
		src.withProgress(e.stderr)
	}
	if err := src.each(b.Add); err != nil {
		return err
	}
	f, res, err := b.Finish()
	if err != nil {
		return err
	}
	read, distinct, solved := res.Read, res.Distinct, res.Solved

	var w warnings
	name := outputName(out)
	if flagSet(fs, "n") && n == 0 {
		if m != 0 && k != 0 {
			w.add("%s: -n 0 is no size: ignored, the shape is -m %d -k %d", name, uint64(m), int(k))
		} else {
			w.add("%s: -n 0 is no size: taken as no -n, so the filter is sized for the %d distinct keys read", name, distinct)
		}
	}
	if read == 0 {
		w.add("%s: no keys read: the filter is empty", name)
	}
	if !solved.Meets {
		w.add("%s: predicted false-positive rate %s for %d keys exceeds -p %s",
			name, rate(solved.FalsePositive), solved.N, rate(q.P))
	}
	if q.P > 0 && distinct > 0 {
		if pred := res.PredictedRate; pred > 10*q.P {
			w.add("%s: predicted false-positive rate %s for the %d distinct keys read, more than 10× the target %s",
				name, rate(pred), distinct, rate(q.P))
		}
	}
	if fill := res.Fill; fill > 0.9 {
		full := "nearly full"
		if fill == 1 {
			full = "full"
		}
		w.add("%s: %.1f%% of the bits are set: the filter is %s (size it for more keys)", name, 100*fill, full)
	}
	return e.writeWarned(out, f, w)
}

// maxExactDistinct is anyfile.DefaultMaxExactDistinct, a variable so
// that tests can lower it.
var maxExactDistinct = anyfile.DefaultMaxExactDistinct
