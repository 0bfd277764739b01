package gnn

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/replay"
	"graphcc/topo"
)

// failFabric is the default Clos and the same Clos without leaf0-spine0.
func failFabric(t *testing.T) (base, failed *topo.Fabric) {
	t.Helper()
	base, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	if failed, err = base.FailLinks("leaf0-spine0"); err != nil {
		t.Fatal(err)
	}
	return base, failed
}

// TestACCBindsAgentsByPort checks that an ACC's agents follow their ports'
// names, not their indices: on a fabric with a failed link every port keeps
// its own agent (the ids after the failed link shift), the failed ports'
// agents sit out, and a fabric with a port no agent is of is refused.
func TestACCBindsAgentsByPort(t *testing.T) {
	base, failed := failFabric(t)
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

// TestACCRemap checks the transitions of an ACC episode on a failed fabric
// as the trainer stores them: on the reference fabric's ports and agents,
// each row and action where its port's name puts it, the failed ports'
// agents with NoAction, reward 0 and zero features.
func TestACCRemap(t *testing.T) {
	base, failed := failFabric(t)
	acc := NewACC(base, FeatureConfig{}, nnNewRand(1))
	on, err := NewACCFrom(acc.Nets, acc.Ports(), failed, FeatureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	const w = ACCNumFeatures
	prev := make([]float64, len(failed.Ports)*w)
	next := make([]float64, len(failed.Ports)*w)
	for p := range failed.Ports {
		for k := range w {
			prev[p*w+k] = float64(1000*p + k)
			next[p*w+k] = -float64(1000*p + k)
		}
	}
	actions := make([]int, len(on.Agents()))
	rewards := make([]float64, len(on.Agents()))
	for i := range actions {
		actions[i], rewards[i] = i%NumActions, float64(i)+0.5
	}
	st := accRemap(on, base.Agents(), len(base.Ports))(prev, actions, rewards, next)
	byName := map[string]int{}
	for i, p := range on.Agents() {
		byName[failed.PortName(p)] = i
	}
	for j, rp := range base.Agents() {
		row := st.prev[int(rp)*w : (int(rp)+1)*w]
		i, acts := byName[base.PortName(rp)]
		if !acts {
			if st.actions[j] != NoAction || st.rewards[j] != 0 || slices.ContainsFunc(row, func(x float64) bool { return x != 0 }) {
				t.Errorf("idle agent of %s: action %d, reward %v, features %v", base.PortName(rp), st.actions[j], st.rewards[j], row)
			}
			continue
		}
		p := int(on.Agents()[i])
		if st.actions[j] != actions[i] || st.rewards[j] != rewards[i] ||
			!slices.Equal(row, prev[p*w:(p+1)*w]) || !slices.Equal(st.next[int(rp)*w:(int(rp)+1)*w], next[p*w:(p+1)*w]) {
			t.Errorf("agent of %s: action %d, reward %v, want those of port %d", base.PortName(rp), st.actions[j], st.rewards[j], p)
		}
	}
}

// failEpisodes is the training scenario cut short, with one random
// leaf-spine failure per seed.
func failEpisodes(t *testing.T) (replay.Scenario, func(uint64) (*topo.Fabric, []replay.Flow, error)) {
	sc := replay.DefaultScenario()
	sc.FailRandom = 1
	sc.Gen.Duration = 300 * topo.Microsecond
	return sc, sc.Build
}

// TestTrainACCOnFailures trains ACC where every episode fails another link:
// the agents are the fixed fabric's ports, the run is deterministic, and
// GraphCC, whose updates pass messages over one fabric's graph, refuses such
// a run instead of mixing fabrics.
func TestTrainACCOnFailures(t *testing.T) {
	sc, ep := failEpisodes(t)
	fixed, err := sc.FixedFabric()
	if err != nil {
		t.Fatal(err)
	}
	ckPath := filepath.Join(t.TempDir(), "acc.ckpt")
	train := func(kind string) (*TrainResult, error) {
		c := tinyTrain(kind, 3, ep)
		c.Episodes, c.Warmup, c.Updates, c.EpisodeTime = 4, 10, 3, 2*topo.Millisecond
		c.Fabric = fixed
		c.Checkpoint, c.CheckpointEvery = func(ck *Checkpoint) error { return ck.Save(ckPath) }, 2
		return Train(context.Background(), c)
	}
	a, err := train("acc")
	if err != nil {
		t.Fatal(err)
	}
	// The replay buffer holds the idle agents' NoAction, and the
	// checkpoint keeps them.
	ck, err := LoadCheckpoint(ckPath)
	if err != nil {
		t.Fatal(err)
	}
	idle := 0
	acts := make([]int, ck.Buffer.Agents())
	for i := range ck.Buffer.Len() {
		ck.Buffer.Actions(i, acts)
		for _, x := range acts {
			if x == NoAction {
				idle++
			}
		}
	}
	if want := 2 * ck.Buffer.Len(); idle != want {
		t.Errorf("%d idle agent-steps in %d transitions, want 2 per transition (one failed link)", idle, ck.Buffer.Len())
	}
	if !slices.Equal(a.ACCPorts, PortNames(fixed)) {
		t.Errorf("ACC's ports %v, want the fixed fabric's %v", a.ACCPorts, PortNames(fixed))
	}
	b, err := train("acc")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(newACCNet(a.ACC, nil, nil).flat, newACCNet(b.ACC, nil, nil).flat) {
		t.Error("one seed trained two different ACCs")
	}
	if _, err := train("graphcc"); err == nil || !strings.Contains(err.Error(), "GraphCC trains on one fabric") {
		t.Errorf("GraphCC on random failures: %v", err)
	}
}
