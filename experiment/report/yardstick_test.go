package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/experiment"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/topo"
)

// TestEvaluateYardsticks evaluates three policies on two scenarios at
// three seeds with static and low as yardsticks: the ratios to static,
// which is also the reference, are the reference's ratios; a yardstick
// against itself is exactly 1; the reports show and name them.
func TestEvaluateYardsticks(t *testing.T) {
	c := tinyEval()
	c.Seeds = []uint64{1, 2, 3}
	c.Scenarios[0].Gen.Duration = 4 * topo.Millisecond
	tiny2 := c.Scenarios[0]
	tiny2.Name, tiny2.Gen.Load = "tiny2", 0.4
	c.Scenarios = append(c.Scenarios, tiny2)
	c.Policies = append(c.Policies, policy.Named{Name: "high", New: policy.Fixed(control.ECN{KMin: 50 * control.KB, KMax: 200 * control.KB, PMax: 0.1})})
	c.Yardsticks = []string{"static", "low"}
	r, err := experiment.Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	exactly1 := metrics.Ratio{Value: 1, Lo: 1, Hi: 1}
	for si, sr := range r.Scenarios {
		for pi, pr := range sr.Policies {
			if len(pr.VsYardsticks) != 2 {
				t.Fatalf("%s, %s: %d yardstick ratios", sr.Scenario.Name, pr.Policy, len(pr.VsYardsticks))
			}
			if vs := pr.VsYardsticks[0]; vs.Mean != pr.MeanVsRef || vs.SmallP99 != pr.SmallP99VsRef {
				t.Errorf("%s, %s: to static %+v, %+v; the reference's ratios %+v, %+v", sr.Scenario.Name, pr.Policy, vs.Mean, vs.SmallP99, pr.MeanVsRef, pr.SmallP99VsRef)
			}
			low := pr.VsYardsticks[1].Mean
			want := sr.Policies[pi].Summary.Slowdown.Mean / sr.Policies[1].Summary.Slowdown.Mean
			if pi == 1 && low != exactly1 || pi != 1 && (low.Value != want || !(low.Lo < low.Value && low.Value < low.Hi)) {
				t.Errorf("scenario %d, %s / low: %+v, want %v with an interval", si, pr.Policy, low, want)
			}
		}
	}
	for p := range r.Policies {
		if got := r.GeoMeanVsYardsticks[0][p].Mean; got != r.GeoMeanVsRef[p] {
			t.Errorf("%s: geometric mean to static %+v, to the reference %+v", r.Policies[p], got, r.GeoMeanVsRef[p])
		}
	}
	if got := r.GeoMeanVsYardsticks[1][1]; got.Mean != exactly1 {
		t.Errorf("low's geometric mean to itself: %+v", got.Mean)
	}
	checkYardstickReports(t, r)
}

// TestNoYardsticksNoKeys: without yardsticks the report has none of their
// keys or sections, as before they existed.
func TestNoYardsticksNoKeys(t *testing.T) {
	r, md, js := evalForms(t, tinyEval())
	if strings.Contains(md, "Yardsticks") || strings.Contains(js, "yardstick") || r.GeoMeanVsYardsticks != nil {
		t.Errorf("yardsticks in a report without them:\n%s", md)
	}
}

// evalForms evaluates c and returns its report, Markdown and JSON.
func evalForms(t *testing.T, c experiment.Config) (r *experiment.Report, md, js string) {
	t.Helper()
	r, err := experiment.Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var mb, jb bytes.Buffer
	if err := WriteMarkdown(&mb, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&jb, r); err != nil {
		t.Fatal(err)
	}
	return r, mb.String(), jb.String()
}

// TestYardstickNote: the note on the default yardstick, or on why there is
// none, is a line of the report's Method and a key of its JSON, with
// yardsticks or without; the Summary's sentence against the yardsticks
// names each but the reference, on the one scenario.
func TestYardstickNote(t *testing.T) {
	for _, yards := range [][]string{nil, {"static", "low"}} {
		c := tinyEval()
		c.Seeds = []uint64{1, 2, 3}
		c.Yardsticks = yards
		c.YardstickNote = "No tuned yardstick: a reason, on one line."
		r, md, js := evalForms(t, c)
		method := md[strings.Index(md, "## Method"):strings.Index(md, "## tiny")]
		if !strings.Contains(method, "\n\n"+c.YardstickNote+"\n") || !strings.Contains(js, `"yardstick_note": "`+c.YardstickNote+`"`) {
			t.Errorf("yardsticks %v: the note is not in the Method:\n%s\nor the JSON", yards, method)
		}
		sentence := "- static against the yardsticks"
		if yards != nil {
			low := r.Scenarios[0].Policies[0].VsYardsticks[1]
			if !low.Mean.HasInterval() || r.GeoMeanVsYardsticks[1][0].Mean != low.Mean {
				t.Fatalf("static / low %+v, its geometric mean over one scenario %+v", low.Mean, r.GeoMeanVsYardsticks[1][0].Mean)
			}
			sentence = "- static against the yardsticks on tiny: mean slowdown " + fratio(low.Mean) + " of low's; short-flow p99 slowdown " + fratio(low.SmallP99) + " of low's.\n"
		}
		if got := strings.Contains(md, sentence); got != (yards != nil) {
			t.Errorf("yardsticks %v: sentence %q in the Summary: %v", yards, sentence, got)
		}
	}
}

