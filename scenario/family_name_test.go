package scenario

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestParseFamilyDraws reads draws and ranges of both families and refuses
// bad ones with an error naming them.
func TestParseFamilyDraws(t *testing.T) {
	cases := []struct {
		name        string
		ok          bool
		fam         string
		first, last uint64
		err         string // a part of the error, "" for none
	}{
		{"fb60", false, "", 0, 0, ""},
		{"familyX", false, "", 0, 0, ""},
		{"family-17", true, FamilyName, 17, 17, ""},
		{"family:17", true, FamilyName, 17, 17, ""},
		{"family:1-200", true, FamilyName, 1, 200, ""},
		{"family:9990-10010", true, FamilyName, 9990, 10010, ""},
		{"family-held-10003", true, FamilyHeldName, 10003, 10003, ""},
		{"family-held:10000-10004", true, FamilyHeldName, 10000, 10004, ""},
		{"family", true, FamilyName, 0, 0, "family is a family of scenarios: name one draw or a range of draws, such as family-17, family:1-200 (for training) or family:10000-10009 (for evaluation)"},
		{"family-held", true, FamilyHeldName, 0, 0, "family-held is a family of scenarios: name one draw or a range of draws, such as family-held-10000 or family-held:10000-10009"},
		{"family-", true, FamilyName, 0, 0, `scenario family-: draw "": want a whole number`},
		{"family-017", true, FamilyName, 0, 0, `scenario family-017: draw "017": want a whole number written plainly`},
		{"family-+5", true, FamilyName, 0, 0, `draw "+5"`},
		{"family-1-3", true, FamilyName, 0, 0, `scenario family-1-3: draw "1-3"`},
		{"family:5-3", true, FamilyName, 0, 0, "scenario family:5-3: draws 5-3 run backwards"},
		{"family:1-", true, FamilyName, 0, 0, `draw ""`},
		{"family:0-3", true, FamilyName, 0, 0, "scenario family:0-3: no such draw: family has draws 1-9999 for training, 10000-10999 for evaluation"},
		{"family:10990-11000", true, FamilyName, 0, 0, "no such draw"},
		{"family-held:1-5", true, FamilyHeldName, 0, 0, "scenario family-held:1-5: no such draw: family-held has draws 10000-10999, all held out of training"},
		{"family-held-x", true, FamilyHeldName, 0, 0, `draw "x"`},
		{"family-99999999999999999999", true, FamilyName, 0, 0, "want a whole number"},
	}
	for _, c := range cases {
		d, ok, err := ParseFamilyDraws(c.name)
		if ok != c.ok || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseFamilyDraws(%q) = %v, %v; want %v, error %q", c.name, ok, err, c.ok, c.err)
			continue
		}
		if ok && d.Family.Name != c.fam {
			t.Errorf("ParseFamilyDraws(%q): family %s, want %s", c.name, d.Family.Name, c.fam)
		}
		if err == nil && (d.First != c.first || d.Last != c.last) {
			t.Errorf("ParseFamilyDraws(%q) = %d-%d, want %d-%d", c.name, d.First, d.Last, c.first, c.last)
		}
	}
}

