package policy

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/scenario"
	"graphcc/topo"
)

// TestHostSpecs checks specs with the hosts' DCQCN constants: their
// canonical names, that they survive Split, the constants the policy
// carries and the errors of bad ones.
func TestHostSpecs(t *testing.T) {
	fab, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tuned := filepath.Join(dir, "tune.json")
	if err := os.WriteFile(tuned, []byte(`{"best_policy": "edge:2,32,0.01:16,64,0.5+dcqcn:55,1,4,10,50"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fast := control.DefaultHostParams()
	fast.IncreaseInterval, fast.AI = 55*topo.Microsecond, 10*topo.Mbps
	for _, tc := range []struct {
		spec, name string
		hosts      *control.HostParams // nil: none
		err        string
	}{
		{spec: "static:2,32,0.01+dcqcn:55,1,4,10,50", name: "static:2,32,0.01+dcqcn:55,1,4,10,50", hosts: &fast},
		{spec: "static:2,32,.010+dcqcn:55.0,1,4,1e1,50", name: "static:2,32,0.01+dcqcn:55,1,4,10,50", hosts: &fast},
		{spec: "static+dcqcn:55,1,4,10,50", name: "static+dcqcn:55,1,4,10,50", hosts: &fast},
		{spec: "graphcc:bare-switch+dcqcn:55,1,4,10,50", name: "graphcc:bare-switch+dcqcn:55,1,4,10,50", hosts: &fast},
		{spec: "graphcc+dcqcn:55,1,4,10,50", err: "graphcc sets the hosts' DCQCN itself: drop +dcqcn:… (its host head sets them)"},
		{spec: "graphcc:bare+dcqcn:55,1,4,10,50", err: "graphcc sets the hosts' DCQCN itself"},
		{spec: "tuned:" + tuned, name: "tuned:" + tuned, hosts: &fast},
		{spec: "static:2,32,0.01", name: "static:2,32,0.01"},
		{spec: "static+dcqcn:55,1,4,10", err: "want 5 comma-separated numbers"},
		{spec: "static+dcqcn:55,1,4,10,x", err: `"x" is not a number`},
		{spec: "static+dcqcn:200000,1,4,10,50", err: "rate-increase timer 200000 µs: want 1 to 131071 µs"},
		{spec: "static+dcqcn:3,1,4,10,50", err: "must exceed the decrease period"},
		{spec: "static+dcqcn:55,1,4,30000,50", err: "additive increase 30000 Mbps"},
		{spec: "ideal+dcqcn:55,1,4,10,50", err: "ideal has no hosts' DCQCN to set"},
		{spec: "bogus+dcqcn:55,1,4,10,50", err: `unknown ECN policy "bogus"`},
	} {
		np, err := Parse(context.Background(), tc.spec, Env{})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.spec, err)
			continue
		}
		if np.Name != tc.name || Canonical(tc.spec) != tc.name {
			t.Errorf("%s: named %q, canonical %q, want %q", tc.spec, np.Name, Canonical(tc.spec), tc.name)
		}
		if got := Split("static," + tc.spec + ",acc"); !slices.Equal(got, []string{"static", tc.spec, "acc"}) {
			t.Errorf("Split keeps %s apart as %q", tc.spec, got)
		}
		pol, _, err := np.New(fab, scenario.Scenario{}, 1)
		if err != nil {
			t.Errorf("%s: New: %v", tc.spec, err)
			continue
		}
		h, ok := control.HostParamsOf(pol)
		if ok != (tc.hosts != nil) || ok && h != *tc.hosts {
			t.Errorf("%s: hosts %+v (%v), want %+v", tc.spec, h, ok, tc.hosts)
		}
	}
}

func TestFormatHostParams(t *testing.T) {
	h := control.DefaultHostParams()
	h.AI = 2500 * topo.Kbps
	s := FormatHostParams(h)
	if s != "300,1,4,2.5,50" {
		t.Errorf("FormatHostParams = %s", s)
	}
	back, err := ParseHostParams(s)
	if err != nil || back != h {
		t.Errorf("ParseHostParams(%s) = %+v, %v; want %+v", s, back, err, h)
	}
}

// FuzzParse checks that no spec makes Parse panic, and that a spec that
// parses is named by a canonical spec that parses to the same name.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"static", "static:2,32,0.01", "edge:2,32,0.01:16,64,0.5", "react:8:32,128,0.5:2,16,1",
		"static:2,32,0.01+dcqcn:55,1,4,10,50", "ideal", "graphcc", "static+dcqcn:", "+dcqcn:1,2,3,4,5",
		"hostreact:2,32,0.01:0.5:300,1,4,5,50:55,1,4,5,50", "hostreact:2,32,.010:1:300,1,4,5,50:55,1,4,5,50+dcqcn:1,2,3,4,5",
		"sched:0=2,32,0.01:1ms=8,64,1+dcqcn:55,55,2,5,25",
		"sched:0=0.5,32,0.125/55,55,2,5,25:25ms=2,64,0.354/30,55,2,40,400:30ms=0.5,32,0.125/55,55,2,5,25",
		"sched:0=2,32,.01:1.0ms=2,32,0.01/55.0,55,2,5,25", "sched:0=2,32,0.01/55,55,2,5,25+dcqcn:55,55,2,5,25",
		"floor:1:static", "floor:inf:static:0.5,32,0.125+dcqcn:55,55,2,5,25@graphcc", "floor:-inf:edge:2,32,.01:16,64,0.5",
		"floor:1:static+dcqcn:1,2@graphcc", "floor:nan:static", "floor:1:floor:1:static",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		name, _, _ := strings.Cut(spec, ":")
		if strings.HasPrefix(name, "tuned") || strings.HasPrefix(name, "graphcc") || strings.HasPrefix(name, "acc") {
			return // they read files
		}
		if name == "floor" && (strings.Contains(spec, "tuned") || strings.Contains(spec, "acc") || strings.Contains(spec, "graphcc:")) {
			return // so do these
		}
		np, err := Parse(context.Background(), spec, Env{})
		if err != nil {
			return
		}
		again, err := Parse(context.Background(), np.Name, Env{})
		if err != nil || again.Name != np.Name {
			t.Errorf("%q named %q, which parses to %q, %v", spec, np.Name, again.Name, err)
		}
	})
}
