package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/internal/testfabric"
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
	r, err := Evaluate(context.Background(), Config{Scenarios: []scenario.Scenario{sc}, Policies: pols, Seeds: []uint64{2001, 2002}})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "in phases: 600 us of FB_Hadoop 30 %, no incasts; 400 us of WebSearch 80 % + 3:1 incasts") {
		t.Errorf("report does not describe the phases:\n%s", md.String())
	}
	if n, share := control.TopSettingShare(r.Scenarios[0].Policies[1].Summary.ECNSettings); n != 2 || share >= 1 {
		t.Errorf("sched used %d settings (top share %v), want 2", n, share)
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
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

// must is a value of a call that cannot fail in a test.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
