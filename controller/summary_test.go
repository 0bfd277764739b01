package controller

import (
	"strings"
	"testing"

	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/trace"
)

// TestTestbedSummaryOutputs checks that the testbed's summary, as JSON and
// as text, leaves out what the testbed does not measure and shows the
// control loop's figures, and the agents' with per-switch agents.
func TestTestbedSummaryOutputs(t *testing.T) {
	recs := []trace.FCT{{Size: 5000, FCT: 3000, Standalone: 1000, DPort: trace.DPortBackground}}
	s := Summarize(RunRecord{Flows: 2, FCT: recs, Loop: &LoopStats{Steps: 7, Intervals: []int64{100_000_000}}, Interval: 100_000_000})
	var js strings.Builder
	if err := fileio.WriteJSON(&js, s); err != nil {
		t.Fatal(err)
	}
	for _, k := range metrics.SummaryKeys() {
		if strings.Contains(js.String(), `"`+k.Name+`"`) && !metrics.Testbed.Measures(k.Name) {
			t.Errorf("the JSON has %s, which the testbed does not measure", k.Name)
		}
	}
	for _, want := range []string{`"control_steps": 7`, `"control_interval_measured_us_mean": 100`, `"incomplete": 1`, `"agents": "central"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("the JSON lacks %s:\n%s", want, js.String())
		}
	}
	var txt strings.Builder
	if err := s.WriteTable(&txt); err != nil {
		t.Fatal(err)
	}
	if out := txt.String(); strings.Contains(out, "pfc pauses") || strings.Contains(out, "events") || strings.Contains(out, "instantaneous") ||
		!strings.Contains(out, "control steps 7") || strings.Contains(out, "agents per switch") {
		t.Errorf("the central run's table:\n%s", out)
	}
	mismatches := int64(3)
	s = Summarize(RunRecord{Flows: 1, Loop: &LoopStats{}, Agents: &AgentStats{Processes: 3, Mismatches: mismatches}})
	txt.Reset()
	if err := s.WriteTable(&txt); err != nil {
		t.Fatal(err)
	}
	if out := txt.String(); !strings.Contains(out, "agents per switch: 3 processes") || !strings.Contains(out, "3 decision mismatches") {
		t.Errorf("the per-switch run's table:\n%s", out)
	}
}
