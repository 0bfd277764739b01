package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"graphcc/control"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
)

// Config is an evaluation: every policy on every scenario at every seed.
type Config struct {
	Scenarios []scenario.Scenario
	Policies  []policy.Named
	// Seeds seed both the traffic (and random failures) of each scenario
	// and the simulation; every policy runs on the same trace with the same
	// simulation seed.
	Seeds []uint64
	// Params are the hardware constants; the zero value means DefaultParams().
	Params replay.Params
	// Interval is the control interval; 0 means DefaultInterval.
	Interval int64
	// Reference names the policy the reports normalize to; "" means the
	// first policy.
	Reference string
	// Yardsticks name policies of Policies that every policy is measured
	// against besides the reference (Report.Yardsticks): per scenario its
	// mean slowdown and short-flow p99 divided by each one's, with
	// intervals, their geometric means over the scenarios, the scenario
	// of its worst ratio and those where it is above 1.
	Yardsticks []string
	// YardstickNote, if not "", is one line for the report on the
	// yardsticks: which default one they hold or why none
	// (DefaultYardstick).
	YardstickNote string
	// Workers is the number of simulations run at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, if not nil, is called after each run with the runs finished
	// and the total; calls never overlap.
	Progress func(done, total int)
	// Rewards, if any, score every run the way training would have
	// rewarded it (see NamedReward), whatever its policy.
	Rewards []NamedReward
	// ShowRewards puts the rewards' scores in the Markdown report (a
	// column per reward, and how each ranks the policies). The JSON report
	// has them whether or not.
	ShowRewards bool
}

// NamedReward scores runs for an evaluation under the name its reports use.
// New builds, for the fabric of one run, a function that is called once per
// control interval with its telemetry and returns the interval's reward (a
// mean over the agents: learn.RewardMeter.Score). A run's score is the mean
// over the intervals that end within its scenario's arrival window
// (GenConfig.Duration after its first flow starts; the whole run when the
// window is 0): what a training episode on the scenario sees.
type NamedReward struct {
	Name string
	New  func(f *topo.Fabric) func(t *control.Telemetry) float64
}

// scored is a policy under an evaluation's rewards: it scores each
// interval that ends by end, then lets the policy decide.
type scored struct {
	control.Policy
	score []func(*control.Telemetry) float64
	end   int64 // last interval end scored, ps; math.MaxInt64 for all
	sum   []float64
	n     int
}

// HostParams forwards the wrapped policy's hosts' DCQCN constants
// (control.HostTuner): scoring a run must not change what it runs.
func (s *scored) HostParams() (control.HostParams, bool) { return control.HostParamsOf(s.Policy) }

// DecidesHosts and DecideHosts forward the wrapped policy's hosts' DCQCN
// decisions (control.HostDecider).
func (s *scored) DecidesHosts() bool {
	_, ok := control.HostDeciderOf(s.Policy)
	return ok
}

func (s *scored) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	if d, ok := control.HostDeciderOf(s.Policy); ok {
		d.DecideHosts(t, hosts)
	}
}

func (s *scored) Decide(t *control.Telemetry, ecn []control.ECN) {
	if t.Now <= s.end {
		for i, f := range s.score {
			s.sum[i] += f(t)
		}
		s.n++
	}
	s.Policy.Decide(t, ecn)
}

// means returns the mean score of each reward, NaN where no interval was
// scored.
func (s *scored) means() []float64 {
	out := make([]float64, len(s.sum))
	for i, v := range s.sum {
		out[i] = math.NaN()
		if s.n > 0 {
			out[i] = v / float64(s.n)
		}
	}
	return out
}

// mergeRewards returns the mean over runs of each reward's score, and the
// runs' scores.
func mergeRewards(runs [][]float64) (mean []float64, per [][]float64) {
	per = make([][]float64, len(runs))
	for i, r := range runs {
		per[i] = r
		if mean == nil {
			mean = make([]float64, len(r))
		}
		for k, v := range r {
			mean[k] += v / float64(len(runs))
		}
	}
	return mean, per
}

