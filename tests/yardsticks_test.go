package tests

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// miniScenarios is a scenario file of two tiny scenarios (4 hosts, 1 ms
// of arrivals, 3:1 incasts), which simulate in milliseconds.
const miniScenarios = `scenarios:
  - name: mini
    clos: {leaves: 2, spines: 1, hosts_per_leaf: 2}
    duration: 1ms
    incast: {fanin: 3, size: 64000, period: 250us}
  - name: mini-ws
    base: websearch60
    clos: {leaves: 2, spines: 1, hosts_per_leaf: 2}
    duration: 2ms
    incast: {fanin: 3, size: 64000, period: 250us}
`

// evalYardsticksJSON is the part of eval's JSON report the yardsticks
// test reads.
type evalYardsticksJSON struct {
	Policies     []string `json:"policies"`
	Yardsticks   []string `json:"yardsticks"`
	VsYardsticks []struct {
		Yardstick string `json:"yardstick"`
		Policies  []struct {
			Policy    string    `json:"policy"`
			GeoMean   float64   `json:"geomean_mean_slowdown"`
			GeoMeanCI []float64 `json:"geomean_mean_slowdown_ci"`
			Worst     struct {
				Scenario string  `json:"scenario"`
				Mean     float64 `json:"mean_slowdown"`
			} `json:"worst"`
			Above []struct {
				Scenario string `json:"scenario"`
			} `json:"above"`
		} `json:"policies"`
	} `json:"vs_yardsticks"`
	Scenarios []struct {
		Name     string `json:"name"`
		Policies []struct {
			Policy  string `json:"policy"`
			Summary struct {
				Slowdown struct {
					Mean float64 `json:"mean"`
				} `json:"slowdown"`
			} `json:"summary"`
			VsYardsticks []struct {
				Yardstick string    `json:"yardstick"`
				Mean      float64   `json:"mean_slowdown"`
				MeanCI    []float64 `json:"mean_slowdown_ci"`
			} `json:"vs_yardsticks"`
		} `json:"policies"`
	} `json:"scenarios"`
}

// TestCLIEvalYardsticks runs the built command's eval as a user would,
// with the per-scenario tuned constant (tuned:DIR, a hand-written tune
// result per scenario) and a global one (tuned:FILE) as yardsticks, on two
// tiny scenarios of a scenario file at three seeds: every policy's ratios
// to each yardstick are its mean slowdown over the yardstick's, with
// intervals; a policy that is a scenario's tuned setting is exactly 1 of
// tuned:DIR there; and a scenario without a tune result fails the run
// before it starts, naming the file it wants.
func TestCLIEvalYardsticks(t *testing.T) {
	bin := graphccBinary(t)
	dir := t.TempDir()
	files := map[string]string{
		"mini.yaml":          miniScenarios,
		"tuned/mini.json":    `{"scenario": "mini", "best_policy": "static:2,32,0.01", "score": 1.5}`,
		"tuned/mini-ws.json": `{"scenario": "mini-ws", "best_policy": "static:32,256,0.75"}`,
		// a suite's tune keeps best_policy and lists its scenarios
		"global.json": `{"scenarios": ["mini", "mini-ws"], "best_policy": "static:2,32,0.01"}`,
	}
	if err := os.Mkdir(filepath.Join(dir, "tuned"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := mustRun(t, bin, dir, "eval", "--scenario-file", "mini.yaml", "--policies", "graphcc,static:2,32,0.01",
		"--yardsticks", "tuned:tuned,tuned:global.json", "--seeds", "1-3", "--rewards", "", "--out", "ev", "--json", "ev.json")
	for _, want := range []string{"## Yardsticks", "### Mean slowdown / tuned:tuned's", "### Mean slowdown / tuned:global.json's",
		"- graphcc: above static on ", "; above tuned:tuned on "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "ev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r evalYardsticksJSON
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	checkYardstickJSON(t, &r)

	// A scenario without a tune result: refused before any run.
	if err := os.Remove(filepath.Join(dir, "tuned", "mini-ws.json")); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := graphcc(t, bin, dir, "eval", "--scenario-file", "mini.yaml", "--policies", "static",
		"--yardsticks", "tuned:tuned", "--seeds", "1-3", "--out", "ev2")
	if want := "tuned:tuned has no tune result for scenario mini-ws: want " + filepath.Join("tuned", "mini-ws.json"); code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("eval without mini-ws's tune result: exit %d, stderr %q; want a failure naming %q", code, errOut, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "ev2")); err == nil {
		t.Error("the failed eval left its --out")
	}
}

// checkYardstickJSON checks TestCLIEvalYardsticks's report.
func checkYardstickJSON(t *testing.T, r *evalYardsticksJSON) {
	t.Helper()
	wantYards := []string{"static", "tuned:tuned", "tuned:global.json"}
	if strings.Join(r.Yardsticks, " ") != strings.Join(wantYards, " ") ||
		strings.Join(r.Policies, " ") != "graphcc static:2,32,0.01 "+strings.Join(wantYards, " ") || len(r.Scenarios) != 2 {
		t.Fatalf("policies %v, yardsticks %v, %d scenarios", r.Policies, r.Yardsticks, len(r.Scenarios))
	}
	for _, sc := range r.Scenarios {
		means := map[string]float64{}
		for _, p := range sc.Policies {
			means[p.Policy] = p.Summary.Slowdown.Mean
		}
		for _, p := range sc.Policies {
			for y, vs := range p.VsYardsticks {
				want := means[p.Policy] / means[wantYards[y]]
				if vs.Yardstick != wantYards[y] || math.Abs(vs.Mean/want-1) > 1e-12 || len(vs.MeanCI) != 2 || !(vs.MeanCI[0] <= vs.Mean && vs.Mean <= vs.MeanCI[1]) {
					t.Errorf("%s, %s / %s: %+v, want %v with an interval around it", sc.Name, p.Policy, wantYards[y], vs, want)
				}
			}
		}
		// static:2,32,0.01 is mini's tuned setting, and the global one
		fixed := sc.Policies[1].VsYardsticks
		if sc.Name == "mini" && (fixed[1].Mean != 1 || fixed[1].MeanCI[0] != 1 || fixed[1].MeanCI[1] != 1) {
			t.Errorf("mini: static:2,32,0.01 / its own tuned setting %+v, want exactly 1", fixed[1])
		}
		if fixed[2].Mean != 1 {
			t.Errorf("%s: static:2,32,0.01 / the global constant, the same setting: %v", sc.Name, fixed[2].Mean)
		}
	}
	global := r.VsYardsticks[2]
	fixed := global.Policies[1]
	if global.Yardstick != "tuned:global.json" || fixed.Policy != "static:2,32,0.01" || fixed.GeoMean != 1 ||
		len(fixed.GeoMeanCI) != 2 || fixed.GeoMeanCI[0] != 1 || fixed.Worst.Mean != 1 || fixed.Above == nil || len(fixed.Above) != 0 {
		t.Errorf("static:2,32,0.01 against the global constant: %+v", fixed)
	}
	g := r.VsYardsticks[1].Policies[0] // graphcc against tuned:DIR
	worst := math.Max(r.Scenarios[0].Policies[0].VsYardsticks[1].Mean, r.Scenarios[1].Policies[0].VsYardsticks[1].Mean)
	if g.Policy != "graphcc" || g.Worst.Mean != worst || len(g.GeoMeanCI) != 2 {
		t.Errorf("graphcc against tuned:tuned: %+v, want its worst %v", g, worst)
	}
}
