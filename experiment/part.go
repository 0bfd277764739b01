package experiment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"graphcc/control"
	"graphcc/metrics"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/trace"
)

// PartFormat is the format field of every part file.
const PartFormat = "graphcc-part/1"

// The kinds of part (Part.Kind).
const (
	// PartEval is a shard of an evaluation (EvaluatePart).
	PartEval = "eval"
	// PartTuneGrid is a shard of the grid round of a search (package
	// experiment/tune writes and reads its Tune and Runs).
	PartTuneGrid = "tune-grid"
	// PartHeadroom is a shard of the runs of a headroom measurement known
	// before its schedule: its units are an evaluation's, as an eval
	// part's, and package experiment/headroom writes and reads its Tune,
	// the rest of the measurement.
	PartHeadroom = "headroom"
)

// A Part is what one shard of an evaluation ran (EvaluatePart): the
// evaluation, recorded whole (PartConfig), the shard, the graphcc build
// that ran it and every unit's result, all that Merge needs to write the
// report Evaluate writes of the whole. docs/formats.md describes its file.
type Part struct {
	Kind string // PartEval, PartTuneGrid or PartHeadroom
	// Build identifies the graphcc build that ran the shard (the CLI
	// records version.ID); Merge refuses parts of another.
	Build  string
	Shard  Shard
	Config PartConfig
	// Fingerprint is "sha256:HEX" of Config's JSON (with Tune's, for a
	// tune-grid part): parts of the same evaluation have the same
	// (Fingerprint).
	Fingerprint string
	// Tune is the search a tune-grid part is of, or the measurement a
	// headroom part is of, as JSON, nil for an eval part; packages
	// experiment/tune and experiment/headroom write and read it.
	Tune json.RawMessage
	// Units are the results of an eval or headroom part's units, in the
	// canonical order.
	Units []PartUnit
	// Runs are the grid configurations a tune-grid part ran, scored, as
	// JSON (package experiment/tune); nil for an eval part.
	Runs json.RawMessage
}

// PartConfig records everything an evaluation's results depend on, in a
// canonical form: two evaluations with equal PartConfigs (run by one
// graphcc build) give equal reports. Scenarios are recorded whole (so
// that parts merge where the scenario files are not), policies by their
// canonical spec and, per scenario, their Inputs (the digest of a model
// file, a tune result's best_policy, how acc trains); the simulator's
// Params and Interval with their defaults filled in; the reference
// resolved.
type PartConfig struct {
	Scenarios  []scenario.Record `json:"scenarios"`
	Policies   []PartPolicy      `json:"policies"`
	Seeds      []uint64          `json:"seeds"`
	Params     replay.Params     `json:"params"`
	IntervalPs int64             `json:"interval_ps"`
	Reference  string            `json:"reference"`
	Yardsticks []string          `json:"yardsticks,omitempty"`
	// YardstickNote is Config.YardstickNote.
	YardstickNote string   `json:"yardstick_note,omitempty"`
	Rewards       []string `json:"rewards,omitempty"`
	ShowRewards   bool     `json:"show_rewards,omitempty"`
}

// PartPolicy is a policy in a PartConfig: its name (canonical spec) and,
// if its runs depend on more (policy.Named.Inputs), that per scenario.
type PartPolicy struct {
	Name   string   `json:"name"`
	Inputs []string `json:"inputs,omitempty"`
}

// PartUnit is the result of one unit: what the report needs of one
// policy's run on one trace.
type PartUnit struct {
	// Unit is the unit's index in the canonical order (Shard), Scenario,
	// Policy and Seed what it ran.
	Unit     int
	Scenario string
	Policy   string
	Seed     uint64
	// Flows and FailedLinks describe the trace: its flows, and its failed
	// links by name (nil when none failed).
	Flows       int
	FailedLinks []string
	// Summary is the run's summary, FCT its records in completion order.
	Summary metrics.Summary
	FCT     []trace.FCT
	// Rewards are the run's scores under the evaluation's rewards (NaN
	// where no interval was scored); nil without rewards, or for a policy
	// without telemetry (ideal).
	Rewards []float64
}

// newPartConfig records c (validated).
func newPartConfig(c Config) (PartConfig, error) {
	pc := PartConfig{Seeds: slices.Clone(c.Seeds), Params: c.Params, IntervalPs: c.Interval,
		Reference: c.Reference, Yardsticks: slices.Clone(c.Yardsticks), YardstickNote: c.YardstickNote, ShowRewards: c.ShowRewards}
	if pc.Params.Payload == 0 {
		pc.Params = replay.DefaultParams() // as the simulator takes the zero Params
	}
	if pc.IntervalPs == 0 {
		pc.IntervalPs = control.DefaultInterval
	}
	if pc.Reference == "" {
		pc.Reference = c.Policies[0].Name
	}
	for _, sc := range c.Scenarios {
		r, err := scenario.NewRecord(sc)
		if err != nil {
			return PartConfig{}, err
		}
		pc.Scenarios = append(pc.Scenarios, r)
	}
	for _, p := range c.Policies {
		pp := PartPolicy{Name: p.Name}
		if p.Inputs != nil {
			for _, sc := range c.Scenarios {
				in, err := p.Inputs(sc)
				if err != nil {
					return PartConfig{}, fmt.Errorf("policy %s on scenario %s: %w", p.Name, sc.Name, err)
				}
				pp.Inputs = append(pp.Inputs, in)
			}
		}
		pc.Policies = append(pc.Policies, pp)
	}
	for _, r := range c.Rewards {
		pc.Rewards = append(pc.Rewards, r.Name)
	}
	return pc, nil
}

