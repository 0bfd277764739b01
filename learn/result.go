package learn

import (
	"errors"
	"fmt"
	"strings"

	"graphcc/gnn"
)

// ErrNoUpdates is wrapped by the error of a training run that cannot
// reach, or did not reach, its first minibatch update: its weights would be
// the initial ones. The error is a *NoUpdatesError.
var ErrNoUpdates = errors.New("no learning updates")

// NoUpdatesError is the error of a training run that ends without a
// minibatch update. NewTrainer returns it when the config cannot learn
// (Ran false): the replay buffer holds fewer transitions than the first
// update needs, or the episodes give fewer than that even at their
// longest; Run returns it when the episodes, ending early as their flows
// finished, gave fewer (Ran true).
type NoUpdatesError struct {
	Episodes int // Config.Episodes
	Warmup   int // Config.Warmup
	Batch    int // Config.Batch: the first update also needs a batch
	Buffer   int // Config.Buffer
	// PerEpisode is the most transitions an episode gives (see
	// Config.EpisodeTransitions).
	PerEpisode int
	// Ran reports that the episodes were simulated; they gave Transitions.
	Ran         bool
	Transitions int64
	// MinEpisodes is the fewest episodes that would reach the first update
	// (at the transitions per episode of this run when Ran), 0 if no
	// number would.
	MinEpisodes int
}

// Need is the number of transitions the replay buffer holds before the
// first update: the larger of Warmup and Batch.
func (e *NoUpdatesError) Need() int { return max(e.Warmup, e.Batch) }

// Error says how many episodes gave no update, why, and how many would.
func (e *NoUpdatesError) Error() string {
	what := "the warmup"
	if e.Batch > e.Warmup {
		what = "a batch"
	}
	head := fmt.Sprintf("train: %d episodes give 0 learning updates: the first comes after %d transitions (%s)", e.Episodes, e.Need(), what)
	if e.Ran {
		head = strings.Replace(head, " give ", " gave ", 1)
	}
	switch {
	case e.Buffer < e.Need():
		return fmt.Sprintf("%s, more than the replay buffer's %d", head, e.Buffer)
	case e.MinEpisodes == 0:
		return fmt.Sprintf("%s, and no episode gives a transition", head)
	case e.Ran:
		return fmt.Sprintf("%s, and theirs gave %d (their flows finished early); raise episodes to at least %d (at that rate)", head, e.Transitions, e.MinEpisodes)
	}
	return fmt.Sprintf("%s, and an episode gives at most %d; raise episodes to at least %d", head, e.PerEpisode, e.MinEpisodes)
}

// Unwrap returns ErrNoUpdates.
func (e *NoUpdatesError) Unwrap() error { return ErrNoUpdates }

// EpisodeStats describes one round of episodes (Workers of them, simulated
// in parallel with one set of weights) and the learning that followed.
type EpisodeStats struct {
	Episode    int     // episodes done
	Epsilon    float64 // exploration rate of the round
	MeanReward float64 // mean per-agent reward over the round's steps
	Loss       float64 // mean Huber loss of the round's updates (NaN before learning starts)
	Updates    int     // minibatch updates so far
	Slowdown   float64 // mean FCT slowdown of the flows the round's episodes finished
	// Validation is the mean FCT slowdown of the greedy policy on the
	// validation seeds after the round (Config.ValidateSeeds), or the
	// geometric mean over the validation sets of theirs, NaN when the
	// round was not validated.
	Validation float64
	// ValidationBy are the mean slowdowns of each validation set
	// (Config.ValidateSets), when the round was validated on sets.
	ValidationBy []float64
}

// Result is a trained network: Model for graphcc, ACC for acc, the
// weights after the last round.
type Result struct {
	Model *gnn.Model
	ACC   []*gnn.MLPNet
	// ACCPorts names the port of each network of ACC (gnn.ACC.Ports).
	ACCPorts []string
	Stats    []EpisodeStats
	// With validation seeds, Best is the network of the lowest validation
	// slowdown (the earliest of ties), validated after BestEpisode
	// episodes; nil without them.
	Best        *Result
	BestEpisode int
}
