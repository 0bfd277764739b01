package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/internal/testfabric"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
)

func tinyEval() Config {
	return Config{
		Scenarios: []scenario.Scenario{testfabric.TinyScenario()},
		Policies: []policy.Named{
			{Name: "static", New: policy.Static()},
			{Name: "low", New: policy.Fixed(control.ECN{KMin: 5 * control.KB, KMax: 20 * control.KB, PMax: 0.5})},
		},
		Seeds: []uint64{1, 2},
	}
}

// machineFree clears what measures the machine rather than the simulation,
// and sets the NaN ratios of bins without flows to -1, so that
// reflect.DeepEqual can compare reports (NaN equals nothing).
func machineFree(r *Report) *Report {
	for si := range r.Scenarios {
		for pi := range r.Scenarios[si].Policies {
			pr := &r.Scenarios[si].Policies[pi]
			for b := range pr.BinVsRef {
				for _, v := range []*metrics.Ratio{&pr.BinVsRef[b].P50, &pr.BinVsRef[b].P95, &pr.BinVsRef[b].P99} {
					if math.IsNaN(v.Value) {
						v.Value = -1
					}
				}
			}
			pr.Summary.WallSeconds, pr.Summary.PeakRSSBytes = 0, 0
			for k := range pr.PerSeed {
				pr.PerSeed[k].WallSeconds, pr.PerSeed[k].PeakRSSBytes = 0, 0
			}
		}
	}
	return r
}

