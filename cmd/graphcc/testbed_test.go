package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/agent"
	"graphcc/controller/lab"
	"graphcc/controller/testbed"
	"graphcc/internal/privtest"
	"graphcc/topo"

	"github.com/spf13/pflag"
)

func requireRoot(t *testing.T) { privtest.Root(t) }

// TestTestbedNoSwitches builds a lab without BMv2 (namespaces, links,
// addresses), shows it, refuses to run on it, and takes it down twice.
func TestTestbedNoSwitches(t *testing.T) {
	requireRoot(t)
	name := fmt.Sprintf("c%d", os.Getpid()%100000)
	dir := t.TempDir()
	labArgs := []string{"--lab", name, "--dir", dir}
	t.Cleanup(func() { execute(t, context.Background(), args([]string{"testbed", "down"}, labArgs...)...) })
	out := run(t, args([]string{"testbed", "up", "--no-switches", "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2"}, labArgs...)...)
	if !strings.Contains(out, "lab "+name+" up") || !strings.Contains(out, "4 hosts, 3 switches, 6 links") {
		t.Errorf("up printed %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, lab.SpecFile)); err != nil {
		t.Errorf("no %s: %v", lab.SpecFile, err)
	}
	out = run(t, args([]string{"testbed", "status"}, labArgs...)...)
	for _, want := range []string{"lab " + name, "7 namespaces (0 missing)", "4 hosts", "no control step yet"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not mention %q:\n%s", want, out)
		}
	}
	// A run's last step (controller.StepRecorder) is shown, and down
	// removes it with the spec.
	last, err := json.Marshal(controller.LastStep{Policy: "static", FabricUS: 300,
		Ports: []controller.LastStepPort{{Port: 3, Src: "leaf0", Dst: "h0", KMin: 5000, KMax: 200000, PMax: 0.01}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, controller.LastStepFile), last, 0o644); err != nil {
		t.Fatal(err)
	}
	out = run(t, args([]string{"testbed", "status"}, labArgs...)...)
	for _, want := range []string{"lab " + name, "last control step: policy static at 300 us", "leaf0->h0"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not mention %q:\n%s", want, out)
		}
	}
	if _, _, err := execute(t, context.Background(), args([]string{"testbed", "up", "--no-switches"}, labArgs...)...); err == nil {
		t.Error("a second up of a live lab succeeded")
	}
	_, _, err = execute(t, context.Background(), args([]string{"testbed", "run", "--duration", "1ms"}, labArgs...)...)
	if err == nil || !strings.Contains(err.Error(), "--no-switches") {
		t.Errorf("run on a lab without switches: %v", err)
	}
	for range 2 {
		out = run(t, args([]string{"testbed", "down"}, labArgs...)...)
		if !strings.Contains(out, "lab "+name+" down") {
			t.Errorf("down printed %q", out)
		}
	}
	if _, err := os.Stat("/run/netns/" + name + "-leaf0"); err == nil {
		t.Error("namespace left after down")
	}
	for _, f := range []string{lab.SpecFile, controller.LastStepFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s left after down", f)
		}
	}
}

// TestTestbedUpErrors: what up needs is named when it is missing.
func TestTestbedUpErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lab", "1bad"}, "--lab"},
		{[]string{"--scale", "0"}, "--scale 0"},
		{[]string{"--leaves", "0"}, "--leaves 0"},
		{[]string{"--p4info", filepath.Join(dir, "missing.txtpb"), "--p4-json", filepath.Join(dir, "x.json")}, "--p4info"},
		{[]string{"--p4info", filepath.Join(dir, "missing.txtpb")}, "go together"},
		{[]string{"--realtime", "100"}, "--realtime 100: real-time priority 100 is outside 1 to 99"},
		{[]string{"--realtime", "-1"}, "--realtime -1"},
		{[]string{"--realtime", "10", "--no-switches"}, "--realtime 10: with --no-switches"},
	} {
		_, _, err := execute(t, context.Background(), args([]string{"testbed", "up", "--dir", dir}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("up %v: error %v, want one naming %q", tc.args, err, tc.want)
		}
	}
	if _, err := exec.LookPath("simple_switch_grpc"); err != nil {
		// With the built-in P4 program but no BMv2, up names the binary.
		_, _, err = execute(t, context.Background(), "testbed", "up", "--dir", dir)
		if err == nil || !strings.Contains(err.Error(), "simple_switch_grpc") {
			t.Errorf("up without BMv2: error %v, want one naming simple_switch_grpc", err)
		}
	}
}

// TestTestbedRunFlagErrors: run refuses bad --agents flags before it
// looks for the lab (testbed.AgentsConfig.Check has the cases), and a bad
// DCQCN flag before it touches a lab.
func TestTestbedRunFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--agents", "some"}, `--agents "some"`},
		{[]string{"--agent-misses", "-1"}, "--agent-misses -1"},
		{[]string{"--agent-round-timeout", "-1s"}, "--agent-round-timeout"},
		{[]string{"--dcqcn-rp-timer", "2us"}, "--dcqcn-rp-timer 2us: must exceed --dcqcn-decrease-period"},
	} {
		_, _, err := execute(t, context.Background(), args([]string{"testbed", "run", "--lab", "nolab", "--dir", t.TempDir()}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("testbed run %v: %v, want an error naming %q", tc.args, err, tc.want)
		}
	}
}

// TestTestbedAgentArgs: the flags testbed run gives each agent process
// (testbed.AgentConfig.Args, then agent.ClockArgs) are the agent
// command's, and parse back into the configuration they came from.
func TestTestbedAgentArgs(t *testing.T) {
	for _, want := range []testbed.AgentConfig{
		{Lab: "tb", Switch: "leaf1", Model: "/run/graphcc/tb/agent-model.json", MissLimit: control.DefaultMissLimit, Election: testbed.AgentElectionID},
		{Lab: "small", Dir: "/tmp/lab", Switch: "spine0", Model: "m.json", Floor: "/run/graphcc/small/agent-floor.json", RoundTimeout: 1500 * time.Microsecond, MissLimit: 0, Election: 12,
			QueueScale: 25000.5, Pipeline: testbed.Pipeline{JSON: "graphcc.json", P4Info: "graphcc.p4info.txtpb"}},
	} {
		start := time.Unix(1796000000, 123)
		want.ClockStart, want.ClockScale, want.Epoch, want.Interval = start.UnixNano(), 10000, 3*topo.Millisecond, 100*topo.Microsecond
		fs := pflag.NewFlagSet("agent", pflag.ContinueOnError)
		got := testbed.AgentConfig{Election: testbed.AgentElectionID, MissLimit: control.DefaultMissLimit}
		addAgentFlags(fs, &got)
		if err := fs.Parse(append(want.Args(), agent.ClockArgs(start, want.ClockScale, want.Epoch, want.Interval)...)); err != nil {
			t.Fatalf("%s: %v", want.Switch, err)
		}
		if got != want {
			t.Errorf("%s: parsed %+v, want %+v", want.Switch, got, want)
		}
	}
}
