package testbed

import (
	"context"
	"slices"
	"strings"
	"testing"

	"graphcc/controller/lab"
	"graphcc/gnn"
	"graphcc/policy"
	"graphcc/scenario"
	"graphcc/topo"
)

// TestAgentPolicy: the testbed's per-switch agents take a graphcc policy
// as it is and a floor over a fixed base as its model with the floor's
// gates and base settings, and refuse a floor whose base changes over
// time, naming it, and any other policy.
func TestAgentPolicy(t *testing.T) {
	clos := topo.ClosConfig{Leaves: 2, Spines: 2, HostsPerLeaf: 2, HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 1 << 20}
	sc := scenario.Scenario{Name: "sim", Clos: clos}
	f, err := sc.Fabric(1)
	if err != nil {
		t.Fatal(err)
	}
	plan := &lab.Plan{Fabric: f}
	build := func(spec string) *gnn.Floor {
		np, err := policy.Parse(context.Background(), spec, policy.Env{})
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := np.New(f, sc, 1)
		if err != nil {
			t.Fatal(err)
		}
		if fl, ok := p.(*gnn.Floor); ok {
			return fl
		}
		if g, _, err := agentPolicy(p, plan); err != nil || g != p {
			t.Errorf("%s: %v, %v", spec, g, err)
		}
		return nil
	}
	build("graphcc")
	for _, spec := range []string{
		"floor:30/10/5ms:tuned:../../models/tuned-joint-global.json@graphcc:../../models/graphcc-hosts.model",
		"floor:15:static:2,32,0.01",
	} {
		fl := build(spec)
		g, floor, err := agentPolicy(fl, plan)
		if err != nil || g != fl.GraphCC() || floor == nil || floor.Gates != fl.Gates() || !slices.Equal(floor.Base, fl.Start()) {
			t.Errorf("%s: %v, %+v, %v", spec, g, floor, err)
		}
	}
	if _, _, err := agentPolicy(build("floor:1:react:8:32,128,0.5:2,16,1"), plan); err == nil || !strings.Contains(err.Error(), "not to react") {
		t.Errorf("a floor over react: %v", err)
	}
	np, err := policy.Parse(context.Background(), "static", policy.Env{})
	if err != nil {
		t.Fatal(err)
	}
	p, _, _ := np.New(f, sc, 1)
	if _, _, err := agentPolicy(p, plan); err == nil || !strings.Contains(err.Error(), "runs a graphcc policy or a floor") {
		t.Errorf("static: %v", err)
	}
}
