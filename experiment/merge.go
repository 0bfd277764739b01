package experiment

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"graphcc/policy"
	"graphcc/replay"
)

// CheckParts checks that parts are the parts of every shard of one
// evaluation (or search), of kind, run by build: the same kind, build,
// config and number of shards, each shard once. It returns them in shard
// order. Its errors name the file at fault.
func CheckParts(parts []*PartReader, kind, build string) ([]*PartReader, error) {
	if len(parts) == 0 {
		return nil, errors.New("no part files")
	}
	first := parts[0]
	n := first.Shard.Count
	byShard := make([]*PartReader, n)
	for _, p := range parts {
		switch {
		case p.Kind != kind:
			return nil, fmt.Errorf("%s: a part of kind %s, not %s", p.name, p.Kind, kind)
		case p.Build != build:
			return nil, fmt.Errorf("%s: written by another graphcc build (%s), not this one (%s)", p.name, p.Build, build)
		case p.Fingerprint != first.Fingerprint:
			return nil, fmt.Errorf("%s: a part of another evaluation than %s: its %s differ", p.name, first.name, strings.Join(configDiff(first.Part, p.Part), ", "))
		case p.Shard.Count != n:
			return nil, fmt.Errorf("%s: shard %s, a part of %d shards, but %s is of %d", p.name, p.Shard, p.Shard.Count, first.name, n)
		case byShard[p.Shard.Index] != nil:
			return nil, fmt.Errorf("%s: shard %s again: %s is that shard too", p.name, p.Shard, byShard[p.Shard.Index].name)
		}
		byShard[p.Shard.Index] = p
	}
	var missing []string
	for i, p := range byShard {
		if p == nil {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		if len(missing) > 10 {
			missing = append(missing[:10], "…")
		}
		return nil, fmt.Errorf("shard %s of %d missing: no part of %d given (%d parts, the first %s)", strings.Join(missing, ", "), n, n, len(parts), first.name)
	}
	return byShard, nil
}

// Merge puts together the parts of every shard of one evaluation, run by
// graphcc build build, into its Report: the report Evaluate of the whole
// evaluation returns, the same but for the machine's figures that the
// runs' summaries carry (wall_seconds and peak_rss_bytes, Report's
// exceptions), which are the parts' own. It refuses, naming the file,
// parts of different evaluations (config), of another number of shards,
// of another build, a shard given twice or missing, a damaged unit. It
// reads the parts' units in step, in the units' canonical order, and
// merges each policy's runs on a scenario as soon as it has every seed's,
// so that it holds about one policy's records on one scenario at a time.
func Merge(parts []*PartReader, build string) (*Report, error) {
	return MergeKind(parts, PartEval, build)
}

// MergeKind is Merge of parts of kind: PartEval, or PartHeadroom, whose
// units are an evaluation's too (package experiment/headroom puts its
// report together from theirs).
func MergeKind(parts []*PartReader, kind, build string) (*Report, error) {
	byShard, err := CheckParts(parts, kind, build)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	rep, err := mergeUnits(byShard)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	return rep, nil
}

// mergeUnits builds the report of the units of byShard, every shard's
// part of one evaluation in shard order.
func mergeUnits(byShard []*PartReader) (*Report, error) {
	c, err := byShard[0].Config.config()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", byShard[0].name, err)
	}
	e := newEvaluation(c, Shard{Index: 0, Count: 1})
	n := len(byShard)
	for u := range byShard[0].Config.units() {
		pu, err := byShard[u%n].Next()
		if err == io.EOF {
			err = fmt.Errorf("%s: no unit %d", byShard[u%n].name, u)
		}
		if err != nil {
			return nil, err
		}
		e.keep(u, &replay.Result{Summary: pu.Summary, FCT: pu.FCT}, pu.Rewards, pu.Flows, pu.FailedLinks)
	}
	for _, p := range byShard {
		if _, err := p.Next(); err != io.EOF {
			return nil, err
		}
	}
	e.rep.setGeoMeans()
	e.rep.setYardstickGeoMeans()
	return e.rep, nil
}

// config returns the evaluation pc records as far as its report needs it:
// its scenarios, and its policies and rewards by name only.
func (pc *PartConfig) config() (Config, error) {
	c := Config{Seeds: pc.Seeds, Params: pc.Params, Interval: pc.IntervalPs, Reference: pc.Reference,
		Yardsticks: pc.Yardsticks, YardstickNote: pc.YardstickNote, ShowRewards: pc.ShowRewards}
	for _, r := range pc.Scenarios {
		sc, err := r.Scenario()
		if err != nil {
			return Config{}, err
		}
		c.Scenarios = append(c.Scenarios, sc)
	}
	for _, p := range pc.Policies {
		c.Policies = append(c.Policies, policy.Named{Name: p.Name})
	}
	for _, r := range pc.Rewards {
		c.Rewards = append(c.Rewards, NamedReward{Name: r})
	}
	return c, nil
}
