package experiment

import (
	"strings"
	"testing"
)

// TestRunSettingsApply sets an evaluation's run settings and refuses each
// bad one, naming it and its value.
func TestRunSettingsApply(t *testing.T) {
	s := RunSettings{Seeds: []uint64{5, 6}, Workers: 2, Rewards: "convex:25,linear"}
	var c Config
	if err := s.Apply(&c, "--"); err != nil {
		t.Fatal(err)
	}
	s.Seeds[0] = 7 // c keeps its own copy
	if len(c.Seeds) != 2 || c.Seeds[0] != 5 || c.Workers != 2 || len(c.Rewards) != 2 || c.Rewards[0].Name != "convex:25" {
		t.Errorf("Apply = seeds %v, workers %d, rewards %+v", c.Seeds, c.Workers, c.Rewards)
	}
	if err := (RunSettings{Seeds: []uint64{1}}).Apply(&c, "--"); err != nil || c.Rewards != nil || c.Workers != 0 {
		t.Errorf("Apply(no rewards): %v, rewards %+v, workers %d", err, c.Rewards, c.Workers)
	}
	for _, tc := range []struct {
		s    RunSettings
		want string
	}{
		{RunSettings{}, "--seeds: no seed given"},
		{RunSettings{Seeds: []uint64{5, 7, 5}}, "--seeds: 5 given twice"},
		{RunSettings{Seeds: []uint64{1}, Workers: -1}, "--workers -1: must not be negative"},
		{RunSettings{Seeds: []uint64{1}, Rewards: "convex:25,cubic"}, "--rewards convex:25,cubic: cubic: "},
		{RunSettings{Seeds: []uint64{1}, Rewards: "convex,convex:25"}, "--rewards convex,convex:25: convex:25 given twice"},
	} {
		if err := tc.s.Apply(&Config{}, "--"); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Apply(%+v): %v; want %q", tc.s, err, tc.want)
		}
	}
}
