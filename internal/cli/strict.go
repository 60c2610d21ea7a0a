package cli

import (
	"flag"
	"fmt"
	"io"
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

// writeWarned writes f to out unless --strict refuses the warnings w,
// returning the first of them as the command's error, saying that out was
// not written. Otherwise it prints the warnings (warnf: nothing under
// --quiet) once f is written, so that a failure is reported alone.
func (e *env) writeWarned(out string, f io.WriterTo, w warnings) error {
	if e.strict && len(w) > 0 {
		return fmt.Errorf("%s (--strict: %s not written)", w[0], outputName(out))
	}
	if err := e.writeFilter(out, f); err != nil {
		return err
	}
	for _, msg := range w {
		e.warnf("%s", msg)
	}
	return nil
}