// Evaluate runs every policy of c on every scenario at every seed and
// gathers the results. Each (scenario, seed) trace is built once and every
// policy runs on it with the same simulation seed. Runs go in parallel,
// c.Workers at a time, each its own Sim on its own copy of the flows (the
// fabric, which nothing modifies, is shared). If ctx is done, or a run
// fails, Evaluate stops the runs in progress within a few milliseconds and
// returns the error.
func Evaluate(ctx context.Context, c Config) (*Report, error) {
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	e := newEvaluation(c, Shard{})
	if err := e.runAll(ctx); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	e.rep.setGeoMeans()
	e.rep.setYardstickGeoMeans()
	return e.rep, nil
}

// newReport returns the report of c before any run: its names, seeds and
// bins, and a result slot for every scenario and policy.
func newReport(c Config) *Report {
	ref := c.Reference
	if ref == "" {
		ref = c.Policies[0].Name
	}
	rep := &Report{
		Reference:     ref,
		Yardsticks:    slices.Clone(c.Yardsticks),
		YardstickNote: c.YardstickNote,
		ShowRewards:   c.ShowRewards,
		Seeds:         slices.Clone(c.Seeds),
		Bins:          metrics.FigureBins(),
		Scenarios:     make([]ScenarioResult, len(c.Scenarios)),
	}
	for _, p := range c.Policies {
		rep.Policies = append(rep.Policies, p.Name)
	}
	for _, r := range c.Rewards {
		rep.Rewards = append(rep.Rewards, r.Name)
	}
	for i := range rep.Scenarios {
		rep.Scenarios[i] = ScenarioResult{
			Scenario:    c.Scenarios[i],
			Flows:       make([]int, len(c.Seeds)),
			FailedLinks: make([][]string, len(c.Seeds)),
			Policies:    make([]PolicyResult, len(c.Policies)),
		}
	}
	return rep
}

// sharedTrace is the trace of one (scenario, seed): built by the first run
// that needs it and dropped when the last one has finished with it.
type sharedTrace struct {
	once  sync.Once
	f     *topo.Fabric
	flows []trace.Flow
	err   error
	left  atomic.Int32
}

// evaluation is the state of one Evaluate (or EvaluatePart, or Merge):
// the runs' shared traces and the results waiting to be merged. Runs are
// jobs numbered scenario-major, then seed, then policy, so that the
// policies of one trace run close together; results are indexed
// (scenario, policy, seed), the units' canonical order (unitIndex).
type evaluation struct {
	c                Config
	rep              *Report
	refIdx           int
	yardIdx          []int // the yardsticks' indices in c.Policies
	nsc, npol, nseed int
	jobs             []int         // the jobs to run: all, or a shard's
	traces           []sharedTrace // per (scenario, seed)
	// units, for a part (EvaluatePart), receive each run's result instead
	// of merging it; nil otherwise.
	units []PartUnit
	// Results of (scenario, policy) wait until every seed has run, then are
	// merged in seed order and dropped.
	results []*replay.Result
	rewards [][]float64 // per run, per c.Rewards
	pending []atomic.Int32
	// Once every policy of a scenario is merged, the ratios to the
	// reference get their intervals from the policies' statistics leaving
	// out each seed, which are then dropped.
	loos     []*metrics.Jackknife
	unmerged []atomic.Int32 // per scenario, the policies not merged yet
}

// newEvaluation prepares the runs of c's units in shard s (the zero
// Shard: all of them).
func newEvaluation(c Config, s Shard) *evaluation {
	nsc, npol, nseed := len(c.Scenarios), len(c.Policies), len(c.Seeds)
	e := &evaluation{
		c: c, rep: newReport(c), nsc: nsc, npol: npol, nseed: nseed,
		traces:   make([]sharedTrace, nsc*nseed),
		results:  make([]*replay.Result, nsc*npol*nseed),
		rewards:  make([][]float64, nsc*npol*nseed),
		pending:  make([]atomic.Int32, nsc*npol),
		loos:     make([]*metrics.Jackknife, nsc*npol),
		unmerged: make([]atomic.Int32, nsc),
	}
	e.refIdx = e.rep.RefIndex()
	for _, y := range c.Yardsticks {
		e.yardIdx = append(e.yardIdx, slices.Index(e.rep.Policies, y))
	}
	for job := range nsc * npol * nseed {
		si, ki, pi := e.jobUnit(job)
		if s.Has(e.unitIndex(si, pi, ki)) {
			e.jobs = append(e.jobs, job)
			e.traces[si*nseed+ki].left.Add(1)
		}
	}
	for i := range e.pending {
		e.pending[i].Store(int32(nseed))
	}
	for i := range e.unmerged {
		e.unmerged[i].Store(int32(npol))
	}
	return e
}

