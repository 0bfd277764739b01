package testbed

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/scenario"
	"graphcc/topo"
)

// TestSessionTraffic generates a run's traffic on a small lab, the
// incast fitted to it, or reads it from a flow file, errors naming the
// flags.
func TestSessionTraffic(t *testing.T) {
	clos := topo.ClosConfig{Leaves: 2, Spines: 1, HostsPerLeaf: 2, HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 1 << 20}
	f, err := topo.Clos(clos)
	if err != nil {
		t.Fatal(err)
	}
	s := &Session{Spec: &lab.Spec{Clos: &clos}, Plan: &lab.Plan{Fabric: f}}
	set := scenario.DefaultSettings()
	set.Gen.Duration = "1ms"
	log := slog.New(slog.DiscardHandler)
	sc, flows, err := s.Traffic(set, "", false, log)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "testbed" || sc.Gen.Incast.FanIn != 3 || len(flows) == 0 || sc.Description != sc.Gen.Describe() {
		t.Errorf("traffic on 4 hosts: %+v, %d flows", sc, len(flows))
	}
	if _, _, err := s.Traffic(set, "", true, log); err == nil || !strings.HasPrefix(err.Error(), "--incast-fanin 16: the lab has 4 hosts") {
		t.Errorf("a fan-in given that does not fit: %v", err)
	}
	set.Gen.Load = 0
	if _, _, err := s.Traffic(set, "", false, log); err == nil || !strings.HasPrefix(err.Error(), "--load: ") {
		t.Errorf("load 0: %v", err)
	}
	if _, _, err := s.Traffic(set, "/nonexistent/flow.txt", false, log); err == nil || !strings.HasPrefix(err.Error(), "--flows: ") {
		t.Errorf("a missing flow file: %v", err)
	}
}

// TestRunConfigCheckOutputs refuses outputs that cannot be written, of
// every policy's file, and bad agents.
func TestRunConfigCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	agents := AgentsConfig{Mode: controller.AgentsCentral}
	c := RunConfig{Policies: []string{"static", "graphcc"}, Agents: agents, Outputs: Outputs{Summary: filepath.Join(dir, "s.json")}}
	if err := c.CheckOutputs(); err != nil {
		t.Errorf("two policies' summaries: %v", err)
	}
	c.Outputs.FCT = filepath.Join(dir, "missing", "f.txt")
	if err := c.CheckOutputs(); err == nil || !strings.HasPrefix(err.Error(), "--fct-out") {
		t.Errorf("an FCT file in a missing directory: %v", err)
	}
	c.Outputs.FCT, c.Agents.Mode = "", "nope"
	if err := c.CheckOutputs(); err == nil || !strings.HasPrefix(err.Error(), "--agents \"nope\"") {
		t.Errorf("bad agents: %v", err)
	}
}
