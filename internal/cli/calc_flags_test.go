package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCalcHelpFlagsKnown: every flag that any of calc's help texts
// documents is one calc knows.
func TestCalcHelpFlagsKnown(t *testing.T) {
	flagLine := regexp.MustCompile(`^  (-{1,2}[a-z][a-z-]*)`)
	seen := 0
	for _, help := range [][]string{{"-h"}, {"--fpset", "-h"}, {"--compressed", "-h"}, {"--transmit", "1", "-h"}, {"--counting", "-h"}, {"--budget", "1", "-h"}} {
		out := ok(t, "", append([]string{"calc"}, help...)...)
		for _, line := range strings.Split(out, "\n") {
			m := flagLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			seen++
			if _, ok := calcFlags[strings.TrimLeft(m[1], "-")]; !ok {
				t.Errorf("calc %v documents %s, which calcFlags lacks", help, m[1])
			}
		}
	}
	if seen < 30 {
		t.Errorf("found %d documented flags; the help texts changed shape", seen)
	}
}

// TestCalcFlagCombinations gives every flag of calc in every mode: where
// the flag means something, calc succeeds; where it means nothing, calc
// fails with one line that names the flag, never a library field and never
// "flag provided but not defined".
func TestCalcFlagCombinations(t *testing.T) {
	modes := []struct {
		mode calcMode
		args string
	}{
		{modeSize, "-n 1000 -p 0.01 -m 12000"},
		{modeFPSet, "--fpset -n 1000"},
		{modeTransmit, "-n 1000 --transmit 8"},
		{modeCompressed, "-n 1000 -p 0.01 --compressed"},
		{modeCounting, "--counting -n 1000 -m 20000 --trials 1"},
		{modeBudget, "-n 1000 --budget 3000"},
	}
	values := map[string]string{
		"n": "1000", "p": "0.02", "m": "20000", "k": "3", "layout": "classic", "block-bits": "1024",
		"bits": "20", "c": "3", "count-bits": "4", "max-m": "100000", "max-bpk": "40", "max-k": "8",
		"overhead": "0.01", "churn": "0.05", "delta": "4", "trials": "2", "seed": "7", "packet": "1000",
		"plot": filepath.Join(t.TempDir(), "calc.svg"),
	}
	fieldName := regexp.MustCompile(`\b(BitsPerElement|MaxBitsPerElement|DeltaBitsPerElement|Churn|Overhead|MaxK|blockBits|TotalBits)\b`)
	for _, md := range modes {
		for name, f := range calcFlags {
			isMode := false
			for _, m := range calcModeFlags {
				isMode = isMode || m.name == name
			}
			if isMode {
				continue
			}
			dash := "--"
			if len(name) == 1 {
				dash = "-"
			}
			args := strings.Fields(md.args + " " + dash + name + " " + values[name])
			if f.modes&md.mode != 0 && name == "block-bits" {
				args = append(args, "--layout", "paged")
			}
			if f.modes&md.mode != 0 && name == "delta" {
				args = append(args, "--churn", "0.05")
			}
			r := bc(t, "", append([]string{"calc"}, args...)...)
			if f.modes&md.mode != 0 {
				if r.code != 0 {
					t.Errorf("calc %s: exit %d, %q", strings.Join(args, " "), r.code, r.stderr)
				}
				continue
			}
			switch {
			case r.code != 2 || strings.Count(r.stderr, "\n") != 1:
				t.Errorf("calc %s: exit %d, stderr %q; want one line", strings.Join(args, " "), r.code, r.stderr)
			case !strings.HasPrefix(r.stderr, "bloomcast: calc: "+dash+name+" "):
				t.Errorf("calc %s: %q does not start by naming %s%s", strings.Join(args, " "), r.stderr, dash, name)
			case strings.Contains(r.stderr, "not defined") || fieldName.MatchString(r.stderr):
				t.Errorf("calc %s: %q", strings.Join(args, " "), r.stderr)
			}
		}
	}
}

// TestCalcFlagMessages: the lines for flags given in a mode that has no
// use for them, and for values out of range, each pointing to the usage.
func TestCalcFlagMessages(t *testing.T) {
	for _, c := range []struct{ args, msg string }{
		{"--delta 1", "calc: --delta needs --transmit Z or -p P --compressed\n"},
		{"--churn 0.1 -n 5", "calc: --churn needs --transmit Z or -p P --compressed\n"},
		{"-n 1000 --whole", "calc: --whole needs --transmit Z or -p P --compressed\n"},
		{"-n 1000 --transmit 8 --layout blocked", "calc: --layout means nothing with --transmit: it goes with calc's sizing by -n, -p, -m and -k, or with --budget\n"},
		{"-n 1000 --transmit 8 --delta 1", "calc: --delta bounds the delta for a churn: it needs --churn C\n"},
		{"-n 1000 --transmit 8 --churn 2", "calc: --churn 2: want a fraction of the keys from 0 to 1\n"},
		{"-n 1000 --transmit 8 --overhead -1", "calc: --overhead -1: want a fraction ≥ 0, such as 0.005\n"},
		{"-n 1000 --transmit 0", "calc: --transmit 0: want bits per key above 0\n"},
		{"-n 1000 --transmit 8 --compressed -p 0.1", "calc: give either --transmit Z or -p P --compressed\n"},
		{"-n 1000 --transmit 8 -m 9000", "calc: -m means nothing with --transmit: calc chooses m; cap it with --max-m BITS\n"},
		{"--fpset --counting -n 5 -m 9", "calc: --fpset and --counting are two modes; give one of --fpset, --transmit, --compressed, --counting, --budget and --static\n"},
		{"-n 10 -p 0.1 --block-bits 100", "calc: --block-bits 100: want a positive multiple of 64\n"},
		{"-n 10 -p 0.1 --block-bits 128 --layout classic", "calc: --block-bits is the page size of the paged layout; it means nothing with --layout classic\n"},
		{"-n 10 -p 0.1 --trials 3", "calc: --trials needs --counting\n"},
	} {
		got := failsWith(t, "calc: ", append([]string{"calc"}, strings.Fields(c.args)...)...)
		if want := "bloomcast: " + strings.TrimSuffix(c.msg, "\n") + " (bloomcast calc -h for usage)\n"; got != want {
			t.Errorf("calc %s: %q, want %q", c.args, got, want)
		}
	}
	// -h after any mode's flag prints that mode's help.
	for args, prefix := range map[string]string{
		"--delta 1 --compressed -h": "usage: bloomcast calc -n N --transmit Z",
		"--counting -n 5 -h":        "usage: bloomcast calc --counting",
		"-n 5 -h":                   "usage: bloomcast calc [-n N]",
	} {
		if out := ok(t, "", append([]string{"calc"}, strings.Fields(args)...)...); !strings.HasPrefix(out, prefix) {
			t.Errorf("calc %s: %.60q", args, out)
		}
	}
}