// jobUnit returns the scenario, seed and policy indices of job.
func (e *evaluation) jobUnit(job int) (si, ki, pi int) {
	si, rest := job/(e.nseed*e.npol), job%(e.nseed*e.npol)
	return si, rest / e.npol, rest % e.npol
}

// unitIndex is the index of the run of policy pi on scenario si at seed
// index ki in the units' canonical order: scenario-major, then policy,
// then seed, the order of the results (and of the units of a part).
func (e *evaluation) unitIndex(si, pi, ki int) int {
	return (si*e.npol+pi)*e.nseed + ki
}

// runAll runs every job of e.jobs, c.Workers at a time, and returns the
// first error, or the cause of ctx being done between runs.
func (e *evaluation) runAll(ctx context.Context) error {
	total := len(e.jobs)
	workers := e.c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(total, 1))

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		next     atomic.Int64
		mu       sync.Mutex // guards firstErr
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel(err)
	}
	// Progress is called from one goroutine, the reporter, under no lock
	// of runAll's: each worker reports a finished run on finished (room
	// for every run, so it never waits), the reporter counts them.
	finished := make(chan struct{}, total)
	var reporter sync.WaitGroup
	if e.c.Progress != nil {
		reporter.Go(func() {
			done := 0
			for range finished {
				done++
				e.c.Progress(done, total)
			}
		})
	}
	for range workers {
		wg.Go(func() {
			for {
				n := int(next.Add(1) - 1)
				if n >= total || ctx.Err() != nil {
					return
				}
				if err := e.run(ctx, e.jobs[n]); err != nil {
					fail(err)
					return
				}
				finished <- struct{}{}
			}
		})
	}
	wg.Wait()
	close(finished)
	reporter.Wait()
	if firstErr != nil {
		return firstErr
	}
	if ctx.Err() != nil { // cancelled between runs
		return context.Cause(ctx)
	}
	return nil
}

// trace returns the fabric of scenario si at seed index ki and a copy of
// its flows, building the trace on first use.
func (e *evaluation) trace(si, ki int) (*topo.Fabric, []trace.Flow, error) {
	sc, seed := e.c.Scenarios[si], e.c.Seeds[ki]
	tr := &e.traces[si*e.nseed+ki]
	tr.once.Do(func() {
		tr.f, tr.flows, tr.err = sc.Build(seed)
	})
	if tr.err != nil {
		return nil, nil, fmt.Errorf("seed %d: %w", seed, tr.err)
	}
	f, flows := tr.f, slices.Clone(tr.flows)
	if tr.left.Add(-1) == 0 {
		tr.flows = nil
	}
	return f, flows, nil
}

