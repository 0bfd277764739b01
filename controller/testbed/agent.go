package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/agent"
	"graphcc/controller/lab"
	"graphcc/gnn"
	"graphcc/hostgen"
	"graphcc/policy"
)

// The per-switch agents of a run with AgentsConfig.Mode
// controller.AgentsPerSwitch (docs/agents.md): Run starts one process per
// switch, `graphcc testbed agent` of the running executable (RunAgent),
// which reports every step as a JSON line on its stdout.

const (
	// AgentElectionID is the agents' P4Runtime election id: above the
	// controller's (Up's and Run's), whose clients stay connected as
	// backups.
	AgentElectionID = 10
	// agentModelFile is the model file Run writes into the lab directory
	// for its agents, and agentFloorFile, with a floored policy, the
	// floor (agent.WriteFloor).
	agentModelFile = "agent-model.json"
	agentFloorFile = "agent-floor.json"
)

// AgentConfig configures RunAgent: one switch's agent on a live lab, as
// graphcc testbed agent's flags give it.
type AgentConfig struct {
	// Lab and Dir name the lab as Open takes them; Switch is the agent's
	// switch, by name (leaf0, spine1, …).
	Lab, Dir, Switch string
	// Model is the GraphCC model file; "" the one built in.
	Model string
	// Floor is, with a floored policy, the floor file the run wrote
	// (agent.WriteFloor): the agent holds its ports and hosts to the
	// base's, which are also what it falls back to; "" none.
	Floor string
	// ClockStart is the real instant of fabric time 0, Unix nanoseconds,
	// and ClockScale the real time per fabric time (the lab's scale).
	ClockStart int64
	ClockScale float64
	// Epoch and Interval, fabric ps: step j is due at Epoch +
	// (j+1)×Interval.
	Epoch, Interval int64
	// RoundTimeout and MissLimit are AgentsConfig's.
	RoundTimeout time.Duration
	MissLimit    int
	// Election is the P4Runtime election id (AgentElectionID: above the
	// controller's).
	Election uint64
	// QueueScale is the features' queue scale, bytes at the reference
	// rate (gnn.FeatureConfig; 0: the default).
	QueueScale float64
	Pipeline   Pipeline
	// Out receives a JSON line per step (agent.Report).
	Out io.Writer
	Log *slog.Logger
}

