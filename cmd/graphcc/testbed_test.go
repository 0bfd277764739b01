package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/gnn"
	"graphcc/internal/privtest"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/workload"
)

func requireRoot(t *testing.T) { privtest.Root(t) }

// TestTestbedNoSwitches builds a lab without BMv2 (namespaces, links,
// addresses), shows it, refuses to run on it, and takes it down twice.
func TestTestbedNoSwitches(t *testing.T) {
	requireRoot(t)
	lab := fmt.Sprintf("c%d", os.Getpid()%100000)
	dir := t.TempDir()
	labArgs := []string{"--lab", lab, "--dir", dir}
	t.Cleanup(func() { execute(t, context.Background(), args([]string{"testbed", "down"}, labArgs...)...) })
	out := run(t, args([]string{"testbed", "up", "--no-switches", "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2"}, labArgs...)...)
	if !strings.Contains(out, "lab "+lab+" up") || !strings.Contains(out, "4 hosts, 3 switches, 6 links") {
		t.Errorf("up printed %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, testbedSpecFile)); err != nil {
		t.Errorf("no %s: %v", testbedSpecFile, err)
	}
	out = run(t, args([]string{"testbed", "status"}, labArgs...)...)
	for _, want := range []string{"lab " + lab, "7 namespaces (0 missing)", "4 hosts", "no control step yet"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not mention %q:\n%s", want, out)
		}
	}
	if _, _, err := execute(t, context.Background(), args([]string{"testbed", "up", "--no-switches"}, labArgs...)...); err == nil {
		t.Error("a second up of a live lab succeeded")
	}
	_, _, err := execute(t, context.Background(), args([]string{"testbed", "run", "--duration", "1ms"}, labArgs...)...)
	if err == nil || !strings.Contains(err.Error(), "--no-switches") {
		t.Errorf("run on a lab without switches: %v", err)
	}
	for range 2 {
		out = run(t, args([]string{"testbed", "down"}, labArgs...)...)
		if !strings.Contains(out, "lab "+lab+" down") {
			t.Errorf("down printed %q", out)
		}
	}
	if _, err := os.Stat("/run/netns/" + lab + "-leaf0"); err == nil {
		t.Error("namespace left after down")
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

func TestPolicyPath(t *testing.T) {
	for _, tc := range []struct {
		path, policy string
		several      bool
		want         string
	}{
		{"out/summary.json", "static", false, "out/summary.json"},
		{"out/summary.json", "static", true, "out/summary.static.json"},
		{"fct.txt", "graphcc:m/x.model", true, "fct.graphcc-m-x.model.txt"},
		{"", "static", true, ""},
	} {
		if got := policyPath(tc.path, tc.policy, tc.several); got != tc.want {
			t.Errorf("policyPath(%q, %q, %v) = %q, want %q", tc.path, tc.policy, tc.several, got, tc.want)
		}
	}
}

// TestCompareSim runs static and a fixed early-marking policy through
// simulateLikeTestbed on a small Clos, checks that the simulator served
// ACKs first (the same run with ACKs behind data differs), and that the
// comparison table has a testbed and a simulator row per policy, each group
// normalized to its own first policy.
func TestCompareSim(t *testing.T) {
	f, err := topo.Clos(topo.ClosConfig{Leaves: 2, Spines: 2, HostsPerLeaf: 4,
		HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	g := workload.DefaultGen()
	g.Duration = 2 * topo.Millisecond
	g.Incast.FanIn = 7
	g.Seed = 3
	flows, err := workload.Generate(f, g)
	if err != nil {
		t.Fatal(err)
	}
	env := policy.Env{Log: slog.New(slog.DiscardHandler)}
	var policies []policy.Named
	var sims []*replay.Result
	var tbs []*controller.WorkloadResult
	for _, name := range []string{"static", "static:16,32,0.5"} {
		np, err := policy.ParseControl(context.Background(), name, env)
		if err != nil {
			t.Fatal(err)
		}
		r, err := simulateLikeTestbed(context.Background(), np, f, scenario.Scenario{Name: "t"}, flows, control.DefaultInterval, 3)
		if err != nil {
			t.Fatal(err)
		}
		if r.Summary.Completed != len(flows) {
			t.Errorf("%s: %d of %d flows completed", name, r.Summary.Completed, len(flows))
		}
		policies, sims = append(policies, np), append(sims, r)
		// a stand-in for the testbed's result: the simulator's summary
		tbs = append(tbs, &controller.WorkloadResult{Summary: controller.TestbedSummary{Summary: r.Summary}})
	}
	behind, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if behind.Summary.Slowdown.Mean == sims[0].Summary.Slowdown.Mean {
		t.Error("the simulator with ACKs behind data gives the same mean slowdown: ACKs were not served first")
	}
	var b strings.Builder
	if err := writeTestbedComparison(&b, policies, tbs, sims); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "where") || !strings.Contains(out, "CE marks") {
		t.Errorf("comparison header lacks where or CE marks:\n%s", out)
	}
	words := " " + strings.Join(strings.Fields(out), " ") + " "
	for _, want := range []string{" static testbed ", " static simulator ", " static:16,32,0.5 testbed ", " static:16,32,0.5 simulator "} {
		if !strings.Contains(words, want) {
			t.Errorf("comparison lacks a row %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "1.000"); n < 2 {
		t.Errorf("want each group normalized to its first policy (1.000 twice):\n%s", out)
	}
}

// TestTestbedACCEnv checks that ACC without a model file, on the testbed,
// trains in the simulator that stands for the testbed (ACKs first) at the
// run's control interval, and that a run it could not train for is
// refused up front, naming why.
func TestTestbedACCEnv(t *testing.T) {
	interval := 300 * topo.Microsecond
	env := testbedPolicyEnv(nil, interval)
	c, err := policy.ACCTrainConfig(scenario.Default(), 2, env)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Params.AckHighPriority || c.Interval != interval {
		t.Errorf("ACC trains with ACKs first %v, interval %d; want true, %d", c.Params.AckHighPriority, c.Interval, interval)
	}
	if p := testbedSimParams(); p != c.Params {
		t.Errorf("ACC trains in %+v, --compare-sim runs in %+v", c.Params, p)
	}

	clos := &testbedSpec{Clos: &topo.ClosConfig{}}
	topoFile := &testbedSpec{Topology: "3 1 2\n2\n"}
	for _, tc := range []struct {
		specs []string
		flows string
		spec  *testbedSpec
		want  string // "" for no error
	}{
		{[]string{"static", "acc"}, "", clos, ""},
		{[]string{"acc:m.model"}, "flow.txt", topoFile, ""},
		{[]string{"graphcc", "acc"}, "flow.txt", clos, "--flows flow.txt"},
		{[]string{"acc"}, "", topoFile, "--topo"},
	} {
		err := checkACCTrainable("--policies", tc.specs, tc.flows, tc.spec)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v, flows %q: %v", tc.specs, tc.flows, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "acc:FILE") || !strings.HasPrefix(err.Error(), "--policies acc ")):
			t.Errorf("%v, flows %q: error %v, want one naming %q and acc:FILE", tc.specs, tc.flows, err, tc.want)
		}
	}
}

// TestActionMaxKMax checks the queue depths testbed up gives the lab: deep
// enough for every setting of the action table, and as they were when the
// lab computed them itself (764 packets at 25 Gbps, 3054 at 100 Gbps).
func TestActionMaxKMax(t *testing.T) {
	for _, tc := range []struct{ rate, depth int64 }{{25 * topo.Gbps, 764}, {100 * topo.Gbps, 3054}} {
		kmax := actionMaxKMax(tc.rate)
		if want := gnn.Action(gnn.NumActions-1, tc.rate).KMax; kmax != want {
			t.Errorf("rate %d: largest kmax %d, want the last action's %d", tc.rate, kmax, want)
		}
		d := lab.QueueDepth(tc.rate, kmax)
		if d*lab.FrameBytes <= kmax {
			t.Errorf("rate %d: depth %d packets is not above kmax %d bytes", tc.rate, d, kmax)
		}
		if d != tc.depth {
			t.Errorf("rate %d: depth %d packets, want %d", tc.rate, d, tc.depth)
		}
	}
}

// TestTestbedFanIn: a lab too small for the default 16:1 incast gets an
// incast of hosts-1 senders, and a fan-in the user gave that the lab cannot
// take is refused, naming the fix.
func TestTestbedFanIn(t *testing.T) {
	for _, tc := range []struct {
		fanIn int
		set   bool
		hosts int
		want  int
		err   string
	}{
		{16, false, 24, 16, ""},
		{16, false, 17, 16, ""},
		{16, false, 8, 7, ""},  // testbed up --hosts-per-leaf 2
		{16, false, 2, 1, ""},  // the smallest fabric with traffic
		{16, false, 1, 16, ""}, // no incast fits: the traffic flags refuse it
		{7, true, 8, 7, ""},
		{3, true, 8, 3, ""},
		{16, true, 8, 0, "--incast-fanin 16: the lab has 8 hosts, so an incast has at most 7 senders: give --incast-fanin 7 or less, or --no-incast"},
	} {
		got, err := testbedFanIn(tc.fanIn, tc.set, tc.hosts)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("testbedFanIn(%d, %v, %d): error %v, want %q", tc.fanIn, tc.set, tc.hosts, err, tc.err)
			}
		case err != nil || got != tc.want:
			t.Errorf("testbedFanIn(%d, %v, %d) = %d, %v; want %d", tc.fanIn, tc.set, tc.hosts, got, err, tc.want)
		}
	}
}
