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
	usage:   usageText("compress"),
	run:     func(e *env, args []string) error { return recode(e, "compress", digest.Auto, args) },
}

var decompressCommand = &command{
	name:    "decompress",
	summary: "write a compressed digest back raw",
	usage:   usageText("decompress"),
	run:     func(e *env, args []string) error { return recode(e, "decompress", digest.Raw, args) },
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
	if lf.Format() == anyfile.FormatSquid {
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
	usage:   usageText("diff"),
	run:     runDiff,
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
	if err := stdinOnce(args); err != nil {
		return err
	}
	if err := notAnInput(out, args); err != nil {
		return err
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
		if lf.Format() == anyfile.FormatSquid {
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
	usage:   usageText("patch"),
	run:     runPatch,
}

func runPatch(e *env, args []string) error {
	fs := newFlagSet("patch")
	out, codecName := "-", ""
	e.outFlag(fs, &out, "-")
	fs.StringVar(&codecName, "codec", "", "")
	e.targetFlag(fs)
	e.quietFlag(fs)
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 2 {
		return usagef("want BASE and DELTA, got %d arguments", len(args))
	}
	if err := stdinOnce(args); err != nil {
		return err
	}
	if err := notAnInput(out, args); err != nil {
		return err
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
	if base.Format() == anyfile.FormatSquid {
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
	enc, err := base.EncodeDigest(next, codec)
	if err != nil {
		return fileErr(args[0], err)
	}
	var w warnings
	if b := next.Filter(); b != nil && next.Scalable == nil {
		keys := b.Count()
		if next.Counting != nil {
			keys = next.Counting.Len()
		}
		h := bloomHealth(b, keys)
		target, set := e.targetRate()
		h.check(&w, outputName(out), target, set, "the filter holds more keys than it was sized for: rebuild it with a larger -n (a node: a larger --capacity)")
	}
	return e.writeWarned(out, enc, w)
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
