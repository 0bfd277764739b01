package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/dcqcn"
	"graphcc/hostgen"
	"graphcc/internal/privtest"
	"graphcc/replay"
	"graphcc/topo"
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
	if _, _, err := execute(t, context.Background(), args([]string{"testbed", "up", "--no-switches"}, labArgs...)...); err == nil {
		t.Error("a second up of a live lab succeeded")
	}
	_, _, err := execute(t, context.Background(), args([]string{"testbed", "run", "--duration", "1ms"}, labArgs...)...)
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

func TestCheckRealtimeFlag(t *testing.T) {
	for _, tc := range []struct {
		prio       int
		noSwitches bool
		want       string // "" for no error
	}{
		{0, false, ""},
		{0, true, ""},
		{99, true, "--no-switches"},
		{100, false, "outside 1 to 99"},
		{-5, false, "--realtime -5"},
	} {
		err := checkRealtimeFlag(tc.prio, tc.noSwitches)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("checkRealtimeFlag(%d, %v) = %v, want %q", tc.prio, tc.noSwitches, err, tc.want)
		}
	}
	if os.Geteuid() != 0 {
		if err := checkRealtimeFlag(10, false); err == nil || !strings.Contains(err.Error(), "needs root") {
			t.Errorf("checkRealtimeFlag(10) not as root = %v, want one saying it needs root", err)
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

// TestTestbedACCEnv checks that a run ACC without a model file could not
// train for is refused up front, naming why (the simulator it trains in:
// experiment's TestTestbedPolicyEnv).
func TestTestbedACCEnv(t *testing.T) {
	clos := &lab.Spec{Clos: &topo.ClosConfig{}}
	topoFile := &lab.Spec{Topology: "3 1 2\n2\n"}
	for _, tc := range []struct {
		specs []string
		flows string
		spec  *lab.Spec
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

func TestTestbedRunAgentFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*testbedRunOpts)
		want string // "" for no error
	}{
		{"defaults", func(*testbedRunOpts) {}, ""},
		{"per-switch", func(o *testbedRunOpts) { o.agents = controller.AgentsPerSwitch }, ""},
		{"unknown agents", func(o *testbedRunOpts) { o.agents = "some" }, `--agents "some"`},
		{"miss limit", func(o *testbedRunOpts) { o.agentMissLimit = -1 }, "--agent-misses -1"},
		{"negative round timeout", func(o *testbedRunOpts) { o.agentRoundTimeout = -1 }, "--agent-round-timeout"},
	} {
		o := testbedRunOpts{agents: controller.AgentsCentral, agentMissLimit: control.DefaultMissLimit}
		tc.edit(&o)
		err := o.checkFlags([]string{"graphcc"}, false)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestTestbedHostConfig: testbed run gives its hosts the --dcqcn-*
// constants as the simulator gives its NICs (AI and HAI scaled to the
// line rate), keeps hostgen's defaults without them, and refuses a bad
// flag before it touches a lab.
func TestTestbedHostConfig(t *testing.T) {
	if testbedHostConfig(replay.DefaultParams().DCQCN, false) != nil {
		t.Error("default constants, link delays: want no host configuration")
	}
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	host := f.Hosts()[0]
	rate := f.Ports[f.HostPort(host)].Rate
	d := replay.DefaultParams().DCQCN
	d.IncreaseInterval = 55 * topo.Microsecond
	d.AI = 20 * topo.Mbps
	for _, tc := range []struct {
		name     string
		d        dcqcn.Params
		noDelays bool
		want     dcqcn.Params
	}{
		{"no delays", replay.DefaultParams().DCQCN, true, dcqcn.Params{}},
		{"a 55 µs timer", d, false, control.HostParamsAt(d, control.RefRate).Apply(d, rate)},
	} {
		hc := hostgen.HostConfig{Fabric: f, Node: host}
		testbedHostConfig(tc.d, tc.noDelays)(&hc)
		if hc.DCQCN != tc.want || hc.NoPropagationDelay != tc.noDelays {
			t.Errorf("%s: DCQCN %+v, no delays %v; want %+v, %v", tc.name, hc.DCQCN, hc.NoPropagationDelay, tc.want, tc.noDelays)
		}
	}
	if got := control.HostParamsAt(control.HostParamsAt(d, control.RefRate).Apply(d, rate), rate); got.IncreaseInterval != 55*topo.Microsecond || got.AI != 20*topo.Mbps {
		t.Errorf("the host's constants at 25 Gbps: %+v", got)
	}
	_, _, err = execute(t, context.Background(), "testbed", "run", "--lab", "nolab", "--dir", t.TempDir(), "--dcqcn-rp-timer", "2us")
	if err == nil || !strings.Contains(err.Error(), "--dcqcn-rp-timer 2us: must exceed --dcqcn-decrease-period") {
		t.Errorf("testbed run --dcqcn-rp-timer 2us: %v", err)
	}
}
