package policy

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/internal/testfabric"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// The schedule of the research log's joint oracle for day, and its
// constants.
const (
	joint      = "sched:0=0.5,32,0.125/55,55,2,5,25:25ms=2,64,0.354/30,55,2,40,400:30ms=0.5,32,0.125/55,55,2,5,25"
	fbHosts    = "55,55,2,5,25"
	rpcHosts   = "30,55,2,40,400"
	presetHost = "300,1,4,5,50"
)

// TestSchedHostsSpec: the steps' hosts' constants parse, are named in one
// form, and every way they can be wrong names the step.
func TestSchedHostsSpec(t *testing.T) {
	for _, tc := range []struct {
		spec string
		name string // the policy's name, when it parses
		err  string // a part of the error, when it does not
	}{
		{spec: joint, name: joint},
		{spec: "sched:0=.5,32,0.1250/55.0,55,2,5,25:25.0ms=2,64,0.354/30,55,2,40,4e2:30000us=0.5,32,0.125",
			name: "sched:0=0.5,32,0.125/55,55,2,5,25:25ms=2,64,0.354/30,55,2,40,400:30ms=0.5,32,0.125"},
		{spec: "sched:0=2,32,0.01: 1ms=2,32,0.01/ 55, 55,2,5,25.0000000001", name: "sched:0=2,32,0.01:1ms=2,32,0.01/55,55,2,5,25"},
		// Without hosts' constants in any step +dcqcn: still gives the
		// hosts' constants of the whole run, as before.
		{spec: "sched:0=2,32,0.01:1ms=8,64,1+dcqcn:55,55,2,5,25.0", name: "sched:0=2,32,0.01:1ms=8,64,1+dcqcn:55,55,2,5,25"},
		{spec: "sched:0=2,32,0.01:25ms=2,64,0.354/2,55,2,40,400", err: "step 1 at 25ms: hosts: host DCQCN: the rate-increase timer must exceed the decrease period"},
		{spec: "sched:0=2,32,0.01/0.5,55,2,5,25", err: "step 0 at 0: hosts: host DCQCN: rate-increase timer 0.5 µs: want 1 to 131071 µs"},
		{spec: "sched:0=2,32,0.01:5ms=2,32,0.01/55,55,2,5,30000", err: "step 1 at 5ms: hosts: host DCQCN: hyper increase 30000 Mbps"},
		{spec: "sched:0=2,32,0.01/55,55,2,5", err: "step 0 at 0: hosts: hosts' DCQCN: want 5 comma-separated numbers"},
		{spec: "sched:0=2,32,0.01/", err: "step 0 at 0: hosts: hosts' DCQCN: want 5 comma-separated numbers"},
		{spec: "sched:0=2,32,0.01/55,55,2,5,25/1", err: `step 0 at 0: hosts: hosts' DCQCN: "25/1" is not a number`},
		{spec: "sched:0=/55,55,2,5,25", err: `step 0 "0=/55,55,2,5,25": want 3 comma-separated numbers`},
		{spec: "sched:0=2,32,0.01/55,55,2,5,25:0=2,32,0.01/55,55,2,5,25", err: "step 1 at 0 is not after step 0 at 0"},
		// With hosts' constants in a step, +dcqcn: is refused, whether it
		// contradicts the first step's or would spell it a second way.
		{spec: "sched:0=2,32,0.01/55,55,2,5,25+dcqcn:300,1,4,5,50", err: "sched sets the hosts' DCQCN itself: drop +dcqcn:… (its steps set them; give the first step's in the schedule"},
		{spec: "sched:0=2,32,0.01:1ms=2,32,0.01/55,55,2,5,25+dcqcn:300,1,4,5,50", err: "sched sets the hosts' DCQCN itself"},
	} {
		np, err := ParseControl(context.Background(), tc.spec, Env{})
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.spec, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.spec, err)
		case np.Name != tc.name || Canonical(tc.spec) != tc.name:
			t.Errorf("%s: named %q, canonical %q, want %q", tc.spec, np.Name, Canonical(tc.spec), tc.name)
		}
	}
	if got := Split("static," + joint + ",graphcc"); !slices.Equal(got, []string{"static", joint, "graphcc"}) {
		t.Errorf("Split kept the schedule as %q", got)
	}
	// The Go form names the step as the spec does.
	f := testfabric.Clos(t)
	e := control.ECN{KMin: 2_000, KMax: 32_000, PMax: 0.01}
	bad := control.DefaultHostParams()
	bad.DecreaseInterval = bad.IncreaseInterval
	steps := []SchedStep{{At: 0, ECN: e}, {At: 25 * topo.Millisecond, ECN: e, Hosts: bad}}
	if _, _, err := Sched(steps)(f, scenario.Default(), 1); err == nil ||
		!strings.HasPrefix(err.Error(), "sched: step 1 at 25ms: hosts: host DCQCN: the rate-increase timer") {
		t.Errorf("Sched with bad hosts' constants: %v", err)
	}
}