// run runs job: one policy on one trace.
func (e *evaluation) run(ctx context.Context, job int) error {
	si, ki, pi := e.jobUnit(job)
	sc, seed, pol := e.c.Scenarios[si], e.c.Seeds[ki], e.c.Policies[pi]
	f, flows, err := e.trace(si, ki)
	if err != nil {
		return err
	}
	simulate := replay.RunContext
	var (
		policy control.Policy
		ecn    []control.ECN
	)
	if pol.Run != nil {
		simulate = pol.Run
	} else if policy, ecn, err = pol.New(f, sc, seed); err != nil {
		return fmt.Errorf("scenario %s, seed %d: policy %s: %w", sc.Name, seed, pol.Name, err)
	}
	events, err := sc.LinkEvents(f)
	if err != nil {
		return fmt.Errorf("seed %d: %w", seed, err)
	}
	until := trace.WindowEnd(flows, sc.Gen.Duration)
	var sc0 *scored
	if len(e.c.Rewards) > 0 && pol.Run == nil {
		sc0 = e.scorer(policy, f, until)
		policy = sc0
	}
	res, err := simulate(ctx, replay.Config{
		Fabric: f, Flows: flows, Params: e.c.Params, Seed: seed,
		ECN: ecn, Policy: policy, Interval: e.c.Interval, QueueUntil: until, LinkEvents: events,
	})
	if err != nil {
		return fmt.Errorf("scenario %s, seed %d, policy %s: %w", sc.Name, seed, pol.Name, err)
	}
	res.Summary.Phases = metrics.SlowdownByPhase(res.FCT, phasesOf(sc))
	at := e.unitIndex(si, pi, ki)
	var rewards []float64
	if sc0 != nil {
		rewards = sc0.means()
	}
	var failed []string
	if e.units != nil || pi == 0 { // the report takes a trace's from its first policy's run
		failed = failedLinks(sc, f)
	}
	if e.units != nil {
		e.units[at] = PartUnit{Unit: at, Scenario: sc.Name, Policy: pol.Name, Seed: seed, Flows: len(flows),
			FailedLinks: failed, Summary: res.Summary, FCT: res.FCT, Rewards: rewards}
		return nil
	}
	e.keep(at, res, rewards, len(flows), failed)
	return nil
}

// keep records the result of unit at (with its rewards' scores, its
// trace's flows and failed links) and merges its policy's runs on its
// scenario once every seed has run.
func (e *evaluation) keep(at int, res *replay.Result, rewards []float64, flows int, failed []string) {
	si, rest := at/(e.npol*e.nseed), at%(e.npol*e.nseed)
	pi, ki := rest/e.nseed, rest%e.nseed
	e.rewards[at] = rewards
	if pi == 0 {
		sr := &e.rep.Scenarios[si]
		sr.Flows[ki] = flows
		sr.FailedLinks[ki] = failed
	}
	e.results[at] = res
	if e.pending[si*e.npol+pi].Add(-1) == 0 {
		e.merge(si, pi)
	}
}

// scorer wraps policy in the scores of c.Rewards on fabric f, over the
// intervals that end by until (all of them when until is 0).
func (e *evaluation) scorer(policy control.Policy, f *topo.Fabric, until int64) *scored {
	s := &scored{Policy: policy, end: math.MaxInt64, sum: make([]float64, len(e.c.Rewards))}
	if until > 0 {
		s.end = until
	}
	for _, r := range e.c.Rewards {
		s.score = append(s.score, r.New(f))
	}
	return s
}

// merge merges the runs of policy pi on scenario si, every seed's done,
// and, once every policy of the scenario is merged, sets its ratios.
func (e *evaluation) merge(si, pi int) {
	sr := &e.rep.Scenarios[si]
	from, to := (si*e.npol+pi)*e.nseed, (si*e.npol+pi+1)*e.nseed
	rs := e.results[from:to]
	ph := phasesOf(sr.Scenario)
	sr.Policies[pi] = mergeRuns(e.c.Policies[pi].Name, rs, ph)
	if len(e.c.Rewards) > 0 {
		sr.Policies[pi].Rewards, sr.Policies[pi].PerSeedRewards = mergeRewards(e.rewards[from:to])
	}
	if e.nseed >= metrics.MinIntervalSeeds {
		recs, queues := make([][]trace.FCT, e.nseed), make([]float64, e.nseed)
		for k, r := range rs {
			recs[k], queues[k] = r.FCT, r.Summary.QueueBytesMean
		}
		e.loos[si*e.npol+pi] = metrics.NewJackknife(recs, queues, e.rep.Bins, ph)
	}
	clear(rs)
	if e.unmerged[si].Add(-1) == 0 {
		loos := e.loos[si*e.npol : (si+1)*e.npol]
		setRatios(sr, e.refIdx, loos)
		setYardstickRatios(sr, e.yardIdx, loos)
		clear(loos)
	}
}

