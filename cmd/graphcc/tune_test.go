package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// miniTuneScenario is a scenario file of one tiny scenario, mini (4 hosts,
// 1 ms of arrivals, 3:1 incasts), which tune searches in seconds.
const miniTuneScenario = "scenarios:\n  - name: mini\n    clos: {leaves: 2, spines: 1, hosts_per_leaf: 2}\n" +
	"    duration: 1ms\n    incast: {fanin: 3, size: 64000, period: 250us}\n"

// TestTuneThenSim tunes the paper's grid on a tiny scenario of a
// scenario file, then runs the result with sim --policy tuned:FILE.
func TestTuneThenSim(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(miniTuneScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "t.json")
	stdout, stderr, err := execute(t, t.Context(), "tune", "--scenario-file", file, "--grid", "paper", "--refine", "1", "--top", "1",
		"--seeds", "2001", "--confirm-seeds", "3001-3003", "--workers", "2", "--json", out)
	if err != nil {
		t.Fatalf("tune: %v\n%s", err, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Scenario   string `json:"scenario"`
		BestPolicy string `json:"best_policy"`
		Runs       []struct {
			Policy string  `json:"policy"`
			Round  string  `json:"round"`
			Score  float64 `json:"score"`
		} `json:"runs"`
		Confirm struct {
			VsStatic struct {
				Value float64  `json:"value"`
				Lo    *float64 `json:"lo"`
				Hi    *float64 `json:"hi"`
			} `json:"vs_static"`
		} `json:"confirm"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Scenario != "mini" || !strings.HasPrefix(res.BestPolicy, "static:") || len(res.Runs) <= 120 ||
		res.Runs[0].Policy != "static:2,16,0.01" || res.Runs[len(res.Runs)-1].Round != "refine 1" || res.Confirm.VsStatic.Lo == nil {
		t.Errorf("result %s", b)
	}
	if !strings.Contains(stdout, "best "+res.BestPolicy) || !strings.Contains(stdout, "paper grid's best") {
		t.Errorf("summary %q", stdout)
	}
	// a line per round off a terminal
	for _, r := range []string{"grid, 120 settings run", "refine 1,", "confirm,"} {
		if !strings.Contains(stderr, r) {
			t.Errorf("progress lacks %q:\n%s", r, stderr)
		}
	}
	run(t, "sim", "--scenario-file", file, "--policy", "tuned:"+out, "--seed", "1")

	// --reuse: the grid is the result's, not simulated again
	prior := filepath.Join(dir, "prior")
	if err := os.Mkdir(prior, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prior, "mini.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "t2.json")
	run(t, "tune", "--scenario-file", file, "--grid", "paper", "--refine", "0", "--seeds", "2001", "--confirm-seeds", "3001-3003",
		"--workers", "2", "--reuse", prior, "--json", out2)
	b2, err := os.ReadFile(out2)
	if err != nil {
		t.Fatal(err)
	}
	var res2 struct {
		BestPolicy string `json:"best_policy"`
		Runs       []struct {
			Reused int `json:"reused"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b2, &res2); err != nil {
		t.Fatal(err)
	}
	if len(res2.Runs) != 120 || res2.Runs[0].Reused != 1 || res2.Runs[119].Reused != 1 {
		t.Errorf("--reuse: %d runs, the first reused %d", len(res2.Runs), res2.Runs[0].Reused)
	}

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--seeds", "1001"}, "--seeds: 1001 is one of eval's seeds"},
		{[]string{"--confirm-seeds", "1001-1003"}, "--confirm-seeds: 1001 is one of eval's seeds"},
		{[]string{"--grid", "fine"}, "--grid fine: want paper, extended or actions:SET"},
		{[]string{"--grid", "actions:fine"}, `--grid actions:fine: unknown action set "fine"`},
		{[]string{"--top", "0"}, "--top 0: must be at least 1"},
		{[]string{"--scenario", "mini,mini"}, "--scenario mini,mini: mini given twice"},
		{[]string{"--scenario", "mini,nope"}, "--scenario mini,nope: "},
		{[]string{"--json", filepath.Join(dir, "nodir", "t.json")}, "--json " + filepath.Join(dir, "nodir", "t.json")},
		{[]string{"--reuse", filepath.Join(dir, "nodir")}, "--reuse: stat " + filepath.Join(dir, "nodir") + ": no such file"},
		{[]string{"--reuse", out}, "--reuse: " + out + ": not a directory"},
	} {
		_, _, err := execute(t, t.Context(), append([]string{"tune", "--scenario-file", file}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("tune %v: %v, want an error containing %q", tc.args, err, tc.err)
		}
	}
}

// TestTuneJoint runs tune with --dcqcn and --roles on two scenarios: the
// rounds in its progress, a best_policy that sim runs, and the result's
// scenarios and best of one setting.
func TestTuneJoint(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(miniTuneScenario+
		"  - name: mini30\n    clos: {leaves: 2, spines: 1, hosts_per_leaf: 2}\n    duration: 1ms\n    load: 0.3\n    incast: {fanin: 3, size: 64000, period: 500us}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "t.json")
	stdout, stderr, err := execute(t, t.Context(), "tune", "--scenario-file", file, "--scenario", "mini,mini30", "--grid", "paper",
		"--refine", "0", "--top", "1", "--dcqcn", "--roles", "--seeds", "2001", "--confirm-seeds", "3001", "--json", out)
	if err != nil {
		t.Fatalf("tune: %v\n%s", err, stderr)
	}
	for _, r := range []string{"dcqcn timer,", "dcqcn hai,", "roles 1,", "confirm,"} {
		if !strings.Contains(stderr, r) {
			t.Errorf("progress lacks %q:\n%s", r, stderr)
		}
	}
	if !strings.Contains(stdout, "tune 2 scenarios (mini, mini30") {
		t.Errorf("summary %q", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Scenarios  []string `json:"scenarios"`
		BestPolicy string   `json:"best_policy"`
		Confirm    struct {
			BestOneSetting string `json:"best_one_setting"`
		} `json:"confirm"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Scenarios, ",") != "mini,mini30" || res.Confirm.BestOneSetting == "" {
		t.Errorf("result %s", b)
	}
	run(t, "sim", "--scenario-file", file, "--scenario", "mini30", "--policy", res.BestPolicy, "--seed", "1")
	run(t, "sim", "--scenario-file", file, "--scenario", "mini30", "--policy", "tuned:"+out, "--seed", "1")
}
