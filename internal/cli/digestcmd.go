package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
)

// The digest commands: compress, decompress, diff, patch. The coding is
// package digest's; these only read, write and choose.

var compressCommand = &command{
	name:    "compress",
	summary: "entropy-code a filter for sending",
	usage: `usage: bloomcast compress [--codec C] [--seq N] [--piece-size BYTES] -o OUT FILE

Write the filter in FILE (Bloom or counting, raw or already compressed) to
OUT as a compressed digest. Every bloomcast command reads compressed
digests directly. Codecs:

  auto    the smallest of the ones below (default)
  arith   adaptive arithmetic coder: the smallest, 10–20 MB/s
  fast    rANS with the array's density (counters: order-0 rANS):
          within ~30 bytes of arith, hundreds of MB/s
  raw     no coding (what build writes)

With --piece-size BYTES a Bloom filter's bit array is cut into pieces of
that many decoded bytes (rounded up to a multiple of 8 and, for the blocked
and paged layouts, of the block, so that a key's probes fall in one piece),
each coded on its own behind an index of their offsets: "bloomcast query"
then decodes only the pieces a key's probes fall in. Smaller pieces cost
a few bytes each (the index, and each piece's own coder start).

flags:
  --codec C   auto, arith, fast or raw (default auto)
  --seq N     the digest's sequence number (default: keep FILE's)
  --piece-size BYTES
              code the bit array in pieces of BYTES decoded bytes
  -o OUT      output file (required; "-" for standard output)
  --force     write to standard output even when it is a terminal
`,
	run: func(e *env, args []string) error { return recode(e, "compress", digest.Auto, args) },
}

var decompressCommand = &command{
	name:    "decompress",
	summary: "write a compressed digest back raw",
	usage: `usage: bloomcast decompress -o OUT FILE

Write the filter in FILE to OUT uncoded (the raw codec, as build writes
it), keeping its sequence number.

flags:
  -o OUT   output file (required; "-" for standard output)
  --force  write to standard output even when it is a terminal
`,
	run: func(e *env, args []string) error { return recode(e, "decompress", digest.Raw, args) },
}

// recode reads a filter and writes it with another codec.
func recode(e *env, name string, codec digest.Codec, args []string) error {
	fs := newFlagSet(name)
	var out, codecName string
	var seq, pieceSize countValue
	e.outFlag(fs, &out, "")
	if name == "compress" {
		fs.StringVar(&codecName, "codec", "auto", "")
		fs.Var(&seq, "seq", "")
		fs.Var(&pieceSize, "piece-size", "")
	}
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := oneFileToOut(out, args); err != nil {
		return err
	}
	if codecName != "" {
		if codec, err = digest.ParseCodec(codecName); err != nil {
			return usagef("--codec: %v", err)
		}
	}
	lf, err := e.openFilter(args[0])
	if err != nil {
		return err
	}
	if lf.Squid != nil {
		return fileErr(args[0], errors.New("a Squid cache digest: compress and decompress read bloomcast filters"))
	}
	sequence := lf.Header.Sequence
	if flagSet(fs, "seq") {
		sequence = uint64(seq)
	}
	if flagSet(fs, "piece-size") {
		if pieceSize < 1 || pieceSize > digest.MaxPieceBytes {
			return usagef("--piece-size %d: want 1 to %d bytes", pieceSize, digest.MaxPieceBytes)
		}
		if codec == digest.Raw {
			return usagef("--piece-size codes pieces with arith or fast, not raw")
		}
	}
	b, err := lf.Recode(codec, sequence, int(pieceSize))
	if err != nil {
		return fileErr(args[0], err)
	}
	return e.writeFilter(out, b)
}

