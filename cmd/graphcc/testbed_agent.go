package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/agent"
	"graphcc/controller/lab"
	"graphcc/controller/p4rt"
	"graphcc/gnn"
	"graphcc/hostgen"
)

// The per-switch agents of testbed run --agents per-switch
// (docs/agents.md): run starts one `graphcc testbed agent` process per
// switch, which reports every step as a JSON line on its stdout.

const (
	// agentElectionID is the agents' P4Runtime election id: above run's
	// (testbedElectionID), whose clients stay connected as backups.
	agentElectionID = 10
	// agentModelFile is the model file run writes into the lab directory
	// for its agents.
	agentModelFile = "agent-model.json"
)

type testbedAgentOpts struct {
	labFlags
	pipe         pipelineFlags
	sw           string
	model        string
	clockStart   int64
	clockScale   float64
	epoch        int64
	interval     int64
	roundTimeout time.Duration
	missLimit    int
	election     uint64
	queueScale   float64
}

func newTestbedAgentCmd(logger loggerFunc) *cobra.Command {
	o := testbedAgentOpts{election: agentElectionID, missLimit: control.DefaultMissLimit}
	cmd := &cobra.Command{
		Use:     "agent [flags]",
		Example: `  graphcc testbed agent --lab tba --switch leaf0 --model agent-model.json --clock-start 1796000000000000000 --clock-scale 10000 --epoch-ps 0 --interval-ps 100000000`,
		Short:   "Run one switch's GraphCC agent (testbed run --agents per-switch starts one per switch)",
		Long: `agent is one switch's GraphCC agent on a live lab (docs/agents.md):
testbed run --agents per-switch starts one per switch; it is not meant to
be run by hand.`,
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return o.run(ctx, cmd.OutOrStdout(), logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.labFlags.add(fs)
	fs.StringVar(&o.sw, "switch", "", "the switch, by name (leaf0, spine1, …)")
	fs.StringVar(&o.model, "model", "", "GraphCC model file; default the one built in")
	fs.Int64Var(&o.clockStart, "clock-start", 0, "the real instant of fabric time 0, Unix nanoseconds")
	fs.Float64Var(&o.clockScale, "clock-scale", 0, "real time per fabric time (the lab's scale)")
	fs.Int64Var(&o.epoch, "epoch-ps", 0, "fabric time, ps, of the steps' origin: step j is due at epoch + (j+1) x interval")
	fs.Int64Var(&o.interval, "interval-ps", 0, "control interval, fabric ps")
	fs.DurationVar(&o.roundTimeout, "round-timeout", 0, "round k of a step ends k times this (real time) after the step is due; messages missing then are replaced by the fallback (0: a quarter of the real interval over K)")
	fs.IntVar(&o.missLimit, "miss-limit", o.missLimit, "steps in a row with a message late after which the switch's ports go on the static settings until its messages return; 0 never")
	fs.Uint64Var(&o.election, "election-id", o.election, "P4Runtime election id (above the controller's)")
	fs.Float64Var(&o.queueScale, "queue-scale", 0, "the features' queue scale, bytes at the reference rate (gnn.FeatureConfig; 0: the default)")
	o.pipe.add(fs)
	return cmd
}

func (o *testbedAgentOpts) run(ctx context.Context, out io.Writer, log *slog.Logger) error {
	if o.interval <= 0 {
		return fmt.Errorf("--interval-ps %d: must be positive", o.interval)
	}
	if o.missLimit < 0 {
		return fmt.Errorf("--miss-limit %d: must not be negative (0 never reverts to the static settings)", o.missLimit)
	}
	clock, err := hostgen.NewClock(time.Unix(0, o.clockStart), o.clockScale)
	if err != nil {
		return fmt.Errorf("--clock-start, --clock-scale: %w", err)
	}
	lb, _, plan, err := lab.LoadSpec(o.lab, o.dir)
	if err != nil {
		return err
	}
	index := slices.IndexFunc(plan.Switches, func(s lab.SwitchPlan) bool { return s.Name == o.sw })
	if index < 0 {
		return fmt.Errorf("--switch %q: lab %s has no such switch", o.sw, o.lab)
	}
	m, err := loadAgentModel(o.model)
	if err != nil {
		return err
	}
	info, _, err := o.pipe.load()
	if err != nil {
		return err
	}
	sw, err := agent.DialSwitch(ctx, lb, plan, index, info, o.election)
	if err != nil {
		return fmt.Errorf("agent of %s: %w", o.sw, err)
	}
	defer sw.Close()
	enc := json.NewEncoder(out)
	c := agent.Config{
		Fabric: plan.Fabric, Switch: plan.Switches[index].Node, Model: m, Features: gnn.FeatureConfig{QueueScale: o.queueScale}, Static: control.StaticSettings(plan.Fabric),
		Clock: clock, Epoch: o.epoch, Interval: o.interval, RoundTimeout: o.roundTimeout, MissLimit: o.missLimit, Log: log,
	}
	return agent.Run(ctx, c, sw, func(r *agent.Report) error { return enc.Encode(r) })
}

// loadAgentModel loads a GraphCC model file, or with path "" the one built
// in.
func loadAgentModel(path string) (*gnn.Model, error) {
	if path == "" {
		return gnn.EmbeddedModel()
	}
	f, err := gnn.Load(path, gnn.GraphCCExpect())
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	return f.Model()
}

// perSwitchAgents returns the agents of a run of policy pol under
// --agents per-switch: pol must be a GraphCC policy (with a host head or
// not: the leaves' agents then report their hosts' constants, which the
// controller applies to its hostgen hosts); its model goes into the lab directory for the agent processes, which
// dial the switches above the controller's clients rt.
func (r *testbedRun) perSwitchAgents(pol control.Policy, static []control.ECN, plan *lab.Plan, rt *p4rt.Fabric, info *p4rt.P4Info, log *slog.Logger) (controller.Agents, error) {
	g, ok := pol.(*gnn.GraphCC)
	if !ok {
		return nil, fmt.Errorf("--agents per-switch runs a graphcc policy, not %T", pol)
	}
	m := g.Model()
	queueScale := g.Featurizer().Config().QueueScale
	if !slices.Equal(static, control.StaticSettings(plan.Fabric)) {
		return nil, fmt.Errorf("--agents per-switch: the policy starts from settings other than the static ones the agents fall back to")
	}
	path := filepath.Join(r.dir, agentModelFile)
	if err := m.File(m.ActionSet.TableID(), nil).Save(path); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("--agents per-switch: %w", err)
	}
	o := r.o
	return agent.NewProcesses(agent.ProcessConfig{
		Command: func(i int) (string, []string) {
			args := []string{"testbed", "agent", "--lab", o.lab, "--switch", plan.Switches[i].Name, "--model", path,
				"--round-timeout", o.agentRoundTimeout.String(), "--miss-limit", strconv.Itoa(o.agentMissLimit),
				"--election-id", strconv.Itoa(agentElectionID),
				"--queue-scale", strconv.FormatFloat(queueScale, 'g', -1, 64)}
			if o.dir != "" {
				args = append(args, "--dir", o.dir)
			}
			if o.pipe.p4info != "" {
				args = append(args, "--p4info", o.pipe.p4info, "--p4-json", o.pipe.json)
			}
			return self, args
		},
		Plan: plan, Backup: rt.Switches(), Info: info, Static: static, Log: log,
	}), nil
}
