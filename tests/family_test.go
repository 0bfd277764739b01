package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIFamilies: the scenario families are listed with their ranges,
// a draw evaluates like any scenario, a range of draws resolves wherever
// scenario lists are taken, and training refuses an evaluation draw and the
// held-out family, naming the draw.
func TestCLIFamilies(t *testing.T) {
	bin := graphccBinary(t)
	dir := t.TempDir()
	list := mustRun(t, bin, dir, "eval", "--list-scenarios")
	for _, want := range []string{"\nfamily:1-9999 ", "\nfamily:10000-10999 ", "\nfamily-held:10000-10999 "} {
		if !strings.Contains(list, want) {
			t.Errorf("eval --list-scenarios lacks %q", want)
		}
	}
	// family-355: 4 ms of arrivals, the shortest of the first 400 draws
	mustRun(t, bin, dir, "eval", "--scenarios", "family:355-355", "--policies", "static", "--seeds", "3", "--rewards", "", "--out", "ev")
	report, err := os.ReadFile(filepath.Join(dir, "ev", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "family-355") {
		t.Errorf("the report does not name family-355:\n%s", report)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--scenario", "family:9999-10000", "--model-out", "m.model"},
			"--scenario family:9999-10000: scenario family-10000 is held out: its traffic is draw 10000 of family, an evaluation draw"},
		{[]string{"train", "--scenario", "family-held:10000-10001", "--model-out", "m.model"},
			"scenario family-held-10000 is held out: its traffic is draw 10000 of family-held, the held-out family configuration"},
		{[]string{"tune", "--scenario", "fb60,family:0-2"}, "--scenario fb60,family:0-2: scenario family:0-2: no such draw"},
		{[]string{"eval", "--scenarios", "family", "--out", "ev2"}, "family is a family of scenarios: name one draw or a range of draws"},
	} {
		_, errOut, code := graphcc(t, bin, dir, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("graphcc %s: exit %d, stderr %q; want a failure naming %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}
