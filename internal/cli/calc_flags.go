package cli

import (
	"flag"
	"fmt"
	"sort"
	"strings"
)

// calc has several modes, each chosen by a flag (none: sizing by -n, -p,
// -m and -k). Every flag any mode's help documents is known to every
// mode: a flag that means nothing in the mode chosen is refused in one
// line that names the flag it needs, before the mode parses its own flags.

// calcMode is one of calc's modes, as a bit so a flag can list several.
type calcMode uint

const (
	modeSize calcMode = 1 << iota
	modeFPSet
	modeTransmit
	modeCompressed
	modeCounting
	modeBudget
	modeStatic
)

// calcModeFlags are the flags that choose a mode, in the order the
// messages list them.
var calcModeFlags = []struct {
	name string
	mode calcMode
	use  string // how the help writes it
}{
	{"fpset", modeFPSet, "--fpset"},
	{"transmit", modeTransmit, "--transmit Z"},
	{"compressed", modeCompressed, "-p P --compressed"},
	{"counting", modeCounting, "--counting"},
	{"budget", modeBudget, "--budget BYTES"},
	{"static", modeStatic, "--static"},
}

// calcFlags lists every flag of calc and the modes in which it means
// something; bool flags take no value.
var calcFlags = map[string]struct {
	modes calcMode
	bool  bool
}{
	"n":          {modeSize | modeFPSet | modeTransmit | modeCompressed | modeCounting | modeBudget | modeStatic, false},
	"p":          {modeSize | modeFPSet | modeCompressed | modeStatic, false},
	"m":          {modeSize | modeCounting, false},
	"k":          {modeSize | modeCounting, false},
	"json":       {modeSize | modeFPSet | modeTransmit | modeCompressed | modeCounting | modeBudget | modeStatic, true},
	"layout":     {modeSize | modeBudget, false},
	"block-bits": {modeSize | modeBudget, false},
	"fpset":      {modeFPSet, true},
	"bits":       {modeFPSet, false},
	"c":          {modeFPSet, false},
	"count-bits": {modeFPSet, false},
	"transmit":   {modeTransmit, false},
	"compressed": {modeCompressed, true},
	"max-m":      {modeTransmit | modeCompressed | modeBudget, false},
	"max-bpk":    {modeTransmit | modeCompressed | modeBudget, false},
	"max-k":      {modeTransmit | modeCompressed | modeBudget, false},
	"overhead":   {modeTransmit | modeCompressed, false},
	"whole":      {modeTransmit | modeCompressed, true},
	"exact":      {modeTransmit | modeCompressed, true},
	"churn":      {modeTransmit | modeCompressed, false},
	"delta":      {modeTransmit | modeCompressed, false},
	"counting":   {modeCounting, true},
	"trials":     {modeCounting, false},
	"seed":       {modeCounting, false},
	"budget":     {modeBudget, false},
	"plot":       {modeSize | modeTransmit | modeCompressed, false},
	"packet":     {modeBudget, false},
	"static":     {modeStatic, true},
	"q":          {modeSize, true},
	"quiet":      {modeSize, true},
}

// calcMisplaced says, for a flag given in a mode where it means nothing,
// what to use instead, where a better word than "needs" exists.
var calcMisplaced = map[string]map[calcMode]string{
	"m": {
		modeTransmit:   "-m means nothing with --transmit: calc chooses m; cap it with --max-m BITS",
		modeCompressed: "-m means nothing with --compressed: calc chooses m; cap it with --max-m BITS",
		modeFPSet:      "-m means nothing with --fpset: size the fingerprints with -p, --bits or -c",
		modeBudget:     "-m means nothing with --budget: calc chooses m; cap it with --max-m BITS",
	},
	"k": {
		modeTransmit:   "-k means nothing with --transmit: calc chooses k; cap it with --max-k K",
		modeCompressed: "-k means nothing with --compressed: calc chooses k; cap it with --max-k K",
		modeFPSet:      "-k means nothing with --fpset: a fingerprint set has no probes",
		modeBudget:     "-k means nothing with --budget: calc chooses k; cap it with --max-k K",
	},
	"plot": {
		modeFPSet:    "--plot means nothing with --fpset: it draws calc's sizing by -n and -m, or --transmit and --compressed",
		modeCounting: "--plot means nothing with --counting: it draws calc's sizing by -n and -m, or --transmit and --compressed",
		modeBudget:   "--plot means nothing with --budget: it draws calc's sizing by -n and -m, or --transmit and --compressed",
	},
	"p": {
		modeBudget:   "-p means nothing with --budget: calc finds the lowest rate that fits",
		modeTransmit: "-p is the target of --compressed; --transmit Z takes a budget instead",
		modeCounting: "-p means nothing with --counting: give the counters with -m M",
	},
}

// calcModeOf reads calc's arguments far enough to know the mode and
// refuses a flag that means nothing in it. Values are checked later, by
// the mode's own parsing.
func calcModeOf(args []string) (calcMode, error) {
	fs := newFlagSet("calc")
	for name, f := range calcFlags {
		if f.bool {
			fs.Bool(name, false, "")
		} else {
			fs.Var(new(anyValue), name, "")
		}
	}
	if _, err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	mode, chosen := modeSize, ""
	for _, m := range calcModeFlags {
		if !given[m.name] {
			continue
		}
		if chosen != "" {
			if mode|m.mode == modeTransmit|modeCompressed {
				return 0, usagef("give either --transmit Z or -p P --compressed")
			}
			return 0, usagef("--%s and --%s are two modes; give one of --fpset, --transmit, --compressed, --counting, --budget and --static", chosen, m.name)
		}
		mode, chosen = m.mode, m.name
	}
	names := make([]string, 0, len(given))
	for name := range given {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := calcFlags[name]
		if f.modes&mode != 0 {
			continue
		}
		if msg, ok := calcMisplaced[name][mode]; ok {
			return 0, usagef("%s", msg)
		}
		return 0, usagef("%s", calcNeeds(name, f.modes, chosen))
	}
	return mode, nil
}

// calcNeeds writes the line for a flag given outside its modes.
func calcNeeds(name string, modes calcMode, chosen string) string {
	flagName := "--" + name
	if len(name) == 1 {
		flagName = "-" + name
	}
	if modes&modeSize != 0 && modes&modeBudget != 0 {
		return fmt.Sprintf("%s means nothing with --%s: it goes with calc's sizing by -n, -p, -m and -k, or with --budget", flagName, chosen)
	}
	if modes&modeSize != 0 {
		return fmt.Sprintf("%s means nothing with --%s: it goes with calc's sizing by -n, -p, -m and -k", flagName, chosen)
	}
	var uses []string
	for _, m := range calcModeFlags {
		if modes&m.mode != 0 {
			uses = append(uses, m.use)
		}
	}
	msg := fmt.Sprintf("%s needs %s", flagName, strings.Join(uses, " or "))
	if chosen != "" {
		msg += fmt.Sprintf("; it means nothing with --%s", chosen)
	}
	return msg
}

// anyValue accepts any flag value: calcModeOf only needs to know which
// flags were given.
type anyValue string

func (v *anyValue) String() string     { return string(*v) }
func (v *anyValue) Set(s string) error { *v = anyValue(s); return nil }

// wantsFlag reports whether args give the flag name (with or without a
// value), before any "--".
func wantsFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}
