package gnn

import (
	"graphcc/internal/testfabric"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
)

// TestACCBindsAgentsByPort checks that an ACC's agents follow their ports'
// names, not their indices: on a fabric with a failed link every port keeps
// its own agent (the ids after the failed link shift), the failed ports'
// agents sit out, and a fabric with a port no agent is of is refused.
func TestACCBindsAgentsByPort(t *testing.T) {
	base, failed := testfabric.FailedClos(t)
	acc := NewACC(base, FeatureConfig{}, nnNewRand(1))
	if !slices.Equal(acc.Ports(), PortNames(base)) || len(acc.Nets) != len(base.Agents()) {
		t.Fatalf("ports %v, want the fabric's switch ports %v", acc.Ports(), PortNames(base))
	}
	on, err := NewACCFrom(acc.Nets, acc.Ports(), failed, FeatureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if len(on.Agents()) != len(base.Agents())-2 {
		t.Fatalf("%d agents act on the failed fabric, want %d", len(on.Agents()), len(base.Agents())-2)
	}
	shifted := 0
	used := map[int]bool{}
	for i, p := range on.Agents() {
		j := on.AgentNets()[i]
		if got, want := acc.Ports()[j], failed.PortName(p); got != want {
			t.Errorf("port %s is served by the agent of %s", want, got)
		}
		if j != i {
			shifted++
		}
		used[j] = true
	}
	if shifted == 0 {
		t.Error("no port id shifted: the test does not tell names from indices")
	}
	for j, name := range acc.Ports() {
		idle := name == "leaf0->spine0" || name == "spine0->leaf0"
		if used[j] == idle {
			t.Errorf("agent of %s: acting %v, want %v", name, used[j], !idle)
		}
	}

	bigger := topo.DefaultClos()
	bigger.Leaves = 5
	big, err := topo.Clos(bigger)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewACCFrom(acc.Nets, acc.Ports(), big, FeatureConfig{}); err == nil || !strings.Contains(err.Error(), "has no agent") {
		t.Errorf("ACC of a 4-leaf fabric on a 5-leaf one: %v", err)
	}
	if _, err := NewACCFrom(acc.Nets, acc.Ports()[1:], base, FeatureConfig{}); err == nil {
		t.Error("fewer port names than networks accepted")
	}
	dup := slices.Clone(acc.Ports())
	dup[1] = dup[0]
	if _, err := NewACCFrom(acc.Nets, dup, base, FeatureConfig{}); err == nil || !strings.Contains(err.Error(), "both of port") {
		t.Errorf("two agents of one port: %v", err)
	}
}