// checkYardstickReports checks the Markdown and JSON of TestEvaluateYardsticks's report.
func checkYardstickReports(t *testing.T, r *experiment.Report) {
	var md, js bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	highLow := r.Scenarios[0].Policies[2].VsYardsticks[1].Mean
	si, worst := r.WorstVsYardstick(2, 1)
	for _, want := range []string{
		"\n## Yardsticks\n\nEvery policy's mean slowdown divided by each yardstick's (static, low) on the same traces: per scenario with its 95 % interval",
		"\n### Mean slowdown / static's\n\n| scenario | low | high |\n",
		"\n### Mean slowdown / low's\n\n| scenario | static | high |\n",
		"| tiny | " + fratio(r.Scenarios[0].Policies[0].VsYardsticks[1].Mean) + " | " + fratio(highLow) + " |\n",
		"| geometric mean | " + fratio(r.GeoMeanVsYardsticks[1][0].Mean) + " | " + fratio(r.GeoMeanVsYardsticks[1][2].Mean) + " |\n",
		"| geometric mean, p99 ≤100KB | ",
		"- static: above low on ",
		", highest " + fratio(worst) + " on " + r.Scenarios[si].Scenario.Name,
		"- low: above static on ",
		fmt.Sprintf("- static against the yardsticks over the 2 scenarios (geometric means; above on %d of low): mean slowdown %s of low's; short-flow p99 slowdown %s of low's.\n",
			len(r.AboveYardstick(0, 1)), fratio(r.GeoMeanVsYardsticks[1][0].Mean), fratio(r.GeoMeanVsYardsticks[1][0].SmallP99)),
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var m struct {
		Yardsticks   []string `json:"yardsticks"`
		VsYardsticks []struct {
			Yardstick string `json:"yardstick"`
			Policies  []struct {
				Policy    string    `json:"policy"`
				GeoMean   *float64  `json:"geomean_mean_slowdown"`
				GeoMeanCI []float64 `json:"geomean_mean_slowdown_ci"`
				Worst     *struct {
					Scenario string    `json:"scenario"`
					Mean     float64   `json:"mean_slowdown"`
					MeanCI   []float64 `json:"mean_slowdown_ci"`
				} `json:"worst"`
				Above []struct {
					Scenario string `json:"scenario"`
				} `json:"above"`
			} `json:"policies"`
		} `json:"vs_yardsticks"`
		Scenarios []struct {
			Policies []struct {
				VsYardsticks []struct {
					Yardstick string    `json:"yardstick"`
					Mean      float64   `json:"mean_slowdown"`
					MeanCI    []float64 `json:"mean_slowdown_ci"`
					SmallCI   []float64 `json:"slowdown_p99_small_ci"`
				} `json:"vs_yardsticks"`
			} `json:"policies"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(js.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Yardsticks, []string{"static", "low"}) || len(m.VsYardsticks) != 2 || m.VsYardsticks[1].Yardstick != "low" {
		t.Fatalf("json yardsticks %v, %d summaries", m.Yardsticks, len(m.VsYardsticks))
	}
	hj := m.VsYardsticks[1].Policies[2]
	g := r.GeoMeanVsYardsticks[1][2].Mean
	if hj.Policy != "high" || hj.GeoMean == nil || *hj.GeoMean != g.Value || !slices.Equal(hj.GeoMeanCI, []float64{g.Lo, g.Hi}) ||
		hj.Worst == nil || hj.Worst.Scenario != r.Scenarios[si].Scenario.Name || hj.Worst.Mean != worst.Value || len(hj.Above) != len(r.AboveYardstick(2, 1)) {
		t.Errorf("json, high against low: %+v", hj)
	}
	cell := m.Scenarios[0].Policies[2].VsYardsticks[1]
	if cell.Yardstick != "low" || cell.Mean != highLow.Value || !slices.Equal(cell.MeanCI, []float64{highLow.Lo, highLow.Hi}) {
		t.Errorf("json, high / low on tiny: %+v, want %+v", cell, highLow)
	}
	if self := m.VsYardsticks[0].Policies[0]; self.Worst == nil || self.Above == nil || len(self.Above) != 0 {
		t.Errorf("json, static against itself: worst %+v, above %v (want [])", self.Worst, self.Above)
	}
}
