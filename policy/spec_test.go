package policy

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/internal/testfabric"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
)

func TestSplit(t *testing.T) {
	for in, want := range map[string]string{
		"static":                             "static",
		"static,static:10,40,0.2":            "static|static:10,40,0.2",
		"static:10,40,0.2,static":            "static:10,40,0.2|static",
		"static:1,2,0.5,static:3,4,.5,acc":   "static:1,2,0.5|static:3,4,.5|acc",
		"static,":                            "static|",
		"sched:0=2,32,0.01:5ms=32,256,1,acc": "sched:0=2,32,0.01:5ms=32,256,1|acc",
		"static,hostreact:2,32,0.01:0.5:300,1,4,5,50:55,1,4,5,50,acc": "static|hostreact:2,32,0.01:0.5:300,1,4,5,50:55,1,4,5,50|acc",
	} {
		if got := strings.Join(Split(in), "|"); got != want {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExpandGrid(t *testing.T) {
	got := ExpandGrid([]string{"static", "grid", "graphcc"})
	if len(got) != 2+gnn.NumActions {
		t.Fatalf("ExpandGrid: %d policies, want %d", len(got), 2+gnn.NumActions)
	}
	if got[0] != "static" || got[len(got)-1] != "graphcc" {
		t.Errorf("ExpandGrid moved the other policies: %q ... %q", got[0], got[len(got)-1])
	}
	grid := got[1 : len(got)-1]
	if grid[0] != "static:2,16,0.01" || grid[len(grid)-1] != "static:32,256,1" {
		t.Errorf("grid runs %q to %q, want static:2,16,0.01 to static:32,256,1", grid[0], grid[len(grid)-1])
	}
	fab, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for a, spec := range grid {
		if seen[spec] {
			t.Errorf("%s twice", spec)
		}
		seen[spec] = true
		// through the registry eval resolves --policies with
		np, err := Parse(context.Background(), spec, Env{})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if np.Name != spec {
			t.Errorf("%s: named %q", spec, np.Name)
		}
		_, ecn, err := np.New(fab, scenario.Scenario{}, 1)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		// every switch port, 25 and 100 Gbps, gets action a's setting
		for i, p := range fab.Ports {
			if !fab.Nodes[p.Src].Switch {
				continue
			}
			if want := gnn.Action(a, p.Rate); ecn[i] != want {
				t.Errorf("%s on port %d (%d bps): %+v, want action %d's %+v", spec, i, p.Rate, ecn[i], a, want)
				break
			}
		}
	}
}

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"static", "static"},
		{"static:2,16,0.010", "static:2,16,0.01"},
		{"static:02, 16.0 ,1e-2", "static:2,16,0.01"},
		{"static:1e6,2e6,1", "static:1000000,2000000,1"},
		{"edge:2,32,.01:16,64,1.0", "edge:2,32,0.01:16,64,1"},
		{"react:8.0:32,128,0.5:2,16,1", "react:8:32,128,0.5:2,16,1"},
		{"static:2,x,0.1", "static:2,x,0.1"},
		{"graphcc:models/0.10.model", "graphcc:models/0.10.model"},
		{"acc:1.0", "acc:1.0"},
		{"sched:0=02,32,1e-2:5000us=8,64,1.0:1.5ms=1,2,1", "sched:0=02,32,1e-2:5000us=8,64,1.0:1.5ms=1,2,1"}, // not increasing: as it is
		{"sched:0=02,32,1e-2:1.5ms=1,2,1:5000us=8,64,1.0", "sched:0=2,32,0.01:1500us=1,2,1:5ms=8,64,1"},
		{"sched:0=2,32,0.01", "sched:0=2,32,0.01"},
		{"sched:bogus", "sched:bogus"},
	} {
		if got := Canonical(tc.spec); got != tc.want {
			t.Errorf("Canonical(%q) = %q, want %q", tc.spec, got, tc.want)
		}
	}
}

