package regime

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/policy"
	"graphcc/scenario"
	"graphcc/workload"
)

const (
	base = "static:0.5,32,0.125+dcqcn:55,55,2,5,25"
	rpc  = "static:0,0.5,0.707+dcqcn:15,8,2,80,400"
	ws   = "static:16,64,0.0283+dcqcn:100,55,16,5,25"
)

func TestChoose(t *testing.T) {
	ratios := map[string]map[string]float64{
		"googlerpc-high": {rpc: 0.88, ws: 1.4},           // wins clearly
		"websearch-mid":  {rpc: 1.2, ws: 0.99},           // wins, by less than the margin
		"alistorage-low": {rpc: 1.01, ws: 1.02},          // loses
		"fb_hadoop-mid":  {rpc: 0.97, ws: 0.97, base: 1}, // a tie: the first in order
	}
	tab, err := Choose(base, 0.02, ratios)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"googlerpc-high": rpc, "fb_hadoop-mid": rpc}
	if !reflect.DeepEqual(tab.Labels, want) {
		t.Errorf("labels %v, want %v", tab.Labels, want)
	}
	if got := tab.Label(Regime{"websearch", Mid, false}); got != base {
		t.Errorf("websearch-mid: %s, want the base", got)
	}
	if tab, _ := Choose(base, 0, ratios); tab.Labels["websearch-mid"] != ws {
		t.Errorf("margin 0: websearch-mid %q, want %s", tab.Labels["websearch-mid"], ws)
	}
	if _, err := Choose(base, 0.02, map[string]map[string]float64{"nothing": {}}); err == nil {
		t.Error("an unknown regime: no error")
	}
	if _, err := Choose(base, -1, ratios); err == nil {
		t.Error("a negative margin: no error")
	}
}

func TestReadRatios(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eval.json")
	js := `{"reference": "tuned:j.json", "scenarios": [
	  {"name": "regime-googlerpc-high", "policies": [{"policy": "tuned:j.json", "mean_slowdown_vs_reference": 1}, {"policy": "` + rpc + `", "mean_slowdown_vs_reference": 0.9}]},
	  {"name": "fb60", "policies": [{"policy": "tuned:j.json", "mean_slowdown_vs_reference": 1}]}]}`
	if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	ref, ratios, err := ReadRatios(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]float64{"googlerpc-high": {rpc: 0.9}}
	if ref != "tuned:j.json" || !reflect.DeepEqual(ratios, want) {
		t.Errorf("ReadRatios = %s, %v; want tuned:j.json, %v", ref, ratios, want)
	}
	if err := os.WriteFile(path, []byte(`{"reference": "x", "scenarios": [{"name": "fb60"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadRatios(path); err == nil || !strings.Contains(err.Error(), "no scenario of a regime") {
		t.Errorf("a report of no regime: %v", err)
	}
}

func TestTeacher(t *testing.T) {
	tab := Table{Base: base, Labels: map[string]string{"googlerpc-high": rpc}}
	sc := scenario.Default()
	rpcCDF, err := workload.Builtin("googlerpc")
	if err != nil {
		t.Fatal(err)
	}
	ms := int64(1e9)
	sc.Gen.Phases = []workload.Phase{
		{Duration: 3 * ms, Workload: sc.Gen.Workload, Load: 0.6},
		{Duration: 2 * ms, Workload: rpcCDF, Load: 0.8},
		{Duration: 4 * ms, Workload: rpcCDF, Load: 0.9}, // the same label: no step
		{Duration: 1 * ms, Workload: rpcCDF, Load: 0.3},
	}
	sc.Gen.Duration = workload.PhasesDuration(sc.Gen.Phases)
	got, err := tab.Teacher(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := "sched:0=0.5,32,0.125/55,55,2,5,25:3ms=0,0.5,0.707/15,8,2,80,400:9ms=0.5,32,0.125/55,55,2,5,25"
	if got != want {
		t.Errorf("Teacher = %s, want %s", got, want)
	}
	if _, err := policy.ParseControl(t.Context(), got, policy.Env{}); err != nil {
		t.Errorf("the teacher does not parse: %v", err)
	}
	if got, err := tab.Teacher(scenario.Default()); err != nil || got != base {
		t.Errorf("stationary fb60-incast: %s, %v; want the base", got, err)
	}
	tab.Labels["googlerpc-high"] = "static:0,0.5,0.707"
	if _, err := tab.Teacher(sc); err == nil {
		t.Error("labels with and without hosts' constants: no error")
	}
}

func TestWriteTeacher(t *testing.T) {
	tab := Table{Base: base, Labels: map[string]string{"googlerpc-high": rpc, "googlerpc-mid": rpc}}
	var scs []scenario.Scenario
	for _, n := range []string{"family-16", "family-3", "googlerpc60"} {
		sc, err := scenario.ByName(n)
		if err != nil {
			t.Fatal(err)
		}
		scs = append(scs, sc)
	}
	dir := t.TempDir()
	paths, err := WriteTeacher(dir, tab, scs, "a test")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 || filepath.Base(paths[0]) != "family-16.json" {
		t.Fatalf("paths %v", paths)
	}
	// tuned:DIR reads them: the host profiles of the teacher are the base's and rpc's
	ps, err := policy.TunedHostProfiles(dir, []string{"family-16", "family-3", "googlerpc60"}, control.DefaultHostParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 {
		t.Errorf("host profiles %v: want the hardware's, the base's and rpc's", ps)
	}
	b, err := os.ReadFile(paths[2])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"best_policy": "`+rpc+`"`) {
		t.Errorf("googlerpc60's teacher:\n%s\nwant best_policy %s", b, rpc)
	}
}
