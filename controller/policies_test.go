package controller

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/topo"
	"graphcc/trace"
)

// TestRunPolicies drives RunPolicies with a fake Run: every policy runs in
// order from its own starting settings, on queue pairs disjoint from the
// run before, waits for the queues only after an incomplete run, and an
// error stops the sequence with the results so far.
func TestRunPolicies(t *testing.T) {
	p := labPlan(t, "rp", 2, 1, 2)
	f := p.Fabric
	flows := make([]trace.Flow, 5)
	low := control.StaticSettings(f)
	for i := range low {
		low[i].KMin, low[i].KMax = 1000, 2000
	}
	newPolicy := func(ecn []control.ECN) func(*topo.Fabric) (control.Policy, []control.ECN, error) {
		return func(*topo.Fabric) (control.Policy, []control.ECN, error) { return control.Static{}, ecn, nil }
	}
	var resets [][]control.ECN
	var qps []uint32
	var names []string
	incomplete := map[string]int{"b": 2}
	c := PoliciesConfig{
		Workload: WorkloadConfig{Plan: p, Flows: flows, Scale: 1},
		Reset: func(_ context.Context, static []control.ECN) error {
			resets = append(resets, static)
			return nil
		},
		DrainWait: time.Millisecond,
		Policies: []PolicyRun{
			{Name: "a", New: newPolicy(nil)},
			{Name: "b", New: newPolicy(low)},
			{Name: "c", New: newPolicy(nil)},
		},
		Run: func(_ context.Context, name string, w WorkloadConfig) (*WorkloadResult, error) {
			names, qps = append(names, name), append(qps, w.QPBase)
			if w.Policy == nil || !slices.Equal(w.Static, resets[len(resets)-1]) || len(w.Flows) != len(flows) {
				t.Errorf("%s: policy %v, static settings not those of Reset, or %d flows", name, w.Policy, len(w.Flows))
			}
			return &WorkloadResult{Summary: TestbedSummary{Incomplete: incomplete[name]}}, nil
		},
	}
	start := time.Now()
	res, err := RunPolicies(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || !slices.Equal(names, []string{"a", "b", "c"}) {
		t.Fatalf("ran %v, %d results", names, len(res))
	}
	if !slices.Equal(qps, []uint32{0, 5, 10}) {
		t.Errorf("queue pair bases %v, want disjoint ranges 0, 5, 10", qps)
	}
	if !slices.Equal(resets[0], control.StaticSettings(f)) || !slices.Equal(resets[1], low) {
		t.Error("a run did not start from its policy's settings (nil: the static ones)")
	}
	if time.Since(start) < c.DrainWait {
		t.Error("c did not wait for the queues after b's incomplete run")
	}

	boom := errors.New("boom")
	c.Run = func(_ context.Context, name string, w WorkloadConfig) (*WorkloadResult, error) {
		if name == "b" {
			return nil, boom
		}
		return &WorkloadResult{}, nil
	}
	res, err = RunPolicies(t.Context(), c)
	if !errors.Is(err, boom) || len(res) != 1 {
		t.Errorf("a failing run: %d results, error %v", len(res), err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c.Run = func(context.Context, string, WorkloadConfig) (*WorkloadResult, error) {
		return &WorkloadResult{Summary: TestbedSummary{Incomplete: 1}}, nil
	}
	c.DrainWait = time.Hour
	if res, err := RunPolicies(ctx, c); !errors.Is(err, context.Canceled) || len(res) != 1 {
		t.Errorf("cancelled while waiting for the queues: %d results, error %v", len(res), err)
	}
}
