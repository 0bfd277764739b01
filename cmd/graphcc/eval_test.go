package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"graphcc/experiment/report"
	"graphcc/metrics"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/workload"

	"github.com/spf13/cobra"
)

// tinyLookup is the built-in scenarios of the tests' command trees
// (newRoot): scenario.ByName, and "tiny" (and "tiny2"), a scenario that
// simulates in milliseconds: 2 leaves of 2 hosts, 1 spine, 1 ms of
// arrivals, 3:1 incasts every 250 us.
func tinyLookup(name string) (scenario.Scenario, error) {
	if name != "tiny" && name != "tiny2" {
		return scenario.ByName(name)
	}
	s := scenario.Default()
	s.Name, s.Description = name, "test"
	s.Clos.Leaves, s.Clos.Spines, s.Clos.HostsPerLeaf = 2, 1, 2
	s.Gen.Duration = topo.Millisecond
	s.Gen.Incast = workload.IncastConfig{Period: 250 * topo.Microsecond, FanIn: 3, Size: 64000}
	if name == "tiny2" {
		s.Gen.Workload, _ = workload.Builtin("websearch")
		s.Gen.Duration = 2 * topo.Millisecond
	}
	return s, nil
}

func TestEvalTiny(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "figs") // created by eval
	js := filepath.Join(dir, "report.json")
	stdout := run(t, "eval", "--scenarios", "tiny,tiny2", "--policies", "static,static:10,40,0.2",
		"--seeds", "5,6", "--out", out, "--json", js)
	for _, want := range []string{"## tiny\n", "## tiny2\n", "| static | ", "| static:10,40,0.2 | ", "mean slowdown / static's", "| tiny | 1.000 |", "geometric mean",
		"| mean slowdown / static | p99 ≤100KB / static |", "have no intervals"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || string(md) != stdout {
		t.Errorf("report.md (%v) differs from stdout", err)
	}
	for _, name := range []string{"tiny.png", "tiny2.png"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) || len(data) < 10_000 {
			t.Errorf("%s: not a PNG (%d bytes)", name, len(data))
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 4 {
		t.Errorf("--out holds %v, want the two figures, report.md and %s", entries, report.ManifestFile)
	}

	m, data := readEvalJSON(t, js)
	// The rewards (default convex:25) are in the JSON, in the report only
	// with --rewards.
	if strings.Contains(stdout, "reward") || !bytes.Contains(data, []byte(`"rewards": [`)) {
		t.Errorf("rewards: in the report %v, in the JSON %v", strings.Contains(stdout, "reward"), bytes.Contains(data, []byte(`"rewards": [`)))
	}
	if m.Reference != "static" || len(m.Seeds) != 2 || len(m.Scenarios) != 2 || m.Scenarios[1].Workload != "websearch" || len(m.Scenarios[0].CDF) == 0 {
		t.Fatalf("json: %s", data)
	}
	for _, sc := range m.Scenarios {
		// The default yardstick on the default hardware joins the runs.
		if len(sc.Policies) != 3 || sc.Policies[2].Policy != "tuned:joint" {
			t.Fatalf("%s: %d policies, want static, static:10,40,0.2 and tuned:joint", sc.Name, len(sc.Policies))
		}
		for _, p := range sc.Policies {
			for _, k := range []string{"flows", "completed", "slowdown", "slowdown_by_size", "slowdown_incast", "slowdown_background",
				"throughput_gbps_mean", "queue_bytes_mean", "queue_bytes_p99", "pfc_pauses", "ecn_marked_packets", "drops", "events"} {
				if _, ok := p.Summary[k]; !ok {
					t.Errorf("%s/%s: summary lacks %q", sc.Name, p.Policy, k)
				}
			}
		}
	}

	// --reference moves the 1.000 column; three seeds give intervals.
	stdout = run(t, "eval", "--scenarios", "tiny", "--policies", "static", "--policies", "static:10,40,0.2",
		"--seeds", "5,6,7", "--reference", "static:10,40,0.2", "--out", out)
	// The overall table: static, static:10,40,0.2 (1.000), tuned:joint.
	if !strings.Contains(stdout, "mean slowdown / static:10,40,0.2's") || !regexp.MustCompile(`(?m)^\| tiny \| [^|]+ \| 1\.000 \| [^|]+ \|$`).MatchString(stdout) ||
		!strings.Contains(stdout, "| mean slowdown / static:10,40,0.2 (95 % CI) | ") ||
		!regexp.MustCompile(`(?m)^\| static \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \([0-9.]+–[0-9.]+\) \| `).MatchString(stdout) {
		t.Errorf("--reference report:\n%s", stdout)
	}
}

// evalJSON is the part of eval --json the tests read.
type evalJSON struct {
	Reference string   `json:"reference"`
	Seeds     []uint64 `json:"seeds"`
	Scenarios []struct {
		Name     string           `json:"name"`
		Workload string           `json:"workload"`
		CDF      []map[string]any `json:"flow_size_cdf"`
		Policies []struct {
			Policy  string         `json:"policy"`
			Summary map[string]any `json:"summary"`
		} `json:"policies"`
	} `json:"scenarios"`
}

// readEvalJSON reads the eval --json file at path, and returns it whole too.
func readEvalJSON(t *testing.T, path string) (evalJSON, []byte) {
	t.Helper()
	var m evalJSON
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m, data
}

func TestEvalBadFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--policies", "static,dqn"}, `--policies static,dqn: unknown ECN policy "dqn" (have: static, edge, react, hostreact, sched, tuned, graphcc, acc, floor, ideal)`},
		{[]string{"--policies", "graphcc:/nonexistent.model"}, `/nonexistent.model`},
		{[]string{"--policies", "static:1,2"}, "--policies static:1,2: static:1,2: want 3 comma-separated numbers"},
		{[]string{"--policies", "static:50,10,0.2"}, "--policies static:50,10,0.2: static:50,10,0.2: ecn: kmax"},
		{[]string{"--policies", "static,static"}, "--policies static,static: static given twice"},
		{[]string{"--policies", "static:2,16,0.01,static:2,16.0,0.010"}, "--policies static:2,16,0.01,static:2,16.0,0.010: static:2,16,0.01 given twice"},
		{[]string{"--policies", "react:8:1,2,0.5"}, `--policies react:8:1,2,0.5: react:8:1,2,0.5: want Q_KB:KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX`},
		{[]string{"--policies", "react:-1:8,32,0.5:2,16,1"}, `react:-1:8,32,0.5:2,16,1: queue threshold "-1" must be a number of KB in [0, 1e9]`},
		{[]string{"--policies", "react:8:8,32:2,16,1"}, `react:8:8,32:2,16,1: calm setting: want 3 comma-separated numbers`},
		{[]string{"--policies", "react:8:8,32,0.5:16,2,1"}, `react:8:8,32,0.5:16,2,1: busy setting: ecn: kmax`},
		{[]string{"--policies", "edge:8,32,0.5"}, `edge:8,32,0.5: want KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX (ports facing a host, then ports facing a switch)`},
		{[]string{"--policies", "edge:8,32:2,16,1"}, `edge:8,32:2,16,1: setting of ports facing a host: want 3 comma-separated numbers`},
		{[]string{"--policies", "edge:8,32,0.5:16,2,1"}, `edge:8,32,0.5:16,2,1: setting of ports facing a switch: ecn: kmax`},
		{[]string{"--policies", "static,ideal:2"}, `--policies static,ideal:2: ideal:2: ideal takes no arguments, got "2" (usage: ideal)`},
		{[]string{"--policies", "grid,static:8,64,0.5"}, "--policies grid,static:8,64,0.5: static:8,64,0.5 given twice"},
		{[]string{"--scenarios", "fb70"}, `--scenarios fb70: unknown scenario "fb70" (known: fb60-incast, fb60,`},
		{[]string{"--scenarios", "tiny,"}, "--scenarios tiny,: empty scenario name"},
		{[]string{"--reference", "static:1,2,0.1"}, "--reference static:1,2,0.1: not one of --policies"},
		{[]string{"--seeds", "1,1"}, "--seeds: 1 given twice"},
		{[]string{"--seeds", "5-7,6"}, "--seeds: 6 given twice"},
		{[]string{"--seeds", "1010-1001"}, `invalid argument "1010-1001" for "--seeds" flag: seed range 1010-1001 runs backwards`},
		{[]string{"--kmin-kb", "10"}, "unknown flag: --kmin-kb"},
		{[]string{"--out", filepath.Join(dir, "a", "b")}, "--out " + filepath.Join(dir, "a", "b")},
		{[]string{"--json", filepath.Join(dir, "no-dir", "r.json")}, "--json"},
		{[]string{"--workers", "-1"}, "--workers -1"},
		{[]string{"--interval", "0"}, "--interval 0"},
		{[]string{"--acc-episodes", "0"}, "--acc-episodes 0: must be at least 1"},
		{[]string{"--interval", "1ps"}, "--interval 1ps: must be at least 1us"},
		{[]string{"--rewards", "convex:25,cubic"}, `--rewards convex:25,cubic: cubic: learn: unknown reward shape "cubic"`},
		{[]string{"--rewards", "linear:0"}, `--rewards linear:0: linear:0: queue Q "0" must be a number of KB in (0, 1e9]`},
		{[]string{"--rewards", "linear:x"}, `queue Q "x" must be`},
		{[]string{"--rewards", "convex,convex:25"}, "--rewards convex,convex:25: convex:25 given twice"},
	} {
		args := append([]string{"eval", "--scenarios", "tiny", "--seeds", "1", "--out", out}, tc.args...)
		_, _, err := execute(t, context.Background(), args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("graphcc %s: error %v, want one containing %q", strings.Join(args, " "), err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed commands left files: %v", entries)
	}
}

func TestEvalCancelled(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := execute(t, ctx, "eval", "--scenarios", "tiny", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("cancelled eval: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("cancelled eval created --out: %v", err)
	}
}

// eval --policies ideal runs ideal.Run on the same traces: a row
// with no queue, settings or reward, faster flows than static's, and its
// figure and JSON like any policy's.
func TestEvalIdeal(t *testing.T) {
	dir := t.TempDir()
	out, js := filepath.Join(dir, "out"), filepath.Join(dir, "r.json")
	stdout := run(t, "eval", "--scenarios", "tiny", "--policies", "static,static:8,32,0.5,graphcc,ideal", "--seeds", "5,6",
		"--rewards", "convex:25", "--yardsticks", "", "--out", out, "--json", js)
	row := regexp.MustCompile(`(?m)^\| ideal \| ([0-9.]+) \| [0-9.]+ \| [0-9.]+ \| [^|]+ \| [^|]+ \| [0-9.]+ \| 0\.0 \| 0\.0 \| 0 \| — \| – \|$`).FindStringSubmatch(stdout)
	static := regexp.MustCompile(`(?m)^\| static \| ([0-9.]+) \|`).FindStringSubmatch(stdout)
	if row == nil || static == nil {
		t.Fatalf("report lacks the ideal or static row:\n%s", stdout)
	}
	if row[1] >= static[1] { // both are d.ddd
		t.Errorf("ideal's mean slowdown %s is not below static's %s", row[1], static[1])
	}
	// The reward alignment ranks the three policies the rewards score.
	if !strings.Contains(stdout, "## Reward against mean slowdown") || !strings.Contains(stdout, " of 3 |") || strings.Contains(stdout, " of 4 |") {
		t.Errorf("reward alignment should rank 3 policies:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "tiny.png")); err != nil {
		t.Error(err)
	}
	m, _ := readEvalJSON(t, js)
	p := m.Scenarios[0].Policies[3]
	if p.Policy != "ideal" || p.Summary["completed"] != p.Summary["flows"] || p.Summary["queue_bytes_mean"] != 0.0 {
		t.Errorf("ideal's JSON: %v", p)
	}
}

func TestSimIdeal(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	run(t, args(append([]string{"sim"}, tiny...), "--summary-out", a)...)
	run(t, args(append([]string{"sim"}, tiny...), "--policy", "ideal", "--summary-out", b)...)
	sa, sb := readSummary(t, a), readSummary(t, b)
	if sb["completed"] != sa["completed"] || sb["queue_bytes_mean"] != 0.0 || sb["ecn_marked_packets"] != 0.0 ||
		!(sb["slowdown"].(map[string]any)["mean"].(float64) < sa["slowdown"].(map[string]any)["mean"].(float64)) {
		t.Errorf("ideal %v against static %v", sb, sa)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--policy", "ideal", "--trace-out", filepath.Join(dir, "t.csv")}, "--policy ideal has no per-port telemetry: drop --trace-out"},
		{[]string{"--policy", "ideal", "--kmin-kb", "3"}, "--policy ideal has no ECN thresholds"},
		{[]string{"--policy", "ideal:x"}, "--policy ideal:x: ideal:x: ideal takes no arguments"},
	} {
		_, _, err := execute(t, context.Background(), args(append([]string{"sim"}, tiny...), tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("sim %v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// sim --policy react: with a queue threshold no queue reaches it runs as its
// calm setting, and with a low one it uses both settings.
func TestSimReact(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "c.json")
	run(t, args(append([]string{"sim"}, tiny...), "--policy", "static:8,32,0.5", "--summary-out", a)...)
	run(t, args(append([]string{"sim"}, tiny...), "--policy", "react:1e9:8,32,0.5:2,16,1", "--summary-out", b)...)
	run(t, args(append([]string{"sim"}, tiny...), "--policy", "react:1:8,32,0.5:2,16,1", "--summary-out", c)...)
	sa, sb, sc := readSummary(t, a), readSummary(t, b), readSummary(t, c)
	if sa["ecn_marked_packets"] != sb["ecn_marked_packets"] || sa["slowdown"].(map[string]any)["mean"] != sb["slowdown"].(map[string]any)["mean"] {
		t.Errorf("react that never triggers differs from its calm setting: %v vs %v", sb["slowdown"], sa["slowdown"])
	}
	if used := sc["ecn_settings"].([]any); len(used) != 2 || sc["ecn_marked_packets"] == sa["ecn_marked_packets"] {
		t.Errorf("react:1:... used %v and marked %v packets (calm alone: %v)", used, sc["ecn_marked_packets"], sa["ecn_marked_packets"])
	}
}

// sim --policy edge: one setting for both roles runs as that fixed setting,
// and two settings are both used.
func TestSimEdge(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "c.json")
	run(t, args(append([]string{"sim"}, tiny...), "--policy", "static:8,32,0.5", "--summary-out", a)...)
	run(t, args(append([]string{"sim"}, tiny...), "--policy", "edge:8,32,0.5:8,32,0.5", "--summary-out", b)...)
	run(t, args(append([]string{"sim"}, tiny...), "--policy", "edge:8,32,0.5:1,2,1", "--summary-out", c)...)
	sa, sb, sc := readSummary(t, a), readSummary(t, b), readSummary(t, c)
	if sa["ecn_marked_packets"] != sb["ecn_marked_packets"] || sa["slowdown"].(map[string]any)["mean"] != sb["slowdown"].(map[string]any)["mean"] {
		t.Errorf("edge with one setting differs from it: %v vs %v", sb["slowdown"], sa["slowdown"])
	}
	if used := sc["ecn_settings"].([]any); len(used) != 2 {
		t.Errorf("edge with two settings used %v", used)
	}
}

func TestSimStaticThresholds(t *testing.T) {
	// sim --policy takes the registry's names: static:100,400,0.2 is Alibaba's.
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	run(t, args(append([]string{"sim"}, tiny...), "--summary-out", a)...)
	run(t, args(append([]string{"sim"}, tiny...), "--policy", "static:100,400,0.2", "--summary-out", b)...)
	sa, sb := readSummary(t, a), readSummary(t, b)
	if sa["slowdown"].(map[string]any)["mean"] != sb["slowdown"].(map[string]any)["mean"] || sa["events"] != sb["events"] {
		t.Errorf("static:100,400,0.2 differs from static: %v vs %v", sa["slowdown"], sb["slowdown"])
	}
	c := filepath.Join(dir, "c.json")
	run(t, args(append([]string{"sim"}, tiny...), "--policy", "static:5,20,1", "--summary-out", c)...)
	if readSummary(t, c)["ecn_marked_packets"] == sa["ecn_marked_packets"] {
		t.Error("static:5,20,1 marks as many packets as static")
	}
	_, _, err := execute(t, context.Background(), args(append([]string{"sim"}, tiny...), "--policy", "static:5,20,1", "--kmin-kb", "3")...)
	if err == nil || !strings.Contains(err.Error(), "--policy static:5,20,1 sets the ECN thresholds") {
		t.Errorf("--policy static:... with --kmin-kb: %v", err)
	}
}

// --json may name a file in the --out directory that eval creates.
func TestEvalJSONInNewOutDir(t *testing.T) {
	out := filepath.Join(t.TempDir(), "new")
	js := filepath.Join(out, "summary.json")
	run(t, "eval", "--scenarios", "tiny", "--policies", "static", "--seeds", "5", "--out", out, "--json", js)
	if data, err := os.ReadFile(js); err != nil || !bytes.HasPrefix(data, []byte("{")) {
		t.Errorf("--json in the new --out: %v", err)
	}
}

// tinyScenarioFile is a scenario file of two scenarios that simulate in
// milliseconds.
const tinyScenarioFile = `scenarios:
  - name: mini
    description: two leaves of two hosts
    duration: 1ms
    clos: {leaves: 2, spines: 1, hosts_per_leaf: 2}
    incast: {fanin: 3, period: 250us}
  - name: mini-ws
    base: websearch60
    duration: 1ms
    clos: {leaves: 2, spines: 1, hosts_per_leaf: 2}
`

// TestScenarioFile runs eval and train on the scenarios of a
// --scenario-file: by default all of the file's (eval) or its only one
// (train), by name among the built-in ones, and refuses a bad file naming
// its line.
func TestScenarioFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(file, []byte(tinyScenarioFile), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := run(t, "eval", "--scenario-file", file, "--policies", "static", "--seeds", "3", "--out", filepath.Join(dir, "e1"))
	for _, want := range []string{"## mini\n", "## mini-ws\n", "3:1 incasts of 64 KB every 250 us", "WebSearch 60 %, no incasts"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	rep = run(t, "eval", "--scenario-file", file, "--scenarios", "mini-ws", "--policies", "static", "--seeds", "3", "--out", filepath.Join(dir, "e2"))
	if !strings.Contains(rep, "## mini-ws\n") || strings.Contains(rep, "## mini\n") {
		t.Errorf("--scenarios mini-ws ran other scenarios:\n%s", rep)
	}
	one := filepath.Join(dir, "one.yaml")
	if err := os.WriteFile(one, []byte(strings.Split(tinyScenarioFile, "  - name: mini-ws")[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.model")
	out := run(t, "train", "--scenario-file", one, "--model-out", model, "--episodes", "2", "--warmup", "10", "--updates", "1", "--workers", "2")
	if !strings.Contains(out, "trained graphcc on mini: 2 episodes") {
		t.Errorf("train output %q", out)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("scenarios:\n  - name: x\n    load: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--scenario-file", bad, "--out", filepath.Join(dir, "e3")}, bad + ":3: load: 2 not in (0, 1]"},
		{[]string{"eval", "--scenario-file", filepath.Join(dir, "none.yaml"), "--out", filepath.Join(dir, "e3")}, "none.yaml"},
		{[]string{"eval", "--scenario-file", file, "--scenarios", "nope", "--out", filepath.Join(dir, "e3")}, "nor one of " + file + " (mini, mini-ws)"},
		{[]string{"train", "--scenario-file", file, "--model-out", model + "2"}, "holds 2 scenarios (mini, mini-ws): name one with --scenario"},
		{[]string{"train", "--scenario-file", bad, "--model-out", model + "2"}, bad + ":3"},
	} {
		_, _, err := execute(t, t.Context(), tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

// TestSimScenario runs one seed of a scenario with sim --scenario: the same
// flows and slowdowns as eval's run of it at that seed; the flags a
// scenario replaces are refused.
func TestSimScenario(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(file, []byte(tinyScenarioFile), 0o644); err != nil {
		t.Fatal(err)
	}
	js, sum := filepath.Join(dir, "eval.json"), filepath.Join(dir, "sim.json")
	run(t, "eval", "--scenario-file", file, "--scenarios", "mini", "--policies", "static", "--seeds", "4", "--out", filepath.Join(dir, "e"), "--json", js)
	out := run(t, "sim", "--scenario-file", file, "--scenario", "mini", "--seed", "4", "--summary-out", sum)
	if !strings.Contains(out, "scenario mini, seed 4") {
		t.Errorf("sim output does not name the scenario:\n%s", out)
	}
	var ev struct {
		Scenarios []struct {
			Policies []struct {
				Summary metrics.Summary `json:"summary"`
			} `json:"policies"`
		} `json:"scenarios"`
	}
	var sim metrics.Summary
	for path, v := range map[string]any{js: &ev, sum: &sim} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatal(err)
		}
	}
	e := ev.Scenarios[0].Policies[0].Summary
	if sim.Flows == 0 || sim.Flows != e.Flows || sim.Slowdown != e.Slowdown || sim.ECNMarkedPackets != e.ECNMarkedPackets {
		t.Errorf("sim --scenario: %d flows, slowdown %+v, %d marks; eval: %d flows, %+v, %d marks",
			sim.Flows, sim.Slowdown, sim.ECNMarkedPackets, e.Flows, e.Slowdown, e.ECNMarkedPackets)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "fb60", "--leaves", "2"}, "drop --leaves"},
		{[]string{"--scenario", "fb60", "--load", "0.5"}, "drop --load"},
		{[]string{"--scenario", "fb60", "--flows", file}, "choose one"},
		{[]string{"--scenario", "nope"}, "unknown scenario"},
		{[]string{"--scenario-file", file}, "holds 2 scenarios"},
	} {
		_, _, err := execute(t, t.Context(), append([]string{"sim"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("sim %v: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

// TestDefaultEvalSeeds: the default seeds are the reserved evaluation
// seeds (experiment.EvalSeeds), and the flag's default shows them as a range.
func TestDefaultEvalSeeds(t *testing.T) {
	cmd := newEvalCmd(func(*cobra.Command) *slog.Logger { return slog.New(slog.DiscardHandler) }, tinyLookup)
	if got, want := cmd.Flags().Lookup("seeds").DefValue, "1001-1010"; got != want {
		t.Errorf("--seeds default %q, want %q", got, want)
	}
}

// TestEvalOutRemovesStaleFigures: an eval into a directory an earlier one
// wrote removes the figures of scenarios it does not evaluate again, and
// only those: a file eval did not write stays.
func TestEvalOutRemovesStaleFigures(t *testing.T) {
	out := t.TempDir()
	mine := filepath.Join(out, "notes.png")
	if err := os.WriteFile(mine, []byte("the user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		entries, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, e := range entries {
			n = append(n, e.Name())
		}
		return n
	}
	run(t, "eval", "--scenarios", "tiny,tiny2", "--policies", "static", "--seeds", "5", "--out", out)
	if got, want := names(), []string{report.ManifestFile, "notes.png", "report.md", "tiny.png", "tiny2.png"}; !slices.Equal(got, want) {
		t.Fatalf("after the first eval --out holds %v, want %v", got, want)
	}
	run(t, "eval", "--scenarios", "tiny", "--policies", "static", "--seeds", "5", "--out", out)
	if got, want := names(), []string{report.ManifestFile, "notes.png", "report.md", "tiny.png"}; !slices.Equal(got, want) {
		t.Errorf("after the second eval --out holds %v, want %v", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(out, report.ManifestFile)); err != nil || string(b) != "report.md\ntiny.png\n" {
		t.Errorf("manifest %q, %v", b, err)
	}
}

// TestEvalListScenarios: --list-scenarios names every built-in scenario
// with what it tests and its fabric and traffic, then those of a
// --scenario-file, and runs nothing.
func TestEvalListScenarios(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte("scenarios:\n  - name: mine\n    description: my own test\n    load: 0.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := run(t, "eval", "--list-scenarios", "--scenario-file", file, "--out", filepath.Join(dir, "never"))
	for _, n := range scenario.Names() {
		sc, err := scenario.ByName(n)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, n+" ") || !strings.Contains(out, sc.Description) || !strings.Contains(out, sc.Describe()) {
			t.Errorf("list lacks %s (%q, %q):\n%s", n, sc.Description, sc.Describe(), out)
		}
	}
	if !strings.Contains(out, "mine") || !strings.Contains(out, "my own test") || !strings.Contains(out, "30 %") {
		t.Errorf("list lacks the file's scenario:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "never")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("--list-scenarios wrote --out: %v", err)
	}
}

// sim --agents per-switch: the built-in switch-only model run as one
// agent per switch writes the very FCT file the central step writes; other
// policies and values are refused.
func TestSimAgents(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.fct"), filepath.Join(dir, "b.fct")
	for _, pol := range []string{"graphcc:bare-switch", "graphcc", "floor:10:static",
		"floor:30/10/5ms:tuned:../../models/tuned-joint-global.json@graphcc:../../models/graphcc-hosts.model"} {
		run(t, args(append([]string{"sim"}, tiny...), "--policy", pol, "--fct-out", a)...)
		run(t, args(append([]string{"sim"}, tiny...), "--policy", pol, "--agents", "per-switch-ideal", "--fct-out", b)...)
		fa, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		fb, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(fa) == 0 || !bytes.Equal(fa, fb) {
			t.Errorf("%s: per-switch FCTs (%d bytes) differ from central (%d bytes)", pol, len(fb), len(fa))
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--agents", "per-switch"}, "--agents per-switch with --policy static: per-switch agents run a graphcc policy"},
		{[]string{"--agents", "per-switch", "--policy", "ideal"}, "--agents per-switch: --policy ideal runs no agents"},
		{[]string{"--agents", "all", "--policy", "graphcc"}, `unknown agents "all"`},
	} {
		_, _, err := execute(t, context.Background(), args(append([]string{"sim"}, tiny...), tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("sim %v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}