// TestSchedHostsDecide: a schedule with hosts' constants decides them
// (control.HostDecider), every host on the constants of the step in force
// or of the last step before it that set some; hosts start on the first
// step's if it sets them, else the fabric's own, left alone until a step
// sets some. A schedule without them decides only the switches.
func TestSchedHostsDecide(t *testing.T) {
	f := testfabric.Clos(t)
	fb, rpc, hw := hostsOf(t, fbHosts), hostsOf(t, rpcHosts), hostsOf(t, "100,1,4,5,50") // hw: the fabric's own
	ms := topo.Millisecond
	for _, tc := range []struct {
		spec  string
		start *control.HostParams // control.HostParamsOf, nil for none
		want  []struct {
			at    int64 // since the arrival start
			hosts control.HostParams
		}
	}{
		{spec: joint, start: &fb, want: []struct {
			at    int64
			hosts control.HostParams
		}{{0, fb}, {25*ms - 1, fb}, {25 * ms, rpc}, {30*ms - 1, rpc}, {30 * ms, fb}, {90 * ms, fb}, {26 * ms, rpc}}},
		{spec: "sched:0=2,32,0.01:10ms=32,256,0.75:25ms=2,16,1/" + rpcHosts + ":30ms=2,32,0.01", want: []struct {
			at    int64
			hosts control.HostParams
		}{{0, hw}, {12 * ms, hw}, {25 * ms, rpc}, {31 * ms, rpc}, {40 * ms, rpc}}},
	} {
		pol, _, err := must(Parse(context.Background(), tc.spec, Env{})).New(f, scenario.Default(), 1)
		if err != nil {
			t.Fatal(err)
		}
		d, ok := control.HostDeciderOf(pol)
		if !ok {
			t.Fatalf("%s does not decide the hosts' constants", tc.spec)
		}
		if h, ok := control.HostParamsOf(pol); ok != (tc.start != nil) || ok && h != *tc.start {
			t.Errorf("%s: hosts start on %+v (%v), want %v", tc.spec, h, ok, tc.start)
		}
		hosts := make([]control.HostParams, len(f.Ports))
		for _, p := range control.HostPorts(f) {
			hosts[p] = hw
		}
		tel := &control.Telemetry{Interval: control.DefaultInterval, Ports: make([]control.PortSample, len(f.Ports))}
		ecn := control.StaticSettings(f)
		for _, st := range tc.want {
			tel.Now = workload.DefaultStart + st.at
			pol.Decide(tel, ecn)
			d.DecideHosts(tel, hosts)
			for _, p := range control.HostPorts(f) {
				if hosts[p] != st.hosts {
					t.Fatalf("%s at %s: host port %d on %+v, want %+v", tc.spec, topo.FormatDuration(st.at), p, hosts[p], st.hosts)
				}
			}
			for p := range hosts {
				if f.Nodes[f.Ports[p].Src].Switch && hosts[p] != (control.HostParams{}) {
					t.Fatalf("%s: switch port %d given hosts' constants", tc.spec, p)
				}
			}
		}
	}
	pol, _, err := must(Parse(context.Background(), "sched:0=2,32,0.01:1ms=32,256,0.75", Env{})).New(f, scenario.Default(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := control.HostDeciderOf(pol); ok {
		t.Error("a schedule without hosts' constants decides them")
	}
	if _, ok := control.HostParamsOf(pol); ok {
		t.Error("a schedule without hosts' constants sets them")
	}
}

// TestSchedHostsNoAllocs: the control step of a schedule with hosts'
// constants, switches and hosts, allocates nothing.
func TestSchedHostsNoAllocs(t *testing.T) {
	f := testfabric.Clos(t)
	pol, ecn, err := must(Parse(context.Background(), "sched:0=2,32,0.01/55,55,2,5,25:1ms=32,256,0.75/30,55,2,40,400:2ms=2,32,0.01", Env{})).New(f, scenario.Default(), 1)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := control.HostDeciderOf(pol)
	if !ok {
		t.Fatal("the schedule does not decide the hosts' constants")
	}
	hosts := make([]control.HostParams, len(f.Ports))
	tel := &control.Telemetry{Interval: control.DefaultInterval, Ports: make([]control.PortSample, len(f.Ports))}
	tel.Now = workload.DefaultStart
	if n := testing.AllocsPerRun(100, func() {
		tel.Now += control.DefaultInterval
		pol.Decide(tel, ecn)
		d.DecideHosts(tel, hosts)
	}); n != 0 {
		t.Errorf("Decide and DecideHosts allocate %v times per step", n)
	}
}

// schedRun is one simulation of the tiny scenario's trace at seed 3.
type schedRun struct {
	fct   []trace.FCT
	bytes []byte // the FCT records and the telemetry CSV
}

// runSched simulates the tiny scenario at seed 3 under policy p (with the
// initial settings ecn).
func runSched(t *testing.T, p control.Policy, ecn []control.ECN) schedRun {
	t.Helper()
	sc := testfabric.TinyScenario()
	f, flows, err := sc.Build(3)
	if err != nil {
		t.Fatal(err)
	}
	var tr bytes.Buffer
	res, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Seed: 3, ECN: ecn, Policy: p, Trace: &tr})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := trace.WriteFCT(&b, res.FCT); err != nil {
		t.Fatal(err)
	}
	return schedRun{fct: res.FCT, bytes: append(b.Bytes(), tr.Bytes()...)}
}

