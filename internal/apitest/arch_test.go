package apitest

import (
	"bufio"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// projectPrefix is the import path of the main module; the cluster module's
// is below it, so a package's name on docs/ARCHITECTURE.md is its import
// path without this prefix in both.
const projectPrefix = "github.com/bloomcast/bloomcast/"

// TestArchitectureImports checks docs/ARCHITECTURE.md against the code:
// every package of the main and cluster modules has a row in the package
// table and a section of its own, each naming the module's packages the
// package imports, no more and no fewer; and the layer diagrams put no
// package below one it imports. The page says it is the package map as
// the code is; this keeps it so.
//
// An import list is the text after the table's last "|" or after
// "Imports:"; items are separated by commas outside parentheses. Items
// that are not the module's packages (zeebo/xxh3, "the standard library
// only") are not checked, but an item whose first path element is one of
// the module's directories must name a package. A list that ends with
// "(tests)" counts the imports of the package's tests too; "everything
// above" is not checked.
func TestArchitectureImports(t *testing.T) {
	root := moduleRoot(t)
	pkgs := projectPackages(t, root)
	page := readArchitecture(t, root)
	rows, sections := page.rows, page.sections
	for _, name := range sortedKeys(pkgs) {
		p := pkgs[name]
		for _, where := range []struct {
			what string
			list map[string]string
		}{{"table row", rows}, {"section", sections}} {
			text, ok := where.list[name]
			if !ok {
				t.Errorf("docs/ARCHITECTURE.md: %s has no %s", name, where.what)
				continue
			}
			checkImportList(t, name, where.what, text, p, pkgs)
		}
	}
	for _, name := range append(sortedKeys(rows), sortedKeys(sections)...) {
		if _, ok := pkgs[name]; !ok && !strings.Contains(name, " ") && !otherModule(root, name) {
			t.Errorf("docs/ARCHITECTURE.md names %s, which is not a package", name)
		}
	}
	for _, block := range page.layers {
		checkLayers(t, block, pkgs)
	}
}

// pkgImports are the module's packages one package imports.
type pkgImports struct {
	imports, testImports map[string]bool
}

// projectPackages returns the packages of the main module and of the
// cluster module under root, by their names on the page, with the
// module's packages each imports, from every Go file whatever its build
// constraints (except "ignore").
func projectPackages(t *testing.T, root string) map[string]*pkgImports {
	t.Helper()
	pkgs := map[string]*pkgImports{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if path != root {
			name := d.Name()
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "cluster" {
				return filepath.SkipDir
			}
		}
		p, err := dirImports(path)
		if err != nil || p == nil {
			return err
		}
		pkgs[rel] = p
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// dirImports reads the imports of the Go files in dir; nil if it has none.
func dirImports(dir string) (*pkgImports, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		return nil, err
	}
	p := &pkgImports{imports: map[string]bool{}, testImports: map[string]bool{}}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if ignored(f.Comments) {
			continue
		}
		into := p.imports
		if strings.HasSuffix(file, "_test.go") {
			into = p.testImports
		}
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if name, ok := strings.CutPrefix(path, projectPrefix); ok {
				into[name] = true
			}
		}
	}
	return p, nil
}

// ignored reports whether a file's build constraint is "ignore" (a
// generator run by go run, not part of the package).
func ignored(comments []*ast.CommentGroup) bool {
	for _, g := range comments {
		for _, c := range g.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if tag, ok := expr.(*constraint.TagExpr); err == nil && ok && tag.Tag == "ignore" {
				return true
			}
		}
	}
	return false
}

// otherModule reports whether name is a directory of root with a module
// of its own (bench, node/browsercheck), which the page may describe
// without its packages being checked here.
func otherModule(root, name string) bool {
	_, err := os.Stat(filepath.Join(root, filepath.FromSlash(name), "go.mod"))
	return err == nil && name != "cluster"
}

// architecture is what the test reads of the page: each package's import
// list in the table and in its section, and the layer diagrams' lines.
type architecture struct {
	rows, sections map[string]string
	layers         [][]layerLine
}

// layerLine is one line of a layer diagram: the packages it names.
type layerLine struct {
	names []string
	line  int
}

