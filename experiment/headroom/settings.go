package headroom

import (
	"fmt"

	"graphcc/experiment/tune"
	"graphcc/topo"
)

// Settings are a measurement's settings as a person writes them (graphcc
// headroom's flags): the search's grid by name ("coarse" for CoarseGrid,
// else as tune.ParseGrid), a finished search to reuse and tune results
// whose best configurations a segment may also take (LoadTuned files;
// "" and nil for none), and the segment length (topo.ParseDuration).
// DefaultSettings gives headroom's defaults.
type Settings struct {
	Grid    string
	Tune    string
	Also    []string
	Segment string
}

// DefaultSettings returns headroom's defaults: the coarse grid, no
// finished search, nothing else to take, and DefaultSegment.
func DefaultSettings() Settings {
	return Settings{Grid: "coarse", Segment: topo.FormatDuration(DefaultSegment)}
}

// Apply checks s and sets them in c. Errors name the setting prefix and
// its key: segment, grid, tune, also (with prefix "--", headroom's flags).
func (s Settings) Apply(c *Config, prefix string) error {
	var err error
	if c.Segment, err = topo.ParseDuration(prefix+"segment", s.Segment, false); err != nil {
		return err
	}
	if c.Grid = CoarseGrid(); s.Grid != "coarse" {
		if c.Grid, err = tune.ParseGrid(prefix+"grid", s.Grid); err != nil {
			return err
		}
	}
	if s.Tune != "" {
		if c.Tuned, err = LoadTuned(s.Tune); err != nil {
			return fmt.Errorf("%stune: %w", prefix, err)
		}
	}
	for _, path := range s.Also {
		tr, err := LoadTuned(path)
		if err != nil {
			return fmt.Errorf("%salso: %w", prefix, err)
		}
		c.Also = append(c.Also, tr.Best)
	}
	return nil
}
