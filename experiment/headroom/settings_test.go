package headroom

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"graphcc/experiment/tune"
	"graphcc/internal/fileio"
)

// TestSettingsApply sets a measurement's settings and refuses each bad
// one, naming it and its value.
func TestSettingsApply(t *testing.T) {
	dir := t.TempDir()
	tuned := filepath.Join(dir, "tune.json")
	best := tune.Candidate{Setting: tune.Setting{KMinKB: 8, KMaxKB: 64, PMax: 0.25}}
	r := &tune.Result{BestPolicy: "static:8,64,0.25", Best: best, Runs: []tune.Run{{Policy: "static:8,64,0.25", Candidate: best}}}
	if err := fileio.WriteAtomic(tuned, r.WriteJSON); err != nil {
		t.Fatal(err)
	}
	var c Config
	s := DefaultSettings()
	s.Tune, s.Also = tuned, []string{tuned, tuned}
	if err := s.Apply(&c, "--"); err != nil {
		t.Fatal(err)
	}
	if len(c.Grid) != len(CoarseGrid()) || c.Segment != DefaultSegment || c.Tuned == nil || c.Tuned.BestPolicy != r.BestPolicy ||
		len(c.Also) != 2 || c.Also[1].Setting != best.Setting {
		t.Errorf("Apply(defaults) = %+v", c)
	}
	s = DefaultSettings()
	s.Grid, s.Segment = "paper", "2ms"
	if err := s.Apply(&c, "--"); err != nil || len(c.Grid) != len(tune.PaperGrid()) || c.Segment != 2*DefaultSegment/5 {
		t.Errorf("Apply(paper, 2ms): %v, %d settings, segment %d", err, len(c.Grid), c.Segment)
	}
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		set  func(*Settings)
		want string
	}{
		{func(s *Settings) { s.Segment = "0" }, "--segment 0: must be positive"},
		{func(s *Settings) { s.Grid = "fine" }, "--grid fine"},
		{func(s *Settings) { s.Tune = "/nonexistent.json" }, "--tune: open /nonexistent.json"},
		{func(s *Settings) { s.Tune = empty }, "--tune: " + empty + ": not a tune result"},
		{func(s *Settings) { s.Also = []string{tuned, "/nonexistent.json"} }, "--also: open /nonexistent.json"},
	} {
		s := DefaultSettings()
		tc.set(&s)
		if err := s.Apply(&Config{}, "--"); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Apply(%+v): %v; want %q", s, err, tc.want)
		}
	}
}
