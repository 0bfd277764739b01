package policy

import (
	"context"
	"strings"
	"testing"

	"graphcc/internal/testfabric"
	"graphcc/scenario"
)

func TestNewTeacher(t *testing.T) {
	a, b := testfabric.TinyScenario(), testfabric.TinyScenario()
	a.Name, b.Name = "a", "b"
	dir := t.TempDir()
	for _, tc := range []struct {
		spec, name, err string
	}{
		{"static:2,32,0.01", "static:2,32,0.01", ""},
		{"static", "static", ""},
		{"sched:0=2,32,0.01:1ms=32,256,0.75", "sched:0=2,32,0.01:1ms=32,256,0.75", ""},
		{"ideal", "", `--teacher: `},
		{"tuned:" + dir, "", "--teacher tuned:" + dir + ": scenario a: tuned:" + dir + " has no tune result for scenario a"},
	} {
		var picked []uint64
		pick := func(seed uint64) scenario.Scenario { picked = append(picked, seed); return b }
		teacher, err := NewTeacher(context.Background(), "--teacher", tc.spec, Env{}, []scenario.Scenario{a, b}, pick)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || teacher.Name != tc.name {
			t.Fatalf("%s: %q, %v", tc.spec, teacher.Name, err)
		}
		f := testfabric.SmallClos(t)
		pol, _, err := teacher.New(f, 7)
		if err != nil || pol == nil || len(picked) != 1 || picked[0] != 7 {
			t.Errorf("%s: New on seed 7: %v, %v; picked %v", tc.spec, pol, err, picked)
		}
	}
}
