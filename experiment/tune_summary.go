package experiment

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteSummary writes the winner of the search and its confirmation as
// tune and merge print them: a line, then a table; wall is the time the
// search took.
func (r *TuneResult) WriteSummary(w io.Writer, wall time.Duration) error {
	what := r.Scenario
	if len(r.Scenarios) > 0 {
		what = fmt.Sprintf("%d scenarios (%s; scores are geometric means)", len(r.Scenarios), strings.Join(r.Scenarios, ", "))
	}
	fmt.Fprintf(w, "tune %s: %d configurations on seeds %s in %s; best %s (mean slowdown %.3f%s)\n\n",
		what, len(r.Runs), FormatSeeds(r.Seeds), wall.Round(time.Second), r.BestPolicy, r.Score, formatScoreInterval(r))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	cf := r.Confirm
	fmt.Fprintf(tw, "confirmation (seeds %s)\tmean slowdown\tbest_policy's ratio (95 %% CI)\n", FormatSeeds(cf.Seeds))
	fmt.Fprintf(tw, "%s (best_policy)\t%.3f\t\n", r.BestPolicy, cf.MeanSlowdown["best_policy"])
	fmt.Fprintf(tw, "static\t%.3f\t%s\n", cf.MeanSlowdown["static"], formatTuneRatio(cf.VsStatic))
	var notes []string
	rows := []struct {
		spec, key, what string
		ratio           *TuneRatio
	}{
		{cf.PaperGridBest, "paper_grid_best", "paper grid's best", cf.VsPaperGridBest},
		{cf.BestOneSetting, "best_one_setting", "best of one setting, hosts unchanged", cf.VsBestOneSetting},
	}
	for _, row := range rows {
		switch {
		case row.spec == "":
		case row.spec == r.BestPolicy:
			notes = append(notes, fmt.Sprintf("(%s is also the %s)", r.BestPolicy, row.what))
		case row.ratio != nil:
			fmt.Fprintf(tw, "%s (%s)\t%.3f\t%s\n", row.spec, row.what, cf.MeanSlowdown[row.key], formatTuneRatio(*row.ratio))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

// formatScoreInterval writes ", 95 % CI lo–hi" for r's score, or nothing
// without an interval.
func formatScoreInterval(r *TuneResult) string {
	if r.ScoreLo == nil || r.ScoreHi == nil {
		return ""
	}
	return fmt.Sprintf(", 95 %% CI %.3f–%.3f", *r.ScoreLo, *r.ScoreHi)
}

// formatTuneRatio writes "0.812 (0.790–0.835)", or the value alone
// without an interval.
func formatTuneRatio(r TuneRatio) string {
	if r.Lo == nil || r.Hi == nil {
		return fmt.Sprintf("%.3f", r.Value)
	}
	return fmt.Sprintf("%.3f (%.3f–%.3f)", r.Value, *r.Lo, *r.Hi)
}
