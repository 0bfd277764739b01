package scenario

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSet resolves names through a scenario file and the built-in suite.
func TestSet(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte("scenarios:\n  - name: quiet\n    incast: none\n  - name: quiet2\n    incast: none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := LoadSet(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Names(); !slices.Equal(got, []string{"quiet", "quiet2"}) {
		t.Errorf("Names = %v", got)
	}
	for _, name := range []string{"quiet2", Default().Name} {
		if sc, err := set.Lookup(name); err != nil || sc.Name != name {
			t.Errorf("Lookup(%q) = %q, %v", name, sc.Name, err)
		}
	}
	if _, err := set.Lookup("nope"); err == nil || !strings.HasSuffix(err.Error(), ", nor one of "+path+" (quiet, quiet2)") || !strings.HasPrefix(err.Error(), `unknown scenario "nope"`) {
		t.Errorf("Lookup(nope): %v", err)
	}
	if _, err := set.Only(); err == nil || err.Error() != path+" holds 2 scenarios (quiet, quiet2)" {
		t.Errorf("Only of two: %v", err)
	}
	set.File = set.File[:1]
	if sc, err := set.Only(); err != nil || sc.Name != "quiet" {
		t.Errorf("Only of one = %q, %v", sc.Name, err)
	}
	set.Builtin = func(name string) (Scenario, error) { return Scenario{Name: "x" + name}, nil }
	if sc, err := set.Lookup("y"); err != nil || sc.Name != "xy" {
		t.Errorf("Lookup with Builtin = %q, %v", sc.Name, err)
	}

	none, err := LoadSet("")
	if err != nil || len(none.File) != 0 {
		t.Fatalf("LoadSet(\"\") = %+v, %v", none, err)
	}
	if _, err := none.Lookup("nope"); err == nil || strings.Contains(err.Error(), "nor one of") {
		t.Errorf("Lookup without a file: %v", err)
	}
	if _, err := LoadSet(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("LoadSet of a missing file succeeded")
	}
}

// TestSetPick picks a scenario by name or the file's only one, errors
// naming the settings.
func TestSetPick(t *testing.T) {
	two := Set{Path: "s.yaml", File: []Scenario{{Name: "a"}, {Name: "b"}}}
	one := Set{Path: "s.yaml", File: []Scenario{{Name: "a"}}}
	for _, c := range []struct {
		set        Set
		name, want string
		err        string
	}{
		{one, "", "a", ""},
		{two, "b", "b", ""},
		{two, Default().Name, Default().Name, ""},
		{two, "", "", "--scenario-file s.yaml holds 2 scenarios (a, b): name one with --scenario"},
		{Set{}, "", "", "--scenario-file  holds 0 scenarios (): name one with --scenario"},
		{one, "nope", "", `--scenario: unknown scenario "nope"`},
	} {
		sc, err := c.set.Pick(c.name, "--")
		switch {
		case c.err == "" && (err != nil || sc.Name != c.want):
			t.Errorf("Pick(%q) = %q, %v; want %q", c.name, sc.Name, err, c.want)
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("Pick(%q): %v; want %q", c.name, err, c.err)
		}
	}
}
