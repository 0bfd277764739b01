package scenario

import (
	"slices"
	"strings"
	"testing"
)

func TestDefaultCurriculum(t *testing.T) {
	c := DefaultCurriculum()
	names := c.Names()
	if slices.Contains(names, "flat8") || slices.Contains(names, "flat12") || slices.Contains(names, "day-held") ||
		!slices.Contains(names, Default().Name) || !slices.Contains(names, "day") || len(names) < 5 {
		t.Errorf("default curriculum %v", names)
	}
	// every scenario is picked, in shares near 1/n over many seeds, and a
	// seed always picks the same one
	count := map[string]int{}
	const seeds = 20000
	for s := range uint64(seeds) {
		p := c.Pick(s)
		if again := c.Pick(s); again.Name != p.Name {
			t.Fatalf("seed %d picks %s, then %s", s, p.Name, again.Name)
		}
		count[p.Name]++
	}
	for _, n := range names {
		share := float64(count[n]) / seeds
		if want := 1 / float64(len(names)); share < 0.8*want || share > 1.2*want {
			t.Errorf("%s picked %.3f of the episodes, want about %.3f", n, share, want)
		}
	}
	// an episode is its scenario's, with the links of the curriculum's fabric or fewer
	f, flows, err := c.Build(7)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := c.Pick(7).Build(7)
	if len(flows) == 0 || len(f.Links) != len(want.Links) || len(f.Links) > len(c.Fabric().Links) {
		t.Errorf("episode 7: %d flows, %d links", len(flows), len(f.Links))
	}
}

func TestNewCurriculumRefuses(t *testing.T) {
	fb, flat := Default(), Default()
	flat.Name = "flat"
	flat.Clos.Leaves = 8
	for _, tc := range []struct {
		scs []Scenario
		err string
	}{
		{nil, "no scenario"},
		{[]Scenario{fb, fb}, "given twice"},
		{[]Scenario{fb, flat}, "scenario flat is not on " + fb.Name + "'s fabric"},
	} {
		if _, err := NewCurriculum(tc.scs); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%d scenarios: %v, want an error containing %q", len(tc.scs), err, tc.err)
		}
	}
}
