package experiment

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"text/tabwriter"
	"time"

	"graphcc/control"
	"graphcc/gnn"
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

// TestbedSim is how the simulator stands for one testbed run
// (SimulateLikeTestbed): the simulator, the run's control interval and
// seed, and how the testbed ran the policy's step.
type TestbedSim struct {
	Params   replay.Params // TestbedParams, with the run's DCQCN constants
	Interval int64         // the run's control interval, fabric ps
	Seed     uint64
	// Agents is how the testbed ran a GraphCC policy's step:
	// policy.AgentsCentral ("central", also for "") or
	// policy.AgentsPerSwitch ("per-switch"; controller's constants of
	// those names are the same strings). The simulator runs the same:
	// the central step, or its per-switch in-band agents
	// (policy.WithAgents) configured by InBandConfig.
	Agents string
	// With per-switch agents, the testbed agents' configuration: their
	// round timeout (real time; 0: the testbed's default, a quarter of the
	// real interval over the model's K rounds), their miss limit (0: the
	// simulator's default, gnn.DefaultMisses) and the lab's scale (real
	// time per fabric time).
	RoundTimeout time.Duration
	MissLimit    int
	Scale        float64
}

// InBandConfig maps the testbed agents' configuration to the simulator's
// per-switch agents' (gnn.InBandConfig) for a model of k rounds:
//   - Deadline: a testbed agent computes round j without the messages not
//     in j×RoundTimeout of real time after its step was due, a simulated
//     one j×Deadline of fabric time after: Deadline is RoundTimeout in
//     fabric time (divided by Scale), and the testbed's default, a quarter
//     of the real interval over k, is a quarter of the interval over k.
//   - Misses is MissLimit: the same steps in a row with a message late
//     after which an agent holds its ports on the static settings.
//   - Compute is 0: the simulated agents compute instantly, where the
//     testbed's take real time (within their rounds' deadlines).
//   - No message loss: the testbed's late messages come from timing alone.
//
// The k deadlines must end within the interval, as sim requires.
func (c TestbedSim) InBandConfig(k int) (gnn.InBandConfig, error) {
	if k < 1 || c.Interval <= 0 {
		return gnn.InBandConfig{}, fmt.Errorf("per-switch agents: %d rounds, interval %d ps", k, c.Interval)
	}
	cfg := gnn.InBandConfig{Deadline: c.Interval / int64(4*k), Misses: c.MissLimit}
	if c.RoundTimeout > 0 {
		if !(c.Scale > 0) {
			return gnn.InBandConfig{}, fmt.Errorf("per-switch agents: round timeout %v needs the lab's scale, not %v", c.RoundTimeout, c.Scale)
		}
		cfg.Deadline = int64(float64(c.RoundTimeout.Nanoseconds()) * float64(topo.Nanosecond) / c.Scale)
	}
	if cfg.Deadline < 1 || cfg.Deadline > (c.Interval-1)/int64(k) {
		return gnn.InBandConfig{}, fmt.Errorf("per-switch agents: a round timeout of %v at scale %v is %s of fabric time, and %d rounds of it must end within the interval %s",
			c.RoundTimeout, c.Scale, topo.FormatDuration(cfg.Deadline), k, topo.FormatDuration(c.Interval))
	}
	return cfg, nil
}

// SimulateLikeTestbed runs policy np on the testbed's fabric f, scenario
// sc and trace flows as c says, with a policy instance of its own: the
// step as the testbed ran it (TestbedSim.Agents), and the queue figures
// over the arrival window (from the first flow's start for sc's
// duration; the whole run without one), as eval's and the testbed's
// (controller.WorkloadConfig.QueueWindow). It refuses a scenario with link
// events, which the testbed does not run.
func SimulateLikeTestbed(ctx context.Context, np policy.Named, f *topo.Fabric, sc scenario.Scenario, flows []trace.Flow, c TestbedSim) (*replay.Result, error) {
	if len(sc.Events) > 0 {
		return nil, fmt.Errorf("scenario %s: the testbed does not run link events (links failing during a run)", sc.Name)
	}
	pol, polECN, err := np.New(f, sc, c.Seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", np.Name, err)
	}
	if c.Agents == policy.AgentsPerSwitch {
		if pol, err = testbedAgents(pol, f, c); err != nil {
			return nil, fmt.Errorf("%s: %w", np.Name, err)
		}
	}
	r, err := replay.RunContext(ctx, replay.Config{Fabric: f, Flows: flows, Params: c.Params, Seed: c.Seed, ECN: polECN, Policy: pol,
		Interval: c.Interval, QueueUntil: trace.WindowEnd(flows, sc.Gen.Duration)})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", np.Name, err)
	}
	return r, nil
}

