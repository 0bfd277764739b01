package policy

import (
	"context"
	"fmt"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
)

// RunSpec is the control of one simulator run as a person writes it
// (graphcc sim's --policy, --agents, --agent-* and --interval flags): a
// policy spec (Parse), how a graphcc policy's step runs (WithAgents:
// AgentsCentral, AgentsPerSwitch or AgentsIdeal), the per-switch agents'
// settings (with AgentsPerSwitch), and the control interval as
// control.ParseInterval reads it.
type RunSpec struct {
	Spec, Agents string
	InBand       gnn.InBandSettings
	Interval     string
}

// RunControl is the control of one run that RunSpec.Resolve builds.
type RunControl struct {
	// Policy decides every Interval, ps; ECN are its starting settings
	// (nil: none of its own). Both are nil for a policy that replaces the
	// simulator, Run (ideal's).
	Policy   control.Policy
	ECN      []control.ECN
	Interval int64
	Run      func(context.Context, replay.Config) (*replay.Result, error)
	// Loss is the per-switch agents' message loss
	// (replay.Config.MessageLoss).
	Loss float64
}

// Resolve checks s and returns its control on the fabric f of scenario
// sc for seed, its policy built in env (its Interval set to s's). name
// (a flag, "--policy") heads the policy's errors; the other settings'
// name the prefix and their keys: interval, agents, agent-deadline and
// the other keys of gnn.InBandSettings with prefix+"agent-".
func (s RunSpec) Resolve(ctx context.Context, name string, env Env, f *topo.Fabric, sc scenario.Scenario, seed uint64, prefix string) (RunControl, error) {
	var rc RunControl
	var ac gnn.InBandConfig
	var err error
	if rc.Interval, err = control.ParseInterval(prefix+"interval", s.Interval); err != nil {
		return rc, err
	}
	if s.Agents == AgentsPerSwitch {
		if ac, err = s.InBand.Config(prefix + "agent-"); err != nil {
			return rc, err
		}
		rc.Loss = s.InBand.Loss
	}
	env.Interval = rc.Interval
	np, err := Parse(ctx, s.Spec, env)
	if err != nil {
		return rc, fmt.Errorf("%s %s: %w", name, s.Spec, err)
	}
	if np.Run != nil {
		if s.Agents != AgentsCentral {
			return rc, fmt.Errorf("%sagents %s: %s %s runs no agents", prefix, s.Agents, name, s.Spec)
		}
		rc.Run = np.Run
		return rc, nil
	}
	if rc.Policy, rc.ECN, err = np.New(f, sc, seed); err != nil {
		return rc, fmt.Errorf("%s %s: %w", name, s.Spec, err)
	}
	if rc.Policy, err = WithAgents(rc.Policy, f, s.Agents, ac); err != nil {
		return rc, fmt.Errorf("%sagents %s with %s %s: %w", prefix, s.Agents, name, s.Spec, err)
	}
	if ib, ok := rc.Policy.(*gnn.InBand); ok {
		if c, k := ib.Config(), int64(ib.Rounds()); c.Deadline+c.Compute > (rc.Interval-1)/k {
			return rc, fmt.Errorf("%[1]sagent-deadline %[2]s, %[1]sagent-compute %[3]s: %[4]d rounds of their sum must end within %[1]sinterval %[5]s",
				prefix, s.InBand.Deadline, s.InBand.Compute, k, s.Interval)
		}
	}
	if ps, ok := rc.Policy.(interface{ MessagesPerStep() int }); ok && env.Log != nil {
		env.Log.Info("per-switch agents", "switches", len(f.Switches()), "messages_per_step", ps.MessagesPerStep())
	}
	return rc, nil
}
