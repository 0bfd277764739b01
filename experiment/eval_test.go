package experiment

import (
	"context"
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

	// Same inputs, other scheduling: the same report.
	c.Progress = nil
	c.Workers = 1
	r2, err := Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
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
}

// recorder is a static policy that keeps the end of every interval it saw.
type recorder struct{ ends []int64 }

func (r *recorder) Decide(t *control.Telemetry, _ []control.ECN) { r.ends = append(r.ends, t.Now) }

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

// The ideal takes a scenario whose link fails and comes back during every
// run (a quarter of the family draws have one): every flow finishes, and
// it beats static.
func TestEvaluateIdealLinkEvents(t *testing.T) {
	c := tinyEval()
	sc := &c.Scenarios[0]
	sc.Name, sc.Clos.Spines = "tiny-outage", 2
	sc.Events = []scenario.Event{{At: 200 * topo.Microsecond, Link: "leaf0-spine1"}, {At: 600 * topo.Microsecond, Link: "leaf0-spine1", Up: true}}
	ideal, err := policy.Parse(context.Background(), "ideal", policy.Env{})
	if err != nil {
		t.Fatal(err)
	}
	c.Policies = []policy.Named{c.Policies[0], ideal}
	r, err := Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	static, fair := r.Scenarios[0].Policies[0].Summary, r.Scenarios[0].Policies[1].Summary
	if fair.Completed != fair.Flows || fair.Flows != static.Flows || !(fair.Slowdown.Mean < static.Slowdown.Mean) {
		t.Errorf("ideal: %d of %d flows, mean slowdown %.3f; static: %d flows, %.3f", fair.Completed, fair.Flows, fair.Slowdown.Mean, static.Flows, static.Slowdown.Mean)
	}
}
