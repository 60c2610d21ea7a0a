package apitest

import (
	"errors"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestZeroValueDocumented fails naming every exported type of a library
// package whose doc comment does not say what its zero value is.
//
// The packages are found by walking the tree from the module root: every
// directory with non-test Go files, except those under internal/, cmd/ or
// testdata/, hidden ones, other modules (a directory with its own go.mod,
// such as bench/) and commands (package main). A type's doc says what its
// zero value is when it contains "zero value" or "zero <TypeName>",
// case-insensitively, with any run of spaces and line breaks between the
// words: "The zero value is ready to use.", "The zero Config is not
// valid; New reports ErrNoN." Whether that sentence is true is for the
// reader of the code and for TestZeroValuesAndNilArguments to check.
func TestZeroValueDocumented(t *testing.T) {
	root := moduleRoot(t)
	dirs := libraryDirs(t, root)
	if len(dirs) == 0 {
		t.Fatal("no library packages found under", root)
	}
	var missing []string
	for _, dir := range dirs {
		bp, err := build.ImportDir(dir, 0)
		if noGo := (*build.NoGoError)(nil); errors.As(err, &noGo) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if bp.Name == "main" {
			continue
		}
		rel, _ := filepath.Rel(root, dir)
		fset := token.NewFileSet()
		var files []*ast.File
		for _, name := range bp.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		p, err := doc.NewFromFiles(fset, files, bp.ImportPath)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, typ := range p.Types {
			if !ast.IsExported(typ.Name) || saysZero(typ.Doc, typ.Name) {
				continue
			}
			missing = append(missing, filepath.ToSlash(rel)+"."+typ.Name)
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s: the type's doc does not say what its zero value is (\"zero value\" or \"zero %s\")", m, m[strings.LastIndex(m, ".")+1:])
	}
}

// saysZero reports whether text contains "zero value" or "zero <name>",
// case-insensitively, with any white space between the two words.
func saysZero(text, name string) bool {
	re := regexp.MustCompile(`(?i)\bzero\s+(value|` + regexp.QuoteMeta(name) + `)\b`)
	return re.MatchString(text)
}

// moduleRoot returns the directory holding the module's go.mod, found by
// walking up from the test's working directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// libraryDirs returns the directories under root that may hold a library
// package of the module: not internal, cmd or testdata, not hidden, not
// another module, and with at least one non-test Go file.
func libraryDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root {
			switch name := d.Name(); {
			case name == "internal", name == "cmd", name == "testdata",
				strings.HasPrefix(name, "."), strings.HasPrefix(name, "_"):
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		gos, err := filepath.Glob(filepath.Join(path, "*.go"))
		if err != nil {
			return err
		}
		for _, g := range gos {
			if !strings.HasSuffix(g, "_test.go") {
				dirs = append(dirs, path)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}
