package tests

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// packageRow is a row of docs/design.md's package table: `pkg` | job | imports.
var packageRow = regexp.MustCompile("^\\| `([a-z0-9/]+)` \\| [^|]+ \\| ([^|]+) \\|$")

// designPackages reads the package table of docs/design.md: the packages
// in the order listed and the graphcc imports each row names (nil for
// "everything above", which only the ordering check applies to).
func designPackages(t *testing.T) (order []string, imports map[string][]string) {
	t.Helper()
	f, err := os.Open("../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	imports = map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := packageRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		pkg, cell := m[1], strings.TrimSpace(m[2])
		if _, dup := imports[pkg]; dup {
			t.Errorf("docs/design.md lists %s twice", pkg)
		}
		order = append(order, pkg)
		switch cell {
		case "everything above":
			imports[pkg] = nil
		case "–":
			imports[pkg] = []string{}
		default:
			for _, p := range strings.Split(cell, ",") {
				imports[pkg] = append(imports[pkg], strings.TrimSpace(p))
			}
			slices.Sort(imports[pkg])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return order, imports
}

// codePackages lists the module's packages and the graphcc packages each
// imports (test files aside), as go list sees them.
func codePackages(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", "graphcc/...").Output()
	if err != nil {
		// go test runs with the go command on PATH: a failure here is a
		// broken module, which the table check must not pass over.
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, imps, _ := strings.Cut(line, ":")
		pkg := strings.TrimPrefix(path, "graphcc/")
		pkgs[pkg] = []string{}
		for _, imp := range strings.Fields(imps) {
			if rest, ok := strings.CutPrefix(imp, "graphcc/"); ok {
				pkgs[pkg] = append(pkgs[pkg], rest)
			}
		}
		slices.Sort(pkgs[pkg])
	}
	return pkgs
}

// TestDesignPackageTable checks docs/design.md's package table against the
// code: every package of the module is listed once, no listed package is
// missing, each row names exactly the graphcc packages its package
// imports, and the table goes downwards (a package imports only packages
// listed above it).
func TestDesignPackageTable(t *testing.T) {
	order, doc := designPackages(t)
	if len(order) == 0 {
		t.Fatal("docs/design.md has no package table")
	}
	code := codePackages(t)
	for pkg := range code {
		if _, ok := doc[pkg]; !ok {
			t.Errorf("package %s is not in docs/design.md's table", pkg)
		}
	}
	for i, pkg := range order {
		imps, ok := code[pkg]
		if !ok {
			t.Errorf("docs/design.md lists %s, which is not a package", pkg)
			continue
		}
		if want := doc[pkg]; want != nil && !slices.Equal(imps, want) {
			t.Errorf("%s imports %v; docs/design.md says %v", pkg, imps, want)
		}
		for _, imp := range imps {
			if j := slices.Index(order, imp); j > i {
				t.Errorf("%s imports %s, listed below it in docs/design.md", pkg, imp)
			}
		}
	}
}
