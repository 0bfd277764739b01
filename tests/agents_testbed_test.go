package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/controller/p4rt"
	"graphcc/gnn"
	"graphcc/internal/privtest"
)

// agentLab brings up, with the built command, a Clos of 2 leaves × 2
// hosts and 2 spines (every switch has two switch links) at scale 40000,
// and returns the command, the lab's name and directory; the lab goes
// down when t ends.
func agentLab(t *testing.T) (bin, name, dir string) {
	require(t, lab.DefaultSwitchBinary, lab.DefaultCLIBinary)
	privtest.Runs(t, lab.DefaultCLIBinary, "p4lang/behavioral-model", "--help")
	bin = graphccBinary(t)
	name = fmt.Sprintf("ta%d", os.Getpid()%100000)
	dir = filepath.Join(t.TempDir(), "lab")
	t.Cleanup(func() {
		if _, errOut, code := graphcc(t, bin, ".", "testbed", "down", "--lab", name, "--dir", dir); code != 0 {
			t.Errorf("testbed down: exit %d\n%s", code, errOut)
		}
	})
	mustRun(t, bin, ".", "testbed", "up", "--lab", name, "--dir", dir, "--leaves", "2", "--spines", "2", "--hosts-per-leaf", "2", "--scale", "40000")
	return bin, name, dir
}

// agentRunArgs are the arguments of a short per-switch run on the lab of
// policy (graphcc:bare-switch: the built-in switch-only model).
func agentRunArgs(name, dir, summary string, policy ...string) []string {
	pol := "graphcc:bare-switch"
	if len(policy) > 0 {
		pol = policy[0]
	}
	return []string{"testbed", "run", "--lab", name, "--dir", dir, "--policies", pol, "--agents", "per-switch",
		"--duration", "500us", "--drain", "3ms", "--summary-out", summary}
}

// hostHeadModel writes, in a temporary directory, the shipped model with a
// host head of weights drawn from a fixed seed (its switch policy the
// shipped one), and returns the file's path.
func hostHeadModel(t *testing.T) string {
	t.Helper()
	shipped, err := gnn.EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	s := shipped.Shape
	s.HostActions = gnn.NumHostActions
	m := gnn.NewModelShape(s, rand.New(rand.NewPCG(24, 1)))
	copy(m.Params, shipped.Params)
	m.FeatureSet, m.ActionSet = shipped.FeatureSet, shipped.ActionSet
	path := filepath.Join(t.TempDir(), "hosthead.model")
	if err := m.File(m.ActionSet.TableID(), map[string]string{"note": "the shipped model with a random host head"}).Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// testbedSummary reads a testbed run's summary JSON.
func testbedSummary(t *testing.T, path string) controller.TestbedSummary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s controller.TestbedSummary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if s.DecisionMismatches == nil || s.LateMessages == nil {
		t.Fatalf("%s: no decision_mismatches or late_messages", path)
	}
	return s
}

