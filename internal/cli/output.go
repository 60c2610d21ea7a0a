package cli

import (
	"fmt"
	"io"
	"os"
)

// errWriter passes writes on to w until one fails, then keeps that error
// and fails every later write with it, as bufio.Writer does. run wraps
// standard output in one: a report made of many small writes checks only
// its last, and run fails the command when any write to standard output
// failed (a full disk, a closed pipe), whatever the command returned.
type errWriter struct {
	w   io.Writer
	err error
}

func (w *errWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	w.err = err
	return n, err
}

// fprintf, fprint and fprintln write to standard output or standard error
// and drop the error, which is not lost: on standard output the errWriter
// that run puts there keeps it and fails the command; standard error is
// where failures are reported, so a failed write there has nowhere left
// to go.
func fprintf(w io.Writer, format string, a ...any) { _, _ = fmt.Fprintf(w, format, a...) }
func fprint(w io.Writer, a ...any)                 { _, _ = fmt.Fprint(w, a...) }
func fprintln(w io.Writer, a ...any)               { _, _ = fmt.Fprintln(w, a...) }

// closeInput closes a file that was only read. Everything read from it was
// already checked; closing a read-only file can fail only with a file
// descriptor that was never valid, so its error is dropped.
func closeInput(f *os.File) { _ = f.Close() }

// notAnInput refuses an output path that names one of the inputs: the
// same file, by device and inode (os.SameFile), whatever the links or
// spellings that lead to it. Writing it would replace what the command
// is about to read (a key file turned into a filter), so the command
// stops before it reads anything. An output that does not exist yet, or
// cannot be looked at, is left to the write to report.
func notAnInput(out string, inputs []string) error {
	if out == "-" || out == "" {
		return nil
	}
	oi, err := os.Stat(out)
	if err != nil {
		return nil //nolint:nilerr // the write reports an output it cannot make
	}
	for _, in := range inputs {
		if in == "-" {
			continue
		}
		if ii, err := os.Stat(in); err == nil && os.SameFile(oi, ii) {
			if in == out {
				return fmt.Errorf("-o %s is also an input: writing it would destroy what is read; give another -o", out)
			}
			return fmt.Errorf("-o %s is the input %s (the same file): writing it would destroy what is read; give another -o", out, in)
		}
	}
	return nil
}

// stdinOnce refuses standard input ("-") named twice among the input
// files: it can be read once, and the second read would find it empty
// ("stdin: empty input"), which says nothing of the mistake.
func stdinOnce(inputs []string) error {
	seen := false
	for _, in := range inputs {
		if in != "-" {
			continue
		}
		if seen {
			return usagef("standard input (\"-\") named twice: it can be read once")
		}
		seen = true
	}
	return nil
}
