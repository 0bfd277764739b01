package tune

import (
	"context"
	"fmt"
	"slices"

	"graphcc/experiment"
	"graphcc/policy"
)

// confirm runs the winner, static, the paper grid's best and (when DCQCN
// or roles were tuned) the best of one setting on the confirmation seeds
// and sets res.Confirm.
func (t *tuner) confirm(ctx context.Context, res *Result) error {
	paper := map[string]bool{}
	for _, s := range PaperGrid() {
		paper[s.Spec()] = true
	}
	gridBest := t.bestOf(func(r Run) bool { return paper[r.Policy] })
	oneBest := -1
	if t.c.DCQCN || t.c.Roles {
		oneBest = t.bestOf(func(r Run) bool { return r.oneSetting() })
	}
	// the policies run, static first (the reference), then the winner,
	// then each yardstick that is not one already
	specs := []string{"static", res.BestPolicy}
	index := func(run int) int {
		if run < 0 {
			return -1
		}
		if i := slices.Index(specs, t.runs[run].Policy); i >= 0 {
			return i
		}
		specs = append(specs, t.runs[run].Policy)
		return len(specs) - 1
	}
	gi, oi := index(gridBest), index(oneBest)
	var pols []policy.Named
	for _, s := range specs {
		np, err := policy.Parse(ctx, s, policy.Env{})
		if err != nil {
			return fmt.Errorf("tune: confirm: %w", err)
		}
		pols = append(pols, np)
	}
	cfg := t.config(pols, t.c.ConfirmSeeds)
	cfg.Reference, cfg.Progress = "static", t.c.RunProgress
	rep, err := experiment.Evaluate(ctx, cfg)
	if err != nil {
		return fmt.Errorf("tune: confirm: %w", err)
	}
	res.Confirm = Confirm{
		Seeds:        slices.Clone(t.c.ConfirmSeeds),
		MeanSlowdown: map[string]float64{"best_policy": rep.GeoMeanSlowdown(1), "static": rep.GeoMeanSlowdown(0)},
		VsStatic:     ratio(rep.GeoMeanRatio(1, 0)),
	}
	if gi >= 0 {
		res.Confirm.PaperGridBest = specs[gi]
		res.Confirm.MeanSlowdown["paper_grid_best"] = rep.GeoMeanSlowdown(gi)
		r := ratio(rep.GeoMeanRatio(1, gi))
		res.Confirm.VsPaperGridBest = &r
	}
	if oi >= 0 {
		res.Confirm.BestOneSetting = specs[oi]
		res.Confirm.MeanSlowdown["best_one_setting"] = rep.GeoMeanSlowdown(oi)
		if oi != 1 {
			r := ratio(rep.GeoMeanRatio(1, oi))
			res.Confirm.VsBestOneSetting = &r
		}
	}
	if t.c.Progress != nil {
		t.c.Progress(Round{Name: "confirm", Settings: len(pols), Best: res.BestPolicy, Score: res.Confirm.MeanSlowdown["best_policy"]})
	}
	return nil
}

// bestOf returns the index of the run of lowest score among those keep
// takes (the first of ties), or -1 if it takes none.
func (t *tuner) bestOf(keep func(Run) bool) int {
	b := -1
	for i, r := range t.runs {
		if keep(r) && (b < 0 || r.Score < t.runs[b].Score) {
			b = i
		}
	}
	return b
}