var diffCommand = &command{
	name:    "diff",
	summary: "write the delta digest between two versions of a filter",
	usage: `usage: bloomcast diff [--codec C] [-o OUT] OLD NEW

Write the delta that turns the filter OLD into NEW: their XOR, coded like
a digest (see "bloomcast compress -h" for the codecs), tagged with OLD's
sequence number and checksum so that "bloomcast patch" applies it to OLD
only. The two must have the same shape, seed and hashing scheme. The
delta's sequence is NEW's, or OLD's plus one if NEW's is not greater.

flags:
  --codec C   auto, arith, fast or raw (default auto)
  -o OUT      output file (default "-", standard output)
  --force     write to standard output even when it is a terminal
`,
	run: runDiff,
}

func runDiff(e *env, args []string) error {
	fs := newFlagSet("diff")
	out, codecName := "-", "auto"
	e.outFlag(fs, &out, "-")
	fs.StringVar(&codecName, "codec", "auto", "")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 2 {
		return usagef("want OLD and NEW, got %d arguments", len(args))
	}
	codec, err := digest.ParseCodec(codecName)
	if err != nil {
		return usagef("--codec: %v", err)
	}
	files := make([]*anyfile.File, 2)
	for i, path := range args {
		lf, err := e.openFilter(path)
		if err != nil {
			return err
		}
		if lf.Squid != nil {
			return fileErr(path, errors.New("a Squid cache digest: diff reads bloomcast filters"))
		}
		files[i] = lf.File
	}
	b, err := anyfile.Diff(files[0], files[1], codec)
	if err != nil {
		return fmt.Errorf("%s and %s: %w", displayName(args[0]), displayName(args[1]), err)
	}
	return e.writeFilter(out, b)
}

var patchCommand = &command{
	name:    "patch",
	summary: "apply a delta digest to its base",
	usage: `usage: bloomcast patch [--codec C] [-o OUT] BASE DELTA

Apply the delta digest DELTA (from "bloomcast diff") to the filter BASE
and write the new filter. A delta made for another base (another sequence
number, contents, shape, seed or scheme) is refused with exit status 2:
fetch a full digest instead.

flags:
  --codec C   codec of the output: auto, raw, arith or fast (default:
              BASE's)
  -o OUT      output file (default "-", standard output)
  --force     write to standard output even when it is a terminal
`,
	run: runPatch,
}

func runPatch(e *env, args []string) error {
	fs := newFlagSet("patch")
	out, codecName := "-", ""
	e.outFlag(fs, &out, "-")
	fs.StringVar(&codecName, "codec", "", "")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 2 {
		return usagef("want BASE and DELTA, got %d arguments", len(args))
	}
	codec := digest.Raw
	if codecName != "" {
		if codec, err = digest.ParseCodec(codecName); err != nil {
			return usagef("--codec: %v", err)
		}
	}
	base, err := e.openFilter(args[0])
	if err != nil {
		return err
	}
	if codecName == "" {
		codec = base.Codec()
	}
	if base.Squid != nil {
		return fileErr(args[0], errors.New("a Squid cache digest: patch applies bloomcast deltas"))
	}
	delta, lim, err := e.readAll(args[1])
	if err != nil {
		return err
	}
	next, err := base.Patch(delta, lim)
	if err != nil {
		return fileErr(args[1], err)
	}
	w, err := base.EncodeDigest(next, codec)
	if err != nil {
		return fileErr(args[0], err)
	}
	return e.writeFilter(out, w)
}

// readAll reads the whole file at path ("-": standard input), refusing
// more than the envelope's default payload limit, and returns it with the
// limits to decode it with.
func (e *env) readAll(path string) ([]byte, envelope.Limits, error) {
	var lim envelope.Limits
	var r io.Reader = e.stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, lim, fileErr(path, err)
		}
		defer closeInput(f)
		r = f
	}
	max := int64(lim.Payload()) + envelope.HeaderSize + envelope.MaxParams + envelope.TrailerSize
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, lim, fileErr(path, err)
	}
	if int64(len(b)) > max {
		return nil, lim, fileErr(path, fmt.Errorf("larger than %d bytes", max))
	}
	return b, lim, nil
}
