package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/counting"
)

// filterKind holds build's flags that choose a counting filter.
type filterKind struct {
	deletion bool // a deletion filter: two Bloom filters, added and removed
	counting bool
	width    widthValue
	minInc   bool
}

func (k *filterKind) flags(fs *flag.FlagSet) {
	k.width = 4
	fs.BoolVar(&k.counting, "counting", false, "")
	fs.BoolVar(&k.deletion, "deletion", false, "")
	fs.Var(&k.width, "width", "")
	fs.BoolVar(&k.minInc, "minimal-increase", false, "")
}

// check rejects counting options without --counting.
func (k *filterKind) check(fs *flag.FlagSet) error {
	if !k.counting && (flagSet(fs, "width") || k.minInc) {
		return usagef("--width and --minimal-increase describe a counting filter; add --counting")
	}
	if k.counting && k.deletion {
		return usagef("--counting and --deletion are two kinds of filter; give one")
	}
	return nil
}

// kind is the anyfile.Kind that build makes.
func (k *filterKind) kind() anyfile.Kind {
	switch {
	case k.counting:
		return anyfile.Counting
	case k.deletion:
		return anyfile.Deletion
	}
	return anyfile.Bloom
}

// widthValue is a counter width: 4, 8 or 16 bits.
type widthValue int

func (w *widthValue) String() string { return strconv.Itoa(int(*w)) }

func (w *widthValue) Set(s string) error {
	switch s {
	case "4", "8", "16":
		v, _ := strconv.Atoi(s)
		*w = widthValue(v)
		return nil
	}
	return errors.New("want 4, 8 or 16")
}

var addCommand = &command{
	name:    "add",
	summary: "add keys to a filter file in place",
	usage:   usageText("add"),
	run:     runAdd,
}

var removeCommand = &command{
	name:    "remove",
	summary: "remove keys from a counting or deletion filter file in place",
	usage:   usageText("remove"),
	run:     runRemove,
}

var countCommand = &command{
	name:    "count",
	summary: "estimate how often keys were added to a counting filter",
	usage:   usageText("count"),
	run:     runCount,
}

// openInPlace parses the arguments of add and remove, takes the lock on
// FILTER (see lockInPlace) and reads it. Unless it fails, the caller must
// call release when it has written FILTER back or given up.
func (e *env) openInPlace(name string, args []string) (lf *loadedFilter, keys []string, release func(), err error) {
	fs := newFlagSet(name)
	e.keyFlags(fs)
	e.quietFlag(fs)
	if name == "add" {
		e.formatFlag(fs)
		e.keyTypeFlag(fs)
		e.targetFlag(fs)
	}
	args, err = parseFlags(fs, args)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(args) == 0 {
		return nil, nil, nil, usagef("missing FILTER")
	}
	if args[0] == "-" {
		return nil, nil, nil, usagef("FILTER is changed in place, so it must be a file")
	}
	if release, err = e.lockInPlace(args[0]); err != nil {
		return nil, nil, nil, err
	}
	lf, err = e.openAny(args[0])
	if err == nil && lf.other && lf.deletion() == nil {
		err = errNotChangeable(lf)
	}
	if err != nil {
		release()
		return nil, nil, nil, err
	}
	return lf, args[1:], release, nil
}

func runAdd(e *env, args []string) error {
	lf, keys, release, err := e.openInPlace("add", args)
	if err != nil {
		return err
	}
	defer release()
	add := lf.adder()
	var w warnings
	var removed int
	var firstRemoved string
	if d := lf.deletion(); d != nil {
		// A deletion filter removes a key for good: adding it again sets
		// bits it already has, and the key stays absent.
		plain := add
		add = func(key []byte) error {
			if d.Removed().Contains(key) {
				if removed == 0 {
					firstRemoved = string(key)
				}
				removed++
			}
			return plain(key)
		}
	}
	if err := e.eachKeyChecked(keys, add); err != nil {
		if len(keys) > 0 { // a KEY argument: the problem is the filter's
			err = fileErr(lf.path, err)
		}
		return err
	}
	if removed > 0 {
		w.add("%s: %d of the keys added stay absent, removed before (the first: %q): a deletion filter removes a key for good; build a counting filter (--counting) to remove keys and add them again",
			displayName(lf.path), removed, firstRemoved)
	}
	return e.writeBackChecked(lf.path, lf, w, rebuildAdvice)
}

func runRemove(e *env, args []string) error {
	lf, keys, release, err := e.openInPlace("remove", args)
	if err != nil {
		return err
	}
	defer release()
	if lf.other {
		return e.removeFromDeletion(lf, keys)
	}
	cf, ok := anyfile.As[*counting.Filter](lf.File)
	if !ok {
		return fileErr(lf.path, fmt.Errorf("holds %s, which cannot remove keys; build a counting filter (--counting)", lf.kind()))
	}
	if cf.MinimalIncrease() {
		return fileErr(lf.path, counting.ErrNoRemoval)
	}
	var refused, total int
	var first string
	err = e.eachKey(keys, func(key []byte) {
		total++
		if cf.Remove(key) != nil {
			if refused == 0 {
				first = string(key)
			}
			refused++
		}
	})
	if err != nil {
		return err
	}
	if refused > 0 {
		fprintf(e.stderr, "bloomcast: %s: %d of %d keys not present (the first: %q); nothing removed, file unchanged\n",
			displayName(lf.path), refused, total, first)
		return exitStatus(1)
	}
	return e.writeBack(lf.path, lf)
}

func runCount(e *env, args []string) error {
	file, keys, withKeys, err := e.lookupArgs(newFlagSet("count"), args, "FILTER", "filter")
	if err != nil {
		return err
	}
	lf, err := e.openFilter(file)
	if err != nil {
		return err
	}
	cf, ok := anyfile.As[*counting.Filter](lf.File)
	if !ok {
		return fileErr(lf.path, fmt.Errorf("holds %s, which does not count; build it with --counting", lf.kind()))
	}
	return e.answerKeys(keys, withKeys, func(key []byte) (string, bool, error) {
		return strconv.FormatUint(cf.Count(key), 10), true, nil
	})
}
