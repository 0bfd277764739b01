package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/topo"
)

// tinyScenario simulates in a few milliseconds: a 2-leaf, 1-spine Clos with
// 2 hosts per leaf, 1 ms of FB_Hadoop arrivals and 3:1 incasts.
func tinyScenario() Scenario {
	s := DefaultScenario()
	s.Name = "tiny"
	s.Description = "test scenario"
	s.Clos.Leaves, s.Clos.Spines, s.Clos.HostsPerLeaf = 2, 1, 2
	s.Gen.Duration = topo.Millisecond
	s.Gen.Incast = IncastConfig{Period: 250 * topo.Microsecond, FanIn: 3, Size: 64000}
	return s
}

func tinyEval() EvalConfig {
	return EvalConfig{
		Scenarios: []Scenario{tinyScenario()},
		Policies: []NamedPolicy{
			{Name: "static", New: StaticPolicy()},
			{Name: "low", New: FixedPolicy(control.ECN{KMin: 5 * control.KB, KMax: 20 * control.KB, PMax: 0.5})},
		},
		Seeds: []uint64{1, 2},
	}
}

// machineFree clears what measures the machine rather than the simulation.
func machineFree(r *EvalReport) *EvalReport {
	for si := range r.Scenarios {
		for pi := range r.Scenarios[si].Policies {
			pr := &r.Scenarios[si].Policies[pi]
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
		if len(pr.SlowdownByBin) != len(FigureBins()) || pr.SmallP99 < 1 {
			t.Errorf("%s: bins %v, small p99 %v", pr.Policy, pr.SlowdownByBin, pr.SmallP99)
		}
	}
	// A single run of the same trace and seed is the per-seed summary.
	f, flows, err := tinyScenario().Build(2)
	if err != nil {
		t.Fatal(err)
	}
	one, err := Run(Config{Fabric: f, Flows: flows, Seed: 2})
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

	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## tiny", "| static | ", "| low | ", "## Overall: mean slowdown / static's", "| tiny | 1.000 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var m struct {
		Reference string
		Scenarios []struct {
			Name     string
			SizeCDF  []map[string]float64 `json:"flow_size_cdf"`
			Policies []struct {
				Policy  string
				Summary map[string]any
				Norm    *float64 `json:"mean_slowdown_vs_reference"`
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Scenarios) != 1 || m.Scenarios[0].Name != "tiny" || len(m.Scenarios[0].Policies) != 2 || len(m.Scenarios[0].SizeCDF) == 0 {
		t.Fatalf("json: %s", js.String())
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
		edit func(*EvalConfig)
		want string
	}{
		{func(c *EvalConfig) { c.Seeds = nil }, "no seeds"},
		{func(c *EvalConfig) { c.Policies = nil }, "no policies"},
		{func(c *EvalConfig) { c.Scenarios = nil }, "no scenarios"},
		{func(c *EvalConfig) { c.Reference = "acc" }, `reference policy "acc" is not one of the policies (static, low)`},
		{func(c *EvalConfig) { c.Policies[1].Name = "static" }, `policy "static" given twice`},
		{func(c *EvalConfig) { c.Seeds = []uint64{1, 1} }, "seed 1 given twice"},
		{func(c *EvalConfig) { c.Scenarios[0].Gen.Load = 2 }, "scenario tiny"},
		{func(c *EvalConfig) {
			c.Policies[1].New = func(*topo.Fabric, Scenario, uint64) (control.Policy, []control.ECN, error) {
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

func TestEvaluateCancel(t *testing.T) {
	c := tinyEval()
	c.Scenarios = []Scenario{DefaultScenario()} // about a second per run
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := Evaluate(ctx, c)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted at") {
		t.Errorf("cancelled evaluation: %v", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("cancellation took %v", d)
	}
	// Cancelled before it starts: no run at all.
	_, err = Evaluate(ctx, c)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("evaluation under a cancelled context: %v", err)
	}
}

func TestFixedPolicyScales(t *testing.T) {
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	_, ecn, err := FixedPolicy(control.Alibaba(DCQCNRefRate))(f, DefaultScenario(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ecn, control.StaticSettings(f)) {
		t.Error("FixedPolicy(Alibaba at 25G) differs from the static settings")
	}
	if _, _, err := FixedPolicy(control.ECN{KMin: 2, KMax: 1})(f, DefaultScenario(), 1); err == nil {
		t.Error("FixedPolicy accepted kmax < kmin")
	}
}

func TestEvaluateReportsFailedLinks(t *testing.T) {
	c := tinyEval()
	s := tinyScenario()
	s.Clos.Spines = 2 // so that one leaf-spine link can fail
	s.FailRandom = 1
	c.Scenarios = []Scenario{s}
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
