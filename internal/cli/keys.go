package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/bloomcast/bloomcast/keyfile"
	"golang.org/x/term"
)

// keySource reads keys, one per line, from files or standard input,
// gzip- or zstd-compressed or not (keyfile.Inputs).
type keySource struct {
	e    *env
	in   keyfile.Inputs
	prog *progress // nil: no progress display
}

func (e *env) keys(names []string) *keySource {
	if len(names) == 0 {
		names = []string{"-"}
	}
	if !e.quiet && slices.Contains(names, "-") && isTerminal(e.stdin) {
		// Not a silent wait: say what is read and how to end it.
		fprintf(e.stderr, "bloomcast: reading keys from the terminal, one per line; end with Ctrl-D (on Windows Ctrl-Z, Enter)\n")
	}
	s := &keySource{e: e, in: keyfile.Inputs{Names: names, Stdin: e.stdin, Options: keyfile.Options{MaxKeyBytes: uint64(e.maxKeyBytes)}}}
	s.in.Binary = func(name string) {
		e.warnf("%s: NUL bytes in the first 4 KiB: binary data read as keys (one per line)?", displayName(name))
	}
	return s
}

// withProgress makes the source draw its progress on w, which should be a
// terminal.
func (s *keySource) withProgress(w io.Writer) *keySource {
	s.prog = newProgress(w, s.in.Size())
	s.in.Read = func(n int) { s.prog.bytes += int64(n) } // compressed bytes: the file's size
	return s
}

// each calls fn with every key: every non-empty line, without its line
// ending ("\n" or "\r\n"), of every input in turn. fn must not keep the
// slice.
func (s *keySource) each(fn func(key []byte)) error {
	return s.eachChecked(func(key []byte) error { fn(key); return nil })
}

// eachChecked is each for a fn that may refuse a key: its error stops the
// reading and is returned as "FILE:LINE: error".
func (s *keySource) eachChecked(fn func(key []byte) error) error {
	return s.eachAt(func(key []byte, _, _ int) error { return fn(key) })
}

// eachAt is eachChecked for a fn that is also told where the line is: the
// input's index in names and the line's number in it.
func (s *keySource) eachAt(fn func(key []byte, input, line int) error) error {
	err := s.in.Each(func(key []byte, input, line int) error {
		if err := fn(key, input, line); err != nil {
			return err
		}
		s.prog.key()
		return nil
	})
	var ie *keyfile.InputError
	var tooLong *keyfile.TooLongError
	switch {
	case errors.As(err, &ie) && errors.As(ie.Err, &tooLong):
		return fmt.Errorf("%s:%d: line longer than %d bytes (--max-key-bytes)", displayName(ie.Name), ie.Line, tooLong.Max)
	case errors.As(err, &ie) && ie.Line == 0:
		return fileErr(ie.Name, ie.Err)
	case errors.As(err, &ie):
		return fmt.Errorf("%s:%d: %w", displayName(ie.Name), ie.Line, ie.Err)
	case err != nil:
		return err
	}
	s.prog.finish()
	return nil
}

// Progress display timing: nothing for quick jobs, then at most ten
// redraws a second.
const (
	progressDelay    = 500 * time.Millisecond
	progressInterval = 100 * time.Millisecond
)

// progress draws "read X of Y (Z%), N keys, R keys/s" on one terminal line,
// redrawn in place with \r. A nil *progress draws nothing.
type progress struct {
	w     io.Writer
	total int64 // bytes; -1 if unknown
	bytes int64
	keys  int64
	start time.Time
	next  time.Time // earliest next redraw
	drawn bool
}

func newProgress(w io.Writer, total int64) *progress {
	now := time.Now()
	return &progress{w: w, total: total, start: now, next: now.Add(progressDelay)}
}

// key counts one key and redraws if it is time. The clock is read once
// every 1024 keys.
func (p *progress) key() {
	if p == nil {
		return
	}
	p.keys++
	if p.keys%1024 != 0 {
		return
	}
	if now := time.Now(); now.After(p.next) {
		p.draw(now)
		p.next = now.Add(progressInterval)
	}
}

func (p *progress) draw(now time.Time) {
	rate := float64(p.keys) / max(now.Sub(p.start).Seconds(), 1e-9)
	read := humanBytes(p.bytes)
	if p.total >= 0 {
		read += " of " + humanBytes(p.total)
		if p.total > 0 {
			read += fmt.Sprintf(" (%d%%)", 100*p.bytes/p.total)
		}
	}
	// \x1b[K clears the rest of a longer previous line.
	fprintf(p.w, "\rread %s, %s keys, %s keys/s\x1b[K", read, humanCount(float64(p.keys)), humanCount(rate))
	p.drawn = true
}

// finish draws the final state and ends the line, if anything was drawn.
func (p *progress) finish() {
	if p == nil || !p.drawn {
		return
	}
	p.draw(time.Now())
	fprintln(p.w)
	p.drawn = false
}

// isTerminal reports whether stream, a reader or writer, is a terminal
// (not merely a character device such as /dev/null).
func isTerminal(stream any) bool {
	if w, ok := stream.(*errWriter); ok {
		stream = w.w
	}
	f, ok := stream.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
