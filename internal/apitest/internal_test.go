package apitest

import (
	"go/ast"
	"go/importer"
	"go/token"
	"go/types"
	"os/exec"
	"strings"
	"testing"
)

// TestNoInternalTypesExported type-checks every package of the module
// outside internal/ (and its tests' packages: none of them counts) and
// fails on an exported identifier whose type, or the type of an exported
// field or method, is declared in an internal package.
func TestNoInternalTypesExported(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module from source")
	}
	out, err := exec.Command("go", "list", "github.com/bloomcast/bloomcast/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imp := importer.ForCompiler(token.NewFileSet(), "source", nil)
	for _, path := range strings.Fields(string(out)) {
		if isInternal(path) || strings.Contains(path, "/cmd/") {
			continue
		}
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, name := range pkg.Scope().Names() {
			if !ast.IsExported(name) {
				continue
			}
			obj := pkg.Scope().Lookup(name)
			for _, bad := range internalIn(obj) {
				t.Errorf("%s.%s: exposes %s", path, name, bad)
			}
		}
	}
}

func isInternal(path string) bool {
	return strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal")
}

// internalIn returns the internal types that obj's exported surface
// mentions: its own type, and for a named type its exported fields and
// its exported methods (promoted ones included).
func internalIn(obj types.Object) []string {
	var bad []string
	seen := map[types.Type]bool{}
	var walk func(types.Type)
	walk = func(t types.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Named:
			if p := t.Obj().Pkg(); p != nil && isInternal(p.Path()) {
				bad = append(bad, t.String())
			}
			for i := 0; i < t.TypeArgs().Len(); i++ {
				walk(t.TypeArgs().At(i))
			}
		case *types.Alias:
			walk(types.Unalias(t))
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Chan:
			walk(t.Elem())
		case *types.Signature:
			for i := 0; i < t.Params().Len(); i++ {
				walk(t.Params().At(i).Type())
			}
			for i := 0; i < t.Results().Len(); i++ {
				walk(t.Results().At(i).Type())
			}
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				if f := t.Field(i); f.Exported() {
					walk(f.Type())
				}
			}
		case *types.Interface:
			for i := 0; i < t.NumMethods(); i++ {
				walk(t.Method(i).Type())
			}
		}
	}
	walk(obj.Type())
	if tn, ok := obj.(*types.TypeName); ok {
		walk(tn.Type().Underlying())
		ms := types.NewMethodSet(types.NewPointer(tn.Type()))
		for i := 0; i < ms.Len(); i++ {
			if m := ms.At(i).Obj(); m.Exported() {
				walk(m.Type())
			}
		}
	}
	return bad
}
