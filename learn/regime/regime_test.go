package regime

import (
	"os"
	"path/filepath"
	"testing"

	"graphcc/scenario"
	"graphcc/workload"
)

func builtin(t *testing.T, name string) *workload.CDF {
	t.Helper()
	c, err := workload.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOf(t *testing.T) {
	mix, err := workload.Mix("FB_Hadoop+WebSearch 3:7", []*workload.CDF{builtin(t, "fb_hadoop"), builtin(t, "websearch")}, []float64{3, 7})
	if err != nil {
		t.Fatal(err)
	}
	incast := workload.IncastConfig{FanIn: 8, Size: 64000, Period: 1}
	noIncast := workload.IncastConfig{FanIn: 16, Size: 64000} // period 0: none, as the suite writes it
	for _, c := range []struct {
		p    workload.Phase
		want string // "" for no regime
	}{
		{workload.Phase{Workload: builtin(t, "googlerpc"), Load: 0.3}, "googlerpc-low"},
		{workload.Phase{Workload: builtin(t, "googlerpc"), Load: 0.45}, "googlerpc-low"},
		{workload.Phase{Workload: builtin(t, "websearch"), Load: 0.5, Incast: incast}, "websearch-mid-incast"},
		{workload.Phase{Workload: builtin(t, "alistorage"), Load: 0.65}, "alistorage-mid"},
		{workload.Phase{Workload: builtin(t, "fb_hadoop"), Load: 0.7, Incast: incast}, "fb_hadoop-high-incast"},
		{workload.Phase{Workload: builtin(t, "fb_hadoop"), Load: 0.9}, "fb_hadoop-high"},
		{workload.Phase{Workload: builtin(t, "fb_hadoop"), Load: 0.6, Incast: noIncast}, "fb_hadoop-mid"},
		{workload.Phase{Workload: mix, Load: 0.6}, ""},
		{workload.Phase{Load: 0.6}, ""},
	} {
		r, ok := Of(c.p)
		if got := map[bool]string{true: r.String()}[ok]; got != c.want {
			t.Errorf("Of(%v at %v, fan-in %d) = %q, want %q", c.p.Workload, c.p.Load, c.p.Incast.FanIn, got, c.want)
		}
	}
}

func TestAll(t *testing.T) {
	all := All()
	if len(all) != 24 {
		t.Fatalf("All: %d regimes, want 24", len(all))
	}
	names, scenarios := map[string]bool{}, map[string]bool{}
	for _, r := range all {
		got, err := Parse(r.String())
		if err != nil || got != r {
			t.Errorf("Parse(%q) = %v, %v; want %v", r, got, err, r)
		}
		if names[r.String()] || scenarios[r.Scenario()] {
			t.Errorf("regime %s named twice", r)
		}
		names[r.String()], scenarios[r.Scenario()] = true, true
	}
	if _, err := Parse("fb_hadoop-extreme"); err == nil {
		t.Error("Parse of an unknown regime: no error")
	}
}

func TestScenarioFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "regimes.yaml")
	if err := os.WriteFile(path, ScenarioFile(10), 0o644); err != nil {
		t.Fatal(err)
	}
	scs, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	all := All()
	if len(scs) != len(all) {
		t.Fatalf("%d scenarios, want %d", len(scs), len(all))
	}
	for i, sc := range scs {
		r, ok := Of(workload.Phase{Workload: sc.Gen.Workload, Load: sc.Gen.Load, Incast: sc.Gen.Incast})
		if sc.Name != all[i].Scenario() || !ok || r != all[i] || sc.Gen.Load != r.Load() || sc.Gen.Duration != 10*1e9 {
			t.Errorf("scenario %d: %s, %s at %v for %d ps; want %s of regime %s", i, sc.Name, r, sc.Gen.Load, sc.Gen.Duration, all[i].Scenario(), all[i])
		}
	}
}
