package tune

import (
	"fmt"
	"io"

	"graphcc/internal/fileio"
	"graphcc/metrics"
)

// Round is what a round of Search did.
type Round struct {
	Name     string // "grid", "refine 1", …, "dcqcn timer", …, "roles 1", …, "confirm"
	Settings int    // configurations run (policies for the confirmation)
	Best     string // the best configuration so far
	Score    float64
}

// String is the round as a progress line reads it: "grid, 120 settings
// run; best static:2,32,0.01, mean slowdown 1.234".
func (r Round) String() string {
	return fmt.Sprintf("%s, %d settings run; best %s, mean slowdown %.3f", r.Name, r.Settings, r.Best, r.Score)
}

// Run is one configuration Search ran and its validation score.
type Run struct {
	Policy string `json:"policy"`
	Candidate
	Round string `json:"round"`
	// Score is the mean FCT slowdown over the flows of every validation
	// seed together (of several scenarios, the geometric mean of theirs).
	Score float64 `json:"score"`
	// PerScenario are the mean slowdowns of each scenario, with several.
	PerScenario []float64 `json:"per_scenario,omitempty"`
	// Reused counts the scenarios whose score came from a prior result
	// (Config.Prior), not from a simulation of this search.
	Reused int `json:"reused,omitempty"`
	// loo are Score's values leaving out each validation seed (nil
	// without them).
	loo []float64
	// per are its scores on each scenario, nil for runs not scored by
	// this search (a merge's grid).
	per []scenarioScore
}

// Ratio is a ratio of mean slowdowns on the confirmation seeds, with
// its 95 % interval (Lo and Hi absent with fewer than
// metrics.MinIntervalSeeds seeds).
type Ratio struct {
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo,omitempty"`
	Hi    *float64 `json:"hi,omitempty"`
}

// ScenarioLOO returns the run's mean slowdown on scenario j (in Config
// order) leaving out each validation seed in turn, exactly as
// experiment.PolicyResult.SlowdownLOO gives it; nil where this search did
// not simulate it (a run read from a file, a merge's grid, a prior's
// score) or without intervals.
func (r Run) ScenarioLOO(j int) []float64 {
	if j >= len(r.per) || r.per[j].prior {
		return nil
	}
	return r.per[j].loo
}

func ratio(r metrics.Ratio) Ratio {
	t := Ratio{Value: r.Value}
	if r.HasInterval() {
		lo, hi := r.Lo, r.Hi
		t.Lo, t.Hi = &lo, &hi
	}
	return t
}

// Confirm is the winner against static, the paper grid's best and
// the best of one ECN setting for all ports on the confirmation seeds.
type Confirm struct {
	Seeds []uint64 `json:"seeds"`
	// MeanSlowdown is each policy's mean slowdown over the confirmation
	// seeds' flows (of several scenarios, the geometric mean of theirs):
	// best_policy, static, paper_grid_best and best_one_setting.
	MeanSlowdown map[string]float64 `json:"mean_slowdown"`
	// PaperGridBest is the best on the validation seeds of the paper's
	// 120 settings that were run, in the grid or a refinement ("" when
	// none was).
	PaperGridBest string `json:"paper_grid_best,omitempty"`
	// BestOneSetting is, when Search tuned DCQCN or port roles, the best on
	// the validation seeds of the runs with one ECN setting for all ports
	// and the hardware's hosts' constants ("" otherwise).
	BestOneSetting string `json:"best_one_setting,omitempty"`
	// VsStatic is best_policy's mean slowdown divided by static's,
	// VsPaperGridBest by PaperGridBest's and VsBestOneSetting by
	// BestOneSetting's (absent without it, or when it is best_policy).
	VsStatic         Ratio  `json:"vs_static"`
	VsPaperGridBest  *Ratio `json:"vs_paper_grid_best,omitempty"`
	VsBestOneSetting *Ratio `json:"vs_best_one_setting,omitempty"`
}

// Result is what Search found.
type Result struct {
	// Scenario is the scenario tuned, if one; Scenarios are the scenarios
	// tuned together, if several.
	Scenario  string   `json:"scenario,omitempty"`
	Scenarios []string `json:"scenarios,omitempty"`
	// BestPolicy is the spec of the configuration of lowest validation
	// score (the first run of that score), which policy.Parse takes.
	BestPolicy string    `json:"best_policy"`
	Best       Candidate `json:"best"`
	// Score is BestPolicy's mean slowdown on the validation seeds, and
	// ScoreLo and ScoreHi its 95 % interval from the spread between seeds
	// (absent with fewer than metrics.MinIntervalSeeds).
	Score   float64  `json:"score"`
	ScoreLo *float64 `json:"score_lo,omitempty"`
	ScoreHi *float64 `json:"score_hi,omitempty"`
	Seeds   []uint64 `json:"seeds"`
	// Hardware is the simulated hardware and control interval the
	// scores were made with (policy.Hardware's form); absent in
	// results written before it was recorded.
	Hardware string  `json:"hardware,omitempty"`
	Confirm  Confirm `json:"confirm"`
	// Runs are every configuration run, in the order run.
	Runs []Run `json:"runs"`

	source string // the file LoadPrior read it from
}

// WriteJSON writes r as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error { return fileio.WriteJSON(w, r) }
