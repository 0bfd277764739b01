package experiment

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// TestCompareSim runs static and a fixed early-marking policy through
// SimulateLikeTestbed on a small Clos, checks that the simulator served
// ACKs first (the same run with ACKs behind data differs), and that the
// comparison table has a testbed and a simulator row per policy, each group
// normalized to its own first policy.
func TestCompareSim(t *testing.T) {
	f, err := topo.Clos(topo.ClosConfig{Leaves: 2, Spines: 2, HostsPerLeaf: 4,
		HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	g := workload.DefaultGen()
	g.Duration = 2 * topo.Millisecond
	g.Incast.FanIn = 7
	g.Seed = 3
	flows, err := workload.Generate(f, g)
	if err != nil {
		t.Fatal(err)
	}
	env := policy.Env{Log: slog.New(slog.DiscardHandler)}
	var names []string
	var sims []*replay.Result
	var tbs, simRuns []ComparedRun
	for _, name := range []string{"static", "static:16,32,0.5"} {
		np, err := policy.ParseControl(context.Background(), name, env)
		if err != nil {
			t.Fatal(err)
		}
		r, err := SimulateLikeTestbed(context.Background(), np, f, scenario.Scenario{Name: "t"}, flows,
			TestbedSim{Params: TestbedParams(), Interval: control.DefaultInterval, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if r.Summary.Completed != len(flows) {
			t.Errorf("%s: %d of %d flows completed", name, r.Summary.Completed, len(flows))
		}
		names, sims, simRuns = append(names, np.Name), append(sims, r), append(simRuns, ComparedRun{r.Summary, r.FCT})
		// a stand-in for the testbed's result: the simulator's summary
		tbs = append(tbs, ComparedRun{r.Summary, r.FCT})
	}
	behind, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if behind.Summary.Slowdown.Mean == sims[0].Summary.Slowdown.Mean {
		t.Error("the simulator with ACKs behind data gives the same mean slowdown: ACKs were not served first")
	}
	var b strings.Builder
	if err := WriteTestbedComparison(&b, names, tbs, simRuns); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "where") || !strings.Contains(out, "CE marks") {
		t.Errorf("comparison header lacks where or CE marks:\n%s", out)
	}
	words := " " + strings.Join(strings.Fields(out), " ") + " "
	for _, want := range []string{" static testbed ", " static simulator ", " static:16,32,0.5 testbed ", " static:16,32,0.5 simulator "} {
		if !strings.Contains(words, want) {
			t.Errorf("comparison lacks a row %q:\n%s", want, out)
		}
	}
	small := metrics.SlowdownStats(sims[0].FCT, func(r trace.FCT) bool { return r.Size <= metrics.SmallFlowBytes }).P99
	if !strings.Contains(out, fmt.Sprintf(" %.2f ", small)) {
		t.Errorf("the comparison lacks eval's p99 slowdown of the flows up to 100 KB, %.2f:\n%s", small, out)
	}
	for _, row := range strings.Split(out, "\n") {
		if strings.Contains(row, " testbed ") && strings.Count(row, "–") != 2 {
			t.Errorf("a testbed row shows the instantaneous queue it does not measure: %s", row)
		}
	}
	if n := strings.Count(out, "1.000"); n < 2 {
		t.Errorf("want each group normalized to its first policy (1.000 twice):\n%s", out)
	}
}

// TestCompareSimAgents checks that --compare-sim simulates the step as the
// testbed ran it: the central step, or per-switch in-band agents with the
// testbed agents' configuration mapped to the simulator's.
func TestCompareSimAgents(t *testing.T) {
	f, err := topo.Clos(topo.ClosConfig{Leaves: 2, Spines: 1, HostsPerLeaf: 3,
		HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	g := workload.DefaultGen()
	g.Duration = topo.Millisecond
	g.Incast.FanIn = 4
	flows, err := workload.Generate(f, g)
	if err != nil {
		t.Fatal(err)
	}
	np, err := policy.ParseControl(context.Background(), "graphcc:bare-switch", policy.Env{})
	if err != nil {
		t.Fatal(err)
	}
	sc := scenario.Scenario{Name: "t", Gen: g}
	for _, agents := range []string{policy.AgentsCentral, policy.AgentsPerSwitch} {
		c := TestbedSim{Params: TestbedParams(), Interval: control.DefaultInterval, Seed: 3, Agents: agents, MissLimit: 2}
		r, err := SimulateLikeTestbed(context.Background(), np, f, sc, flows, c)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Summary.AgentStats != nil; got != (agents == policy.AgentsPerSwitch) {
			t.Errorf("agents %s: the simulator ran per-switch agents: %v", agents, got)
		}
		if want := g.Duration / control.DefaultInterval; int64(r.Summary.QueueSeconds*float64(topo.Second))/control.DefaultInterval > want {
			t.Errorf("agents %s: queue over %v s, beyond the arrival window %v", agents, r.Summary.QueueSeconds, topo.FormatDuration(g.Duration))
		}
	}
}

// TestTestbedInBandConfig checks the mapping of the testbed agents'
// round timeout and miss limit to the simulator's agents.
func TestTestbedInBandConfig(t *testing.T) {
	iv := control.DefaultInterval
	for _, tt := range []struct {
		c       TestbedSim
		want    int64
		wantErr bool
	}{
		{TestbedSim{Interval: iv, MissLimit: 3}, iv / 8, false},                                                    // the testbed's default: a quarter of the interval over K = 2
		{TestbedSim{Interval: iv, RoundTimeout: 10 * time.Millisecond, Scale: 1000}, 10 * topo.Microsecond, false}, // 10 ms real at scale 1000
		{TestbedSim{Interval: iv, RoundTimeout: time.Second, Scale: 1000}, 0, true},                                // 1 ms of fabric time per round
		{TestbedSim{Interval: iv, RoundTimeout: time.Millisecond}, 0, true},                                        // no scale
	} {
		cfg, err := tt.c.InBandConfig(2)
		if (err != nil) != tt.wantErr || (err == nil && (cfg.Deadline != tt.want || cfg.Misses != tt.c.MissLimit || cfg.Compute != 0)) {
			t.Errorf("%+v: %+v, %v; want deadline %d, error %v", tt.c, cfg, err, tt.want, tt.wantErr)
		}
	}
}

// TestTestbedPolicyEnv checks that ACC without a model file, on the
// testbed, trains in the simulator that stands for the testbed (ACKs
// first) at the run's control interval, and that a tuned: policy there
// compares its tune's DCQCN constants alone.
func TestTestbedPolicyEnv(t *testing.T) {
	interval := 300 * topo.Microsecond
	env := TestbedPolicyEnv(nil, TestbedParams(), interval)
	c, err := policy.ACCTrainConfig(scenario.Default(), 2, env)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Params.AckHighPriority || c.Interval != interval {
		t.Errorf("ACC trains with ACKs first %v, interval %d; want true, %d", c.Params.AckHighPriority, c.Interval, interval)
	}
	if p := TestbedParams(); p != c.Params {
		t.Errorf("ACC trains in %+v, --compare-sim runs in %+v", c.Params, p)
	}
	if env.WarnHardware != policy.HardwareDCQCN {
		t.Errorf("a tuned: policy on the testbed checks %v of its tune's hardware, want the DCQCN constants alone", env.WarnHardware)
	}
}