// TestParse checks the specs every command takes, their names and their
// errors, which do not name a flag (the callers add it).
func TestParse(t *testing.T) {
	fab, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	// tune result files (graphcc tune --out)
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := file("good.json", `{"scenario": "fb60-incast", "best_policy": "static:0,4,1", "score": 3.2}`)
	noBest := file("nobest.json", `{"scenario": "fb60-incast", "score": 3.2}`)
	notFixed := file("graphcc.json", `{"best_policy": "graphcc"}`)
	badFixed := file("bad.json", `{"best_policy": "static:8,4,1"}`)
	notJSON := file("notjson.json", `best_policy: static`)
	forms := "forms: static[:KMIN_KB,KMAX_KB,PMAX], edge:KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX, react:Q_KB:KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX, hostreact:KMIN_KB,KMAX_KB,PMAX:UTIL:TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS:TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS, sched:T=KMIN_KB,KMAX_KB,PMAX[/TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS][:T=…], tuned:FILE|DIR|joint|switch, graphcc[:bare|switch|bare-switch|MODEL], acc[:MODEL], floor:MARGIN[/HOST_MARGIN[/LINK_HOLD]]:BASE[@graphcc[:MODEL]]"
	for _, tc := range []struct {
		spec    string
		control bool   // ParseControl, as the testbed
		name    string // the policy's name, when it parses
		err     string // a part of the error, when it does not
	}{
		{spec: "static", name: "static"},
		{spec: "static:10,40,0.20", name: "static:10,40,0.2"},
		{spec: "edge:2,32,0.01:16,64,0.5", name: "edge:2,32,0.01:16,64,0.5"},
		{spec: "react:8:32,128,0.5:2,16,1", control: true, name: "react:8:32,128,0.5:2,16,1"},
		{spec: "static:0,2,1", name: "static:0,2,1"},
		{spec: "static:1,512,0.05", name: "static:1,512,0.05"},
		{spec: "static:0.5,2.83,0.354", name: "static:0.5,2.83,0.354"},
		{spec: "tuned:" + good, name: "tuned:" + good},
		{spec: "tuned:" + good, control: true, name: "tuned:" + good},
		{spec: "tuned:" + filepath.Join(dir, "missing.json"), err: "missing.json: no such file"},
		{spec: "tuned:" + noBest, err: "nobest.json: no best_policy (usage: tuned:FILE|DIR|joint|switch)"},
		{spec: "tuned:" + notFixed, err: `best_policy "graphcc": not a fixed setting`},
		{spec: "tuned:" + badFixed, err: "kmax 4000 bytes is below kmin 8000 bytes"},
		{spec: "tuned:" + notJSON, err: "not a tune result"},
		{spec: "tuned", err: "want the path of a graphcc tune result file, or of a directory of one per scenario"},
		{spec: "sched:0=2,32,0.010:5.0ms=32,256,.75", name: "sched:0=2,32,0.01:5ms=32,256,0.75"},
		{spec: "sched:0=2,16,1", control: true, name: "sched:0=2,16,1"},
		{spec: "sched", err: "want steps T=KMIN_KB,KMAX_KB,PMAX[/TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS] separated by ':', the first at 0 (usage: sched:T=KMIN_KB,KMAX_KB,PMAX[/TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS][:T=…])"},
		{spec: "sched:1ms=2,16,1", err: "the first step is at 1ms, want 0"},
		{spec: "sched:0=2,16,1:5ms=1,2,0.1:5ms=4,8,1", err: "step 2 at 5ms is not after step 1 at 5ms"},
		{spec: "sched:0=2,16,1:5=1,2,0.1", err: `step 1 "5=1,2,0.1": time: bad delay "5": missing unit`},
		{spec: "sched:0=2,16,1:5ms", err: `step 1 "5ms": want T=KMIN_KB,KMAX_KB,PMAX`},
		{spec: "sched:0=2,16", err: `step 0 "0=2,16": want 3 comma-separated numbers`},
		{spec: "sched:0=2,16,1:1ms=8,4,1", err: "kmax 4000 bytes is below kmin 8000 bytes"},
		{spec: "hostreact:2,32,0.010:0.50:300,1,4,5,50:55,1,4,5,50", control: true, name: "hostreact:2,32,0.01:0.5:300,1,4,5,50:55,1,4,5,50"},
		{spec: "hostreact:2,32,0.01:0.5:300,1,4,5,50", err: "want KMIN_KB,KMAX_KB,PMAX:UTIL:"},
		{spec: "hostreact:2,32,0.01:1.5:300,1,4,5,50:55,1,4,5,50", err: `utilization threshold "1.5" must be a number in [0, 1]`},
		{spec: "hostreact:2,32,0.01:0.5:300,1,4,5,50:2,1,4,5,50", err: "busy constants: host DCQCN: the rate-increase timer must exceed the decrease period"},
		{spec: "hostreact:8,4,1:0.5:300,1,4,5,50:55,1,4,5,50", err: "switches' setting: ecn: kmax"},
		{spec: "hostreact:2,32,0.01:0.5:300,1,4,5,50:55,1,4,5,50+dcqcn:55,1,4,5,50", err: "hostreact sets the hosts' DCQCN itself"},
		{spec: "graphcc", name: "graphcc"},
		{spec: "graphcc:bare", name: "graphcc:bare"},
		{spec: "graphcc:switch", name: "graphcc:switch"},
		{spec: "graphcc:bare-switch", name: "graphcc:bare-switch"},
		{spec: "graphcc:bare/", err: "bare/"},
		{spec: "acc", control: true, name: "acc"},
		{spec: "ideal", name: "ideal"},
		{spec: "bogus", err: `unknown ECN policy "bogus" (have: static, edge, react, hostreact, sched, tuned, graphcc, acc, floor, ideal); ` + forms + ", ideal"},
		{spec: "ideal", control: true, err: `unknown ECN policy "ideal" (have: static, edge, react, hostreact, sched, tuned, graphcc, acc, floor); ` + forms},
		{spec: "static:1,2", err: `static:1,2: want 3 comma-separated numbers KMIN_KB,KMAX_KB,PMAX, got "1,2" (usage: static[:KMIN_KB,KMAX_KB,PMAX])`},
		{spec: "static:1,x,0.2", err: `"x" is not a number`},
		{spec: "static:-1,2,0.2", err: "thresholds kmin -1 KB, kmax 2 KB: want 0 to 1e12 KB"},
		{spec: "edge:1,2,0.1", err: "want KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX (ports facing a host, then ports facing a switch)"},
		{spec: "edge:1,2,0.1:1,2", err: "setting of ports facing a switch: want 3"},
		{spec: "react:x:1,2,0.1:1,2,0.1", err: `queue threshold "x" must be a number of KB in [0, 1e9]`},
		{spec: "react:1:1,2:1,2,0.1", err: "calm setting: want 3"},
		{spec: "ideal:1", err: `ideal takes no arguments, got "1" (usage: ideal)`},
		{spec: "graphcc:/nonexistent.model", err: "/nonexistent.model"},
	} {
		parse := Parse
		if tc.control {
			parse = ParseControl
		}
		np, err := parse(context.Background(), tc.spec, Env{})
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s (control %v): error %v, want one containing %q", tc.spec, tc.control, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s (control %v): %v", tc.spec, tc.control, err)
		case np.Name != tc.name:
			t.Errorf("%s: named %q, want %q", tc.spec, np.Name, tc.name)
		case tc.name == "ideal" && np.Run == nil, tc.name != "ideal" && np.Run != nil:
			t.Errorf("%s: Run set %v", tc.spec, np.Run != nil)
		case strings.HasPrefix(tc.name, "tuned:"):
			// runs as its best_policy
			_, got, err := np.New(fab, scenario.Scenario{}, 1)
			if err != nil {
				t.Fatalf("%s: New: %v", tc.spec, err)
			}
			_, want, _ := must(Parse(context.Background(), "static:0,4,1", Env{})).New(fab, scenario.Scenario{}, 1)
			if !slices.Equal(got, want) {
				t.Errorf("%s: settings differ from static:0,4,1's", tc.spec)
			}
		case tc.name == "static" || strings.HasPrefix(tc.name, "graphcc"):
			if _, _, err := np.New(fab, scenario.Scenario{}, 1); err != nil {
				t.Errorf("%s: New: %v", tc.spec, err)
			}
		}
	}
	_, _, err = must(Parse(context.Background(), "acc", Env{})).New(fab, scenario.Scenario{Name: "sim"}, 1)
	if err == nil || !strings.Contains(err.Error(), "acc:FILE") {
		t.Errorf("acc on an unnamed scenario: %v, want an error naming acc:FILE", err)
	}
}