func TestEvaluateTiny(t *testing.T) {
	c := tinyEval()
	var calls atomic.Int32
	c.Progress = func(done, total int) {
		calls.Add(1)
		if total != 4 || done < 1 || done > 4 {
			t.Errorf("progress %d/%d", done, total)
		}
	}
	r, err := Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 4 {
		t.Errorf("%d progress calls, want 4", calls.Load())
	}
	if r.Reference != "static" || len(r.Scenarios) != 1 || len(r.Scenarios[0].Policies) != 2 {
		t.Fatalf("report shape: %+v", r)
	}
	sr := r.Scenarios[0]
	for pi, pr := range sr.Policies {
		if pr.Policy != c.Policies[pi].Name {
			t.Errorf("policy %d is %s", pi, pr.Policy)
		}
		if pr.Summary.Flows != sr.Flows[0]+sr.Flows[1] || pr.Summary.Completed != pr.Summary.Flows || len(pr.PerSeed) != 2 {
			t.Errorf("%s: %d flows (%d completed), per seed %v", pr.Policy, pr.Summary.Flows, pr.Summary.Completed, sr.Flows)
		}
		if pr.Summary.Events != pr.PerSeed[0].Events+pr.PerSeed[1].Events {
			t.Errorf("%s: events not summed", pr.Policy)
		}
		// Queues are averaged over seeds: the instantaneous queue and the
		// queue feature alike.
		for _, q := range []struct {
			name       string
			merged     float64
			seed0, sd1 float64
		}{
			{"queue mean", pr.Summary.QueueBytesMean, pr.PerSeed[0].QueueBytesMean, pr.PerSeed[1].QueueBytesMean},
			{"queue feature mean", pr.Summary.QueueFeatureMean, pr.PerSeed[0].QueueFeatureMean, pr.PerSeed[1].QueueFeatureMean},
			{"queue feature p99", pr.Summary.QueueFeatureP99, pr.PerSeed[0].QueueFeatureP99, pr.PerSeed[1].QueueFeatureP99},
		} {
			if want := q.seed0/2 + q.sd1/2; q.merged != want || want == 0 {
				t.Errorf("%s: %s %v, want the mean over seeds %v", pr.Policy, q.name, q.merged, want)
			}
		}
		if len(pr.SlowdownByBin) != len(metrics.FigureBins()) || pr.SmallP99 < 1 {
			t.Errorf("%s: bins %v, small p99 %v", pr.Policy, pr.SlowdownByBin, pr.SmallP99)
		}
		// Queues are sampled over the arrival window, the same span for
		// every policy however long its flows take.
		window := float64(c.Scenarios[0].Gen.Duration) / float64(topo.Second)
		for k, ps := range pr.PerSeed {
			if math.Abs(ps.QueueSeconds-window) > 1e-12 {
				t.Errorf("%s, seed %d: queue over %v s, want the %v s arrival window", pr.Policy, k, ps.QueueSeconds, window)
			}
		}
	}
	// A single run of the same trace and seed is the per-seed summary.
	f, flows, err := testfabric.TinyScenario().Build(2)
	if err != nil {
		t.Fatal(err)
	}
	one, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := sr.Policies[0].PerSeed[1]; got.Slowdown != one.Summary.Slowdown || got.Events != one.Summary.Events {
		t.Errorf("seed 2 static: %+v, a lone run gives %+v", got.Slowdown, one.Summary.Slowdown)
	}
	if sr.Policies[0].Summary.Slowdown == sr.Policies[1].Summary.Slowdown {
		t.Error("the two policies gave the same slowdowns")
	}
	if v := r.NormalizedMeanSlowdown(0, 0); v != 1 {
		t.Errorf("reference normalized to %v, want exactly 1", v)
	}
	// Two seeds: ratios without intervals.
	low := sr.Policies[1]
	if got := sr.Policies[0]; got.MeanVsRef != (metrics.Ratio{Value: 1}) || got.SmallP99VsRef != (metrics.Ratio{Value: 1}) {
		t.Errorf("reference's own ratios %+v and %+v, want exactly 1 without an interval", got.MeanVsRef, got.SmallP99VsRef)
	}
	if m := low.MeanVsRef; m != (metrics.Ratio{Value: r.NormalizedMeanSlowdown(0, 1)}) {
		t.Errorf("low's mean ratio %+v (normalized mean slowdown %v)", m, r.NormalizedMeanSlowdown(0, 1))
	}
	if m := low.SmallP99VsRef; m != (metrics.Ratio{Value: low.SmallP99 / sr.Policies[0].SmallP99}) {
		t.Errorf("low's small-flow p99 ratio %+v", m)
	}

	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
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
	if err := r.WriteJSON(&js); err != nil {
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

	// Same inputs, other scheduling: the same report.
	c.Progress = nil
	c.Workers = 1
	r2, err := Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var md2 bytes.Buffer
	r2.WriteMarkdown(&md2)
	if md.String() != md2.String() {
		t.Errorf("markdown differs between runs:\n%s\n---\n%s", md.String(), md2.String())
	}
	if !reflect.DeepEqual(machineFree(r), machineFree(r2)) {
		t.Error("reports differ between runs")
	}

	// The reference can be any policy.
	c.Reference = "low"
	r3, err := Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if v := r3.NormalizedMeanSlowdown(0, 1); v != 1 {
		t.Errorf("reference low normalized to %v", v)
	}
}

func TestEvaluateErrors(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Seeds = nil }, "no seeds"},
		{func(c *Config) { c.Policies = nil }, "no policies"},
		{func(c *Config) { c.Scenarios = nil }, "no scenarios"},
		{func(c *Config) { c.Reference = "acc" }, `reference policy "acc" is not one of the policies (static, low)`},
		{func(c *Config) { c.Policies[1].Name = "static" }, `policy "static" given twice`},
		{func(c *Config) { c.Seeds = []uint64{1, 1} }, "seed 1 given twice"},
		{func(c *Config) { c.Seeds = []uint64{1, 2, 3, 2} }, "seed 2 given twice"},
		{func(c *Config) { c.Scenarios = append(c.Scenarios, c.Scenarios[0]) }, `scenario "tiny" given twice`},
		{func(c *Config) { c.Scenarios[0].Gen.Load = 2 }, "scenario tiny"},
		{func(c *Config) {
			c.Policies[1].New = func(*topo.Fabric, scenario.Scenario, uint64) (control.Policy, []control.ECN, error) {
				return nil, nil, errors.New("no model")
			}
		}, "policy low: no model"},
	} {
		c := tinyEval()
		tc.edit(&c)
		_, err := Evaluate(context.Background(), c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one containing %q", err, tc.want)
		}
	}
}