// TestExpandNames expands ranges in a list of names and resolves each
// draw; ByName takes one draw, not a range.
func TestExpandNames(t *testing.T) {
	got, err := ExpandNames([]string{" fb60", "family:3-5 ", "family-held:10000-10001", "day"})
	want := []string{"fb60", "family-3", "family-4", "family-5", "family-held-10000", "family-held-10001", "day"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("ExpandNames = %v, %v; want %v", got, err, want)
	}
	for _, n := range got {
		if s, err := ByName(n); err != nil || s.Name != n {
			t.Errorf("ByName(%s) = %s, %v", n, s.Name, err)
		}
	}
	if _, err := ExpandNames([]string{"fb60", "family:3-x"}); err == nil || !strings.Contains(err.Error(), "scenario family:3-x: draw \"x\"") {
		t.Errorf("ExpandNames of a bad range: %v", err)
	}
	if s, err := ByName("family:7"); err != nil || s.Name != "family-7" {
		t.Errorf("ByName(family:7) = %s, %v", s.Name, err)
	}
	if _, err := ByName("family:1-3"); err == nil || !strings.Contains(err.Error(), "family:1-3 names 3 scenarios, the draws family-1 to family-3, where one is wanted") {
		t.Errorf("ByName of a range: %v", err)
	}
	if _, err := ByName("nope"); err == nil || !strings.Contains(err.Error(), "and the draws of family and family-held, such as family-17") {
		t.Errorf("ByName(nope): %v", err)
	}
	// the draws of a training range are a curriculum on one fabric
	names, _ := ExpandNames([]string{"family:1-4"})
	var scs []Scenario
	for _, n := range names {
		s, _ := ByName(n)
		if err := s.CheckTraining(); err != nil {
			t.Fatal(err)
		}
		scs = append(scs, s)
	}
	if c, err := NewCurriculum(scs); err != nil || !slices.Equal(c.Names(), names) {
		t.Errorf("NewCurriculum(family:1-4): %v", err)
	}
}

// TestFamilyNamesReserved: a scenario file may not name its scenarios like
// a family's draws, but may start from one.
func TestFamilyNamesReserved(t *testing.T) {
	for _, name := range []string{"family", "family-3", "family-held-10000", "family-mine"} {
		if err := checkScenarioName(name); err == nil || !strings.Contains(err.Error(), "are those of the scenario families' draws") {
			t.Errorf("checkScenarioName(%s): %v", name, err)
		}
	}
	got, err := Read(strings.NewReader("scenarios:\n  - name: mine\n    base: family-3\n"), "f.yaml", "")
	if err != nil || len(got[0].Gen.Phases) == 0 || got[0].HeldOut {
		t.Errorf("base: family-3: %v", err)
	}
}

// TestWriteListFamilies: the listing ends with the families and their
// ranges.
func TestWriteListFamilies(t *testing.T) {
	var b bytes.Buffer
	if err := (Set{}).WriteList(&b); err != nil {
		t.Fatal(err)
	}
	var lines []string // each with its runs of spaces as one
	for l := range strings.Lines(b.String()) {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	out := strings.Join(lines, "\n")
	for _, want := range []string{"\nfamily:1-9999 training draws of family: ", "\nfamily:10000-10999 evaluation draws of family, held out of training\n", "\nfamily-held:10000-10999 evaluation draws of family-held", "\n2 to 6 phases of 1 to 20 ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("the listing lacks %q:\n%s", want, out)
		}
	}
}

// FuzzParseFamilyDraws: whatever the name, parsing does not panic; a name
// it accepts is a range of draws its family has, and writing the range
// (String) reads back the same.
func FuzzParseFamilyDraws(f *testing.F) {
	for _, s := range []string{"family-17", "family:1-200", "family-held:10000-10004", "family", "family:5-3", "fb60", "family-017", "family:-", "family-held-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		d, ok, err := ParseFamilyDraws(name)
		if !ok || err != nil {
			if !ok && err != nil {
				t.Fatalf("%q: not a family's name, yet an error: %v", name, err)
			}
			return
		}
		first, last := d.Family.Draws()
		if d.First > d.Last || d.First < first || d.Last > last {
			t.Fatalf("%q: draws %d-%d", name, d.First, d.Last)
		}
		again, ok, err := ParseFamilyDraws(d.String())
		if !ok || err != nil || again.Family.Name != d.Family.Name || again.First != d.First || again.Last != d.Last {
			t.Fatalf("%q: %s reads back as %+v, %v, %v", name, d, again, ok, err)
		}
		if !strings.HasPrefix(name, d.Family.Name) {
			t.Fatalf("%q: parsed as family %s", name, d.Family.Name)
		}
	})
}
