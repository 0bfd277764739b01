package experiment

import (
	"fmt"
	"math"
	"slices"

	"context"

	"graphcc/metrics"
	"graphcc/policy"
)

// confirm runs the winner, static, the paper grid's best and (when DCQCN
// or roles were tuned) the best of one setting on the confirmation seeds
// and sets res.Confirm.
func (t *tuner) confirm(ctx context.Context, res *TuneResult) error {
	paper := map[string]bool{}
	for _, s := range PaperGrid() {
		paper[s.Spec()] = true
	}
	gridBest := t.bestOf(func(r TuneRun) bool { return paper[r.Policy] })
	oneBest := -1
	if t.c.DCQCN || t.c.Roles {
		oneBest = t.bestOf(func(r TuneRun) bool { return r.oneSetting() })
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
	rep, err := Evaluate(ctx, cfg)
	if err != nil {
		return fmt.Errorf("tune: confirm: %w", err)
	}
	res.Confirm = TuneConfirm{
		Seeds:        slices.Clone(t.c.ConfirmSeeds),
		MeanSlowdown: map[string]float64{"best_policy": geoMeanSlowdown(rep, 1), "static": geoMeanSlowdown(rep, 0)},
		VsStatic:     tuneRatio(geoRatio(rep, 1, 0)),
	}
	if gi >= 0 {
		res.Confirm.PaperGridBest = specs[gi]
		res.Confirm.MeanSlowdown["paper_grid_best"] = geoMeanSlowdown(rep, gi)
		r := tuneRatio(geoRatio(rep, 1, gi))
		res.Confirm.VsPaperGridBest = &r
	}
	if oi >= 0 {
		res.Confirm.BestOneSetting = specs[oi]
		res.Confirm.MeanSlowdown["best_one_setting"] = geoMeanSlowdown(rep, oi)
		if oi != 1 {
			r := tuneRatio(geoRatio(rep, 1, oi))
			res.Confirm.VsBestOneSetting = &r
		}
	}
	if t.c.Progress != nil {
		t.c.Progress(TuneRound{Name: "confirm", Settings: len(pols), Best: res.BestPolicy, Score: res.Confirm.MeanSlowdown["best_policy"]})
	}
	return nil
}

// bestOf returns the index of the run of lowest score among those keep
// takes (the first of ties), or -1 if it takes none.
func (t *tuner) bestOf(keep func(TuneRun) bool) int {
	b := -1
	for i, r := range t.runs {
		if keep(r) && (b < 0 || r.Score < t.runs[b].Score) {
			b = i
		}
	}
	return b
}

// geoMeanSlowdown returns policy p's mean slowdown in rep, or with several
// scenarios the geometric mean over them of its mean slowdowns.
func geoMeanSlowdown(rep *Report, p int) float64 {
	if len(rep.Scenarios) == 1 {
		return rep.Scenarios[0].Policies[p].Summary.Slowdown.Mean
	}
	s := 0.0
	for _, sr := range rep.Scenarios {
		s += math.Log(sr.Policies[p].Summary.Slowdown.Mean)
	}
	return math.Exp(s / float64(len(rep.Scenarios)))
}

// geoRatio returns policy a's mean slowdown divided by policy b's in rep
// (with several scenarios, the geometric mean over them of that ratio,
// geoMean), with its interval from the leave-one-seed-out ratios when
// every scenario has them. Both policies' leave-one-out values are ratios
// to rep's reference, so their quotient is a's to b's.
func geoRatio(rep *Report, a, b int) metrics.Ratio {
	ratios := make([]float64, len(rep.Scenarios))
	loos := make([][]float64, len(rep.Scenarios))
	for i, sr := range rep.Scenarios {
		pa, pb := sr.Policies[a], sr.Policies[b]
		ratios[i] = metrics.Normalize(pa.Summary.Slowdown.Mean, pb.Summary.Slowdown.Mean)
		if pa.meanLOO != nil && pb.meanLOO != nil {
			loos[i] = metrics.JackknifeRatios(pa.meanLOO, pb.meanLOO)
		}
	}
	if len(rep.Scenarios) == 1 { // the ratio itself, not exp(log(ratio))
		return jackRatio(ratios[0], rep.Scenarios[0].Policies[a].meanLOO, rep.Scenarios[0].Policies[b].meanLOO)
	}
	return geoMean(ratios, loos, len(rep.Seeds))
}
