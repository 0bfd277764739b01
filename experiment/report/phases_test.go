package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/experiment"
	"graphcc/internal/testfabric"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/workload"
)

// TestEvaluatePhased: a phased scenario evaluates like any other, with a
// sched: policy beside a fixed one; its report describes the phases and
// its JSON lists them, with the mean load and the phases' mixed size CDF.
func TestEvaluatePhased(t *testing.T) {
	sc := testfabric.TinyScenario()
	sc.Name = "tiny-phased"
	fb, ws := sc.Gen.Workload, must(workload.Builtin("websearch"))
	sc.Gen.Phases = []workload.Phase{
		{Duration: 600 * topo.Microsecond, Workload: fb, Load: 0.3},
		{Duration: 400 * topo.Microsecond, Workload: ws, Load: 0.8, Incast: sc.Gen.Incast},
	}
	sc.Gen.Duration = workload.PhasesDuration(sc.Gen.Phases)
	var pols []policy.Named
	for _, spec := range []string{"static:2,32,0.01", "sched:0=2,32,0.01:600us=32,256,0.75"} {
		np, err := policy.Parse(context.Background(), spec, policy.Env{})
		if err != nil {
			t.Fatal(err)
		}
		pols = append(pols, np)
	}
	r, err := experiment.Evaluate(context.Background(), experiment.Config{Scenarios: []scenario.Scenario{sc}, Policies: pols, Seeds: []uint64{2001, 2002}})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "in phases: 600 us of FB_Hadoop 30 %, no incasts; 400 us of WebSearch 80 % + 3:1 incasts") {
		t.Errorf("report does not describe the phases:\n%s", md.String())
	}
	if n, share := control.TopSettingShare(r.Scenarios[0].Policies[1].Summary.ECNSettings); n != 2 || share >= 1 {
		t.Errorf("sched used %d settings (top share %v), want 2", n, share)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Scenarios []struct {
			Workload string  `json:"workload"`
			Load     float64 `json:"load"`
			Phases   []struct {
				DurationMs float64 `json:"duration_ms"`
				Workload   string  `json:"workload"`
				Incast     struct {
					FanIn int `json:"fanin"`
				} `json:"incast"`
			} `json:"phases"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	s := out.Scenarios[0]
	if s.Workload != "mix of FB_Hadoop, WebSearch" || math.Abs(s.Load-(0.3*0.6+0.8*0.4)) > 1e-12 || len(s.Phases) != 2 ||
		s.Phases[1].Workload != "websearch" || s.Phases[1].DurationMs != 0.4 || s.Phases[1].Incast.FanIn != 3 || s.Phases[0].Incast.FanIn != 0 {
		t.Errorf("JSON scenario %+v", s)
	}
}

// TestEvaluateByPhase: on a phased scenario every run's summary and the
// merged one split the flows by the phase they start in, the merged
// phases being the seeds' records together; each policy's mean slowdown
// per phase over the reference's carries the interval of the same
// jackknife over seeds as the other ratios; the report has a table by
// phase after the scenario's, and its JSON the ratios and shares. A
// scenario without phases has none of it.
func TestEvaluateByPhase(t *testing.T) {
	plain := testfabric.TinyScenario()
	sc := testfabric.TinyScenario()
	sc.Name = "tiny-phased"
	sc.Gen.Phases = []workload.Phase{
		{Duration: 600 * topo.Microsecond, Workload: sc.Gen.Workload, Load: 0.3},
		{Duration: 400 * topo.Microsecond, Workload: must(workload.Builtin("googlerpc")), Load: 0.8, Incast: sc.Gen.Incast},
	}
	sc.Gen.Duration = workload.PhasesDuration(sc.Gen.Phases)
	c := tinyEval()
	c.Scenarios, c.Seeds, c.Reference = []scenario.Scenario{plain, sc}, []uint64{2001, 2002, 2003}, "low"
	r, err := experiment.Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range r.Scenarios[0].Policies {
		if pr.Summary.Phases != nil || pr.PhaseVsRef != nil || pr.PerSeed[0].Phases != nil {
			t.Errorf("%s on a scenario without phases: %+v, %+v", pr.Policy, pr.Summary.Phases, pr.PhaseVsRef)
		}
	}
	sr := r.Scenarios[1]
	ref := sr.Policies[r.RefIndex()]
	for _, pr := range sr.Policies {
		checkMergedPhases(t, pr)
		// the ratio and its interval, from the seeds' phase statistics
		for i, got := range pr.PhaseVsRef {
			v := pr.Summary.Phases[i].Slowdown.Mean / ref.Summary.Phases[i].Slowdown.Mean
			want := metrics.LogInterval(v, metrics.Logs(metrics.JackknifeRatios(looPhaseMeans(pr, i), looPhaseMeans(ref, i))))
			if math.Abs(got.Value-want.Value) > 1e-12 || math.Abs(got.Lo-want.Lo) > 1e-9 || math.Abs(got.Hi-want.Hi) > 1e-9 || !got.HasInterval() {
				t.Errorf("%s, phase %d: %+v, want %+v", pr.Policy, i, got, want)
			}
		}
	}
	if p := sr.Policies[r.RefIndex()].PhaseVsRef; p[0] != (metrics.Ratio{Value: 1, Lo: 1, Hi: 1}) || p[1] != p[0] {
		t.Errorf("the reference against itself: %+v", p)
	}
	if static := sr.Policies[0].PhaseVsRef; static[0].Value == static[1].Value {
		t.Errorf("static's phases have the same ratio %v: not each its own", static[0].Value)
	}

	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	report := md.String()
	flows, sums := phaseShares(ref.Summary.Phases)
	want := fmt.Sprintf("\n### tiny-phased by phase\n\n"+
		"Each phase's flows are those that start in it, over every seed: how many, their share of low's completed flows and of the sum of low's slowdowns (the scenario's mean slowdown is that sum over the flows), low's mean slowdown of them, and each other policy's divided by it (95 %% CI).\n\n"+
		"| phase | starts at | flows | of the flows | of low's slowdown sum | mean slowdown low | static / low |\n"+
		"|---|---:|---:|---:|---:|---:|---:|\n"+
		"| 600 us of FB_Hadoop 30 %%, no incasts | 0 ms | %s | %.1f %% | %.1f %% | %.3f | %s |\n"+
		"| 400 us of GoogleRPC2008 80 %% + 3:1 incasts of 64 KB every 250 us | 0.6 ms | %s | %.1f %% | %.1f %% | %.3f | %s |\n",
		groupThousands(ref.Summary.Phases[0].Slowdown.Count), 100*flows[0], 100*sums[0], ref.Summary.Phases[0].Slowdown.Mean, fratio(sr.Policies[0].PhaseVsRef[0]),
		groupThousands(ref.Summary.Phases[1].Slowdown.Count), 100*flows[1], 100*sums[1], ref.Summary.Phases[1].Slowdown.Mean, fratio(sr.Policies[0].PhaseVsRef[1]))
	if !strings.Contains(report, want) {
		t.Errorf("report lacks the table by phase\n%s\n--- in:\n%s", want, report)
	}
	if i, j := strings.Index(report, want), strings.Index(report, "\n## Overall"); strings.Count(report, "by phase\n") != 1 || i < strings.Index(report, "## tiny-phased") || i > j {
		t.Errorf("the table by phase is not once, after its scenario's table:\n%s", report)
	}
	checkPhasesJSON(t, r)
}

// checkMergedPhases checks that pr's merged phases are its seeds' together:
// counts summed, means the seeds' weighted by their counts, and the counts
// those of the flows.
func checkMergedPhases(t *testing.T, pr experiment.PolicyResult) {
	t.Helper()
	if len(pr.Summary.Phases) != 2 || len(pr.PhaseVsRef) != 2 {
		t.Fatalf("%s: phases %+v, ratios %+v", pr.Policy, pr.Summary.Phases, pr.PhaseVsRef)
	}
	total := 0
	for i, ph := range pr.Summary.Phases {
		n, sum := 0, 0.0
		for _, s := range pr.PerSeed {
			n += s.Phases[i].Slowdown.Count
			sum += float64(s.Phases[i].Slowdown.Count) * s.Phases[i].Slowdown.Mean
		}
		if ph.Slowdown.Count != n || n == 0 || math.Abs(ph.Slowdown.Mean-sum/float64(n)) > 1e-12*ph.Slowdown.Mean {
			t.Errorf("%s, phase %d: %d flows of mean %v; the seeds', %d of mean %v", pr.Policy, i, ph.Slowdown.Count, ph.Slowdown.Mean, n, sum/float64(n))
		}
		total += n
	}
	if total != pr.Summary.Slowdown.Count {
		t.Errorf("%s: the phases hold %d flows of %d", pr.Policy, total, pr.Summary.Slowdown.Count)
	}
}

// looPhaseMeans returns pr's mean slowdown of phase i leaving out each
// seed, from the seeds' summaries.
func looPhaseMeans(pr experiment.PolicyResult, i int) []float64 {
	out := make([]float64, len(pr.PerSeed))
	for k := range out {
		n, sum := 0, 0.0
		for j, s := range pr.PerSeed {
			if j != k {
				n += s.Phases[i].Slowdown.Count
				sum += float64(s.Phases[i].Slowdown.Count) * s.Phases[i].Slowdown.Mean
			}
		}
		out[k] = sum / float64(n)
	}
	return out
}

// checkPhasesJSON checks the phases in r's JSON (its second scenario
// phased, its first not): each policy's ratios and shares, and the
// summaries' statistics.
func checkPhasesJSON(t *testing.T, r *experiment.Report) {
	t.Helper()
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Scenarios []struct {
			Policies []struct {
				Phases []struct {
					Mean   *float64  `json:"mean_slowdown_vs_reference"`
					CI     []float64 `json:"mean_slowdown_vs_reference_ci"`
					Flows  float64   `json:"flow_share"`
					SumSum float64   `json:"slowdown_sum_share"`
				} `json:"slowdown_by_phase_vs_reference"`
				Summary metrics.Summary `json:"summary"`
			} `json:"policies"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if p := out.Scenarios[0].Policies[0]; p.Phases != nil || p.Summary.Phases != nil || bytes.Count(js.Bytes(), []byte(`"slowdown_by_phase"`)) != 2*(1+3) {
		t.Errorf("phases in the JSON of a scenario without: %+v (or not once per summary of the phased one)", p)
	}
	for pi, p := range out.Scenarios[1].Policies {
		pr := r.Scenarios[1].Policies[pi]
		flows, sums := phaseShares(pr.Summary.Phases)
		if !reflect.DeepEqual(p.Summary.Phases, pr.Summary.Phases) || len(p.Phases) != 2 {
			t.Fatalf("%s's phases in JSON: %+v, %+v", pr.Policy, p.Summary.Phases, p.Phases)
		}
		for i, ph := range p.Phases {
			want := pr.PhaseVsRef[i]
			if *ph.Mean != want.Value || len(ph.CI) != 2 || ph.CI[0] != want.Lo || ph.CI[1] != want.Hi || ph.Flows != flows[i] || ph.SumSum != sums[i] {
				t.Errorf("%s, phase %d in JSON: %+v, want %+v, shares %v, %v", pr.Policy, i, ph, want, flows[i], sums[i])
			}
		}
	}
}

// TestPhaseShares: each phase's share of the flows and of the slowdown
// sum, 0 for a phase without flows.
func TestPhaseShares(t *testing.T) {
	p := []metrics.PhaseStats{{Slowdown: metrics.Stats{Count: 10, Mean: 2}}, {}, {Slowdown: metrics.Stats{Count: 5, Mean: 3}}}
	flows, sums := phaseShares(p)
	if !slices.Equal(flows, []float64{10.0 / 15, 0, 5.0 / 15}) || !slices.Equal(sums, []float64{20.0 / 35, 0, 15.0 / 35}) {
		t.Errorf("phaseShares = %v, %v", flows, sums)
	}
}
