package testbed

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/dcqcn"
	"graphcc/hostgen"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
)

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
		if got := PolicyPath(tc.path, tc.policy, tc.several); got != tc.want {
			t.Errorf("PolicyPath(%q, %q, %v) = %q, want %q", tc.path, tc.policy, tc.several, got, tc.want)
		}
	}
}

// TestACCTrainable checks that a run ACC without a model file could not
// train for is refused up front, naming why (the simulator it trains in:
// experiment's TestTestbedPolicyEnv).
func TestACCTrainable(t *testing.T) {
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

// TestFitFanIn: a lab too small for the default 16:1 incast gets an
// incast of hosts-1 senders, and a fan-in the user gave that the lab cannot
// take is refused, naming the fix.
func TestFitFanIn(t *testing.T) {
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
		got, err := FitFanIn(tc.fanIn, tc.set, tc.hosts)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("FitFanIn(%d, %v, %d): error %v, want %q", tc.fanIn, tc.set, tc.hosts, err, tc.err)
			}
		case err != nil || got != tc.want:
			t.Errorf("FitFanIn(%d, %v, %d) = %d, %v; want %d", tc.fanIn, tc.set, tc.hosts, got, err, tc.want)
		}
	}
}

// TestHostConfig: a run gives its hosts the DCQCN constants as the
// simulator gives its NICs (AI and HAI scaled to the line rate), and keeps
// hostgen's defaults without them.
func TestHostConfig(t *testing.T) {
	if hostConfig(replay.DefaultParams().DCQCN, false) != nil {
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
		hostConfig(tc.d, tc.noDelays)(&hc)
		if hc.DCQCN != tc.want || hc.NoPropagationDelay != tc.noDelays {
			t.Errorf("%s: DCQCN %+v, no delays %v; want %+v, %v", tc.name, hc.DCQCN, hc.NoPropagationDelay, tc.want, tc.noDelays)
		}
	}
	if got := control.HostParamsAt(control.HostParamsAt(d, control.RefRate).Apply(d, rate), rate); got.IncreaseInterval != 55*topo.Microsecond || got.AI != 20*topo.Mbps {
		t.Errorf("the host's constants at 25 Gbps: %+v", got)
	}
}

// TestParsePolicies resolves a run's policy specs as Run does before it
// touches the lab: a schedule of the switches' settings and the hosts'
// DCQCN constants decides the hosts, and tuned:DIR, which needs a named
// scenario, is refused on the testbed's, naming the spec.
func TestParsePolicies(t *testing.T) {
	const sched = "sched:0=2,32,0.01/55,55,2,5,25:500us=2,32,0.01/30,55,2,40,400"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tiny.json"), []byte(`{"scenario": "tiny", "best_policy": "static:2,32,0.01"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	newRun := func(specs ...string) *run {
		return &run{c: &RunConfig{Flag: "--policies", Policies: specs, Scenario: scenario.Scenario{Name: "testbed"}}}
	}
	r := newRun(sched)
	runs, err := r.parsePolicies(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fab, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	pol, _, err := runs[0].New(fab)
	if _, ok := control.HostDeciderOf(pol); err != nil || !ok || runs[0].Name != sched || len(r.policies) != 1 {
		t.Errorf("--policies %s: %q, deciding the hosts %v, %v", sched, runs[0].Name, ok, err)
	}

	tuned := "tuned:" + dir
	if _, err := newRun("static", tuned).parsePolicies(context.Background()); err == nil ||
		!strings.Contains(err.Error(), `--policies `+tuned+`: `+tuned+` runs the tune result of the scenario a run is on`) {
		t.Errorf("tuned:DIR on the testbed: %v", err)
	}
	if _, err := newRun("bogus").parsePolicies(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "--policies bogus: ") {
		t.Errorf("an unknown policy: %v", err)
	}
}

// TestSetPolicies splits a run's policy values into specs, keeping a
// schedule's commas, and refuses values without one, naming the flag.
func TestSetPolicies(t *testing.T) {
	const sched = "sched:0=2,32,0.01:500us=static"
	for _, tc := range []struct {
		flag   string
		values []string
		want   []string
		err    string
	}{
		{"--policies", []string{"static"}, []string{"static"}, ""},
		{"--policies", []string{"static,graphcc", "acc:m.model"}, []string{"static", "graphcc", "acc:m.model"}, ""},
		{"--ecn", []string{"static:2,32,0.01," + sched}, []string{"static:2,32,0.01", sched}, ""},
		{"--policies", nil, nil, `--policies "": no policy`},
		{"--ecn", []string{}, nil, `--ecn "": no policy`},
	} {
		c := RunConfig{Policies: []string{"old"}}
		err := c.SetPolicies(tc.flag, tc.values)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("SetPolicies(%s, %q): %v; want %q", tc.flag, tc.values, err, tc.err)
			}
			continue
		}
		if err != nil || c.Flag != tc.flag || !slices.Equal(c.Policies, tc.want) {
			t.Errorf("SetPolicies(%s, %q) = %s %q, %v; want %q", tc.flag, tc.values, c.Flag, c.Policies, err, tc.want)
		}
	}
}
