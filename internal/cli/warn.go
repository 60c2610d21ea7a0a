package cli

import "flag"

// Warnings are for things that worked but may not be what the user
// meant (input that looks binary, a filter sized too small): one line on
// standard error, "bloomcast: warning: …", and the command goes on and
// exits 0. -q or --quiet, on every command that can warn, silences them.

// quietFlag registers -q and --quiet on fs: they set e.quiet, which
// silences warnings (and build's progress display).
func (e *env) quietFlag(fs *flag.FlagSet) {
	fs.BoolVar(&e.quiet, "quiet", false, "")
	fs.BoolVar(&e.quiet, "q", false, "")
}

// outFlag registers -o OUT (default def) and --force, which lets binary
// output go to a terminal.
func (e *env) outFlag(fs *flag.FlagSet, out *string, def string) {
	fs.StringVar(out, "o", def, "")
	fs.BoolVar(&e.force, "force", false, "")
}

// warnf prints a one-line warning on standard error unless e.quiet is set.
// The format should name the file the warning is about.
func (e *env) warnf(format string, a ...any) {
	if e.quiet {
		return
	}
	fprintf(e.stderr, "bloomcast: warning: "+format+"\n", a...)
}