// TestEvaluateCancel cancels an evaluation while its first runs are under
// way: they stop where they are (no run finishes, the error says where
// the simulation was interrupted). How fast they stop is not asserted:
// that is a speed, which the race detector or a loaded machine changes.
func TestEvaluateCancel(t *testing.T) {
	c := tinyEval()
	c.Scenarios = []scenario.Scenario{scenario.Default()} // about a second per run
	var finished atomic.Int32
	c.Progress = func(int, int) { finished.Add(1) }
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := Evaluate(ctx, c)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted at") {
		t.Errorf("cancelled evaluation: %v", err)
	}
	if n := finished.Load(); n != 0 {
		t.Errorf("%d runs finished after the cancellation 50 ms in, want 0", n)
	}
	// Cancelled before it starts: no run at all.
	_, err = Evaluate(ctx, c)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("evaluation under a cancelled context: %v", err)
	}
}

func TestEvaluateReportsFailedLinks(t *testing.T) {
	c := tinyEval()
	s := testfabric.TinyScenario()
	s.Clos.Spines = 2 // so that one leaf-spine link can fail
	s.FailRandom = 1
	c.Scenarios = []scenario.Scenario{s}
	c.Policies = c.Policies[:1]
	r, err := Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	r.WriteMarkdown(&md)
	for k, names := range r.Scenarios[0].FailedLinks {
		if len(names) != 1 || !strings.HasPrefix(names[0], "leaf") || !strings.Contains(md.String(), names[0]) {
			t.Errorf("seed %d: failed links %v\n%s", c.Seeds[k], names, md.String())
		}
	}
}

// recorder is a static policy that keeps the end of every interval it saw.
type recorder struct{ ends []int64 }

func (r *recorder) Decide(t *control.Telemetry, _ []control.ECN) { r.ends = append(r.ends, t.Now) }

