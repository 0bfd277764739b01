package policy

import (
	"bytes"
	"context"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/internal/testfabric"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/workload"
)

// TestSchedPolicy: the ports start at the first step's setting and take
// each later step's from its time on, counted from the scenario's arrival
// start, scaled by rate as Fixed scales.
func TestSchedPolicy(t *testing.T) {
	f := testfabric.Clos(t)
	a := control.ECN{KMin: 2_000, KMax: 32_000, PMax: 0.01}
	b := control.ECN{KMin: 32_000, KMax: 256_000, PMax: 0.75}
	c := control.ECN{KMin: 0, KMax: 4_000, PMax: 1}
	steps := []SchedStep{{At: 0, ECN: a}, {At: 5 * topo.Millisecond, ECN: b}, {At: 12 * topo.Millisecond, ECN: c}}
	for _, tc := range []struct {
		name   string
		sc     scenario.Scenario
		origin int64
	}{
		{"generated traffic", scenario.Default(), workload.DefaultStart},
		{"a later start", func() scenario.Scenario { s := scenario.Default(); s.Gen.Start = 7 * topo.Second; return s }(), 7 * topo.Second},
		{"a flow file", scenario.Scenario{Name: "sim"}, workload.DefaultStart},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol, initial, err := Sched(steps)(f, tc.sc, 1)
			if err != nil {
				t.Fatal(err)
			}
			all := map[control.ECN][]control.ECN{a: ScaledECN(f, a), b: ScaledECN(f, b), c: ScaledECN(f, c)}
			if !slices.Equal(initial, all[a]) {
				t.Fatalf("starts at %v, want a's %v", initial[:3], all[a][:3])
			}
			tel := &control.Telemetry{Interval: control.DefaultInterval, Ports: make([]control.PortSample, len(f.Ports))}
			ms := topo.Millisecond
			for _, st := range []struct {
				at   int64 // since the origin
				want control.ECN
			}{
				{100 * topo.Microsecond, a}, {5*ms - 1, a}, {5 * ms, b}, {11 * ms, b}, {12 * ms, c}, {40 * ms, c},
				{6 * ms, b}, {ms, a}, // time going back: the step of that time
			} {
				tel.Now = tc.origin + st.at
				ecn := control.StaticSettings(f)
				pol.Decide(tel, ecn)
				if !slices.Equal(ecn, all[st.want]) {
					t.Errorf("at %s: %v..., want %v's", topo.FormatDuration(st.at), ecn[:3], st.want)
				}
			}
		})
	}
	for _, bad := range []struct {
		steps []SchedStep
		want  string
	}{
		{nil, "sched: no steps"},
		{[]SchedStep{{At: topo.Millisecond, ECN: a}}, "the first step is at 1ms, want 0"},
		{[]SchedStep{{At: 0, ECN: a}, {At: 0, ECN: b}}, "step 1 at 0 is not after step 0 at 0"},
		{[]SchedStep{{At: 0, ECN: a}, {At: topo.Millisecond, ECN: control.ECN{KMin: 2, KMax: 1}}}, "step 1 at 1ms: ecn: kmax 1 bytes is below kmin 2 bytes"},
		{make([]SchedStep, MaxSchedSteps+1), "1001 steps"},
	} {
		if _, _, err := Sched(bad.steps)(f, scenario.Default(), 1); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Sched(%d steps): %v, want %q", len(bad.steps), err, bad.want)
		}
	}
}

// TestSchedNoAllocs: the control step of sched allocates nothing.
func TestSchedNoAllocs(t *testing.T) {
	f := testfabric.Clos(t)
	pol, ecn, err := must(Parse(context.Background(), "sched:0=2,32,0.01:1ms=32,256,0.75", Env{})).New(f, scenario.Default(), 1)
	if err != nil {
		t.Fatal(err)
	}
	tel := &control.Telemetry{Interval: control.DefaultInterval, Ports: make([]control.PortSample, len(f.Ports))}
	tel.Now = workload.DefaultStart
	if n := testing.AllocsPerRun(100, func() {
		tel.Now += control.DefaultInterval
		pol.Decide(tel, ecn)
	}); n != 0 {
		t.Errorf("Decide allocates %v times per step", n)
	}
}

// TestSchedSplit: a list of policies keeps a schedule whole.
func TestSchedSplit(t *testing.T) {
	got := Split("static, sched:0=2,32,0.01:5ms=32,256,0.75:12ms=0,4,1,static:2,16,1,graphcc")
	want := []string{"static", "sched:0=2,32,0.01:5ms=32,256,0.75:12ms=0,4,1", "static:2,16,1", "graphcc"}
	if !slices.Equal(got, want) {
		t.Errorf("Split: %q, want %q", got, want)
	}
}

