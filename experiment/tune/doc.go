// Package tune searches the fixed configurations of one scenario, or of
// several at once, for the one of lowest mean FCT slowdown (graphcc
// tune): switch ECN settings, by port role or not, with the hosts' DCQCN
// constants or not. A search runs a grid, refinement rounds around the
// leaders, selection on validation seeds and a confirmation on others
// against static and the paper grid's best, every round through
// experiment.Evaluate.
//
// # The search
//
//   - Search runs a search (Config) and returns its Result.
//   - Config: the scenarios, the grid, the rounds, the seeds, the
//     simulated hardware, the progress callbacks; Config.Rounds counts
//     its rounds. DefaultSeeds, DefaultConfirmSeeds, DefaultRefine,
//     DefaultTop and DefaultBatch are its defaults.
//   - Settings are a search's own settings as a person writes them
//     (tune's flags; DefaultSettings): Settings.Apply checks them into a
//     Config, errors naming the setting.
//   - Round is what one round did (Config.Progress).
//
// # Configurations
//
//   - Setting is one switch ECN setting; PaperGrid, ExtendedGrid and
//     ActionGrid (a model's action table) are grids of them, and
//     ParseGrid names one of them; Round.String is a round's progress line.
//   - Candidate is a configuration a search runs: a setting, by port role
//     or not, with the hosts' DCQCN constants (DCQCNSetting) or not.
//   - DefaultDCQCNSetting and HardwareDCQCN are the hosts' constants a
//     search starts from; DCQCNLadders the levels it tries of each.
//
// # Results
//
//   - Result is what a search found: the best configuration's spec
//     (which policy.Parse takes) and score with its interval, every Run,
//     and its Confirm (ratios, Ratio, to static and the paper grid's best
//     on the confirmation seeds).
//   - Result.WriteJSON writes its file, Result.WriteSummary the summary
//     graphcc tune prints.
//   - LoadPrior reads one-scenario results of earlier searches, whose
//     scores a multi-scenario search reuses (Config.Prior).
//
// # Sharded searches
//
// A search shards its grid round, most of its work, as experiment shards
// an evaluation:
//
//   - GridPart runs one shard of the grid round and returns its part (an
//     experiment.Part of kind experiment.PartTuneGrid, whose Tune is a
//     PartSearch and whose Runs are PartRuns); GridSize counts the grid
//     round's units.
//   - Merge puts the parts of every shard together and runs the rest of
//     the search (MergeOptions); ConfigOf returns the search a part is of.
//
// The files by job: tune.go the search, grid.go the grids, candidate.go
// the configurations and their neighbours, confirm.go the confirmation,
// result.go the result, summary.go its summary, prior.go the reuse of
// earlier results, part.go the sharded grid round.
package tune