func TestEvaluateRewards(t *testing.T) {
	plain, err := Evaluate(context.Background(), tinyEval())
	if err != nil {
		t.Fatal(err)
	}
	c := tinyEval()
	// "end" scores an interval by its end in ms, "one" by 1: their means
	// are the mean end of the scored intervals and 1.
	c.Rewards = []NamedReward{
		{Name: "end", New: func(*topo.Fabric) func(*control.Telemetry) float64 {
			return func(t *control.Telemetry) float64 { return float64(t.Now) / float64(topo.Millisecond) }
		}},
		{Name: "one", New: func(*topo.Fabric) func(*control.Telemetry) float64 {
			return func(*control.Telemetry) float64 { return 1 }
		}},
	}
	r, err := Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Rewards, []string{"end", "one"}) {
		t.Errorf("report rewards %v", r.Rewards)
	}
	// Scoring changes nothing of the runs.
	rw := machineFree(r)
	for si := range rw.Scenarios {
		for pi := range rw.Scenarios[si].Policies {
			pr := &rw.Scenarios[si].Policies[pi]
			pr.Rewards, pr.PerSeedRewards = nil, nil
		}
	}
	rw.Rewards = nil
	if !reflect.DeepEqual(rw, machineFree(plain)) {
		t.Error("a report with rewards differs from one without in more than the rewards")
	}
	r, err = Evaluate(context.Background(), c) // rw was cleared
	if err != nil {
		t.Fatal(err)
	}
	// The window: intervals ending within the scenario's arrival window
	// after the first flow's start, checked against a run that records them.
	sc := c.Scenarios[0]
	for pi, pol := range c.Policies {
		pr := r.Scenarios[0].Policies[pi]
		if len(pr.PerSeedRewards) != len(c.Seeds) || len(pr.Rewards) != 2 {
			t.Fatalf("%s: rewards %v per seed %v", pol.Name, pr.Rewards, pr.PerSeedRewards)
		}
		var mean float64
		for k, seed := range c.Seeds {
			f, flows, err := sc.Build(seed)
			if err != nil {
				t.Fatal(err)
			}
			_, ecn, err := pol.New(f, sc, seed)
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{}
			if _, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Seed: seed, ECN: ecn, Policy: rec}); err != nil {
				t.Fatal(err)
			}
			first := flows[0].Start
			for _, fl := range flows {
				first = min(first, fl.Start)
			}
			var sum float64
			n := 0
			for _, e := range rec.ends {
				if e <= first+sc.Gen.Duration {
					sum += float64(e) / float64(topo.Millisecond)
					n++
				}
			}
			if n == 0 || n == len(rec.ends) {
				t.Fatalf("seed %d: %d of %d intervals in the window: the test needs some on either side", seed, n, len(rec.ends))
			}
			want := sum / float64(n)
			if got := pr.PerSeedRewards[k]; math.Abs(got[0]-want) > 1e-12 || got[1] != 1 {
				t.Errorf("%s seed %d: rewards %v, want [%v 1]", pol.Name, seed, got, want)
			}
			mean += want / float64(len(c.Seeds))
		}
		if math.Abs(pr.Rewards[0]-mean) > 1e-12 || pr.Rewards[1] != 1 {
			t.Errorf("%s: rewards %v, want [%v 1]", pol.Name, pr.Rewards, mean)
		}
	}

	// The Markdown report shows the rewards when asked (ShowRewards).
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "reward") {
		t.Errorf("markdown without ShowRewards has rewards:\n%s", md.String())
	}
	c.ShowRewards = true
	if r, err = Evaluate(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	md.Reset()
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| reward end | reward one |") {
		t.Errorf("markdown lacks the reward columns:\n%s", md.String())
	}
	if strings.Contains(md.String(), "## Reward against mean slowdown") {
		t.Errorf("markdown ranks two policies:\n%s", md.String())
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
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
	pol := func(name string, slow float64, rw ...float64) PolicyResult {
		return PolicyResult{Policy: name, Summary: metrics.Summary{Slowdown: metrics.Stats{Mean: slow}}, Rewards: rw}
	}
	r := &Report{
		Reference: "a", Policies: []string{"a", "b", "c"}, Rewards: []string{"same", "reversed", "unscored"},
		Scenarios: []ScenarioResult{{
			Scenario: testfabric.TinyScenario(), Flows: []int{0},
			Policies: []PolicyResult{
				pol("a", 3, 0.5, 0.9, math.NaN()),
				pol("b", 2, 0.6, 0.8, math.NaN()),
				pol("c", 4, 0.4, 0.95, math.NaN()),
			},
		}},
		Seeds: []uint64{1},
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "## Reward against mean slowdown") || strings.Contains(md.String(), "0.5000") {
		t.Errorf("rewards shown without ShowRewards:\n%s", md.String())
	}
	r.ShowRewards = true
	md.Reset()
	if err := r.WriteMarkdown(&md); err != nil {
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
		got := Spearman(c.x, c.y)
		if math.IsNaN(c.want) != math.IsNaN(got) || !math.IsNaN(c.want) && math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: Spearman = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestReportMarksIncomplete: the ratios of a policy that left flows
// unfinished, or of any policy when the reference did, carry a mark and a
// note, in the scenario's table and the overall one.
func TestReportMarksIncomplete(t *testing.T) {
	r, err := Evaluate(context.Background(), tinyEval())
	if err != nil {
		t.Fatal(err)
	}
	rows := func() map[string]string {
		var md bytes.Buffer
		if err := r.WriteMarkdown(&md); err != nil {
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

// A reactive policy whose two settings are one runs exactly as that fixed
// setting.
func TestReactiveSameAsFixed(t *testing.T) {
	sc := testfabric.TinyScenario()
	e := control.ECN{KMin: 8_000, KMax: 32_000, PMax: 0.5}
	c := Config{Scenarios: []scenario.Scenario{sc}, Seeds: []uint64{4}, Policies: []policy.Named{
		{Name: "fixed", New: policy.Fixed(e)},
		{Name: "react", New: policy.Reactive(4_000, e, e)},
		{Name: "react2", New: policy.Reactive(4_000, e, control.ECN{KMin: 1_000, KMax: 2_000, PMax: 1})},
	}}
	rep, err := Evaluate(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Scenarios[0].Policies
	if p[0].Summary.Slowdown != p[1].Summary.Slowdown || p[0].Summary.ECNMarkedPackets != p[1].Summary.ECNMarkedPackets {
		t.Errorf("react with one setting differs from it: %+v vs %+v", p[1].Summary.Slowdown, p[0].Summary.Slowdown)
	}
	if p[2].Summary.ECNMarkedPackets == p[0].Summary.ECNMarkedPackets || len(p[2].Summary.ECNSettings) != 2 {
		t.Errorf("react with a busy setting marks as the fixed one (%d packets, settings %v)", p[2].Summary.ECNMarkedPackets, p[2].Summary.ECNSettings)
	}
}

// TestEvaluateHostParams checks that a policy's hosts' DCQCN constants run
// in an evaluation, with rewards scored or not, exactly as the same
// constants in Params.
func TestEvaluateHostParams(t *testing.T) {
	h := control.DefaultHostParams()
	h.IncreaseInterval, h.AI = 55*topo.Microsecond, 20*topo.Mbps
	low := control.ECN{KMin: 5 * control.KB, KMax: 20 * control.KB, PMax: 0.5}
	means := func(c Config) []float64 { return meanSlowdowns(t, c) }
	c := tinyEval()
	c.Policies = []policy.Named{
		{Name: "low", New: policy.Fixed(low)},
		{Name: "low+hosts", New: policy.WithHosts(policy.Fixed(low), h)},
	}
	plain := means(c)
	c.Rewards = []NamedReward{{Name: "one", New: func(*topo.Fabric) func(*control.Telemetry) float64 {
		return func(*control.Telemetry) float64 { return 1 }
	}}}
	scored := means(c)
	p := replay.DefaultParams()
	p.DCQCN = h.Apply(p.DCQCN, control.RefRate)
	byParams := means(Config{Scenarios: c.Scenarios, Seeds: c.Seeds, Params: p,
		Policies: []policy.Named{{Name: "low", New: policy.Fixed(low)}}})
	if plain[0] == plain[1] || !slices.Equal(plain, scored) || plain[1] != byParams[0] {
		t.Errorf("mean slowdowns: without rewards %v, with %v; the constants in Params %v", plain, scored, byParams)
	}
}

// TestEvaluateHostDecider: a policy that sets the hosts' constants every
// interval (hostreact) decides them in an evaluation, with rewards scored
// (the policy wrapped) or not: it runs otherwise than its starting
// constants fixed, and the same either way.
func TestEvaluateHostDecider(t *testing.T) {
	calm, busy := control.DefaultHostParams(), control.DefaultHostParams()
	busy.IncreaseInterval = 1000 * topo.Microsecond
	low := control.ECN{KMin: 5 * control.KB, KMax: 20 * control.KB, PMax: 0.5}
	means := func(c Config) []float64 { return meanSlowdowns(t, c) }
	c := tinyEval()
	c.Policies = []policy.Named{
		{Name: "fixed", New: policy.WithHosts(policy.Fixed(low), calm)},
		{Name: "hostreact", New: policy.HostReact(low, 0.2, calm, busy)},
	}
	plain := means(c)
	c.Rewards = []NamedReward{{Name: "one", New: func(*topo.Fabric) func(*control.Telemetry) float64 {
		return func(*control.Telemetry) float64 { return 1 }
	}}}
	scored := means(c)
	if plain[0] == plain[1] || !slices.Equal(plain, scored) {
		t.Errorf("mean slowdowns: without rewards %v, with %v; want hostreact's unlike the fixed one's, and both alike", plain, scored)
	}
}

// meanSlowdowns evaluates c and returns each policy's mean slowdown on its
// first scenario.
func meanSlowdowns(t *testing.T, c Config) []float64 {
	t.Helper()
	r, err := Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, pr := range r.Scenarios[0].Policies {
		out = append(out, pr.Summary.Slowdown.Mean)
	}
	return out
}