// TestSchedInSimulator: in the simulator, the telemetry CSV's settings
// follow the schedule: each row's settings are those of the last step at
// or before the interval's start (the step decided at its start).
func TestSchedInSimulator(t *testing.T) {
	sc := testfabric.TinyScenario()
	f, flows, err := sc.Build(3)
	if err != nil {
		t.Fatal(err)
	}
	switchAt := 500 * topo.Microsecond
	spec := "sched:0=2,32,0.01:" + topo.FormatDuration(switchAt) + "=32,256,0.75"
	pol, ecn, err := must(Parse(context.Background(), spec, Env{})).New(f, sc, 3)
	if err != nil {
		t.Fatal(err)
	}
	var tr bytes.Buffer
	res, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Seed: 3, ECN: ecn, Policy: pol, Trace: &tr})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&tr).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	before, after := 0, 0
	for _, r := range rows[1:] {
		src := r[col["src"]]
		if !strings.HasPrefix(src, "leaf") && !strings.HasPrefix(src, "spine") {
			continue
		}
		rate, _ := strconv.ParseFloat(r[col["rate_gbps"]], 64)
		end, _ := strconv.ParseFloat(r[col["time_us"]], 64)
		kmin, _ := strconv.ParseInt(r[col["kmin"]], 10, 64)
		start := int64(end*float64(topo.Microsecond)) - control.DefaultInterval - sc.Gen.Start
		want := int64(2_000 * rate / 25)
		if start >= switchAt {
			want, after = int64(32_000*rate/25), after+1
		} else {
			before++
		}
		if kmin != want {
			t.Fatalf("row %v: kmin %d, want %d", r, kmin, want)
		}
	}
	if before == 0 || after == 0 {
		t.Errorf("%d switch-port rows before the switch, %d after", before, after)
	}
	if n, _ := control.TopSettingShare(res.Summary.ECNSettings); n != 2 {
		t.Errorf("%d settings used, want 2: %+v", n, res.Summary.ECNSettings)
	}
}

func FuzzParseSched(f *testing.F) {
	for _, s := range []string{
		"0=2,32,0.01", "0=2,32,0.01:5ms=32,256,0.75:12ms=0,4,1", "0=02,32,1e-2:1.5ms=1,2,1", "0=1,2,0.5:1ps=3,4,1",
		"1ms=2,32,0.01", "0=2,32", "0=2,32,0.01:5ms", "0=2,32,0.01:5=1,2,1", "",
		// with the hosts' constants
		"0=0.5,32,0.125/55,55,2,5,25:25ms=2,64,0.354/30,55,2,40,400:30ms=0.5,32,0.125/55,55,2,5,25",
		"0=2,32,0.01:1ms=2,32,0.01/55.0,55,2,5,2.5e1", "0=2,32,0.01/300,1,4,5,50:1ms=1,2,1", "0=2,32,0.01/",
		"0=2,32,0.01/55,55,2,5", "0=2,32,0.01/2,55,2,5,25", "0=2,32,0.01/55,55,2,5,25/1", "0=/55,55,2,5,25",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		steps, err := parseSched(args)
		if err != nil {
			if canonicalSched(args) != args {
				t.Errorf("canonical form of unparsed %q: %q", args, canonicalSched(args))
			}
			return
		}
		if err := checkSched(steps); err != nil {
			t.Fatalf("accepted %q: %v", args, err)
		}
		text := formatSched(steps)
		again, err := parseSched(text)
		if err != nil {
			t.Fatalf("%q formats as %q, which does not parse: %v", args, text, err)
		}
		if !slices.Equal(steps, again) {
			t.Fatalf("%q: %v, formatted %q: %v", args, steps, text, again)
		}
		if canonicalSched(text) != text {
			t.Errorf("canonical form %q is not its own", text)
		}
		// It survives a list of policies, and names itself in one form.
		spec := "sched:" + args
		if got := Split("static," + spec + ",graphcc"); len(got) != 3 || Canonical(got[1]) != "sched:"+text {
			t.Errorf("Split kept %q as %q", spec, got)
		}
		if Canonical(spec) != "sched:"+text {
			t.Errorf("Canonical(%q) = %q, want sched:%s", spec, Canonical(spec), text)
		}
	})
}
