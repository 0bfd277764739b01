package learn

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"graphcc/gnn"
)

// ModelFile returns the model file of training run c that gave r: the
// weights of the lowest validation slowdown (r.Best) when the run was
// validated, else the last, with the metadata meta (the caller's: the
// command line, the scenarios) and the run's own: seed, episodes, reward,
// and when they are not the defaults the objective, teacher and host head,
// and which weights validation picked (Picked).
func (r *Result) ModelFile(c Config, meta map[string]string) *gnn.File {
	m := maps.Clone(meta)
	if m == nil {
		m = map[string]string{}
	}
	m["seed"] = fmt.Sprint(c.Seed)
	m["episodes"] = fmt.Sprint(c.Episodes)
	m["reward"] = c.Shape.String()
	m["reward_q"] = fmt.Sprint(c.Features.RewardQueue)
	if c.Objective != PortObjective {
		m["objective"] = c.Objective.String()
	}
	if c.Teacher != nil {
		m["teacher"] = c.TeacherName
	}
	if c.Hosts {
		m["hosts"] = "true"
	}
	chosen := r
	if r.Best != nil {
		chosen = r.Best
		m["validation"] = r.Picked(c)
	}
	if c.Kind == "graphcc" {
		return chosen.Model.File(chosen.Model.ActionSet.TableID(), m)
	}
	return gnn.MLPNetsFile(chosen.ACC, chosen.ACCPorts, gnn.ActionTableID, m)
}

// Picked says which weights validation picked ("the weights after 40
// episodes, mean slowdown …"), or "" for a run without validation.
func (r *Result) Picked(c Config) string {
	if r.Best == nil {
		return ""
	}
	v := math.NaN()
	if i := slices.IndexFunc(r.Stats, func(s EpisodeStats) bool { return s.Episode == r.BestEpisode }); i >= 0 {
		v = r.Stats[i].Validation
	}
	if len(c.ValidateSets) > 0 {
		return fmt.Sprintf("the weights after %d episodes, mean slowdown %.4f on validation seeds %v (the geometric mean over the curriculum's %d scenarios)",
			r.BestEpisode, v, c.ValidateSets[0].Seeds, len(c.ValidateSets))
	}
	return fmt.Sprintf("the weights after %d episodes, mean slowdown %.4f on validation seeds %v", r.BestEpisode, v, c.ValidateSeeds)
}

// WriteSummary writes what train prints at the end of run c on scenario
// (in wall time, its files wrote): the last round's figures, the weights
// validation picked, and the host action table hostActions unless it is
// the grid.
func (r *Result) WriteSummary(w io.Writer, c Config, scenario, hostActions, wrote string, wall time.Duration) error {
	last := r.Stats[len(r.Stats)-1]
	fmt.Fprintf(w, "trained %s on %s: %d episodes, %d updates in %s; last round: epsilon %.3f, mean reward %.4f, loss %.4f; wrote %s\n",
		c.Kind, scenario, c.Episodes, last.Updates, wall.Round(time.Second), last.Epsilon, last.MeanReward, last.Loss, wrote)
	if picked := r.Picked(c); picked != "" {
		fmt.Fprintf(w, "the model is %s\n", picked)
	}
	if !c.HostTable.IsGrid() {
		var ps []string
		for _, h := range c.HostTable.Profiles() {
			ps = append(ps, gnn.FormatHostProfile(h))
		}
		_, err := fmt.Fprintf(w, "host actions %s: %d profiles: %s\n", hostActions, len(ps), strings.Join(ps, "; "))
		return err
	}
	return nil
}
