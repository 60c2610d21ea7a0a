package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/filereport"
	"github.com/bloomcast/bloomcast/internal/flagvalue"
	"github.com/bloomcast/bloomcast/params"
)

// newFlagSet returns a silent flag set: the commands print their own usage
// text, which is part of bloomcast's interface.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseNoArgs is parseFlags for a command that takes no positional
// arguments: any is a usage error.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	return nil
}

// parseModeFlags parses the flags of a calc mode, which takes no
// arguments: -h prints the mode's usage on standard output and reports
// done, and the caller returns nil.
func (e *env) parseModeFlags(fs *flag.FlagSet, args []string, usage string) (done bool, err error) {
	err = parseNoArgs(fs, args)
	if errors.Is(err, errHelp) {
		fprint(e.stdout, usage)
		return true, nil
	}
	if err == nil {
		err = nonzeroN(fs)
	}
	return false, err
}

// nonzeroN refuses calc's -n 0: every mode sizes for n keys, and its
// "needs -n N" would tell a user who gave -n to give it.
func nonzeroN(fs *flag.FlagSet) error {
	if f := fs.Lookup("n"); f != nil && flagSet(fs, "n") && f.Value.String() == "0" {
		return usagef("-n must be at least 1: it is the number of keys")
	}
	return nil
}

// parseFlagsOut is parseFlags for a command that must be given -o OUT
// (registered with outFlag to write into *out).
func parseFlagsOut(fs *flag.FlagSet, args []string, out *string) ([]string, error) {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if *out == "" {
		return nil, usagef("missing -o OUT")
	}
	if err := notAnInput(*out, rest); err != nil {
		return nil, err
	}
	return rest, nil
}

// parseFlags parses args like a Unix tool: flags may come before, between
// or after the positional arguments, with one dash or two ("-json",
// "--json"), their values joined by "=" or in the next argument; "--" ends
// the flags and "-" alone is a positional argument (standard input). It
// returns the positional arguments, errHelp for -h or --help, and a
// usageError for a bad flag.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimPrefix(a[1:], "-")
		if n, _, ok := strings.Cut(name, "="); ok {
			if err := knownFlag(fs, n, a[:len(a)-len(name)]+n); err != nil {
				return nil, err
			}
			continue
		}
		if err := knownFlag(fs, name, a); err != nil {
			return nil, err
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, errHelp
		}
		return nil, usagef("%s", flagMessage(err))
	}
	return positional, nil
}

// knownFlag refuses a flag that fs does not define, echoing it as typed
// and naming the closest flag that fs defines, if one is close.
func knownFlag(fs *flag.FlagSet, name, typed string) error {
	if name == "h" || name == "help" || fs.Lookup(name) != nil {
		return nil
	}
	best, dist := "", len(name)/3+2 // a suggestion within a few edits
	fs.VisitAll(func(f *flag.Flag) {
		if d := editDistance(name, f.Name); d < dist {
			best, dist = f.Name, d
		}
	})
	if best != "" {
		return usagef("unknown flag %s: did you mean %s?", typed, dashed(best))
	}
	return usagef("unknown flag %s", typed)
}

// dashed is a flag's name as the usage texts write it: -n, --counting.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagMessage rewrites the flag package's errors so that a bad value
// reads the same in every command, as the commands' own checks do:
// `--format "x": want one of …`, `-o needs a value`.
func flagMessage(err error) string {
	s := err.Error()
	var value, name, why string
	switch {
	case strings.HasPrefix(s, "invalid value "):
		rest := strings.TrimPrefix(s, "invalid value ")
		i := strings.Index(rest, " for flag -")
		if i < 0 {
			return s
		}
		value, rest = rest[:i], rest[i+len(" for flag -"):]
		name, why, _ = strings.Cut(rest, ": ")
	case strings.HasPrefix(s, "invalid boolean value "):
		rest := strings.TrimPrefix(s, "invalid boolean value ")
		i := strings.Index(rest, " for -")
		if i < 0 {
			return s
		}
		value, rest = rest[:i], rest[i+len(" for -"):]
		name, why, _ = strings.Cut(rest, ": ")
		if why == "" || why == "parse error" { // a plain boolean; a flag that may stand alone keeps its reason
			why = "want true or false"
		}
	case strings.HasPrefix(s, "flag needs an argument: -"):
		return dashed(strings.TrimPrefix(s, "flag needs an argument: -")) + " needs a value"
	default:
		return s
	}
	switch why {
	case "parse error":
		why = "not a number"
	case "value out of range":
		why = "out of range"
	}
	return dashed(name) + " " + value + ": " + why
}

// editDistance is the Levenshtein distance between a and b: the fewest
// insertions, deletions and substitutions of bytes that turn one into
// the other.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagSet reports whether the flag called name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// countValue is a whole number ≥ 0 as a flag (internal/flagvalue.Count,
// which the serve flags of package cache parse with too).
type countValue = flagvalue.Count

// rateValue is a probability in (0, 1).
type rateValue float64

func (r *rateValue) String() string { return strconv.FormatFloat(float64(*r), 'g', -1, 64) }

func (r *rateValue) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0 && v < 1) {
		return errors.New("want a rate between 0 and 1, such as 0.01 or 1e-6")
	}
	*r = rateValue(v)
	return nil
}

// probesValue is a number of probes per key, 1..params.MaxK.
type probesValue int

func (k *probesValue) String() string { return strconv.Itoa(int(*k)) }

func (k *probesValue) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > params.MaxK {
		return fmt.Errorf("want a whole number from 1 to %d", params.MaxK)
	}
	*k = probesValue(v)
	return nil
}

// hashValue is a --hash flag: the hashing scheme of a filter built,
// by the name "bloomcast inspect" prints (filereport.SchemeName).
type hashValue struct{ scheme hashing.Scheme }

func (h *hashValue) String() string {
	if h.scheme == nil {
		return "xxh3"
	}
	return filereport.SchemeName(uint8(h.scheme.ID()))
}

func (h *hashValue) Set(s string) error {
	for _, scheme := range []hashing.Scheme{hashing.Default, hashing.Fast64} {
		if strings.EqualFold(s, filereport.SchemeName(uint8(scheme.ID()))) {
			h.scheme = scheme
			return nil
		}
	}
	return errors.New("want xxh3 or xxh3-64")
}

// layoutValue is a layout name; with all set, "all" is accepted as 0.
type layoutValue struct {
	layout params.Layout
	all    bool
}

func (l *layoutValue) String() string {
	if l.layout == 0 {
		return "all"
	}
	return l.layout.String()
}

func (l *layoutValue) Set(s string) error {
	if l.all && strings.EqualFold(s, "all") {
		l.layout = 0
		return nil
	}
	v, err := params.ParseLayout(s)
	if err != nil {
		if l.all {
			return errors.New("want classic, partitioned, blocked, paged or all")
		}
		return errors.New("want classic, partitioned, blocked or paged")
	}
	l.layout = v
	return nil
}
