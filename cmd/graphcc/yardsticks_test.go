package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeTuned writes hand-made tune results: a directory of one per
// scenario and a global file, in t's temporary directory.
func writeTuned(t *testing.T, perScenario map[string]string, global string) (dir, file string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "tuned")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for sc, best := range perScenario {
		body := `{"scenario": "` + sc + `", "best_policy": "` + best + `"}`
		if err := os.WriteFile(filepath.Join(dir, sc+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file = filepath.Join(root, "global.json")
	if err := os.WriteFile(file, []byte(`{"best_policy": "`+global+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// TestEvalYardsticks evaluates one policy against the per-scenario and
// global tuned constants on two tiny scenarios: static comes first among
// the yardsticks and is evaluated though not in --policies; a policy that
// is the tuned setting of a scenario is exactly 1 of tuned:DIR there.
func TestEvalYardsticks(t *testing.T) {
	dir, global := writeTuned(t, map[string]string{"tiny": "static:2,32,0.01", "tiny2": "static:32,256,0.75"}, "static:8,64,0.25")
	out := filepath.Join(t.TempDir(), "out")
	js := filepath.Join(t.TempDir(), "r.json")
	yards := "tuned:" + dir + ",tuned:" + global
	stdout := run(t, "eval", "--scenarios", "tiny,tiny2", "--policies", "static:2,32,0.01", "--yardsticks", yards,
		"--seeds", "1-3", "--rewards", "", "--out", out, "--json", js)
	for _, want := range []string{"## Yardsticks", "### Mean slowdown / static's", "### Mean slowdown / tuned:" + dir + "'s",
		"### Mean slowdown / tuned:" + global + "'s", "- static:2,32,0.01: above static on "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Policies   []string `json:"policies"`
		Yardsticks []string `json:"yardsticks"`
		Scenarios  []struct {
			Name     string `json:"name"`
			Policies []struct {
				VsYardsticks []struct {
					Mean   float64   `json:"mean_slowdown"`
					MeanCI []float64 `json:"mean_slowdown_ci"`
				} `json:"vs_yardsticks"`
			} `json:"policies"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	wantYards := []string{"static", "tuned:" + dir, "tuned:" + global}
	if !slices.Equal(r.Yardsticks, wantYards) || !slices.Equal(r.Policies, append([]string{"static:2,32,0.01"}, wantYards...)) {
		t.Fatalf("policies %v, yardsticks %v", r.Policies, r.Yardsticks)
	}
	tiny, tiny2 := r.Scenarios[0].Policies[0].VsYardsticks[1], r.Scenarios[1].Policies[0].VsYardsticks[1]
	if tiny.Mean != 1 || !slices.Equal(tiny.MeanCI, []float64{1, 1}) {
		t.Errorf("on tiny, the tuned setting itself: %v %v, want exactly 1", tiny.Mean, tiny.MeanCI)
	}
	if tiny2.Mean == 1 || len(tiny2.MeanCI) != 2 {
		t.Errorf("on tiny2, against another setting: %v %v", tiny2.Mean, tiny2.MeanCI)
	}
}

// TestTunedDirErrors: tuned:DIR fails clearly where a scenario has no
// tune result, before eval runs anything, and where sim runs on no named
// scenario (the testbed's case: controller/testbed's TestParsePolicies);
// sim --scenario runs it.
func TestTunedDirErrors(t *testing.T) {
	dir, _ := writeTuned(t, map[string]string{"tiny": "static:2,32,0.01"}, "static")
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--scenarios", "tiny,tiny2", "--policies", "tuned:" + dir, "--seeds", "1", "--out", out},
			"policy tuned:" + dir + " on scenario tiny2: tuned:" + dir + " has no tune result for scenario tiny2: want " + filepath.Join(dir, "tiny2.json")},
		{[]string{"eval", "--scenarios", "tiny2", "--policies", "static", "--yardsticks", "tuned:" + dir, "--seeds", "1", "--out", out},
			"has no tune result for scenario tiny2"},
		{[]string{"eval", "--scenarios", "tiny", "--policies", "static", "--yardsticks", "tuned:" + dir + ",tuned:" + dir, "--seeds", "1", "--out", out},
			"--yardsticks tuned:" + dir + ",tuned:" + dir + ": tuned:" + dir + " given twice"},
		{[]string{"eval", "--scenarios", "tiny", "--policies", "static", "--yardsticks", "bogus", "--seeds", "1", "--out", out},
			`--yardsticks bogus: unknown ECN policy "bogus"`},
		{[]string{"sim", "--policy", "tuned:" + dir, "--duration", "1ms"},
			`--policy tuned:` + dir + `: tuned:` + dir + ` runs the tune result of the scenario a run is on, and this run is on none of its own (scenario "sim"`},
	} {
		_, _, err := execute(t, context.Background(), tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("graphcc %s: error %v, want one containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed eval left %s", out)
	}
	file := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(file, []byte("scenarios:\n  - name: tiny\n    clos: {leaves: 2, spines: 1, hosts_per_leaf: 2}\n"+
		"    duration: 1ms\n    incast: {fanin: 3, size: 64000, period: 250us}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, "sim", "--scenario-file", file, "--policy", "tuned:"+dir, "--seed", "1")
}

// TestEvalDefaultYardsticks: eval without --yardsticks measures against
// static and the tune shipped for its hardware flags, built into the
// binary (run here from a directory without models/): the joint one on
// the default hardware, the switch-only one on other hosts' DCQCN
// constants, none on other switches, the report saying which or why;
// an empty --yardsticks and a given one keep their meaning. With three
// seeds every policy's ratios to the tuned yardstick have intervals, per
// scenario and as geometric means.
func TestEvalDefaultYardsticks(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		flags      []string
		policies   []string
		yardsticks []string
		note       string
	}{
		{nil, []string{"static:2,32,0.01", "static", "tuned:joint"}, []string{"static", "tuned:joint"}, "Yardstick tuned:joint: the tuned joint configuration shipped for this hardware, static:0.5,32,0.125+dcqcn:55,55,2,5,25"},
		{[]string{"--yardsticks", "auto"}, []string{"static:2,32,0.01", "static", "tuned:joint"}, []string{"static", "tuned:joint"}, "Yardstick tuned:joint"},
		{[]string{"--dcqcn-ai-mbps", "10"}, []string{"static:2,32,0.01", "static", "tuned:switch"}, []string{"static", "tuned:switch"},
			"Yardstick tuned:switch: the switch-only configuration shipped, static:1,32,0.177"},
		{[]string{"--no-pfc"}, []string{"static:2,32,0.01"}, nil, "No tuned yardstick: the shipped tunes (tuned:joint, tuned:switch) were made on other hardware (params.PFC true, here false)"},
		{[]string{"--window", "-1", "--dcqcn-ai-mbps", "10"}, []string{"static:2,32,0.01"}, nil, "params.Window 0, here -1"},
		{[]string{"--yardsticks", ""}, []string{"static:2,32,0.01"}, nil, ""},
		{[]string{"--yardsticks", "tuned:switch"}, []string{"static:2,32,0.01", "static", "tuned:switch"}, []string{"static", "tuned:switch"}, ""},
	} {
		js := filepath.Join(t.TempDir(), "r.json")
		stdout := run(t, args([]string{"eval", "--scenarios", "tiny,tiny2", "--policies", "static:2,32,0.01", "--seeds", "1-3",
			"--rewards", "", "--out", filepath.Join(t.TempDir(), "out"), "--json", js}, tc.flags...)...)
		var r struct {
			Policies     []string `json:"policies"`
			Yardsticks   []string `json:"yardsticks"`
			Note         string   `json:"yardstick_note"`
			VsYardsticks []struct {
				Policies []struct {
					GeoMeanCI []float64 `json:"geomean_mean_slowdown_ci"`
					GeoSmall  *float64  `json:"geomean_slowdown_p99_small"`
				} `json:"policies"`
			} `json:"vs_yardsticks"`
			Scenarios []struct {
				Policies []struct {
					VsYardsticks []struct {
						MeanCI []float64 `json:"mean_slowdown_ci"`
					} `json:"vs_yardsticks"`
				} `json:"policies"`
			} `json:"scenarios"`
		}
		readJSON(t, js, &r)
		if len(tc.yardsticks) == 2 {
			g := r.VsYardsticks[1].Policies[0]
			if cell := r.Scenarios[1].Policies[0].VsYardsticks[1]; len(g.GeoMeanCI) != 2 || g.GeoSmall == nil || len(cell.MeanCI) != 2 {
				t.Errorf("eval %v: static:2,32,0.01 against %s: geometric mean %+v, on tiny2 %+v; want intervals", tc.flags, tc.yardsticks[1], g, cell)
			}
		}
		if !slices.Equal(r.Policies, tc.policies) || !slices.Equal(r.Yardsticks, tc.yardsticks) ||
			!strings.Contains(r.Note, tc.note) || (tc.note == "") != (r.Note == "") {
			t.Errorf("eval %v: policies %v, yardsticks %v, note %q; want %v, %v, %q", tc.flags, r.Policies, r.Yardsticks, r.Note, tc.policies, tc.yardsticks, tc.note)
		}
		if tc.note != "" && !strings.Contains(stdout, "\n\n"+r.Note+"\n") {
			t.Errorf("eval %v: the report lacks the note:\n%s", tc.flags, stdout)
		}
	}
}
