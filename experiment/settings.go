package experiment

import (
	"fmt"
	"slices"
)

// RunSettings are how an evaluation runs, as a person writes them (graphcc
// eval's --seeds, --workers and --rewards): the seeds (CheckSeeds), the
// simulations run at once (0: one per CPU) and the comma-separated
// rewards every run is scored with (ParseRewards; "" for none).
type RunSettings struct {
	Seeds   []uint64
	Workers int
	Rewards string
}

// Apply checks s and sets them in c's Seeds, Workers and Rewards. Errors
// name the setting prefix and its key: seeds, workers, rewards (with
// prefix "--", eval's flags).
func (s RunSettings) Apply(c *Config, prefix string) error {
	if err := CheckSeeds(prefix+"seeds", s.Seeds); err != nil {
		return err
	}
	if s.Workers < 0 {
		return fmt.Errorf("%sworkers %d: must not be negative", prefix, s.Workers)
	}
	rewards, err := ParseRewards(s.Rewards)
	if err != nil {
		return fmt.Errorf("%srewards %s: %w", prefix, s.Rewards, err)
	}
	c.Seeds, c.Workers, c.Rewards = slices.Clone(s.Seeds), s.Workers, rewards
	return nil
}