// runSpec is runSched of the policy spec names; with hidden the policy is
// wrapped so that it is only a control.Policy (what sched was before it
// could set the hosts' constants).
func runSpec(t *testing.T, spec string, hidden bool) schedRun {
	t.Helper()
	sc := testfabric.TinyScenario()
	f, _, err := sc.Build(3)
	if err != nil {
		t.Fatal(err)
	}
	pol, ecn, err := must(Parse(context.Background(), spec, Env{})).New(f, sc, 3)
	if err != nil {
		t.Fatal(err)
	}
	if hidden {
		pol = struct{ control.Policy }{pol}
	}
	return runSched(t, pol, ecn)
}

// TestSchedHostsInSimulator: in the simulator a schedule without hosts'
// constants runs byte for byte as before; one whose only step sets them
// runs as the fixed spec with them; and one that changes them at a time
// runs as the fixed spec of its first constants until then (every flow
// that finished before it has the same record) and otherwise after.
func TestSchedHostsInSimulator(t *testing.T) {
	plain := "sched:0=2,32,0.01:500us=32,256,0.75"
	if a, b := runSpec(t, plain, false), runSpec(t, plain, true); !bytes.Equal(a.bytes, b.bytes) {
		t.Error("a schedule without hosts' constants runs otherwise than a plain policy of its settings")
	}
	if a, b := runSpec(t, "sched:0=2,32,0.01/"+fbHosts, false), runSpec(t, "static:2,32,0.01+dcqcn:"+fbHosts, false); !bytes.Equal(a.bytes, b.bytes) {
		t.Error("a one-step schedule with hosts' constants runs otherwise than static with +dcqcn: of them")
	}
	switchAt := 500 * topo.Microsecond
	at := "500us"
	for _, tc := range []struct {
		name, sched, before, after string
	}{
		{"from the first constants", "sched:0=2,32,0.01/" + fbHosts + ":" + at + "=2,32,0.01/" + presetHost,
			"static:2,32,0.01+dcqcn:" + fbHosts, "static:2,32,0.01+dcqcn:" + presetHost},
		{"from the hardware's", "sched:0=2,32,0.01:" + at + "=2,32,0.01/" + fbHosts,
			"static:2,32,0.01", "static:2,32,0.01+dcqcn:" + fbHosts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, before, after := runSpec(t, tc.sched, false), runSpec(t, tc.before, false), runSpec(t, tc.after, false)
			early, wrong, late, differ := compareUntil(got.fct, before.fct, workload.DefaultStart+switchAt)
			t.Logf("%d flows finished before %s, %d of them otherwise than under %s; %d after, %d of them otherwise", early, at, wrong, tc.before, late, differ)
			if early == 0 || late == 0 {
				t.Fatalf("%d flows finished before the switch, %d after: the test shows nothing", early, late)
			}
			if wrong > 0 {
				t.Errorf("%d of the %d flows that finished before the switch finished otherwise than under %s", wrong, early, tc.before)
			}
			if differ == 0 {
				t.Errorf("every flow finished as under %s: the switch changed nothing", tc.before)
			}
			if bytes.Equal(got.bytes, after.bytes) {
				t.Errorf("runs as %s throughout", tc.after)
			}
		})
	}
}

// compareUntil pairs the flows of two runs of one trace: of got's flows,
// early finished before until, wrong of them with a record other than
// want's, and late finished after, differ of them with a record other than
// want's.
func compareUntil(got, want []trace.FCT, until int64) (early, wrong, late, differ int) {
	type key struct {
		src, dst     topo.NodeID
		sport, dport int
		start, size  int64
	}
	k := func(r trace.FCT) key { return key{r.Src, r.Dst, r.SPort, r.DPort, r.Start, r.Size} }
	ref := make(map[key]trace.FCT, len(want))
	for _, r := range want {
		ref[k(r)] = r
	}
	for _, r := range got {
		w, ok := ref[k(r)]
		same := ok && w == r
		if r.Start+r.FCT < until {
			early++
			if !same {
				wrong++
			}
			continue
		}
		late++
		if !same {
			differ++
		}
	}
	return early, wrong, late, differ
}
