package compare

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
)

// The commands of this module (cmd/compare, cmd/coders, cmd/hits,
// cmd/load) share these small pieces of plumbing.

// EncodeJSON writes v as indented JSON, a report's JSON form.
func EncodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteReport prints a report as a command's -json flag asks: with
// jsonPath "-", its JSON (writeJSON) to stdout instead of its table;
// otherwise its table (writeMarkdown) to stdout and, with a jsonPath, its
// JSON to that file too.
func WriteReport(stdout io.Writer, jsonPath string, writeMarkdown, writeJSON func(io.Writer) error) error {
	if jsonPath == "-" {
		return writeJSON(stdout)
	}
	if err := writeMarkdown(stdout); err != nil {
		return err
	}
	if jsonPath == "" {
		return nil
	}
	return CreateFile(jsonPath, writeJSON)
}

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
