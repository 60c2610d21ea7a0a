package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/bloomcast/bloomcast/keyfile"
	"golang.org/x/term"
)

// keySource reads keys, one per line, from files or standard input,
// gzip- or zstd-compressed or not (package keyfile).
type keySource struct {
	e     *env
	names []string  // "-" is standard input; none means standard input
	stdin io.Reader // standard input
	prog  *progress // nil: no progress display
}

func (e *env) keys(names []string) *keySource {
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &keySource{e: e, names: names, stdin: e.stdin}
}

// withProgress makes the source draw its progress on w, which should be a
// terminal.
func (s *keySource) withProgress(w io.Writer) *keySource {
	s.prog = newProgress(w, s.totalBytes())
	return s
}

// totalBytes returns the size of all inputs, or -1 if some size is
// unknown (a pipe, a terminal).
func (s *keySource) totalBytes() int64 {
	total := int64(0)
	for _, name := range s.names {
		var fi os.FileInfo
		var err error
		if name == "-" {
			f, ok := s.stdin.(*os.File)
			if !ok {
				return -1
			}
			fi, err = f.Stat()
		} else {
			fi, err = os.Stat(name)
		}
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		total += fi.Size()
	}
	return total
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
	for i, name := range s.names {
		err := s.readOne(name, func(key []byte, line int) error { return fn(key, i, line) })
		if err != nil {
			return err
		}
	}
	s.prog.finish()
	return nil
}

func (s *keySource) readOne(name string, fn func(key []byte, line int) error) error {
	r := s.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fileErr(name, err)
		}
		defer closeInput(f)
		r = f
	}
	if s.prog != nil {
		r = &countingReader{r: r, n: &s.prog.bytes} // compressed bytes: the file's size
	}
	sc, err := keyfile.NewScanner(r, keyfile.Options{MaxKeyBytes: uint64(s.e.maxKeyBytes)})
	if err != nil {
		return fileErr(name, err)
	}
	defer sc.Close()
	if sc.Binary() {
		s.e.warnf("%s: NUL bytes in the first 4 KiB: binary data read as keys (one per line)?", displayName(name))
	}
	for sc.Scan() {
		if err := fn(sc.Key(), sc.Line()); err != nil {
			return fmt.Errorf("%s:%d: %w", displayName(name), sc.Line(), err)
		}
		s.prog.key()
	}
	var tooLong *keyfile.TooLongError
	var at *keyfile.LineError
	switch err := sc.Err(); {
	case errors.As(err, &tooLong) && errors.As(err, &at):
		return fmt.Errorf("%s:%d: line longer than %d bytes (--max-key-bytes)", displayName(name), at.Line, tooLong.Max)
	case err != nil:
		return fileErr(name, err)
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
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