// Fingerprint returns a part's Fingerprint: "sha256:HEX" of the JSON of
// pc and, for a tune-grid part, its search tune (nil for an eval part).
func Fingerprint(pc *PartConfig, tune json.RawMessage) (string, error) {
	b, err := json.Marshal(struct {
		Config *PartConfig     `json:"config"`
		Tune   json.RawMessage `json:"tune,omitempty"`
	}{pc, tune})
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// units is the number of units of the evaluation pc records.
func (pc *PartConfig) units() int { return len(pc.Scenarios) * len(pc.Policies) * len(pc.Seeds) }

// unit returns the scenario, policy and seed of unit u.
func (pc *PartConfig) unit(u int) (string, string, uint64) {
	nseed, npol := len(pc.Seeds), len(pc.Policies)
	return pc.Scenarios[u/(npol*nseed)].Name, pc.Policies[u/nseed%npol].Name, pc.Seeds[u%nseed]
}

// maxPartUnits bounds the units of a part file's evaluation, far above
// any real sweep (the suite's 11 scenarios, 265 settings, 10 seeds make
// 29,150), so that a damaged file cannot make a reader allocate without
// bound.
const maxPartUnits = 10_000_000

// check reports what makes pc not an evaluation's record: no scenario,
// policy or seed, one given twice, a reference or yardstick that is not
// a policy, inputs not one per scenario.
func (pc *PartConfig) check() error {
	switch {
	case len(pc.Scenarios) == 0 || len(pc.Policies) == 0 || len(pc.Seeds) == 0:
		return fmt.Errorf("%d scenarios, %d policies, %d seeds: want at least one of each", len(pc.Scenarios), len(pc.Policies), len(pc.Seeds))
	case len(pc.Scenarios) > maxPartUnits || len(pc.Policies) > maxPartUnits || len(pc.Seeds) > maxPartUnits ||
		len(pc.Scenarios)*len(pc.Policies) > maxPartUnits || pc.units() > maxPartUnits:
		return fmt.Errorf("more than %d units", maxPartUnits)
	}
	if name, ok := repeated(pc.Scenarios, func(s scenario.Record) string { return s.Name }); ok {
		return fmt.Errorf("scenario %q given twice", name)
	}
	names := map[string]bool{}
	for _, p := range pc.Policies {
		switch {
		case names[p.Name]:
			return fmt.Errorf("policy %q given twice", p.Name)
		case p.Inputs != nil && len(p.Inputs) != len(pc.Scenarios):
			return fmt.Errorf("policy %q: %d inputs for %d scenarios", p.Name, len(p.Inputs), len(pc.Scenarios))
		}
		names[p.Name] = true
	}
	if !names[pc.Reference] {
		return fmt.Errorf("reference %q is not one of the policies", pc.Reference)
	}
	for i, y := range pc.Yardsticks {
		if !names[y] || slices.Contains(pc.Yardsticks[:i], y) {
			return fmt.Errorf("yardstick %q: not one of the policies, or given twice", y)
		}
	}
	if seed, ok := repeated(pc.Seeds, func(s uint64) uint64 { return s }); ok {
		return fmt.Errorf("seed %d given twice", seed)
	}
	return nil
}

// EvaluatePart runs the units of shard s of the evaluation c (Shard
// says which) and returns its part, for Merge to put together with the
// other shards' parts. Its Build is empty: the caller names its build.
// Its errors are Evaluate's.
func EvaluatePart(ctx context.Context, c Config, s Shard) (*Part, error) {
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	if s == (Shard{}) {
		s = Shard{Index: 0, Count: 1}
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	pc, err := newPartConfig(c)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	p := &Part{Kind: PartEval, Shard: s, Config: pc}
	if p.Fingerprint, err = Fingerprint(&pc, nil); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	e := newEvaluation(c, s)
	e.units = make([]PartUnit, e.nsc*e.npol*e.nseed)
	if err := e.runAll(ctx); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	for _, u := range s.Units(len(e.units)) {
		p.Units = append(p.Units, e.units[u])
	}
	return p, nil
}

// configDiff names the fields of a's and b's configs (with their
// searches', tune) where they differ, for Merge's refusal of parts of
// different evaluations.
func configDiff(a, b *Part) []string {
	var out []string
	fields := func(p *Part) map[string]json.RawMessage {
		jc, _ := json.Marshal(p.Config)
		var m map[string]json.RawMessage
		json.Unmarshal(jc, &m)
		m["tune"] = p.Tune
		return m
	}
	ma, mb := fields(a), fields(b)
	for k, v := range ma {
		if !bytes.Equal(v, mb[k]) {
			out = append(out, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