// setGeoMeans sets r.GeoMeanVsRef when r has several scenarios.
func (r *Report) setGeoMeans() {
	if len(r.Scenarios) < 2 {
		return
	}
	r.GeoMeanVsRef = make([]metrics.Ratio, len(r.Policies))
	vals, loos := make([]float64, len(r.Scenarios)), make([][]float64, len(r.Scenarios))
	for p := range r.Policies {
		for s, sr := range r.Scenarios {
			vals[s], loos[s] = r.NormalizedMeanSlowdown(s, p), sr.Policies[p].meanLOO
		}
		r.GeoMeanVsRef[p] = geoMean(vals, loos, len(r.Seeds))
	}
}

// setRatios sets every policy's ratios to the reference policy ref on sr,
// with their intervals from loos (each policy's statistics leaving out
// each seed) unless those are nil.
func setRatios(sr *ScenarioResult, ref int, loos []*metrics.Jackknife) {
	rp, lr := sr.Policies[ref], loos[ref]
	binStat := [3]func(metrics.Stats) float64{
		func(s metrics.Stats) float64 { return s.P50 },
		func(s metrics.Stats) float64 { return s.P95 },
		func(s metrics.Stats) float64 { return s.P99 },
	}
	for p := range sr.Policies {
		pr, lp := &sr.Policies[p], loos[p]
		// ratio is v with the interval of the ratio of the statistics that
		// loo picks.
		ratio := func(v float64, loo func(*metrics.Jackknife) []float64) metrics.Ratio {
			if lr == nil {
				return metrics.Ratio{Value: v}
			}
			return jackRatio(v, loo(lp), loo(lr))
		}
		pr.MeanVsRef = ratio(metrics.Normalize(pr.Summary.Slowdown.Mean, rp.Summary.Slowdown.Mean), func(l *metrics.Jackknife) []float64 { return l.Mean })
		pr.SmallP99VsRef = ratio(metrics.Normalize(pr.SmallP99, rp.SmallP99), func(l *metrics.Jackknife) []float64 { return l.SmallP99 })
		pr.ThroughputVsRef = ratio(metrics.Normalize(pr.Summary.ThroughputGbpsMean, rp.Summary.ThroughputGbpsMean), func(l *metrics.Jackknife) []float64 { return l.Throughput })
		pr.QueueVsRef = ratio(metrics.Normalize(pr.Summary.QueueBytesMean, rp.Summary.QueueBytesMean), func(l *metrics.Jackknife) []float64 { return l.Queue })
		if lr != nil {
			pr.meanLOO = metrics.JackknifeRatios(lp.Mean, lr.Mean)
		}
		if lp != nil {
			pr.slowdownLOO, pr.smallLOO = lp.Mean, lp.SmallP99
		}
		pr.BinVsRef = make([]BinRatios, len(pr.SlowdownByBin))
		for b := range pr.BinVsRef {
			ps, rs := pr.SlowdownByBin[b], rp.SlowdownByBin[b]
			var out [3]metrics.Ratio
			for i, get := range binStat {
				v := math.NaN()
				if ps.Count > 0 && rs.Count > 0 {
					v = metrics.Normalize(get(ps), get(rs))
				}
				out[i] = ratio(v, func(l *metrics.Jackknife) []float64 { return l.Bins[b][i] })
			}
			pr.BinVsRef[b] = BinRatios{out[0], out[1], out[2]}
		}
		pr.PhaseVsRef = phaseRatios(pr.Summary.Phases, rp.Summary.Phases, lp, lr)
	}
}

// failedLinks names the links of sc's fabric that f lacks.
func failedLinks(sc scenario.Scenario, f *topo.Fabric) []string {
	full, err := sc.BaseFabric()
	if err != nil || len(full.Links) == len(f.Links) {
		return nil
	}
	var out []string
	for _, l := range full.Links {
		if _, ok := f.LinkByName(l.Name); !ok {
			out = append(out, l.Name)
		}
	}
	return out
}

