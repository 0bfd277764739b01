package experiment

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"

	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
)

// The simulator beside the testbed: the runs that `graphcc testbed run
// --compare-sim` prints next to the testbed's, and the simulator in which
// a testbed run trains ACC. Package controller runs the testbed and does
// not import the simulator; this is where the two meet.

// TestbedParams is the simulator that stands for the testbed: the default
// one with ACKs served first, as the testbed's switches serve them
// (replay.Params.AckHighPriority). A run whose hosts have other DCQCN
// constants (testbed run --dcqcn-*) stands for it with those in DCQCN.
func TestbedParams() replay.Params {
	p := replay.DefaultParams()
	p.AckHighPriority = true
	return p
}

// TestbedPolicyEnv is how a testbed run builds its policies: ACC without
// a model file trains in p (TestbedParams, with the run's DCQCN
// constants) at the run's control interval, and a tuned: policy warns
// when its tune's DCQCN constants are not p's (the testbed's other
// hardware is its own).
func TestbedPolicyEnv(log *slog.Logger, p replay.Params, interval int64) policy.Env {
	return policy.Env{Log: log, Params: p, Interval: interval, WarnHardware: policy.HardwareDCQCN}
}

// SimulateLikeTestbed runs policy np on the testbed's fabric f, scenario
// sc and trace flows in p (TestbedParams, with the run's DCQCN
// constants), with a policy instance of its own. It refuses a scenario
// with link events, which the testbed does not run.
func SimulateLikeTestbed(ctx context.Context, np policy.Named, f *topo.Fabric, sc scenario.Scenario, flows []trace.Flow, p replay.Params, interval int64, seed uint64) (*replay.Result, error) {
	if len(sc.Events) > 0 {
		return nil, fmt.Errorf("scenario %s: the testbed does not run link events (links failing during a run)", sc.Name)
	}
	pol, polECN, err := np.New(f, sc, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", np.Name, err)
	}
	r, err := replay.RunContext(ctx, replay.Config{Fabric: f, Flows: flows, Params: p, Seed: seed, ECN: polECN, Policy: pol, Interval: interval})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", np.Name, err)
	}
	return r, nil
}

// WriteTestbedComparison prints one row per policy of names with the
// testbed's summary, mean slowdown relative to the first, and, if
// simulated holds the simulator's runs of the same policies, a row for
// each of those below, relative to the first of them.
func WriteTestbedComparison(w io.Writer, names []string, testbed, simulated []metrics.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\twhere\tcompleted\tmean slowdown\tp99 slowdown\tp99 <=100KB\tthroughput Gbps\tqueue feature KB\tCE marks\tmean / "+names[0]+"\t")
	row := func(name, where string, s metrics.Summary, ref float64) {
		small := 0.0
		if len(s.SlowdownBySize) > 1 {
			small = max(s.SlowdownBySize[0].P99, s.SlowdownBySize[1].P99)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%.3f\t%.2f\t%.2f\t%.3f\t%.1f\t%d\t%.3f\t\n", name, where, s.Completed, s.Flows,
			s.Slowdown.Mean, s.Slowdown.P99, small, s.ThroughputGbpsMean, s.QueueFeatureMean/1000, s.ECNMarkedPackets, metrics.Normalize(s.Slowdown.Mean, ref))
	}
	for i, s := range testbed {
		row(names[i], "testbed", s, testbed[0].Slowdown.Mean)
	}
	for i, s := range simulated {
		row(names[i], "simulator", s, simulated[0].Slowdown.Mean)
	}
	return tw.Flush()
}
