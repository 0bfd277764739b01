package setup

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"graphcc/experiment"
	"graphcc/internal/fileio"
	"graphcc/learn"
)

// Outputs are a training run's files as a person writes them (graphcc
// train's --model-out, --curve, --checkpoint and --checkpoint-every): the
// model (required), the training curve's CSV ("" for none), whose PNG
// goes beside it (CurvePNG), and the checkpoint ("" for none), saved
// every CheckpointEvery episodes.
type Outputs struct {
	Model, Curve, Checkpoint string
	CheckpointEvery          int
}

// CurvePNG is where the training curve's PNG goes: beside the CSV Curve,
// its extension replaced by .png.
func (o Outputs) CurvePNG() string {
	return strings.TrimSuffix(o.Curve, filepath.Ext(o.Curve)) + ".png"
}

// Check refuses, before anything runs, outputs that could not be
// written (fileio.CheckOutputs): the model, the curve and its PNG, the
// checkpoint, which alone may be resume, the checkpoint resumed from ("" for
// none). Errors name the setting prefix and its key: model-out, curve,
// checkpoint, checkpoint-every, resume (with prefix "--", train's flags).
func (o Outputs) Check(resume, prefix string) error {
	if o.Model == "" {
		return fmt.Errorf("%smodel-out: required", prefix)
	}
	png := ""
	if o.Curve != "" {
		if png = o.CurvePNG(); png == o.Curve {
			return fmt.Errorf("%scurve %s: the curve's PNG goes beside the CSV as FILE.png: give the CSV another name", prefix, o.Curve)
		}
	}
	model, curve := prefix+"model-out", prefix+"curve"
	if err := fileio.CheckOutputs(nil, model, o.Model, curve, o.Curve, curve, png, prefix+"checkpoint", o.Checkpoint); err != nil {
		return err
	}
	// The checkpoint may be the file resumed from; the model and curve not.
	if err := fileio.CheckDistinct([]string{model, o.Model, curve, o.Curve, curve, png}, []string{prefix + "resume", resume}); err != nil {
		return err
	}
	if o.CheckpointEvery < 1 {
		return fmt.Errorf("%scheckpoint-every %d: must be at least 1", prefix, o.CheckpointEvery)
	}
	return nil
}

// WriteCurve writes the training curve stats to Curve as CSV
// (learn.WriteCurve) and beside it as PNG (experiment.WriteCurvePNG),
// unless Curve is "". Errors name prefix+"curve".
func (o Outputs) WriteCurve(stats []learn.EpisodeStats, prefix string) error {
	if o.Curve == "" {
		return nil
	}
	if err := fileio.WriteAtomic(o.Curve, func(w io.Writer) error { return learn.WriteCurve(w, stats) }); err != nil {
		return fmt.Errorf("%scurve: %w", prefix, err)
	}
	if err := experiment.WriteCurvePNG(o.CurvePNG(), stats); err != nil {
		return fmt.Errorf("%scurve: %w", prefix, err)
	}
	return nil
}