func (c *Config) validate() error {
	switch {
	case len(c.Scenarios) == 0:
		return errors.New("no scenarios")
	case len(c.Policies) == 0:
		return errors.New("no policies")
	case len(c.Seeds) == 0:
		return errors.New("no seeds")
	}
	if name, ok := repeated(c.Scenarios, func(s scenario.Scenario) string { return s.Name }); ok {
		return fmt.Errorf("scenario %q given twice", name)
	}
	seen := map[string]bool{}
	for _, p := range c.Policies {
		switch {
		case p.New == nil && p.Run == nil:
			return fmt.Errorf("policy %q has no factory", p.Name)
		case seen[p.Name]:
			return fmt.Errorf("policy %q given twice", p.Name)
		}
		seen[p.Name] = true
	}
	if c.Reference != "" && !seen[c.Reference] {
		return fmt.Errorf("reference policy %q is not one of the policies (%s)", c.Reference, strings.Join(policyNames(c.Policies), ", "))
	}
	if err := c.validateYardsticks(seen); err != nil {
		return err
	}
	if seed, ok := repeated(c.Seeds, func(s uint64) uint64 { return s }); ok {
		return fmt.Errorf("seed %d given twice", seed)
	}
	return nil
}

// repeated returns the first key of items, by key, that an earlier item
// has too, and whether there is one.
func repeated[T any, K comparable](items []T, key func(T) K) (K, bool) {
	seen := make(map[K]bool, len(items))
	for _, it := range items {
		k := key(it)
		if seen[k] {
			return k, true
		}
		seen[k] = true
	}
	var zero K
	return zero, false
}

// validateYardsticks checks that every yardstick is one of the policies
// (seen: their names), none twice, and that every policy with a check of
// its scenarios (policy.Named.Check: tuned:DIR's result files) can run on
// every scenario, before anything runs.
func (c *Config) validateYardsticks(seen map[string]bool) error {
	yards := map[string]bool{}
	for _, y := range c.Yardsticks {
		switch {
		case !seen[y]:
			return fmt.Errorf("yardstick %q is not one of the policies (%s)", y, strings.Join(policyNames(c.Policies), ", "))
		case yards[y]:
			return fmt.Errorf("yardstick %q given twice", y)
		}
		yards[y] = true
	}
	for _, p := range c.Policies {
		if p.Check == nil {
			continue
		}
		for _, sc := range c.Scenarios {
			if err := p.Check(sc); err != nil {
				return fmt.Errorf("policy %s on scenario %s: %w", p.Name, sc.Name, err)
			}
		}
	}
	return nil
}

func policyNames(ps []policy.Named) []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}

// mergeRuns merges the runs of one policy over the seeds, in seed order,
// on a trace of phases ph (the zero Phases: not phased).
func mergeRuns(name string, runs []*replay.Result, ph metrics.Phases) PolicyResult {
	var recs []trace.FCT
	flows := 0
	per := make([]metrics.Summary, len(runs))
	for i, r := range runs {
		recs = append(recs, r.FCT...)
		flows += r.Summary.Flows
		per[i] = r.Summary
	}
	sum := metrics.Summarize(flows, recs, metrics.DefaultBins())
	sum.Phases = metrics.SlowdownByPhase(recs, ph)
	for _, r := range runs {
		s := r.Summary
		sum.QueueBytesMean += s.QueueBytesMean / float64(len(runs))
		sum.QueueBytesP99 += s.QueueBytesP99 / float64(len(runs))
		sum.QueueFeatureMean += s.QueueFeatureMean / float64(len(runs))
		sum.QueueFeatureP99 += s.QueueFeatureP99 / float64(len(runs))
		sum.QueueSeconds += s.QueueSeconds
		sum.PFCPauses += s.PFCPauses
		sum.ECNMarkedPackets += s.ECNMarkedPackets
		sum.Drops += s.Drops
		sum.Events += s.Events
		sum.SimSeconds += s.SimSeconds
		sum.WallSeconds += s.WallSeconds
		sum.PeakRSSBytes = max(sum.PeakRSSBytes, s.PeakRSSBytes)
		sum.ECNSettings = control.MergeSettings(sum.ECNSettings, s.ECNSettings)
	}
	return PolicyResult{
		Policy:        name,
		Summary:       sum,
		SlowdownByBin: metrics.SlowdownBySize(recs, metrics.FigureBins()),
		SmallP99:      metrics.SlowdownStats(recs, func(r trace.FCT) bool { return r.Size <= metrics.SmallFlowBytes }).P99,
		PerSeed:       per,
	}
}
