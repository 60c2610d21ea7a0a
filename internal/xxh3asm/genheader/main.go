// Command genheader writes a package's copy of the XXH3 assembler macro,
// internal/xxh3asm/xxh3_amd64.h: the Go assembler includes headers from
// the package's own directory only, so bloom and counting each need one.
// The copy is the source with a first line saying where it comes from.
// Run it through go generate in the package that needs the copy:
//
//	//go:generate go run ../internal/xxh3asm/genheader
//
// It finds the source through the module root (the directory holding
// go.mod above the current one), and writes xxh3_amd64.h in the current
// directory.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Source is the header's path in the module.
const Source = "internal/xxh3asm/xxh3_amd64.h"

// Line is the first line of every copy.
const Line = "// Code generated from " + Source + " by internal/xxh3asm/genheader (go generate); DO NOT EDIT.\n"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "genheader:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	root := dir
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(root)
		if up == root {
			return errors.New("no go.mod above " + dir)
		}
		root = up
	}
	src, err := os.ReadFile(filepath.Join(root, Source))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "xxh3_amd64.h"), append([]byte(Line), src...), 0o644)
}
