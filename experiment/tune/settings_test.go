package tune

import (
	"strings"
	"testing"
)

// TestSettingsApply sets a search's settings and refuses each bad one,
// naming it and its value.
func TestSettingsApply(t *testing.T) {
	var c Config
	s := DefaultSettings()
	s.Roles, s.Workers = true, 2
	if err := s.Apply(&c, "--"); err != nil {
		t.Fatal(err)
	}
	if len(c.Grid) != len(ExtendedGrid()) || c.Refine != DefaultRefine || c.Top != DefaultTop || !c.Roles || c.DCQCN || c.Workers != 2 ||
		len(c.Seeds) != len(DefaultSeeds()) || len(c.ConfirmSeeds) != len(DefaultConfirmSeeds()) || c.Prior != nil {
		t.Errorf("Apply(defaults) = %+v", c)
	}
	for _, tc := range []struct {
		set  func(*Settings)
		want string
	}{
		{func(s *Settings) { s.Grid = "nope" }, "--grid nope: want paper, extended or actions:SET"},
		{func(s *Settings) { s.Refine = -1 }, "--refine -1: must not be negative"},
		{func(s *Settings) { s.Top = 0 }, "--top 0: must be at least 1"},
		{func(s *Settings) { s.Workers = -1 }, "--workers -1: must not be negative (0 = one per CPU)"},
		{func(s *Settings) { s.Seeds = nil }, "--seeds: no seed given"},
		{func(s *Settings) { s.ConfirmSeeds = nil }, "--confirm-seeds: no seed given"},
		{func(s *Settings) { s.Seeds = []uint64{1001} }, "--seeds: 1001 is one of eval's seeds"},
		{func(s *Settings) { s.ConfirmSeeds = []uint64{1010} }, "--confirm-seeds: 1010 is one of eval's seeds"},
		{func(s *Settings) { s.Reuse = "/nonexistent/tuned" }, "--reuse: stat /nonexistent/tuned"},
	} {
		s := DefaultSettings()
		tc.set(&s)
		if err := s.Apply(&Config{}, "--"); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Apply(%+v): %v; want %q", s, err, tc.want)
		}
	}
}
