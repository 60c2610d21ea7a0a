// Command apitext writes the exported API of the module's packages as
// text, one file per package, for review and for CI to notice a change:
// every exported constant, variable, function and type with its
// signature, the exported fields of structs and the method set of each
// named type (promoted methods included). Doc comments are left out, so
// the text changes only when the API does.
//
// Regenerate the files after an intended API change with
//
//	.ci/api.sh
//
// which runs `go run ./internal/apitext -dir api`; .ci/run fails when the
// committed files differ from what it writes.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	dir := flag.String("dir", "api", "directory to write one .txt file per package into")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "apitext:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	out, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		return fmt.Errorf("go list: %w", err)
	}
	module, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		return fmt.Errorf("go list -m: %w", err)
	}
	mod := strings.TrimSpace(string(module))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	imp := importer.ForCompiler(token.NewFileSet(), "source", nil)
	for _, path := range strings.Fields(string(out)) {
		if !public(path) {
			continue
		}
		pkg, err := imp.Import(path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if pkg.Name() == "main" {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(path, mod), "/")
		if rel == "" {
			rel = pkg.Name()
		}
		name := filepath.Join(dir, strings.ReplaceAll(rel, "/", "_")+".txt")
		if err := os.WriteFile(name, describe(pkg), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// public reports whether a package's API is one a user can import.
func public(path string) bool {
	for _, part := range strings.Split(path, "/") {
		if part == "internal" {
			return false
		}
	}
	return true
}

// describe returns pkg's exported API, one declaration a line, sorted.
func describe(pkg *types.Package) []byte {
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Path()
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "package %s // %s\n\n", pkg.Name(), pkg.Path())
	names := pkg.Scope().Names()
	sort.Strings(names)
	for _, name := range names {
		if !ast.IsExported(name) {
			continue
		}
		obj := pkg.Scope().Lookup(name)
		tn, ok := obj.(*types.TypeName)
		if !ok {
			line := types.ObjectString(obj, qual)
			if c, ok := obj.(*types.Const); ok {
				line += " = " + c.Val().ExactString()
			}
			fmt.Fprintln(&b, line)
			continue
		}
		describeType(&b, tn, qual)
	}
	return b.Bytes()
}

// describeType writes a type's declaration: for a struct only its
// exported fields, then its method set (value and pointer receivers).
func describeType(b *bytes.Buffer, tn *types.TypeName, qual types.Qualifier) {
	if tn.IsAlias() {
		fmt.Fprintf(b, "type %s = %s\n", tn.Name(), types.TypeString(types.Unalias(tn.Type()), qual))
		return
	}
	under := tn.Type().Underlying()
	if st, ok := under.(*types.Struct); ok {
		fmt.Fprintf(b, "type %s struct\n", tn.Name())
		for i := 0; i < st.NumFields(); i++ {
			if f := st.Field(i); f.Exported() {
				embedded := ""
				if f.Embedded() {
					embedded = " (embedded)"
				}
				fmt.Fprintf(b, "\t%s.%s %s%s\n", tn.Name(), f.Name(), types.TypeString(f.Type(), qual), embedded)
			}
		}
	} else {
		fmt.Fprintf(b, "type %s %s\n", tn.Name(), types.TypeString(under, qual))
	}
	ms := types.NewMethodSet(types.NewPointer(tn.Type()))
	var lines []string
	for i := 0; i < ms.Len(); i++ {
		m := ms.At(i).Obj()
		if !m.Exported() {
			continue
		}
		sig := m.Type().(*types.Signature)
		recv := tn.Name()
		if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
			recv = "*" + recv
		}
		text := strings.TrimPrefix(types.TypeString(sig, qual), "func")
		lines = append(lines, fmt.Sprintf("\tfunc (%s) %s%s", recv, m.Name(), text))
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(b, l)
	}
}
