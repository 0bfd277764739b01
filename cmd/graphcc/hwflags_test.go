package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/policy"
	"graphcc/replay"
	"graphcc/topo"
)

// TestHWFlagsEveryCommand: every command with the hardware flags takes
// the two new DCQCN periods and refuses bad ones naming the flag; tune
// refuses the ECN flags and hosts' constants a joint search cannot start
// from, and checks each scenario's fabric.
func TestHWFlagsEveryCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, cmd := range [][]string{{"sim"}, {"eval"}, {"train", "--model-out", out}, {"tune"}} {
		for _, tc := range []struct {
			args []string
			err  string
		}{
			{[]string{"--dcqcn-alpha-period", "0"}, "--dcqcn-alpha-period 0: must be positive"},
			{[]string{"--dcqcn-decrease-period", "500us"}, "--dcqcn-rp-timer 300us: must exceed --dcqcn-decrease-period 500us"},
		} {
			_, _, err := execute(t, context.Background(), args(cmd, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("graphcc %s %v: error %v, want one containing %q", cmd, tc.args, err, tc.err)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--kmin-kb", "10"}, "unknown flag: --kmin-kb"},
		{[]string{"--pmax", "0.5"}, "unknown flag: --pmax"},
		{[]string{"--interval", "1ns"}, "--interval 1ns: must be at least 1us"},
		{[]string{"--dcqcn-g", "2"}, "--dcqcn-g 2: must be in (0, 1]"},
		{[]string{"--scenario", "websearch60", "--dcqcn-min-rate-mbps", "25001"}, "--dcqcn-min-rate-mbps 25001: above host h0's line rate 25Gbps (scenario websearch60)"},
		{[]string{"--dcqcn", "--dcqcn-ai-mbps", "0.5"}, "--dcqcn starts from the hosts' constants of --dcqcn-rp-timer, --dcqcn-alpha-period, --dcqcn-decrease-period, --dcqcn-ai-mbps, --dcqcn-hai-mbps, which must be a NIC's: host DCQCN: additive increase 0.5 Mbps"},
		{[]string{"--dcqcn", "--dcqcn-alpha-period", "500ns"}, "host DCQCN: alpha period 0.5 µs: want 1 to 131071 µs"},
	} {
		_, _, err := execute(t, context.Background(), append([]string{"tune"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("graphcc tune %v: error %v, want one containing %q", tc.args, err, tc.err)
		}
	}
	// without --dcqcn the hosts may hold any constants the simulator takes
	if _, _, err := execute(t, context.Background(), "tune", "--dcqcn-ai-mbps", "0.5", "--shard", "0/1"); err == nil ||
		!strings.Contains(err.Error(), "--json") {
		t.Errorf("tune --dcqcn-ai-mbps 0.5 without --dcqcn: %v, want only the missing --json refused", err)
	}
}

// TestSimHostsSpecReplacesFlags: sim runs a +dcqcn: spec beside the
// flags of the constants it sets, and the spec's constants are the ones
// run: on hardware with a 55 µs timer, +dcqcn: of HPCC's preset runs as
// the default hardware does.
func TestSimHostsSpecReplacesFlags(t *testing.T) {
	dir := t.TempDir()
	mean := func(name string, more ...string) float64 {
		path := filepath.Join(dir, name)
		run(t, args(append([]string{"sim"}, tiny...), append(more, "--summary-out", path)...)...)
		return readSummary(t, path)["slowdown"].(map[string]any)["mean"].(float64)
	}
	preset := mean("preset.json", "--policy", "static:2,32,0.01")
	fast := mean("fast.json", "--policy", "static:2,32,0.01", "--dcqcn-rp-timer", "55us", "--dcqcn-hai-mbps", "25")
	spec := mean("spec.json", "--policy", "static:2,32,0.01+dcqcn:300,1,4,5,50", "--dcqcn-rp-timer", "55us", "--dcqcn-hai-mbps", "25")
	if preset == fast || spec != preset {
		t.Errorf("mean slowdown %v on the preset, %v on the 55 µs hardware, %v with +dcqcn: of the preset on it", preset, fast, spec)
	}
}

// TestTuneOnHardwareThenSim tunes, jointly with the hosts' constants, on
// NICs with a 55 µs rate-increase timer: the result records that
// hardware, and its best_policy and its runs, with +dcqcn: and without,
// score as recorded when sim and eval run them with the same hardware
// flags (a spec without +dcqcn: differently without them). A search on
// other hardware refuses the result as a --reuse prior, naming both.
func TestTuneOnHardwareThenSim(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(miniTuneScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	hw := []string{"--dcqcn-rp-timer", "55us"}
	out := filepath.Join(dir, "mini.json")
	_, stderr, err := execute(t, t.Context(), args([]string{"tune", "--scenario-file", file, "--grid", "paper", "--refine", "0", "--top", "1",
		"--dcqcn", "--seeds", "2001", "--confirm-seeds", "3001", "--workers", "2", "--json", out}, hw...)...)
	if err != nil {
		t.Fatalf("tune: %v\n%s", err, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		BestPolicy string  `json:"best_policy"`
		Score      float64 `json:"score"`
		Hardware   string  `json:"hardware"`
		Runs       []struct {
			Policy string  `json:"policy"`
			Score  float64 `json:"score"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	p := replay.DefaultParams()
	p.DCQCN.IncreaseInterval = 55 * topo.Microsecond
	if res.Hardware != policy.Hardware(p, 0) {
		t.Errorf("hardware %s, want %s", res.Hardware, policy.Hardware(p, 0))
	}
	type check struct {
		spec  string
		score float64
	}
	checks := []check{{res.BestPolicy, res.Score}, {"tuned:" + out, res.Score}}
	var with, without bool
	for _, r := range res.Runs {
		if strings.HasSuffix(r.Policy, "+dcqcn:55,1,4,5,50") {
			t.Errorf("run %s has the hardware's constants written out", r.Policy)
		}
		if h := strings.Contains(r.Policy, "+dcqcn:"); h && !with || !h && !without {
			checks = append(checks, check{r.Policy, r.Score})
			with, without = with || h, without || !h
		}
	}
	if !with || !without {
		t.Fatalf("runs with +dcqcn: %v, without %v", with, without)
	}
	var specs []string // for eval: the specs, each once
	for _, c := range checks {
		summary := filepath.Join(dir, "s.json")
		sim := []string{"sim", "--scenario-file", file, "--seed", "2001", "--policy", c.spec, "--summary-out", summary}
		run(t, args(sim, hw...)...)
		if got := readSummary(t, summary)["slowdown"].(map[string]any)["mean"].(float64); got != c.score {
			t.Errorf("sim --policy %s %v: mean slowdown %v, recorded %v", c.spec, hw, got, c.score)
		}
		if strings.HasPrefix(c.spec, "tuned:") || slices.Contains(specs, c.spec) {
			continue
		}
		specs = append(specs, c.spec)
		if strings.Contains(c.spec, "+dcqcn:") {
			continue // the spec sets the timer itself
		}
		run(t, sim...) // without the hardware flags
		if got := readSummary(t, summary)["slowdown"].(map[string]any)["mean"].(float64); got == c.score {
			t.Errorf("sim --policy %s without %v: mean slowdown %v, as recorded with them", c.spec, hw, got)
		}
	}
	// tuned:FILE warns when run on other hardware than its tune's, and
	// names what differs.
	for _, tc := range []struct {
		hw   []string
		warn bool
	}{{hw, false}, {nil, true}} {
		_, stderr, err := execute(t, t.Context(), args([]string{"sim", "--scenario-file", file, "--seed", "2001", "--policy", "tuned:" + out}, tc.hw...)...)
		if err != nil {
			t.Fatal(err)
		}
		if warned := strings.Contains(stderr, "made on other simulated hardware") && strings.Contains(stderr, "params.DCQCN.IncreaseInterval 55000000, here 300000000"); warned != tc.warn {
			t.Errorf("sim --policy tuned:%s %v: warned %v, want %v; stderr:\n%s", out, tc.hw, warned, tc.warn, stderr)
		}
	}
	rep := filepath.Join(dir, "eval.json")
	run(t, args([]string{"eval", "--scenario-file", file, "--seeds", "2001", "--policies", strings.Join(specs, ","),
		"--out", filepath.Join(dir, "eval"), "--json", rep}, hw...)...)
	means := evalMeans(t, rep)
	scores := map[string]float64{}
	for _, c := range checks {
		scores[c.spec] = c.score
	}
	for _, spec := range specs {
		if got := means[spec]; got != scores[spec] {
			t.Errorf("eval --policies %s %v: mean slowdown %v, recorded %v", spec, hw, got, scores[spec])
		}
	}
	// On hosts other than the shipped joint tune's, the default yardsticks
	// are static and the switch-only tune.
	_, withStatic := means["static"]
	if _, ok := means["tuned:switch"]; !ok || !withStatic || len(means) != len(specs)+2 {
		t.Errorf("eval ran %v, want %v, static and tuned:switch", means, specs)
	}

	_, _, err = execute(t, t.Context(), "tune", "--scenario-file", file, "--grid", "paper", "--refine", "0", "--seeds", "2001",
		"--confirm-seeds", "3001", "--reuse", dir, "--json", filepath.Join(dir, "again.json"))
	want := "prior " + out + ": made with other simulated hardware (" + policy.Hardware(p, 0) + "), this search's is " + policy.Hardware(replay.DefaultParams(), 0)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("--reuse of a result of other hardware: %v, want an error containing %q", err, want)
	}
}

// evalMeans reads eval's JSON report at path and returns each policy's
// mean slowdown on its first scenario.
func evalMeans(t *testing.T, path string) map[string]float64 {
	t.Helper()
	var rep struct {
		Scenarios []struct {
			Policies []struct {
				Policy  string `json:"policy"`
				Summary struct {
					Slowdown struct {
						Mean float64 `json:"mean"`
					} `json:"slowdown"`
				} `json:"summary"`
			} `json:"policies"`
		} `json:"scenarios"`
	}
	readJSON(t, path, &rep)
	if len(rep.Scenarios) == 0 {
		t.Fatalf("%s: no scenario", path)
	}
	means := map[string]float64{}
	for _, pr := range rep.Scenarios[0].Policies {
		means[pr.Policy] = pr.Summary.Slowdown.Mean
	}
	return means
}