// testbedAgents returns pol, a GraphCC policy or a floor over a fixed
// base, as the simulator's per-switch in-band agents configured as the
// testbed's (c.InBandConfig).
func testbedAgents(pol control.Policy, f *topo.Fabric, c TestbedSim) (control.Policy, error) {
	g, ok := pol.(*gnn.GraphCC)
	if fl, isFloor := pol.(*gnn.Floor); isFloor {
		g, ok = fl.GraphCC(), true
	}
	if !ok {
		return nil, fmt.Errorf("per-switch agents run a graphcc policy or a floor over a fixed base, not %T", pol)
	}
	cfg, err := c.InBandConfig(g.Model().K)
	if err != nil {
		return nil, err
	}
	return policy.WithAgents(pol, f, policy.AgentsPerSwitch, cfg)
}

// ComparedRun is one run of WriteTestbedComparison: its summary and its
// completed flows' records.
type ComparedRun struct {
	Summary metrics.Summary
	FCT     []trace.FCT
}

// WriteTestbedComparison prints one row per policy of names with the
// testbed's run, mean slowdown relative to the first, and, if simulated
// holds the simulator's runs of the same policies, a row for each of those
// below, relative to the first of them. Its figures are eval's: the p99
// slowdown of the flows up to 100 KB (metrics.SmallFlowBytes), and the
// queue columns of eval's report (the instantaneous queue, mean and p99,
// which the testbed does not measure: "–" on its rows) beside the queue
// feature both fabrics measure, mean and p99, all over the same span
// (queue_seconds).
func WriteTestbedComparison(w io.Writer, names []string, testbed, simulated []ComparedRun) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\twhere\tcompleted\tmean slowdown\tp99 slowdown\tp99 <=100KB\tthroughput Gbps\tmean queue KB\tp99 queue KB\tmean queue feature KB\tp99 queue feature KB\tCE marks\tmean / "+names[0]+"\t")
	row := func(name string, where metrics.Fabric, r ComparedRun, ref float64) {
		s := r.Summary
		small := metrics.SlowdownStats(r.FCT, func(r trace.FCT) bool { return r.Size <= metrics.SmallFlowBytes }).P99
		queue := func(key string, v float64) string {
			if !where.Measures(key) {
				return "–"
			}
			return strconv.FormatFloat(v/control.KB, 'f', 1, 64)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%.3f\t%.2f\t%.2f\t%.3f\t%s\t%s\t%s\t%s\t%d\t%.3f\t\n", name, where, s.Completed, s.Flows,
			s.Slowdown.Mean, s.Slowdown.P99, small, s.ThroughputGbpsMean,
			queue("queue_bytes_mean", s.QueueBytesMean), queue("queue_bytes_p99", s.QueueBytesP99),
			queue("queue_feature_bytes_mean", s.QueueFeatureMean), queue("queue_feature_bytes_p99", s.QueueFeatureP99),
			s.ECNMarkedPackets, metrics.Normalize(s.Slowdown.Mean, ref))
	}
	for i, r := range testbed {
		row(names[i], metrics.Testbed, r, testbed[0].Summary.Slowdown.Mean)
	}
	for i, r := range simulated {
		row(names[i], metrics.Simulator, r, simulated[0].Summary.Slowdown.Mean)
	}
	return tw.Flush()
}
