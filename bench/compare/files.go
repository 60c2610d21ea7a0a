package compare

import (
	"errors"
	"io"
	"os"
	"strings"
)

// The commands of this module (cmd/compare, cmd/coders, cmd/load) share
// these small pieces of plumbing.

// CreateFile creates path and writes it through write, returning the first
// error of creating, writing or closing it.
func CreateFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		return errors.Join(err, f.Close())
	}
	return f.Close()
}

// RenderFile reads a report from path with read and prints it to w with
// write: a command's -render mode.
func RenderFile[R any](w io.Writer, path string, read func(io.Reader) (R, error), write func(io.Writer, R) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only; read reports what matters
	rep, err := read(f)
	if err != nil {
		return err
	}
	return write(w, rep)
}

// ParseList parses a comma-separated list, each item with parse.
func ParseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
