package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
)

// LoadPrior reads the tune results of dir (DIR/<scenario>.json) for those
// of scenarios that have one, for Config.Prior: their runs are scores
// a multi-scenario search need not simulate again. A file that exists but
// is not a one-scenario tune result of that scenario is an error naming
// it; a scenario without a file is left out.
func LoadPrior(dir string, scenarios []string) ([]*Result, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	var out []*Result
	for _, name := range scenarios {
		path := filepath.Join(dir, name+".json")
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var r Result
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: not a tune result: %w", path, err)
		}
		if r.Scenario != name {
			return nil, fmt.Errorf("%s: a tune result of scenario %q, not %q", path, r.Scenario, name)
		}
		r.source = path
		out = append(out, &r)
	}
	return out, nil
}

// priorScores indexes c.Prior by scenario (c.Scenarios' order) and
// configuration spec, after checking that every prior result scored on
// c's validation seeds and hardware. A result without Hardware (written
// before tune recorded it) counts as made with the default hardware, as
// make yardsticks makes them.
func (c *Config) priorScores() ([]map[string]float64, error) {
	if len(c.Prior) == 0 {
		return nil, nil
	}
	hw := policy.Hardware(c.Params, c.Interval)
	def := policy.Hardware(replay.Params{}, 0) // the default
	out := make([]map[string]float64, len(c.Scenarios))
	for _, r := range c.Prior {
		name := r.source
		if name == "" {
			name = "scenario " + r.Scenario
		}
		j := slices.IndexFunc(c.Scenarios, func(s scenario.Scenario) bool { return s.Name == r.Scenario })
		switch {
		case r.Scenario == "" || j < 0:
			return nil, fmt.Errorf("prior %s: a tune result of %q, not of one of the scenarios searched", name, r.Scenario)
		case out[j] != nil:
			return nil, fmt.Errorf("prior %s: scenario %s given twice", name, r.Scenario)
		case !slices.Equal(r.Seeds, c.Seeds):
			return nil, fmt.Errorf("prior %s: scored on seeds %v, this search on %v", name, r.Seeds, c.Seeds)
		case r.Hardware != hw && !(r.Hardware == "" && hw == def):
			return nil, fmt.Errorf("prior %s: made with other simulated hardware (%s), this search's is %s", name, orDefault(r.Hardware), hw)
		}
		out[j] = map[string]float64{}
		for _, run := range r.Runs {
			if !(run.Score > 0) || math.IsInf(run.Score, 0) {
				return nil, fmt.Errorf("prior %s: run %s has score %v", name, run.Policy, run.Score)
			}
			out[j][policy.Canonical(run.Policy)] = run.Score
		}
	}
	return out, nil
}

// orDefault names a Hardware of "" (a result from before it was recorded).
func orDefault(hw string) string {
	if hw == "" {
		return "not recorded: the default"
	}
	return hw
}
