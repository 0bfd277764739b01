package report

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/experiment"
	"graphcc/internal/testfabric"
	"graphcc/metrics"
	"graphcc/scenario"
	"graphcc/topo"
)

func TestEvaluateReportsFailedLinks(t *testing.T) {
	c := tinyEval()
	s := testfabric.TinyScenario()
	s.Clos.Spines = 2 // so that one leaf-spine link can fail
	s.FailRandom = 1
	c.Scenarios = []scenario.Scenario{s}
	c.Policies = c.Policies[:1]
	r, err := experiment.Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	WriteMarkdown(&md, r)
	for k, names := range r.Scenarios[0].FailedLinks {
		if len(names) != 1 || !strings.HasPrefix(names[0], "leaf") || !strings.Contains(md.String(), names[0]) {
			t.Errorf("seed %d: failed links %v\n%s", c.Seeds[k], names, md.String())
		}
	}
}

func TestReportRewards(t *testing.T) {
	c := tinyEval()
	// "end" scores an interval by its end in ms, "one" by 1.
	c.Rewards = []experiment.NamedReward{
		{Name: "end", New: func(*topo.Fabric) func(*control.Telemetry) float64 {
			return func(t *control.Telemetry) float64 { return float64(t.Now) / float64(topo.Millisecond) }
		}},
		{Name: "one", New: func(*topo.Fabric) func(*control.Telemetry) float64 {
			return func(*control.Telemetry) float64 { return 1 }
		}},
	}
	r, err := experiment.Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	// The Markdown report shows the rewards when asked (ShowRewards).
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "reward") {
		t.Errorf("markdown without ShowRewards has rewards:\n%s", md.String())
	}
	c.ShowRewards = true
	if r, err = experiment.Evaluate(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	md.Reset()
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| reward end | reward one |") {
		t.Errorf("markdown lacks the reward columns:\n%s", md.String())
	}
	if strings.Contains(md.String(), "## Reward against mean slowdown") {
		t.Errorf("markdown ranks two policies:\n%s", md.String())
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Rewards   []string `json:"rewards"`
		Scenarios []struct {
			Results []struct {
				Rewards        []*float64   `json:"rewards"`
				PerSeedRewards [][]*float64 `json:"per_seed_rewards"`
			} `json:"results"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Rewards, r.Rewards) {
		t.Errorf("JSON rewards %v", got.Rewards)
	}
	for pi, res := range got.Scenarios[0].Results {
		pr := r.Scenarios[0].Policies[pi]
		if len(res.Rewards) != 2 || *res.Rewards[0] != pr.Rewards[0] || len(res.PerSeedRewards) != 2 || *res.PerSeedRewards[1][0] != pr.PerSeedRewards[1][0] {
			t.Errorf("JSON results %d: rewards %v per seed %v", pi, res.Rewards, res.PerSeedRewards)
		}
	}
}

func TestRewardAlignmentReport(t *testing.T) {
	pol := func(name string, slow float64, rw ...float64) experiment.PolicyResult {
		return experiment.PolicyResult{Policy: name, Summary: metrics.Summary{Slowdown: metrics.Stats{Mean: slow}}, Rewards: rw}
	}
	r := &experiment.Report{
		Reference: "a", Policies: []string{"a", "b", "c"}, Rewards: []string{"same", "reversed", "unscored"},
		Scenarios: []experiment.ScenarioResult{{
			Scenario: testfabric.TinyScenario(), Flows: []int{0},
			Policies: []experiment.PolicyResult{
				pol("a", 3, 0.5, 0.9, math.NaN()),
				pol("b", 2, 0.6, 0.8, math.NaN()),
				pol("c", 4, 0.4, 0.95, math.NaN()),
			},
		}},
		Seeds: []uint64{1},
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "## Reward against mean slowdown") || strings.Contains(md.String(), "0.5000") {
		t.Errorf("rewards shown without ShowRewards:\n%s", md.String())
	}
	r.ShowRewards = true
	md.Reset()
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| tiny | same | b | 2.000 (1 of 3) | b | 1 of 3 | 1.000 |",
		"| tiny | reversed | c | 4.000 (3 of 3) | b | 3 of 3 | -1.000 |",
		"| a | 3.000 |", "| 0.5000 | 0.9000 | – |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "| tiny | unscored |") {
		t.Errorf("a reward without scores got an alignment row:\n%s", md.String())
	}
}

func TestSpearman(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		x, y []float64
		want float64
	}{
		{"same order", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{"monotone, not linear", []float64{1, 2, 3, 4}, []float64{1, 8, 27, 1000}, 1},
		{"reversed", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		// ranks x: 1, 2.5, 2.5, 4; y: 1, 2, 3, 4: Pearson of ranks
		{"ties", []float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}, 4.5 / math.Sqrt(4.5*5)},
		{"one swap of five", []float64{1, 2, 3, 4, 5}, []float64{1, 2, 3, 5, 4}, 0.9},
		{"constant", []float64{1, 1, 1}, []float64{1, 2, 3}, nan},
		{"NaN", []float64{1, nan, 3}, []float64{1, 2, 3}, nan},
		{"lengths differ", []float64{1, 2}, []float64{1, 2, 3}, nan},
		{"one pair", []float64{1}, []float64{1}, nan},
	} {
		got := spearman(c.x, c.y)
		if math.IsNaN(c.want) != math.IsNaN(got) || !math.IsNaN(c.want) && math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: spearman = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestReportMarksIncomplete: the ratios of a policy that left flows
// unfinished, or of any policy when the reference did, carry a mark and a
// note, in the scenario's table and the overall one.
func TestReportMarksIncomplete(t *testing.T) {
	r, err := experiment.Evaluate(context.Background(), tinyEval())
	if err != nil {
		t.Fatal(err)
	}
	rows := func() map[string]string {
		var md bytes.Buffer
		if err := WriteMarkdown(&md, r); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, line := range strings.Split(md.String(), "\n") {
			for _, p := range append([]string{"tiny"}, r.Policies...) {
				if strings.HasPrefix(line, "| "+p+" |") {
					out[p] = line
				}
			}
		}
		out["note"] = map[bool]string{true: "note"}[strings.Contains(md.String(), incompleteNote)]
		return out
	}
	for _, tc := range []struct {
		name       string
		incomplete string // the policy that leaves a flow unfinished
		marked     []string
	}{
		{"every flow completed", "", nil},
		{"low left one", "low", []string{"low", "tiny"}},
		{"the reference left one", "static", []string{"static", "low", "tiny"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range r.Scenarios[0].Policies {
				s := &r.Scenarios[0].Policies[i].Summary
				s.Completed = s.Flows
				if r.Policies[i] == tc.incomplete {
					s.Completed--
				}
			}
			got := rows()
			for _, p := range []string{"static", "low", "tiny"} {
				if want := slices.Contains(tc.marked, p); strings.Contains(got[p], "†") != want {
					t.Errorf("row %q: marked %v, want %v", got[p], !want, want)
				}
			}
			if want := tc.incomplete != ""; (got["note"] != "") != want {
				t.Errorf("note present %v, want %v", got["note"] != "", want)
			}
		})
	}
}

// TestReportTiny: the Markdown and JSON reports of a small evaluation of
// two seeds (ratios without intervals).
func TestReportTiny(t *testing.T) {
	r, err := experiment.Evaluate(context.Background(), tinyEval())
	if err != nil {
		t.Fatal(err)
	}
	sr := r.Scenarios[0]
	low := sr.Policies[1]
	var md, js bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## tiny", "| static | ", "| low | ", "## Overall: mean slowdown / static's", "| tiny | 1.000 |",
		"| mean slowdown / static | p99 ≤100KB / static |", "no intervals: those come from the variation between seeds and need at least 3",
		fratio(low.MeanVsRef) + " | " + fratio(low.SmallP99VsRef) + " |",
		"## Summary", "- static on tiny: mean slowdown " + relativeTo(low.MeanVsRef, "low") + "; short-flow p99 slowdown " + relativeTo(low.SmallP99VsRef, "low") + ".\n"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var m struct {
		Reference string
		Bins      []*int64 `json:"bins_max_bytes"`
		Scenarios []struct {
			Name     string
			SizeCDF  []map[string]float64 `json:"flow_size_cdf"`
			Policies []struct {
				Policy  string
				Summary map[string]any
				Norm    *float64  `json:"mean_slowdown_vs_reference"`
				NormCI  []float64 `json:"mean_slowdown_vs_reference_ci"`
				Small   *float64  `json:"slowdown_p99_small_vs_reference"`
				SmallCI []float64 `json:"slowdown_p99_small_vs_reference_ci"`
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Scenarios) != 1 || m.Scenarios[0].Name != "tiny" || len(m.Scenarios[0].Policies) != 2 || len(m.Scenarios[0].SizeCDF) == 0 {
		t.Fatalf("json: %s", js.String())
	}
	// bounds as numbers, the open last bin's as null (2^63-1 is no float64)
	bins := r.Bins
	if len(m.Bins) != len(bins) || m.Bins[len(bins)-1] != nil || bins[len(bins)-1] != math.MaxInt64 {
		t.Errorf("json bins %v for %v", m.Bins, bins)
	}
	for i, b := range m.Bins[:len(bins)-1] {
		if b == nil || *b != bins[i] {
			t.Errorf("json bin %d bound %v, want %d", i, b, bins[i])
		}
	}
	for _, p := range m.Scenarios[0].Policies {
		for _, k := range []string{"flows", "completed", "slowdown", "slowdown_by_size", "throughput_gbps_mean", "queue_bytes_mean", "pfc_pauses"} {
			if _, ok := p.Summary[k]; !ok {
				t.Errorf("json %s summary lacks %q", p.Policy, k)
			}
		}
	}
	if n := m.Scenarios[0].Policies[0].Norm; n == nil || *n != 1 {
		t.Errorf("json reference normalized to %v", n)
	}
	if p := m.Scenarios[0].Policies[1]; p.NormCI != nil || p.Small == nil || *p.Small != low.SmallP99VsRef.Value || p.SmallCI != nil {
		t.Errorf("json ratios of low: %v %v %v", p.NormCI, p.Small, p.SmallCI)
	}
	if strings.Contains(js.String(), "ci_level") {
		t.Error("json with 2 seeds has a ci_level")
	}

}