// must is Parse's result for a test.
func must(np Named, err error) Named {
	if err != nil {
		panic(err)
	}
	return np
}

func TestSpecs(t *testing.T) {
	var names []string
	for _, s := range Specs() {
		names = append(names, s.Name)
		if s.Usage == "" || !strings.HasPrefix(s.Help, s.Name) || s.SimulatorOnly != (s.Name == "ideal") {
			t.Errorf("spec %+v", s)
		}
	}
	if got := strings.Join(names, ","); got != "static,edge,react,hostreact,sched,tuned,graphcc,acc,floor,ideal" {
		t.Errorf("Specs: %s", got)
	}
}

// TestACCTrainConfig checks that ACC trained on the spot, as eval's acc
// policy trains it, trains in the simulator of its Env: its hardware and
// control interval, else the defaults.
func TestACCTrainConfig(t *testing.T) {
	sc := testfabric.TinyScenario()
	ackFirst := replay.DefaultParams()
	ackFirst.AckHighPriority = true
	for _, tc := range []struct {
		env          Env
		wantAckFirst bool
		wantInterval int64
	}{
		{Env{}, false, control.DefaultInterval},
		{Env{Params: ackFirst, Interval: 200 * topo.Microsecond}, true, 200 * topo.Microsecond},
	} {
		c, err := ACCTrainConfig(sc, 3, tc.env)
		if err != nil {
			t.Fatal(err)
		}
		if c.Params.AckHighPriority != tc.wantAckFirst || c.Interval != tc.wantInterval || c.Kind != "acc" || c.Episodes != 3 {
			t.Errorf("env %+v: ack first %v, interval %d, kind %s, episodes %d", tc.env, c.Params.AckHighPriority, c.Interval, c.Kind, c.Episodes)
		}
		if c.Fabric == nil || len(c.Fabric.Hosts()) != 4 || c.Seed >= 1000 {
			t.Errorf("env %+v: fabric of %d hosts, seed %d", tc.env, len(c.Fabric.Hosts()), c.Seed)
		}
	}
}
