// Package setup turns a training run as a person writes it into the
// learn.Config that trains it: graphcc train's flags are an Options.
//
// # Options
//
// Options are the run's settings: learn.Config's numbers as they are, and
// what it trains on, the network's kind, feature, action and host-action
// sets, the reward, the objective and its teacher, validation and the
// checkpoint to resume, by name. DefaultOptions gives train's defaults.
// Options.Resolve checks them, alone and in combination, resolves the
// scenarios (one, a curriculum of several on one fabric, or the built-in
// curriculum, scenario.Curriculum), the teacher (policy.NewTeacher) and
// the host action table (policy.ParseHostActions), loads the checkpoint,
// and returns the Run: its learn.Config and what it records
// (learn.RunInfo). Every error names the setting at fault with a prefix
// ("--" gives train's flags).
//
// # Outputs
//
// Outputs are the run's files (the model, the curve, the checkpoint and
// how often it is saved); Outputs.Check refuses, before the run, files
// that could not be written, Outputs.CurvePNG names the curve's figure and
// Outputs.WriteCurve writes the curve and its figure.
//
// # Errors of a run
//
// Run.Explain words an error of learn.Train on the run in the settings:
// a run without a learning update (learn.NoUpdatesError) says which
// setting to raise or lower, and a checkpoint that does not fit names
// Resume's.
package setup
