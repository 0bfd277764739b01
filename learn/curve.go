package learn

import (
	"fmt"
	"io"
)

// CurveHeader is the header line of a training curve (WriteCurve).
const CurveHeader = "episode,epsilon,mean_reward,loss,updates,slowdown,validation_slowdown"

// WriteCurve writes the training curve stats as CSV: CurveHeader, then
// one row per round of episodes (EpisodeStats), NaN where a figure is
// missing (the loss before learning starts, the validation of a round
// that was not validated).
func WriteCurve(w io.Writer, stats []EpisodeStats) error {
	if _, err := io.WriteString(w, CurveHeader+"\n"); err != nil {
		return err
	}
	for _, s := range stats {
		if _, err := fmt.Fprintf(w, "%d,%.4f,%.6f,%.6f,%d,%.4f,%.4f\n", s.Episode, s.Epsilon, s.MeanReward, s.Loss, s.Updates, s.Slowdown, s.Validation); err != nil {
			return err
		}
	}
	return nil
}
