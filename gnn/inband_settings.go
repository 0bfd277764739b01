package gnn

import (
	"fmt"

	"graphcc/control"
	"graphcc/topo"
)

// InBandSettings are an InBandConfig as a person writes it: the round
// deadline and the compute time as topo.ParseDuration reads them ("10us",
// "0"), and the miss limit. graphcc sim's --agent-* flags bind to them.
type InBandSettings struct {
	Deadline, Compute string
	Misses            int
	// Loss is the probability that a message is lost, in [0, 1): not an
	// InBandConfig's, but the run's (replay.Config.MessageLoss).
	Loss float64
}

// DefaultInBandSettings are the commands' defaults: DefaultRoundDeadline,
// instant computation, control.DefaultMissLimit.
func DefaultInBandSettings() InBandSettings {
	return InBandSettings{Deadline: topo.FormatDuration(DefaultRoundDeadline), Compute: "0", Misses: control.DefaultMissLimit}
}

// Config returns the configuration of s: a positive deadline, a compute
// time and a miss limit not negative, and checks Loss. Errors name the
// setting prefix and its key: deadline, compute, misses, loss (with
// prefix "--agent-", sim's flags).
func (s InBandSettings) Config(prefix string) (InBandConfig, error) {
	d, err := topo.ParseDuration(prefix+"deadline", s.Deadline, false)
	if err != nil {
		return InBandConfig{}, err
	}
	c, err := topo.ParseDuration(prefix+"compute", s.Compute, true)
	if err != nil {
		return InBandConfig{}, err
	}
	if s.Misses < 0 {
		return InBandConfig{}, fmt.Errorf("%smisses %d: must not be negative (0 never reverts to the static settings)", prefix, s.Misses)
	}
	if !(s.Loss >= 0 && s.Loss < 1) {
		return InBandConfig{}, fmt.Errorf("%sloss %g: must be in [0, 1)", prefix, s.Loss)
	}
	return InBandConfig{Deadline: d, Compute: c, Misses: s.Misses}, nil
}
