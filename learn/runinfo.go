package learn

import (
	"errors"
	"fmt"
	"strings"
)

// RunInfo is what a training run records of where it came from beyond
// its Config, which Train does not read: what it trained on, and how it
// was started. Checkpoints record part of it (CheckpointMeta), model files
// all of it (ModelMeta).
type RunInfo struct {
	// Command is the command line that started the run.
	Command string
	// Scenario names what the run trained on: a scenario, or a
	// curriculum ("curriculum", or its scenarios' names joined by "+");
	// ScenarioSummary describes it.
	Scenario, ScenarioSummary string
	// ScenarioFile is the scenario file it came from, "" for the
	// built-in suite.
	ScenarioFile string
	// Curriculum lists a curriculum's scenarios; nil for one scenario.
	Curriculum []string
	// HostActions is the spec of the host action table, "" for the grid.
	HostActions string
	// ResumedFrom is the checkpoint file the run resumed from, "" for none.
	ResumedFrom string
}

// CheckpointMeta is what a checkpoint records of r (Config.CheckpointMeta):
// the scenario, its summary and file, which CheckResume compares.
func (r RunInfo) CheckpointMeta() map[string]string {
	return map[string]string{"scenario": r.Scenario, "scenario_summary": r.ScenarioSummary, "scenario_file": r.ScenarioFile}
}

// CheckResume refuses to resume r from a checkpoint whose Meta says it
// trained on another scenario than r, naming the fields that differ; the
// error wraps ErrCheckpoint.
func (r RunInfo) CheckResume(meta map[string]string) error {
	want := r.CheckpointMeta()
	var errs []error
	for _, k := range []string{"scenario", "scenario_summary"} {
		if meta[k] != want[k] {
			errs = append(errs, fmt.Errorf("%s is %q in the checkpoint, %q in this run", k, meta[k], want[k]))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: it belongs to another run: %w", ErrCheckpoint, errors.Join(errs...))
	}
	return nil
}

// ModelMeta is what the model file of r records of it (Result.ModelFile's
// meta): the command and the scenario always; the scenario file and
// summary with a file, the curriculum, the host actions other than the
// grid, and the checkpoint resumed (ck, after its episodes) when there
// are.
func (r RunInfo) ModelMeta(ck *Checkpoint) map[string]string {
	meta := map[string]string{"command": r.Command, "scenario": r.Scenario}
	if r.ScenarioFile != "" {
		meta["scenario_file"] = r.ScenarioFile
		meta["scenario_summary"] = r.ScenarioSummary
	}
	if r.Curriculum != nil {
		meta["curriculum"] = strings.Join(r.Curriculum, ",")
	}
	if r.HostActions != "" {
		meta["host_actions"] = r.HostActions
	}
	if ck != nil {
		meta["resumed_from"] = fmt.Sprintf("%s after %d episodes", r.ResumedFrom, ck.Episodes)
	}
	return meta
}
