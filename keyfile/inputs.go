package keyfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Inputs reads keys from files in turn, as the bloomcast command reads
// the FILE arguments of build, add, query and the others: each through a
// Scanner (compressed or not), "-" standing for Stdin. The zero value
// reads "-" alone, and with no Stdin that is an empty input.
type Inputs struct {
	// Names are the inputs' paths; "-" is Stdin. None means "-" alone.
	Names []string
	// Stdin is what "-" reads.
	Stdin io.Reader
	// Options tune every input's Scanner.
	Options Options
	// Binary, if not nil, is called with the name of each input that
	// has NUL bytes in its first BinaryWindow bytes (Scanner.Binary): a
	// file that is likely no key file, for the caller to warn about.
	Binary func(name string)
	// Read, if not nil, is called with the count of bytes read from an
	// input as they are read (before decompression: the file's bytes),
	// for a display of progress against Size.
	Read func(n int)
}

// An InputError is Inputs.Each's error: the input named Name failed to
// open or read (Line 0), or its line Line was refused (by the caller's
// function, or as longer than Options.MaxKeyBytes: Err is then a
// *TooLongError). The zero value names no input.
type InputError struct {
	Name string
	Line int
	Err  error
}

func (e *InputError) Error() string {
	name := e.Name
	if name == "-" {
		name = "stdin"
	}
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", name, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", name, e.Line, e.Err)
}

// Unwrap returns the input's or the line's error.
func (e *InputError) Unwrap() error { return e.Err }

// names returns the inputs, "-" alone for none.
func (in Inputs) names() []string {
	if len(in.Names) == 0 {
		return []string{"-"}
	}
	return in.Names
}

// Size returns the inputs' total size in bytes, or -1 when some size is
// unknown (a pipe, a terminal, a file that does not open).
func (in Inputs) Size() int64 {
	total := int64(0)
	for _, name := range in.names() {
		var fi os.FileInfo
		var err error
		if name == "-" {
			f, ok := in.Stdin.(*os.File)
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

// Each calls fn with every key of every input in turn (every non-empty
// line without its line ending; fn must not keep the slice), with the
// input's index in Names and the line's number in it. The first error,
// fn's or the inputs', stops the reading and is returned as an
// *InputError.
func (in Inputs) Each(fn func(key []byte, input, line int) error) error {
	for i, name := range in.names() {
		if err := in.readOne(name, func(key []byte, line int) error { return fn(key, i, line) }); err != nil {
			return err
		}
	}
	return nil
}

func (in Inputs) readOne(name string, fn func(key []byte, line int) error) error {
	r := in.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return &InputError{Name: name, Err: err}
		}
		// Read only: a close error loses nothing.
		defer func() { _ = f.Close() }()
		r = f
	} else if r == nil {
		r = eofReader{}
	}
	if in.Read != nil {
		r = &countingReader{r: r, read: in.Read}
	}
	sc, err := NewScanner(r, in.Options)
	if err != nil {
		return &InputError{Name: name, Err: err}
	}
	defer sc.Close()
	if sc.Binary() && in.Binary != nil {
		in.Binary(name)
	}
	for sc.Scan() {
		if err := fn(sc.Key(), sc.Line()); err != nil {
			return &InputError{Name: name, Line: sc.Line(), Err: err}
		}
	}
	var at *LineError
	switch err := sc.Err(); {
	case errors.As(err, &at):
		return &InputError{Name: name, Line: at.Line, Err: at.Err}
	case err != nil:
		return &InputError{Name: name, Err: err}
	}
	return nil
}

// countingReader reports the bytes read through it.
type countingReader struct {
	r    io.Reader
	read func(int)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read(n)
	return n, err
}

// eofReader is an empty input.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