// RunAgent runs the agent of c until ctx ends or the agent fails
// (agent.Run), on its switch dialled with c.Election (agent.DialSwitch).
func RunAgent(ctx context.Context, c AgentConfig) error {
	if c.Interval <= 0 {
		return fmt.Errorf("--interval-ps %d: must be positive", c.Interval)
	}
	if c.MissLimit < 0 {
		return fmt.Errorf("--miss-limit %d: must not be negative (0 never reverts to the static settings)", c.MissLimit)
	}
	clock, err := hostgen.NewClock(time.Unix(0, c.ClockStart), c.ClockScale)
	if err != nil {
		return fmt.Errorf("--clock-start, --clock-scale: %w", err)
	}
	lb, _, plan, err := lab.LoadSpec(c.Lab, c.Dir)
	if err != nil {
		return err
	}
	index := slices.IndexFunc(plan.Switches, func(s lab.SwitchPlan) bool { return s.Name == c.Switch })
	if index < 0 {
		return fmt.Errorf("--switch %q: lab %s has no such switch", c.Switch, c.Lab)
	}
	m, err := loadAgentModel(c.Model)
	if err != nil {
		return err
	}
	info, _, err := c.Pipeline.Load()
	if err != nil {
		return err
	}
	sw, err := agent.DialSwitch(ctx, lb, plan, index, info, c.Election)
	if err != nil {
		return fmt.Errorf("agent of %s: %w", c.Switch, err)
	}
	defer sw.Close()
	var floor *agent.Floor
	if c.Floor != "" {
		if floor, err = agent.ReadFloor(c.Floor, plan.Fabric); err != nil {
			return fmt.Errorf("--floor: %w", err)
		}
	}
	enc := json.NewEncoder(c.Out)
	a := agent.Config{
		Fabric: plan.Fabric, Switch: plan.Switches[index].Node, Model: m, Features: gnn.FeatureConfig{QueueScale: c.QueueScale}, Static: control.StaticSettings(plan.Fabric),
		Clock: clock, Epoch: c.Epoch, Interval: c.Interval, RoundTimeout: c.RoundTimeout, MissLimit: c.MissLimit, Floor: floor, Log: c.Log,
	}
	return agent.Run(ctx, a, sw, func(r *agent.Report) error { return enc.Encode(r) })
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
// per-switch agents: pol must be a GraphCC policy (with a host head or
// not: the leaves' agents then report their hosts' constants, which the
// controller applies to its hostgen hosts), or a floor over a fixed base
// (policy.FixedBase), whose gates and base settings go into the lab
// directory as the agents' floor file (the hosts' base constants are
// added as the agents start); its model goes into the lab directory for
// the agent processes, which dial the switches above the run's clients
// r.rt. The policy must start from the settings the agents fall back to:
// the static ones, or a floor's base.
func (r *run) perSwitchAgents(pol control.Policy, static []control.ECN, plan *lab.Plan) (controller.Agents, error) {
	g, floor, err := agentPolicy(pol, plan)
	if err != nil {
		return nil, err
	}
	fallback := control.StaticSettings(plan.Fabric)
	if floor != nil {
		fallback = floor.Base
	}
	if !slices.Equal(static, fallback) {
		return nil, fmt.Errorf("--agents per-switch: the policy starts from settings other than those the agents fall back to")
	}
	m := g.Model()
	queueScale := g.Featurizer().Config().QueueScale
	path := filepath.Join(r.s.Lab.Dir(), agentModelFile)
	if err := m.File(m.ActionSet.TableID(), nil).Save(path); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("--agents per-switch: %w", err)
	}
	var floorPath string
	if floor != nil {
		floorPath = filepath.Join(r.s.Lab.Dir(), agentFloorFile)
	}
	s, a := r.s, r.c.Agents
	return agent.NewProcesses(agent.ProcessConfig{
		Command: func(i int) (string, []string) {
			c := AgentConfig{Lab: s.name, Dir: s.dir, Switch: plan.Switches[i].Name, Model: path, Floor: floorPath, RoundTimeout: a.RoundTimeout, MissLimit: a.MissLimit,
				Election: AgentElectionID, QueueScale: queueScale, Pipeline: s.pipe}
			return self, append([]string{"testbed", "agent"}, c.Args()...)
		},
		Plan: plan, Backup: r.rt.Switches(), Info: s.info, Static: static, Floor: floor, FloorFile: floorPath, Log: r.c.Log,
	}), nil
}

// agentPolicy returns the model of pol, a GraphCC policy or a floor over
// a fixed base, and for a floor the agents' floor (its hosts' constants
// not yet known).
func agentPolicy(pol control.Policy, plan *lab.Plan) (*gnn.GraphCC, *agent.Floor, error) {
	switch p := pol.(type) {
	case *gnn.GraphCC:
		return p, nil, nil
	case *gnn.Floor:
		if err := policy.FixedBase(p); err != nil {
			return nil, nil, fmt.Errorf("--agents per-switch: %w", err)
		}
		if len(p.Start()) != len(plan.Fabric.Ports) {
			return nil, nil, fmt.Errorf("--agents per-switch: a floor of %d ports on a lab of %d", len(p.Start()), len(plan.Fabric.Ports))
		}
		return p.GraphCC(), &agent.Floor{Gates: p.Gates(), Base: slices.Clone(p.Start())}, nil
	}
	return nil, nil, fmt.Errorf("--agents per-switch runs a graphcc policy or a floor over a fixed base, not %T", pol)
}

// Args returns the flags of graphcc testbed agent that give c's lab,
// switch, model, floor file (with one), round timeout, miss limit, election id, queue scale and
// pipeline (the pipeline's files only when it is not the built-in one).
// The clock and schedule flags are agent.ClockArgs', which
// agent.Processes adds; Out and Log are the process's own.
func (c *AgentConfig) Args() []string {
	args := []string{"--lab", c.Lab, "--switch", c.Switch, "--model", c.Model,
		"--round-timeout", c.RoundTimeout.String(), "--miss-limit", strconv.Itoa(c.MissLimit),
		"--election-id", strconv.FormatUint(c.Election, 10),
		"--queue-scale", strconv.FormatFloat(c.QueueScale, 'g', -1, 64)}
	if c.Dir != "" {
		args = append(args, "--dir", c.Dir)
	}
	if c.Floor != "" {
		args = append(args, "--floor", c.Floor)
	}
	if c.Pipeline.P4Info != "" {
		args = append(args, "--p4info", c.Pipeline.P4Info, "--p4-json", c.Pipeline.JSON)
	}
	return args
}