var (
	tableRow     = regexp.MustCompile("^\\| \\[`([^`]+)`[^\\]]*\\]\\(#[^)]*\\) \\|.*\\| ([^|]*) \\|$")
	sectionTitle = regexp.MustCompile("^### `([^`]+)`")
	twoSpaces    = regexp.MustCompile(`\s{2,}`)
)

func readArchitecture(t *testing.T, root string) architecture {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := architecture{rows: map[string]string{}, sections: map[string]string{}}
	var section, heading string
	var block []layerLine
	inBlock := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			heading, section = line, ""
		case strings.HasPrefix(line, "```"):
			if inBlock && heading == "## Layers" {
				a.layers = append(a.layers, block)
			}
			inBlock, block = !inBlock, nil
		case inBlock:
			if names := twoSpaces.Split(strings.TrimSpace(line), 2)[0]; names != "" {
				block = append(block, layerLine{names: strings.Fields(names), line: n})
			}
		case tableRow.MatchString(line):
			m := tableRow.FindStringSubmatch(line)
			a.rows[m[1]] = m[2]
		case sectionTitle.MatchString(line):
			section = sectionTitle.FindStringSubmatch(line)[1]
		case section != "" && strings.HasPrefix(line, "Imports:"):
			a.sections[section] = strings.TrimSuffix(strings.TrimPrefix(line, "Imports:"), ".")
			section = ""
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(a.rows) == 0 || len(a.sections) == 0 || len(a.layers) == 0 {
		t.Fatalf("docs/ARCHITECTURE.md: found %d table rows, %d sections, %d layer diagrams; the page's form changed",
			len(a.rows), len(a.sections), len(a.layers))
	}
	return a
}

// checkImportList compares the page's list for a package with its imports.
func checkImportList(t *testing.T, name, where, text string, p *pkgImports, pkgs map[string]*pkgImports) {
	t.Helper()
	text = strings.TrimSpace(text)
	if text == "everything above" {
		return
	}
	want := p.imports
	if strings.HasSuffix(text, "(tests)") {
		want = union(p.imports, p.testImports)
		delete(want, name)
	}
	named := map[string]bool{}
	for _, item := range splitTopLevel(text) {
		item = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(item), "(tests)"))
		if _, ok := pkgs[item]; ok {
			named[item] = true
			continue
		}
		first, _, _ := strings.Cut(item, "/")
		if _, ok := pkgs[first]; ok || first == "internal" || first == "cluster" {
			t.Errorf("docs/ARCHITECTURE.md, %s's %s: %q is not a package", name, where, item)
		}
	}
	if missing, extra := difference(want, named), difference(named, want); len(missing)+len(extra) > 0 {
		t.Errorf("docs/ARCHITECTURE.md, %s's %s: leaves out %v, names %v it does not import", name, where, missing, extra)
	}
}

// checkLayers fails for a package that imports one drawn above it in a
// layer diagram ("A package imports only packages below it"); packages on
// one line may import each other.
func checkLayers(t *testing.T, block []layerLine, pkgs map[string]*pkgImports) {
	t.Helper()
	at := map[string]int{}
	for i, l := range block {
		for _, name := range l.names {
			at[name] = i
		}
	}
	for i, l := range block {
		for _, name := range l.names {
			p, ok := pkgs[name]
			if !ok {
				t.Errorf("docs/ARCHITECTURE.md:%d: the layers name %s, which is not a package", l.line, name)
				continue
			}
			for _, imp := range sortedKeys(p.imports) {
				if j, ok := at[imp]; ok && j < i {
					t.Errorf("docs/ARCHITECTURE.md:%d: %s imports %s, which the layers draw above it (line %d)",
						l.line, name, imp, block[j].line)
				}
			}
		}
	}
}

// splitTopLevel splits s at the commas outside parentheses.
func splitTopLevel(s string) []string {
	var items []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, s[start:i])
				start = i + 1
			}
		}
	}
	return append(items, s[start:])
}

func union(a, b map[string]bool) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

// difference returns the keys of a not in b, sorted.
func difference(a, b map[string]bool) []string {
	var d []string
	for k := range a {
		if !b[k] {
			d = append(d, k)
		}
	}
	sort.Strings(d)
	return d
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
