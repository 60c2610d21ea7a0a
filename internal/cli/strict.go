package cli

import (
	"flag"
	"fmt"
)

// --strict turns a command's warnings into an error: it stops before
// writing anything and exits 2, naming the first warning.

// strictFlag registers --strict on fs; it sets e.strict.
func (e *env) strictFlag(fs *flag.FlagSet) {
	fs.BoolVar(&e.strict, "strict", false, "")
}

// warnings collects a command's warnings until it knows whether to go on.
type warnings []string

func (w *warnings) add(format string, a ...any) { *w = append(*w, fmt.Sprintf(format, a...)) }

// refuse returns, under --strict, the first warning as the command's
// error, saying that out was not written; otherwise nil. A command calls
// it before writing out.
func (e *env) refuse(w warnings, out string) error {
	if e.strict && len(w) > 0 {
		return fmt.Errorf("%s (--strict: %s not written)", w[0], outputName(out))
	}
	return nil
}

// report prints the warnings (warnf: nothing under --quiet), once the
// command has done its work, so that a failure is reported alone.
func (e *env) report(w warnings) {
	for _, msg := range w {
		e.warnf("%s", msg)
	}
}
