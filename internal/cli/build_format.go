package cli

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/formats/parquet"
)

// buildFormatArg finds build's --format value in args (before "--"):
// the format and where its flag and value are, or ok false.
func buildFormatArg(args []string) (name string, at, n int, ok bool) {
	for i, a := range args {
		switch {
		case a == "--":
			return "", 0, 0, false
		case a == "-format" || a == "--format":
			if i+1 < len(args) {
				return args[i+1], i, 2, true
			}
			return "", i, 1, true
		case strings.HasPrefix(a, "-format=") || strings.HasPrefix(a, "--format="):
			return a[strings.Index(a, "=")+1:], i, 1, true
		}
	}
	return "", 0, 0, false
}

// buildWithFormat is build --format NAME: bloomcast and squid are build's
// own (the flag removed, or turned into --squid); another program's
// format is built by buildForeign. done is false when build goes on with
// args.
func buildWithFormat(e *env, args []string) (rest []string, done bool, err error) {
	name, at, n, ok := buildFormatArg(args)
	if !ok {
		return args, false, nil
	}
	var format formatValue
	switch err := format.Set(name); {
	case err != nil:
		return nil, true, usagef("--format %q: want one of %s", name, buildFormatNames())
	case anyfile.Format(format) == anyfile.FormatParquet:
		return nil, true, usagef("--format parquet: build writes no Parquet files, which Parquet writers make; --format parquet-sbbf writes the split block Bloom filter they store for a column chunk")
	}
	rest = append(append([]string{}, args[:at]...), args[at+n:]...)
	switch anyfile.Format(format) {
	case anyfile.FormatBloomcast:
		return rest, false, nil
	case anyfile.FormatSquid:
		return append(rest, "--squid"), false, nil
	}
	return nil, true, buildForeign(e, anyfile.Format(format), rest)
}

// buildFormatNames lists the formats build writes: all but Parquet files.
func buildFormatNames() string {
	var names []string
	for _, f := range anyfile.Formats() {
		if f != anyfile.FormatParquet {
			names = append(names, f.String())
		}
	}
	return strings.Join(names, ", ")
}

// buildForeign builds a filter of another program's format from keys.
func buildForeign(e *env, format anyfile.Format, args []string) error {
	fs := newFlagSet("build")
	e.keyFlags(fs)
	e.keyTypeFlag(fs)
	var n, m countValue
	p := rateValue(0.01)
	var k probesValue
	var out string
	var fit bool
	fs.Var(&n, "n", "")
	fs.BoolVar(&fit, "fit", false, "")
	fs.Var(&p, "p", "")
	fs.Var(&m, "m", "")
	fs.Var(&k, "k", "")
	e.outFlag(fs, &out, "")
	e.quietFlag(fs)
	e.strictFlag(fs)
	others := otherBuildFlags(fs)
	inputs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := notInMode(fs, others, fmt.Sprintf("a %v filter", format), func(string) string {
		return "size it with -n and -p, or -m and -k"
	}); err != nil {
		return err
	}
	if out == "" {
		return usagef("missing -o OUT")
	}
	if err := notAnInput(out, inputs); err != nil {
		return err
	}
	switch {
	case fit && format != anyfile.FormatParquetSBBF:
		return usagef("--fit builds a parquet-sbbf filter only")
	case fit && flagSet(fs, "m"):
		return usagef("--fit chooses the size: give -n, the most distinct keys expected, not -m")
	case format == anyfile.FormatParquetSBBF && flagSet(fs, "k"):
		return usagef("-k does not apply to a parquet-sbbf filter: a key sets one bit in each of its block's eight words")
	case format == anyfile.FormatParquetSBBF:
	case flagSet(fs, "m") != flagSet(fs, "k"):
		return usagef("a %v filter takes -m and -k together (or -n and -p)", format)
	}
	spec := anyfile.Spec{Format: format, N: uint64(n), P: float64(p), M: uint64(m), K: int(k), Keys: anyfile.KeyType(e.keyType)}
	b, err := anyfile.NewForeignBuilder(spec, fit)
	if err != nil {
		return fileErr(outputName(out), err)
	}
	if err := e.keys(inputs).eachChecked(func(key []byte) error { return keyError(b.Add(key)) }); err != nil {
		return err
	}
	f, res, err := b.Finish()
	if err != nil {
		return fileErr(outputName(out), err)
	}
	read, distinct := res.Read, res.Distinct
	var w warnings
	name := outputName(out)
	s := f.Stats()
	if read == 0 {
		w.add("%s: no keys read: the filter is empty", name)
	}
	if sb, _ := anyfile.As[*parquet.Filter](f); fit && parquet.FalsePositive(sb.Blocks(), distinct) > float64(p) {
		// The Fit's distinct count misses keys that found all their bits
		// set: the rate from the bits is then the higher.
		r := max(parquet.FalsePositive(sb.Blocks(), distinct), s.FalsePositiveRate)
		w.add("%s: the filter for -n %d misses -p %s for the keys read even unfolded (%s): raise -n", name, cmp.Or(uint64(n), anyfile.FitMaxNDV), rate(float64(p)), rate(r))
	} else if s.FillRatio > 0.9 {
		w.add("%s: %.1f%% of the bits are set: the filter is nearly full (size it for more keys)", name, 100*s.FillRatio)
	} else if flagSet(fs, "p") && s.FalsePositiveRate > 10*float64(p) {
		w.add("%s: false-positive rate %s from the bits, more than 10× the target %s", name, rate(s.FalsePositiveRate), rate(float64(p)))
	}
	return e.writeWarned(out, f, w)
}

// refusedFlag is a flag that takes anything (build's flags of other
// modes, which a mode refuses once it knows they were given; see
// otherBuildFlags); true for one without a value.
type refusedFlag bool

func (refusedFlag) String() string     { return "" }
func (refusedFlag) Set(string) error   { return nil }
func (r refusedFlag) IsBoolFlag() bool { return bool(r) }
