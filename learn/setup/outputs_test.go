package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"graphcc/learn"
)

// TestOutputsCheck accepts a run's outputs, the checkpoint resumed from
// among them, and refuses each bad one, naming it.
func TestOutputsCheck(t *testing.T) {
	dir := t.TempDir()
	model, curve, ck := filepath.Join(dir, "m.model"), filepath.Join(dir, "curve.csv"), filepath.Join(dir, "ck")
	ok := Outputs{Model: model, Curve: curve, Checkpoint: ck, CheckpointEvery: 5}
	if err := ok.Check(ck, "--"); err != nil {
		t.Errorf("Check(resume the checkpoint): %v", err)
	}
	if got := ok.CurvePNG(); got != filepath.Join(dir, "curve.png") {
		t.Errorf("CurvePNG = %s", got)
	}
	for _, tc := range []struct {
		o      Outputs
		resume string
		want   string
	}{
		{Outputs{CheckpointEvery: 1}, "", "--model-out: required"},
		{Outputs{Model: model, Curve: filepath.Join(dir, "c.png"), CheckpointEvery: 1}, "", "--curve " + filepath.Join(dir, "c.png") + ": the curve's PNG goes beside the CSV"},
		{Outputs{Model: model, Curve: model, CheckpointEvery: 1}, "", "--model-out"},
		{Outputs{Model: model, CheckpointEvery: 1}, model, "--model-out"},
		{Outputs{Model: filepath.Join(dir, "no", "m"), CheckpointEvery: 1}, "", "--model-out"},
		{Outputs{Model: model, CheckpointEvery: 0}, "", "--checkpoint-every 0: must be at least 1"},
	} {
		if err := tc.o.Check(tc.resume, "--"); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Check(%+v, resume %q): %v; want %q", tc.o, tc.resume, err, tc.want)
		}
	}
}

// TestOutputsWriteCurve writes the curve's CSV and PNG, and nothing
// without a curve.
func TestOutputsWriteCurve(t *testing.T) {
	stats := []learn.EpisodeStats{{Episode: 1, MeanReward: 0.5}, {Episode: 2, MeanReward: 0.6}}
	if err := (Outputs{}).WriteCurve(stats, "--"); err != nil {
		t.Errorf("WriteCurve(no curve): %v", err)
	}
	o := Outputs{Curve: filepath.Join(t.TempDir(), "c.csv")}
	if err := o.WriteCurve(stats, "--"); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{o.Curve, o.CurvePNG()} {
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", path, err)
		}
	}
	o.Curve = filepath.Join(t.TempDir(), "no", "c.csv")
	if err := o.WriteCurve(stats, "--"); err == nil || !strings.HasPrefix(err.Error(), "--curve: ") {
		t.Errorf("WriteCurve(into a missing directory): %v", err)
	}
}
