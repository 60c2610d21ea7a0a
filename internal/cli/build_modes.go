package cli

import (
	"flag"
	"slices"
)

// build's modes (--fpset, --static, --scalable, --format) each parse
// their own flags. Each also takes build's other flags, only to answer
// one given with what the mode is and takes, not as an unknown flag.

// buildFlags are the flags of all of build's modes, true for one without
// a value.
var buildFlags = map[string]bool{
	"n": false, "p": false, "m": false, "k": false, "layout": false, "block-bits": false, "seed": false,
	"hash": false, "folds": false, "strict": true,
	"counting": true, "deletion": true, "width": false, "minimal-increase": true,
	"squid": true, "bits-per-entry": false,
	"budget": false, "packet": false, "max-m": false, "max-bpk": false, "max-k": false,
	"format": false, "fit": true, "key-type": false,
	"fpset": true, "bits": false, "c": false, "count-bits": false, "rice": true,
	"static": true, "scalable": true, "non-scaling": true, "expansion": false, "tightening": false,
}

// otherKinds are the flags that choose another kind of filter than a
// mode's own.
var otherKinds = []string{"fpset", "static", "scalable", "squid", "counting", "deletion", "budget", "format"}

// otherBuildFlags registers on fs, a mode's flag set, build's flags that
// it does not define, and returns their names, sorted.
func otherBuildFlags(fs *flag.FlagSet) []string {
	var others []string
	for name, isBool := range buildFlags {
		if fs.Lookup(name) == nil {
			fs.Var(refusedFlag(isBool), name, "")
			others = append(others, name)
		}
	}
	slices.Sort(others)
	return others
}

// notInMode refuses the first of others given, in one line: "-n does not
// apply to --static: " and why, which says what the mode is or takes.
func notInMode(fs *flag.FlagSet, others []string, mode string, why func(name string) string) error {
	for _, name := range others {
		if !flagSet(fs, name) {
			continue
		}
		reason := why(name)
		if slices.Contains(otherKinds, name) {
			reason = "the two build different kinds of filter; give one"
		}
		return usagef("%s does not apply to %s: %s", dashed(name), mode, reason)
	}
	return nil
}

// staticWhy says why a flag does not apply to --static.
func staticWhy(name string) string {
	switch name {
	case "n", "m", "k":
		return "a static filter is sized for the keys it reads, at the rate -p P or --bits B gives"
	}
	return "a static filter (a ribbon filter) takes -p or --bits, --seed, --strict and -o"
}

// fpsetWhy says why a flag does not apply to --fpset.
func fpsetWhy(name string) string {
	switch name {
	case "m", "k":
		return "a fingerprint set is sized by -n and -p, --bits or -c"
	}
	return "a fingerprint set takes -n, -p, --bits or -c, --count-bits, --rice, --seed and -o"
}

// scalableWhy says why a flag does not apply to --scalable.
func scalableWhy(name string) string {
	switch name {
	case "m", "k":
		return "a scalable filter sizes its layers from -n and -p, adding layers as keys arrive"
	}
	return "a scalable filter takes -n, -p, --expansion, --tightening, --non-scaling, --layout, --block-bits, --seed and -o"
}