// TestTestbedAgents runs graphcc testbed run --agents per-switch on real
// BMv2 twice. Undisturbed: every flow completes, the central step run as
// the agents' shadow chose every setting the agents chose
// (decision_mismatches 0), no message was late, and the agents sent K = 2
// rounds × 2 switch links × their steps. With leaf1's agent killed
// mid-run: every flow still completes, the run counts one agent ended and
// late messages, the spines (which miss leaf1's messages) went on the
// static settings, and leaf1 and the spines hold the static settings at
// the end. And a third run, of a model with a host head: every flow
// completes and neither the switch ports nor the hosts mismatch.
func TestTestbedAgents(t *testing.T) {
	bin, name, dir := agentLab(t)
	out := t.TempDir()

	t.Run("per-switch", func(t *testing.T) {
		summary := filepath.Join(out, "agents.json")
		mustRun(t, bin, ".", agentRunArgs(name, dir, summary)...)
		s := testbedSummary(t, summary)
		if s.Agents != controller.AgentsPerSwitch || s.AgentProcesses != 4 || s.AgentFailures != 0 {
			t.Errorf("agents %q, %d processes, %d failed; want per-switch, 4, 0", s.Agents, s.AgentProcesses, s.AgentFailures)
		}
		if s.Incomplete != 0 || s.Completed != s.Flows {
			t.Errorf("%d of %d flows completed", s.Completed, s.Flows)
		}
		if *s.DecisionMismatches != 0 || *s.LateMessages != 0 {
			t.Errorf("%d decision mismatches, %d late messages; want 0", *s.DecisionMismatches, *s.LateMessages)
		}
		if s.AgentSteps < 4*int64(s.ControlSteps) || s.AgentMessages != 2*2*s.AgentSteps {
			t.Errorf("%d messages over %d agent steps (the shadow ran %d), want K 2 × 2 links × steps", s.AgentMessages, s.AgentSteps, s.ControlSteps)
		}
		t.Logf("%d steps per agent; round %.2f ms mean, %.2f ms p99; K rounds %.2f ms mean, %.2f ms p99",
			s.AgentSteps/4, s.AgentRoundMsMean, s.AgentRoundMsP99, s.AgentRoundsMsMean, s.AgentRoundsMsP99)
		t.Logf("where it goes (ms mean, p99): step start late %.2f, %.2f; counter read %.2f, %.2f; a send %.3f, %.3f; send -> neighbour's client %.2f, %.2f (by round %v); client -> its round %.2f, %.2f",
			s.AgentStartMs[0], s.AgentStartMs[1], s.AgentReadMs[0], s.AgentReadMs[1], s.AgentSendMs[0], s.AgentSendMs[1],
			s.AgentOneWayMs[0], s.AgentOneWayMs[1], s.AgentOneWayMsByRound, s.AgentHandoffMs[0], s.AgentHandoffMs[1])
		if len(s.AgentOneWayMsByRound) != 2 || s.AgentOneWayMs[0] <= 0 || s.AgentReadMs[0] <= 0 {
			t.Errorf("no breakdown of the rounds: one-way %v by round %v, read %v", s.AgentOneWayMs, s.AgentOneWayMsByRound, s.AgentReadMs)
		}
	})

	// A model with a host head: the leaves' agents choose their hosts'
	// DCQCN constants, which this process applies; the shadow's hosts'
	// constants are the agents' on every step.
	t.Run("host head", func(t *testing.T) {
		summary := filepath.Join(out, "hosthead.json")
		mustRun(t, bin, ".", agentRunArgs(name, dir, summary, "graphcc:"+hostHeadModel(t))...)
		s := testbedSummary(t, summary)
		if s.Incomplete != 0 || s.Completed != s.Flows || s.AgentFailures != 0 {
			t.Errorf("%d of %d flows completed, %d agents ended early", s.Completed, s.Flows, s.AgentFailures)
		}
		if s.HostDecisionMismatches == nil || *s.HostDecisionMismatches != 0 || *s.DecisionMismatches != 0 || *s.LateMessages != 0 {
			t.Errorf("host decision mismatches %v, decision mismatches %d, late messages %d; want 0", s.HostDecisionMismatches, *s.DecisionMismatches, *s.LateMessages)
		}
		if s.AgentHostDelayMs[0] <= 0 || s.AgentHostHopMs[0] <= 0 || s.AgentHostHopMs[0] > s.AgentHostDelayMs[0] {
			t.Errorf("host delay %v ms, hop %v ms: want both positive, the hop within the delay", s.AgentHostDelayMs, s.AgentHostHopMs)
		}
		t.Logf("host head: %d steps per agent, mean slowdown %.3f; a leaf's readout -> its hosts' constants in force %.2f ms mean, %.2f ms p99 (report written -> in force %.2f, %.2f); K rounds %.2f ms mean",
			s.AgentSteps/4, s.Slowdown.Mean, s.AgentHostDelayMs[0], s.AgentHostDelayMs[1], s.AgentHostHopMs[0], s.AgentHostHopMs[1], s.AgentRoundsMsMean)
	})

	t.Run("kill", func(t *testing.T) {
		summary := filepath.Join(out, "kill.json")
		cmd := exec.Command(bin, agentRunArgs(name, dir, summary)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := agentPID(t, name, "leaf1")
		time.Sleep(12 * time.Second) // 3 control intervals of 4 s
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("run: %v\n%s", err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "switch=leaf1") {
			t.Errorf("the run did not name leaf1's agent's end:\n%s", stderr.String())
		}
		s := testbedSummary(t, summary)
		if s.Incomplete != 0 || s.Completed != s.Flows {
			t.Errorf("%d of %d flows completed", s.Completed, s.Flows)
		}
		if s.AgentFailures != 1 || *s.LateMessages == 0 || s.AgentStaticPorts == 0 {
			t.Errorf("%d agents ended early, %d late messages, %d port-steps static; want 1 and more than 0", s.AgentFailures, *s.LateMessages, s.AgentStaticPorts)
		}
		t.Logf("kill: %d late messages, %d decision mismatches, %d port-steps on the static settings", *s.LateMessages, *s.DecisionMismatches, s.AgentStaticPorts)
		checkStaticAt(t, name, dir, "leaf1", "spine0", "spine1")
	})
}

// agentPID waits until the agent process of switch sw of lab name runs and
// returns its PID.
func agentPID(t *testing.T, name, sw string) int {
	t.Helper()
	want := "testbed agent --lab " + name + " --switch " + sw + " "
	for range 200 {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), want) {
				return pid
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no process %q", want)
	return 0
}

// checkStaticAt checks that every port of the named switches of the lab
// holds the static settings.
func checkStaticAt(t *testing.T, name, dir string, switches ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	lb, _, plan, err := lab.LoadSpec(name, dir)
	if err != nil {
		t.Fatal(err)
	}
	info, _, err := p4rt.BuiltinPipeline()
	if err != nil {
		t.Fatal(err)
	}
	rt, closeAll, err := p4rt.Connect(ctx, lb, plan, info, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	held := ecnTable(t, ctx, plan, info, rt.Switches())
	static := control.StaticSettings(plan.Fabric)
	for _, sw := range switches {
		n, ok := plan.Fabric.NodeByName(sw)
		if !ok {
			t.Fatalf("no switch %s", sw)
		}
		for _, p := range plan.Fabric.Out(n) {
			if want, _ := p4rt.EncodeECN(static[p]); held[p] != want {
				t.Errorf("%s: port %s holds %+v, want the static %+v", sw, plan.Fabric.PortName(p), held[p], want)
			}
		}
	}
}
