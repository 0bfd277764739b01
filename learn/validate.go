package learn

import (
	"context"
	"fmt"
	"math"
	"sync"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/metrics"
	"graphcc/replay"
	"graphcc/trace"
)

// validate runs the greedy policy of net's weights on the episode of every
// validation seed, to its end, in parallel (c.Workers at a time), and
// returns the mean FCT slowdown of all their finished flows together, as
// evaluation computes it (metrics.SlowdownStats; NaN if none finished).
func validate(ctx context.Context, c *Config, net qnet) (float64, []float64, error) {
	type job struct {
		set  int
		seed uint64
		fct  []trace.FCT
		err  error
	}
	sets := c.validateSets()
	var jobs []job
	for i, set := range sets {
		for _, seed := range set.Seeds {
			jobs = append(jobs, job{set: i, seed: seed})
		}
	}
	sem := make(chan struct{}, c.Workers)
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			j := &jobs[i]
			j.fct, j.err = validateRun(ctx, c, net, &sets[j.set], j.seed)
			if j.err != nil && sets[j.set].Name != "" {
				j.err = fmt.Errorf("%s: %w", sets[j.set].Name, j.err)
			}
		})
	}
	wg.Wait()
	by := make([]float64, len(sets))
	logSum := 0.0
	for i := range sets {
		var all []trace.FCT // in seed order, as evaluation merges its seeds
		for _, j := range jobs {
			if j.err != nil {
				return 0, nil, j.err
			}
			if j.set == i {
				all = append(all, j.fct...)
			}
		}
		by[i] = math.NaN()
		if st := metrics.SlowdownStats(all, nil); st.Count > 0 {
			by[i] = st.Mean
		}
		logSum += math.Log(by[i])
	}
	if len(c.ValidateSets) == 0 {
		return by[0], nil, nil
	}
	return math.Exp(logSum / float64(len(sets))), by, nil
}

// validateRun runs the greedy policy of net on set's episode of seed to
// its end and returns the FCT records.
func validateRun(ctx context.Context, c *Config, net qnet, set *ValidateSet, seed uint64) ([]trace.FCT, error) {
	f, flows, err := set.Episode(seed)
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	events, err := linkEvents(set.Events, seed, f)
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	var pol control.Policy
	switch n := net.(type) {
	case *mpnnNet:
		g, err := gnn.NewGraphCC(n.m, f, c.Features)
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
		defer g.Inference().Close()
		pol = g
	case *accNet:
		a, err := gnn.NewACCFrom(n.nets, n.ports, f, c.Features)
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
		pol = a
	}
	out, err := replay.RunContext(ctx, replay.Config{
		Fabric: f, Flows: flows, Params: c.Params, Seed: seed, Policy: pol, Interval: c.Interval, LinkEvents: events,
	})
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	return out.FCT, nil
}
