package tune

import (
	"fmt"

	"graphcc/experiment"
)

// Settings are a search's own settings as a person writes them (graphcc
// tune's flags): the grid by name (ParseGrid), the rounds, the workers,
// what is tuned besides the switches' setting, the seeds, and a directory
// of results to reuse (LoadPrior; "" for none). DefaultSettings gives
// tune's defaults.
type Settings struct {
	Grid                string
	Refine, Top         int
	Workers             int
	DCQCN, Roles        bool
	Seeds, ConfirmSeeds []uint64
	Reuse               string
}

// DefaultSettings returns tune's defaults: the extended grid, DefaultRefine
// rounds of DefaultTop leaders, DefaultSeeds and DefaultConfirmSeeds.
func DefaultSettings() Settings {
	return Settings{Grid: "extended", Refine: DefaultRefine, Top: DefaultTop, Seeds: DefaultSeeds(), ConfirmSeeds: DefaultConfirmSeeds()}
}

// Apply checks s and sets them in c, whose Scenarios are set already.
// Errors name the setting prefix and its key: grid, refine, top,
// workers, seeds, confirm-seeds, reuse (with prefix "--", tune's flags).
func (s Settings) Apply(c *Config, prefix string) error {
	var err error
	if c.Grid, err = ParseGrid(prefix+"grid", s.Grid); err != nil {
		return err
	}
	switch {
	case s.Refine < 0:
		return fmt.Errorf("%srefine %d: must not be negative", prefix, s.Refine)
	case s.Top < 1:
		return fmt.Errorf("%stop %d: must be at least 1", prefix, s.Top)
	case s.Workers < 0:
		return fmt.Errorf("%sworkers %d: must not be negative (0 = one per CPU)", prefix, s.Workers)
	case len(s.Seeds) == 0:
		return fmt.Errorf("%sseeds: no seed given", prefix)
	case len(s.ConfirmSeeds) == 0:
		return fmt.Errorf("%sconfirm-seeds: no seed given", prefix)
	}
	if err := experiment.CheckTrainingSeeds(s.Seeds); err != nil {
		return fmt.Errorf("%sseeds: %w", prefix, err)
	}
	if err := experiment.CheckTrainingSeeds(s.ConfirmSeeds); err != nil {
		return fmt.Errorf("%sconfirm-seeds: %w", prefix, err)
	}
	c.Refine, c.Top, c.Workers = s.Refine, s.Top, s.Workers
	c.DCQCN, c.Roles = s.DCQCN, s.Roles
	c.Seeds, c.ConfirmSeeds = s.Seeds, s.ConfirmSeeds
	if s.Reuse == "" {
		return nil
	}
	var names []string
	for _, sc := range c.Scenarios {
		names = append(names, sc.Name)
	}
	if c.Prior, err = LoadPrior(s.Reuse, names); err != nil {
		return fmt.Errorf("%sreuse: %w", prefix, err)
	}
	return nil
}
