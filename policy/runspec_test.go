package policy

import (
	"context"
	"strings"
	"testing"

	"graphcc/gnn"
	"graphcc/internal/testfabric"
	"graphcc/topo"
)

// TestRunSpecResolve builds a run's control of each kind and refuses bad
// settings, naming them and their values.
func TestRunSpecResolve(t *testing.T) {
	sc := testfabric.TinyScenario()
	f, err := sc.Fabric(1)
	if err != nil {
		t.Fatal(err)
	}
	spec := func(p, agents string) RunSpec {
		return RunSpec{Spec: p, Agents: agents, InBand: gnn.DefaultInBandSettings(), Interval: "100us"}
	}
	resolve := func(s RunSpec) (RunControl, error) {
		return s.Resolve(context.Background(), "--policy", Env{}, f, sc, 1, "--")
	}
	rc, err := resolve(spec("static:2,32,0.01", AgentsCentral))
	if err != nil || rc.Policy == nil || len(rc.ECN) != len(f.Ports) || rc.Run != nil || rc.Interval != 100*topo.Microsecond {
		t.Errorf("static: %+v, %v", rc, err)
	}
	if rc, err = resolve(spec("ideal", AgentsCentral)); err != nil || rc.Run == nil || rc.Policy != nil {
		t.Errorf("ideal: %+v, %v", rc, err)
	}
	s := spec("graphcc:bare-switch", AgentsPerSwitch)
	s.InBand.Loss = 0.1
	rc, err = resolve(s)
	if _, ok := rc.Policy.(*gnn.InBand); err != nil || !ok || rc.Loss != 0.1 {
		t.Errorf("graphcc per-switch: %T, loss %g, %v", rc.Policy, rc.Loss, err)
	}
	if rc, err = resolve(spec("graphcc:bare-switch", AgentsCentral)); err != nil || rc.Loss != 0 {
		t.Errorf("graphcc central: %T, loss %g, %v", rc.Policy, rc.Loss, err)
	}
	for _, c := range []struct {
		set  func(*RunSpec)
		want string
	}{
		{func(s *RunSpec) { s.Interval = "soon" }, "--interval soon: "},
		{func(s *RunSpec) { s.Agents, s.InBand.Deadline = AgentsPerSwitch, "0" }, "--agent-deadline 0: must be positive"},
		{func(s *RunSpec) { s.Agents, s.InBand.Loss = AgentsPerSwitch, 1 }, "--agent-loss 1: must be in [0, 1)"},
		{func(s *RunSpec) { s.Spec = "nope" }, "--policy nope: "},
		{func(s *RunSpec) { s.Spec, s.Agents = "ideal", AgentsIdeal }, "--agents per-switch-ideal: --policy ideal runs no agents"},
		{func(s *RunSpec) { s.Agents = AgentsPerSwitch }, "--agents per-switch with --policy static: per-switch agents run a graphcc policy"},
		{func(s *RunSpec) { s.Agents = "some" }, `--agents some with --policy static: unknown agents "some"`},
		{func(s *RunSpec) { s.Spec, s.Agents, s.InBand.Deadline = "graphcc:bare-switch", AgentsPerSwitch, "60us" },
			"--agent-deadline 60us, --agent-compute 0: 2 rounds of their sum must end within --interval 100us"},
	} {
		s := spec("static", AgentsCentral)
		c.set(&s)
		if _, err := resolve(s); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Resolve(%+v): %v; want %q", s, err, c.want)
		}
	}
}
