package cli

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloomier"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/filereport"
	"github.com/bloomcast/bloomcast/keyfile"
)

var bloomierCommand = &command{
	name:    "bloomier",
	summary: "build and query Bloomier filters (static key→value maps)",
	usage:   usageText("bloomier"),
	run:     runBloomier,
}

func runBloomier(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("missing build, get, update or info")
	}
	switch args[0] {
	case "build":
		return e.bloomierBuild(args[1:])
	case "get":
		return e.bloomierGet(args[1:])
	case "update":
		return e.bloomierUpdate(args[1:])
	case "info":
		return e.bloomierInfo(args[1:])
	case "-h", "-help", "--help", "help":
		return errHelp
	}
	return usagef("unknown subcommand %q: want build, get, update or info", args[0])
}

// valueBitsValue is a value width, 1..64.
type valueBitsValue int

func (v *valueBitsValue) String() string { return strconv.Itoa(int(*v)) }

func (v *valueBitsValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 64 {
		return errors.New("want a whole number from 1 to 64")
	}
	*v = valueBitsValue(n)
	return nil
}

// checkBitsValue is a check width, 0..64.
type checkBitsValue int

func (v *checkBitsValue) String() string { return strconv.Itoa(int(*v)) }

func (v *checkBitsValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 64 {
		return errors.New("want a whole number from 0 to 64")
	}
	*v = checkBitsValue(n)
	return nil
}

func (e *env) bloomierBuild(args []string) error {
	fs := newFlagSet("bloomier build")
	var r valueBitsValue
	c := checkBitsValue(8)
	var updatable bool
	var seed uint64
	var out string
	fs.Var(&r, "value-bits", "")
	fs.Var(&c, "check", "")
	fs.BoolVar(&updatable, "updatable", false, "")
	fs.Uint64Var(&seed, "seed", 0, "")
	e.outFlag(fs, &out, "")
	e.keyFlags(fs)
	e.quietFlag(fs)
	inputs, err := parseFlagsOut(fs, args, &out)
	if err != nil {
		return err
	}
	in, err := e.readEntries(inputs, seed)
	if err != nil {
		return err
	}
	cfg := bloomier.Config{ValueBits: int(r), CheckBits: int(c), Updatable: updatable, Seed: seed}
	f, err := bloomier.BuildHashes(cfg, in.Hashes, in.Values)
	var conflict *bloomier.ConflictError
	var wide *bloomier.ValueError
	switch {
	case errors.As(err, &wide):
		return fmt.Errorf("%s: value %d needs %d bits, more than --value-bits %d", in.where(wide.Index), wide.Value, wide.Bits, r)
	case errors.As(err, &conflict):
		return fmt.Errorf("%s: key given a different value on %s", in.where(conflict.Second), in.where(conflict.First))
	case errors.Is(err, bloomier.ErrConfig):
		return usagef("%v", err)
	case err != nil:
		return err
	}
	if in.Len() == 0 {
		e.warnf("%s: no entries read: the filter is empty", outputName(out))
	}
	return e.writeFilter(out, f)
}

// entries is what bloomier build and mht build read (keyfile.Entries),
// with the names of the inputs.
type entries struct {
	keyfile.Entries
	names []string
}

// where names the file and line of entry i.
func (in *entries) where(i int) string {
	at := in.Position(i)
	return fmt.Sprintf("%s:%d", displayName(in.names[at.Input]), at.Line)
}

// readEntries reads KEY<TAB>VALUE lines from the named files, or from
// standard input if there are none.
func (e *env) readEntries(names []string, seed uint64) (*entries, error) {
	src := e.keys(names)
	in := &entries{Entries: keyfile.Entries{Seed: seed, Max: bloomier.MaxKeys}, names: src.in.Names}
	err := src.eachAt(func(line []byte, input, n int) error {
		return in.Add(line, keyfile.Position{Input: input, Line: n})
	})
	if err != nil {
		return nil, err
	}
	return in, nil
}

// openBloomier reads the Bloomier filter at path ("-": standard input),
// as open reads any file.
func (e *env) openBloomier(path string) (*bloomier.Filter, error) {
	lf, err := e.open(path)
	switch {
	case errors.Is(err, anyfile.ErrMagic):
		return nil, fileErr(path, errors.New("not a bloomcast file (bad magic)"))
	case err != nil:
		return nil, err
	}
	if b, ok := anyfile.As[*bloomier.Filter](lf.File); ok {
		return b, nil
	}
	if lf.Format() == anyfile.FormatSquid {
		return nil, fileErr(path, errors.New("holds a Squid cache digest, not a Bloomier filter"))
	}
	return nil, fileErr(path, fmt.Errorf("holds a %v, not a Bloomier filter", lf.Header.Type))
}

func (e *env) bloomierGet(args []string) error {
	file, keys, withKeys, err := e.lookupArgs(newFlagSet("bloomier get"), args, "FILE", "filter")
	if err != nil {
		return err
	}
	f, err := e.openBloomier(file)
	if err != nil {
		return err
	}
	return e.answerKeys(keys, withKeys, func(key []byte) (string, bool, error) {
		if v, ok := f.Get(key); ok {
			return strconv.FormatUint(v, 10), true, nil
		}
		return "absent", false, nil
	})
}

func (e *env) bloomierUpdate(args []string) error {
	fs := newFlagSet("bloomier update")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) < 3 || len(args)%2 == 0 {
		return usagef("want FILE and KEY VALUE pairs")
	}
	if args[0] == "-" {
		return usagef("FILE is changed in place, so it must be a file")
	}
	release, err := e.lockInPlace(args[0])
	if err != nil {
		return err
	}
	defer release()
	f, err := e.openBloomier(args[0])
	if err != nil {
		return err
	}
	if !f.Updatable() {
		return fileErr(args[0], errors.New("holds a static Bloomier filter; build it with --updatable"))
	}
	var hs []hashing.Hash128
	var values []uint64
	for i := 1; i < len(args); i += 2 {
		v, err := strconv.ParseUint(args[i+1], 10, 64)
		if err != nil {
			return usagef("value %q is not an unsigned decimal integer (0 to 18446744073709551615): a Bloomier filter stores numbers", args[i+1])
		}
		if bits.Len64(v) > f.ValueBits() {
			return fmt.Errorf("key %q: %w: %d has more than %d bits", args[i], bloomier.ErrValue, v, f.ValueBits())
		}
		hs, values = append(hs, f.HashString(args[i])), append(values, v)
	}
	switch absent, err := f.UpdateHashes(hs, values); {
	case len(absent) > 0:
		fprintf(e.stderr, "bloomcast: %s: %d of %d keys not in the filter (the first: %q); nothing updated, file unchanged\n",
			displayName(args[0]), len(absent), len(hs), args[1+2*absent[0]])
		return exitStatus(1)
	case err != nil:
		return err
	}
	return e.writeFilter(args[0], f)
}

func (e *env) bloomierInfo(args []string) error {
	fs := newFlagSet("bloomier info")
	var asJSON bool
	fs.BoolVar(&asJSON, "json", false, "")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usagef("want one FILE")
	}
	f, err := e.openBloomier(args[0])
	if err != nil {
		return err
	}
	r := filereport.NewBloomierReport(f)
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
