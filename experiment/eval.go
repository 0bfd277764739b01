package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"graphcc/control"
	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
)

// EvalConfig is an evaluation: every policy on every scenario at every seed.
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
	// Workers is the number of simulations run at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, if not nil, is called after each run with the runs finished
	// and the total; calls never overlap.
	Progress func(done, total int)
	// Rewards, if any, score every run the way training would have
	// rewarded it (see NamedReward), whatever its policy.
	Rewards []NamedReward
}

// NamedReward scores runs for an evaluation under the name its reports use.
// New builds, for the fabric of one run, a function that is called once per
// control interval with its telemetry and returns the interval's reward (a
// mean over the agents: gnn.RewardMeter.Score). A run's score is the mean
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

// EvalReport is the result of Evaluate. Scenarios and their Policies are in
// the order of the EvalConfig; the report is the same whatever the
// scheduling of the runs, except for the wall_seconds and peak_rss_bytes of
// the summaries, which measure the machine (the Markdown report leaves them
// out).
type Report struct {
	Reference string
	Policies  []string
	Seeds     []uint64
	Bins      []int64 // bounds of PolicyResult.SlowdownByBin (FigureBins)
	// Rewards name the rewards of EvalConfig.Rewards, in order.
	Rewards   []string
	Scenarios []ScenarioResult
	// GeoMeanVsRef is, per policy, the geometric mean over the scenarios
	// of its mean slowdown divided by the reference's (over the scenarios
	// where that is defined), nil with a single scenario. Its interval
	// leaves out one seed at a time from every scenario at once, so that
	// scenarios drawn from the same seeds count as the correlated evidence
	// they are.
	GeoMeanVsRef []metrics.Ratio
}

// ScenarioResult holds every policy's results on one scenario.
type ScenarioResult struct {
	Scenario scenario.Scenario
	// Flows is the number of flows of the trace of each seed.
	Flows []int
	// FailedLinks are the links failed at each seed (Fail and the random
	// ones), by name in link order; nil entries when none failed.
	FailedLinks [][]string
	Policies    []PolicyResult
}

// PolicyResult is one policy on one scenario, over every seed.
type PolicyResult struct {
	Policy string
	// Summary merges the seeds: its slowdown statistics and throughput are
	// those of the FCT records of every seed together, its counters
	// (pfc_pauses, ecn_marked_packets, drops, events) and its sim_seconds
	// and wall_seconds are sums, its queue statistics are means over seeds,
	// and its peak_rss_bytes is the largest.
	Summary metrics.Summary
	// SlowdownByBin are the slowdown statistics per EvalReport.Bins.
	SlowdownByBin []metrics.Stats
	// SmallP99 is the p99 slowdown of the flows of at most SmallFlowBytes.
	SmallP99 float64
	// MeanVsRef is the mean slowdown divided by the reference policy's
	// (NormalizedMeanSlowdown), SmallP99VsRef the same for SmallP99, each
	// with its interval from the variation between seeds (see Ratio).
	MeanVsRef, SmallP99VsRef metrics.Ratio
	// ThroughputVsRef and QueueVsRef are the Summary's ThroughputGbpsMean
	// and QueueBytesMean divided by the reference policy's, with their
	// intervals.
	ThroughputVsRef, QueueVsRef metrics.Ratio
	// BinVsRef are, per figure bin (EvalReport.Bins), the median, p95 and
	// p99 slowdown of SlowdownByBin divided by the reference policy's in
	// the same bin, with their intervals: what the figure plots.
	BinVsRef []BinRatios
	// meanLOO are MeanVsRef's values leaving out each seed in turn (nil
	// without intervals).
	meanLOO []float64
	// PerSeed are the summaries of the single runs, in seed order.
	PerSeed []metrics.Summary
	// Rewards are the policy's scores under EvalReport.Rewards, each the
	// mean over seeds of PerSeedRewards; nil without rewards.
	Rewards []float64
	// PerSeedRewards are the scores of the single runs, in seed order, each
	// in the order of EvalReport.Rewards.
	PerSeedRewards [][]float64
}

// BinRatios are a policy's median, p95 and p99 slowdown in one flow-size
// bin divided by the reference policy's (see PolicyResult.BinVsRef).
type BinRatios struct {
	P50, P95, P99 metrics.Ratio
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
	ref := c.Reference
	if ref == "" {
		ref = c.Policies[0].Name
	}
	nsc, npol, nseed := len(c.Scenarios), len(c.Policies), len(c.Seeds)
	rep := &Report{
		Reference: ref,
		Seeds:     slices.Clone(c.Seeds),
		Bins:      metrics.FigureBins(),
		Scenarios: make([]ScenarioResult, nsc),
	}
	for _, p := range c.Policies {
		rep.Policies = append(rep.Policies, p.Name)
	}
	refIdx := rep.RefIndex()
	for _, r := range c.Rewards {
		rep.Rewards = append(rep.Rewards, r.Name)
	}
	for i := range rep.Scenarios {
		rep.Scenarios[i] = ScenarioResult{
			Scenario:    c.Scenarios[i],
			Flows:       make([]int, nseed),
			FailedLinks: make([][]string, nseed),
			Policies:    make([]PolicyResult, npol),
		}
	}

	// A trace is built by the first run that needs it and dropped when the
	// last one has finished with it.
	type sharedTrace struct {
		once  sync.Once
		f     *topo.Fabric
		flows []trace.Flow
		err   error
		left  atomic.Int32
	}
	traces := make([]sharedTrace, nsc*nseed)
	for i := range traces {
		traces[i].left.Store(int32(npol))
	}
	// Results of (scenario, policy) wait until every seed has run, then are
	// merged in seed order and dropped.
	results := make([]*replay.Result, nsc*npol*nseed)
	rewards := make([][]float64, nsc*npol*nseed) // per run, per c.Rewards
	pending := make([]atomic.Int32, nsc*npol)
	for i := range pending {
		pending[i].Store(int32(nseed))
	}
	// Once every policy of a scenario is merged, the ratios to the
	// reference get their intervals from the policies' statistics leaving
	// out each seed, which are then dropped.
	loos := make([]*metrics.Jackknife, nsc*npol)
	unmerged := make([]atomic.Int32, nsc)
	for i := range unmerged {
		unmerged[i].Store(int32(npol))
	}

	total := nsc * npol * nseed
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, total)

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		next     atomic.Int64
		mu       sync.Mutex // guards firstErr, done and Progress calls
		firstErr error
		done     int
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
	// Jobs are numbered scenario-major, then seed, then policy, so that the
	// policies of one trace run close together.
	run := func(job int) error {
		si, rest := job/(nseed*npol), job%(nseed*npol)
		ki, pi := rest/npol, rest%npol
		sc, seed, pol := c.Scenarios[si], c.Seeds[ki], c.Policies[pi]
		tr := &traces[si*nseed+ki]
		tr.once.Do(func() {
			tr.f, tr.flows, tr.err = sc.Build(seed)
		})
		if tr.err != nil {
			return fmt.Errorf("seed %d: %w", seed, tr.err)
		}
		f, flows := tr.f, slices.Clone(tr.flows)
		if tr.left.Add(-1) == 0 {
			tr.flows = nil
		}
		simulate := replay.RunContext
		var (
			policy control.Policy
			ecn    []control.ECN
			err    error
		)
		if pol.Run != nil {
			simulate = pol.Run
		} else if policy, ecn, err = pol.New(f, sc, seed); err != nil {
			return fmt.Errorf("scenario %s, seed %d: policy %s: %w", sc.Name, seed, pol.Name, err)
		}
		until := queueUntil(flows, sc.Gen.Duration)
		var sc0 *scored
		if len(c.Rewards) > 0 && pol.Run == nil {
			sc0 = &scored{Policy: policy, end: math.MaxInt64, sum: make([]float64, len(c.Rewards))}
			if until > 0 {
				sc0.end = until
			}
			for _, r := range c.Rewards {
				sc0.score = append(sc0.score, r.New(f))
			}
			policy = sc0
		}
		res, err := simulate(ctx, replay.Config{
			Fabric: f, Flows: flows, Params: c.Params, Seed: seed,
			ECN: ecn, Policy: policy, Interval: c.Interval, QueueUntil: until,
		})
		if err != nil {
			return fmt.Errorf("scenario %s, seed %d, policy %s: %w", sc.Name, seed, pol.Name, err)
		}
		if sc0 != nil {
			rewards[(si*npol+pi)*nseed+ki] = sc0.means()
		}
		sr := &rep.Scenarios[si]
		if pi == 0 {
			sr.Flows[ki] = len(flows)
			sr.FailedLinks[ki] = failedLinks(sc, f)
		}
		results[(si*npol+pi)*nseed+ki] = res
		if pending[si*npol+pi].Add(-1) == 0 {
			rs := results[(si*npol+pi)*nseed : (si*npol+pi+1)*nseed]
			sr.Policies[pi] = mergeRuns(pol.Name, rs)
			if len(c.Rewards) > 0 {
				sr.Policies[pi].Rewards, sr.Policies[pi].PerSeedRewards = mergeRewards(rewards[(si*npol+pi)*nseed : (si*npol+pi+1)*nseed])
			}
			if nseed >= metrics.MinIntervalSeeds {
				recs, queues := make([][]trace.FCT, nseed), make([]float64, nseed)
				for k, r := range rs {
					recs[k], queues[k] = r.FCT, r.Summary.QueueBytesMean
				}
				loos[si*npol+pi] = metrics.NewJackknife(recs, queues, rep.Bins)
			}
			clear(rs)
			if unmerged[si].Add(-1) == 0 {
				setRatios(sr, refIdx, loos[si*npol:(si+1)*npol])
				clear(loos[si*npol : (si+1)*npol])
			}
		}
		return nil
	}
	for range workers {
		wg.Go(func() {
			for {
				job := int(next.Add(1) - 1)
				if job >= total || ctx.Err() != nil {
					return
				}
				if err := run(job); err != nil {
					fail(err)
					return
				}
				mu.Lock()
				done++
				if c.Progress != nil {
					c.Progress(done, total)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, fmt.Errorf("evaluate: %w", firstErr)
	}
	if err := ctx.Err(); err != nil { // cancelled between runs
		return nil, fmt.Errorf("evaluate: %w", context.Cause(ctx))
	}
	rep.setGeoMeans()
	return rep, nil
}

// setGeoMeans sets r.GeoMeanVsRef when r has several scenarios.
func (r *Report) setGeoMeans() {
	if len(r.Scenarios) < 2 {
		return
	}
	r.GeoMeanVsRef = make([]metrics.Ratio, len(r.Policies))
	for p := range r.Policies {
		logSum, n := 0.0, 0
		for s := range r.Scenarios {
			if v := r.NormalizedMeanSlowdown(s, p); v > 0 {
				logSum += math.Log(v)
				n++
			}
		}
		g := metrics.Ratio{Value: math.NaN()}
		switch {
		case p == r.RefIndex() && n > 0:
			g.Value = 1
		case n > 0:
			g.Value = math.Exp(logSum / float64(n))
		}
		// The interval needs every scenario's ratios leaving out each seed.
		loo := make([]float64, len(r.Seeds))
		ok := !math.IsNaN(g.Value)
		for _, sr := range r.Scenarios {
			theta := sr.Policies[p].meanLOO
			if len(theta) != len(loo) {
				ok = false
				break
			}
			for k, v := range theta {
				ok = ok && v > 0
				loo[k] += math.Log(v) / float64(len(r.Scenarios))
			}
		}
		if ok {
			g = metrics.LogInterval(g.Value, loo) // loo holds log values already
		}
		r.GeoMeanVsRef[p] = g
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
			if lr == nil || loo(lp) == nil || loo(lr) == nil { // no interval (MinTailPerSeed)
				return metrics.Ratio{Value: v}
			}
			return metrics.LogInterval(v, metrics.Logs(metrics.JackknifeRatios(loo(lp), loo(lr))))
		}
		pr.MeanVsRef = ratio(metrics.Normalize(pr.Summary.Slowdown.Mean, rp.Summary.Slowdown.Mean), func(l *metrics.Jackknife) []float64 { return l.Mean })
		pr.SmallP99VsRef = ratio(metrics.Normalize(pr.SmallP99, rp.SmallP99), func(l *metrics.Jackknife) []float64 { return l.SmallP99 })
		pr.ThroughputVsRef = ratio(metrics.Normalize(pr.Summary.ThroughputGbpsMean, rp.Summary.ThroughputGbpsMean), func(l *metrics.Jackknife) []float64 { return l.Throughput })
		pr.QueueVsRef = ratio(metrics.Normalize(pr.Summary.QueueBytesMean, rp.Summary.QueueBytesMean), func(l *metrics.Jackknife) []float64 { return l.Queue })
		if lr != nil {
			pr.meanLOO = metrics.JackknifeRatios(lp.Mean, lr.Mean)
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
	seen := map[string]bool{}
	for _, s := range c.Scenarios {
		if seen[s.Name] {
			return fmt.Errorf("scenario %q given twice", s.Name)
		}
		seen[s.Name] = true
	}
	clear(seen)
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
	seeds := map[uint64]bool{}
	for _, s := range c.Seeds {
		if seeds[s] {
			return fmt.Errorf("seed %d given twice", s)
		}
		seeds[s] = true
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

// queueUntil is the end of the arrival window of a trace generated over
// duration (its first arrival plus the duration), or 0 without one: the
// span over which evaluation samples queues and scores rewards, the same
// for every policy however long its flows take to finish.
func queueUntil(flows []trace.Flow, duration int64) int64 {
	if duration <= 0 || len(flows) == 0 || trace.FirstStart(flows) > math.MaxInt64-duration {
		return 0
	}
	return trace.FirstStart(flows) + duration
}

// mergeRuns merges the runs of one policy over the seeds, in seed order.
func mergeRuns(name string, runs []*replay.Result) PolicyResult {
	var recs []trace.FCT
	flows := 0
	per := make([]metrics.Summary, len(runs))
	for i, r := range runs {
		recs = append(recs, r.FCT...)
		flows += r.Summary.Flows
		per[i] = r.Summary
	}
	sum := metrics.Summarize(flows, recs, metrics.DefaultBins())
	for _, r := range runs {
		s := r.Summary
		sum.QueueBytesMean += s.QueueBytesMean / float64(len(runs))
		sum.QueueBytesP99 += s.QueueBytesP99 / float64(len(runs))
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

// RefIndex returns the index of the reference policy in r.Policies.
func (r *Report) RefIndex() int {
	return max(0, slices.Index(r.Policies, r.Reference))
}

// NormalizedMeanSlowdown returns the mean slowdown of policy p on scenario
// s divided by the reference policy's.
func (r *Report) NormalizedMeanSlowdown(s, p int) float64 {
	sr := r.Scenarios[s]
	return metrics.Normalize(sr.Policies[p].Summary.Slowdown.Mean, sr.Policies[r.RefIndex()].Summary.Slowdown.Mean)
}

// seedList writes the seeds as "1001, 1002".
func seedList(seeds []uint64) string {
	s := make([]string, len(seeds))
	for i, v := range seeds {
		s[i] = strconv.FormatUint(v, 10)
	}
	return strings.Join(s, ", ")
}

// incompleteNote explains incompleteMark in a report.
const incompleteNote = "† a ratio over completed flows only, where this policy or the reference left flows unfinished: " +
	"a policy that leaves its slowest flows unfinished looks faster than it is"

// incomplete reports whether a policy left flows of sr unfinished.
func (sr *ScenarioResult) incomplete() bool {
	return slices.ContainsFunc(sr.Policies, func(pr PolicyResult) bool { return pr.Summary.Completed < pr.Summary.Flows })
}

// incompleteMark returns " †" if policy p or the reference policy left
// flows of scenario si unfinished, so that their ratios compare different
// sets of flows.
func (r *Report) incompleteMark(si, p int) string {
	sr := &r.Scenarios[si]
	for _, i := range []int{p, r.RefIndex()} {
		if s := sr.Policies[i].Summary; s.Completed < s.Flows {
			return " †"
		}
	}
	return ""
}

// fnum formats a report number with 3 significant decimals, or "–" for NaN.
func fnum(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// fratio formats a ratio as "0.982 (0.970–0.994)", its value and interval
// to 3 decimals, or the value alone without an interval or when the
// interval is that one value (the reference's own).
func fratio(r metrics.Ratio) string {
	v := fnum(r.Value, 3)
	if math.IsNaN(r.Value) || !r.HasInterval() || (r.Lo == r.Value && r.Hi == r.Value) {
		return v
	}
	return fmt.Sprintf("%s (%s–%s)", v, fnum(r.Lo, 3), fnum(r.Hi, 3))
}

// mdCell escapes the characters of s that would break a Markdown table.
func mdCell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

// WriteMarkdown writes the report: per scenario a table of the policies'
// mean and p99 slowdown, p99 slowdown of flows of at most 100 KB, the
// first and last divided by the reference's (MeanVsRef, SmallP99VsRef,
// with their intervals), mean throughput, mean and p99 queue, PFC pauses,
// and for a policy that decides, the number of distinct settings it chose
// and the share of port-steps at the most used one, and its score under
// each reward of the report; then every policy's mean slowdown per
// scenario divided by the reference policy's, with its interval, and their
// geometric mean over the scenarios with its interval (GeoMeanVsRef); then,
// with rewards and at least three policies they score, per scenario and
// reward how well the reward ranks the policies as their mean slowdowns do.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Evaluation\n\n")
	fmt.Fprintf(&b, "Policies %s on %d scenario(s), seeds %s: every policy runs on the same traces with the same simulation seeds. "+
		"Slowdown statistics are over the flows of every seed together (FCT / standalone FCT, p99 as HPCC's analysis: sorted[int(0.99·n)]); "+
		"throughput is the mean over flows of size/FCT; queues are every switch egress port sampled every control interval over the arrival window (first arrival to the end of the scenario's duration: the same span for every policy), averaged over seeds; "+
		"PFC pauses are summed over seeds. Reference policy: %s.\n",
		strings.Join(r.Policies, ", "), len(r.Scenarios), seedList(r.Seeds), r.Reference)
	if len(r.Seeds) >= metrics.MinIntervalSeeds {
		fmt.Fprintf(&b, "Ratios to %s carry %.0f %% intervals from the variation between seeds (delete-one-seed jackknife of the ratio's logarithm, Student's t with %d degrees of freedom); "+
			"an interval that excludes 1 marks a difference that the traffic of other seeds would likely show too.\n", r.Reference, 100*metrics.CILevel, len(r.Seeds)-1)
	} else {
		fmt.Fprintf(&b, "Ratios to %s have no intervals: those come from the variation between seeds and need at least %d.\n", r.Reference, metrics.MinIntervalSeeds)
	}
	for si, sr := range r.Scenarios {
		flows := 0
		for _, n := range sr.Flows {
			flows += n
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s. %s flows over %d seed(s).", sr.Scenario.Name, sr.Scenario.Describe(),
			groupThousands(flows), len(sr.Flows))
		var failed []string
		for k, names := range sr.FailedLinks {
			if len(names) > 0 {
				failed = append(failed, fmt.Sprintf("seed %d: %s", r.Seeds[k], strings.Join(names, ", ")))
			}
		}
		if len(failed) > 0 {
			fmt.Fprintf(&b, " Failed links: %s.", strings.Join(failed, "; "))
		}
		b.WriteString("\n\n")
		ci := ""
		if len(r.Seeds) >= metrics.MinIntervalSeeds {
			ci = fmt.Sprintf(" (%.0f %% CI)", 100*metrics.CILevel)
		}
		fmt.Fprintf(&b, "| policy | mean slowdown | p99 slowdown | p99 slowdown ≤100KB | mean slowdown / %s%s | p99 ≤100KB / %s%s | mean throughput (Gbps) | mean queue (KB) | p99 queue (KB) | PFC pauses | settings used (top share) |",
			mdCell(r.Reference), ci, mdCell(r.Reference), ci)
		for _, rn := range r.Rewards {
			fmt.Fprintf(&b, " reward %s |", mdCell(rn))
		}
		b.WriteString("\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + strings.Repeat("---:|", len(r.Rewards)) + "\n")
		var notes []string
		for pi, pr := range sr.Policies {
			s := pr.Summary
			used := "—"
			if n, top := control.TopSettingShare(s.ECNSettings); n > 0 {
				used = fmt.Sprintf("%d (%.1f %%)", n, 100*top)
			}
			mark := r.incompleteMark(si, pi)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s%s | %s%s | %s | %s | %s | %d | %s |", mdCell(pr.Policy),
				fnum(s.Slowdown.Mean, 3), fnum(s.Slowdown.P99, 3), fnum(pr.SmallP99, 3),
				fratio(pr.MeanVsRef), mark, fratio(pr.SmallP99VsRef), mark, fnum(s.ThroughputGbpsMean, 3), fnum(s.QueueBytesMean/1000, 1), fnum(s.QueueBytesP99/1000, 1), s.PFCPauses, used)
			for k := range r.Rewards {
				fmt.Fprintf(&b, " %s |", fnum(rewardOf(pr, k), 4))
			}
			b.WriteString("\n")
			if s.Completed < s.Flows {
				notes = append(notes, fmt.Sprintf("%s: %d of %d flows completed (statistics are over the completed ones)", pr.Policy, s.Completed, s.Flows))
			}
		}
		if sr.incomplete() {
			notes = append(notes, incompleteNote)
		}
		for _, n := range notes {
			fmt.Fprintf(&b, "\n%s.\n", mdCell(n))
		}
	}

	fmt.Fprintf(&b, "\n## Overall: mean slowdown / %s's\n\n", r.Reference)
	b.WriteString("| scenario |")
	for _, p := range r.Policies {
		fmt.Fprintf(&b, " %s |", mdCell(p))
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(r.Policies)) + "\n")
	for si, sr := range r.Scenarios {
		fmt.Fprintf(&b, "| %s |", sr.Scenario.Name)
		for pi := range r.Policies {
			cell := metrics.Ratio{Value: r.NormalizedMeanSlowdown(si, pi)}
			if m := sr.Policies[pi].MeanVsRef; m.HasInterval() {
				cell.Lo, cell.Hi = m.Lo, m.Hi
			}
			fmt.Fprintf(&b, " %s%s |", fratio(cell), r.incompleteMark(si, pi))
		}
		b.WriteString("\n")
	}
	if r.GeoMeanVsRef != nil {
		b.WriteString("| geometric mean |")
		for pi, g := range r.GeoMeanVsRef {
			mark := ""
			for si := range r.Scenarios {
				mark = cmp.Or(mark, r.incompleteMark(si, pi))
			}
			fmt.Fprintf(&b, " %s%s |", fratio(g), mark)
		}
		b.WriteString("\n")
	}
	if slices.ContainsFunc(r.Scenarios, func(sr ScenarioResult) bool { return sr.incomplete() }) {
		fmt.Fprintf(&b, "\n%s.\n", incompleteNote)
	}
	if len(r.Rewards) > 0 {
		r.writeRewardAlignment(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// rewardOf returns policy result pr's score under reward k, NaN if it has
// none.
func rewardOf(pr PolicyResult, k int) float64 {
	if k >= len(pr.Rewards) {
		return math.NaN()
	}
	return pr.Rewards[k]
}

// writeRewardAlignment writes, per scenario and reward, how well the reward
// ranks the policies as their mean slowdown does: the policy of highest
// reward, its mean slowdown and rank by mean slowdown, the lowest mean
// slowdown and that policy's rank by reward, and Spearman's rank
// correlation between reward and the negated mean slowdown.
func (r *Report) writeRewardAlignment(out *strings.Builder) {
	var b strings.Builder // the rows
	for _, sr := range r.Scenarios {
		var scored []PolicyResult // those the rewards scored (not FairShare's)
		for _, pr := range sr.Policies {
			if len(pr.Rewards) > 0 {
				scored = append(scored, pr)
			}
		}
		n := len(scored)
		if n < 3 {
			continue
		}
		slow := make([]float64, n)
		for i, pr := range scored {
			slow[i] = -pr.Summary.Slowdown.Mean
		}
		for k, rn := range r.Rewards {
			rw := make([]float64, n)
			for i, pr := range scored {
				rw[i] = rewardOf(pr, k)
			}
			top, best := argmaxFirst(rw), argmaxFirst(slow)
			if top < 0 || best < 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s (%d of %d) | %s | %d of %d | %s |\n", sr.Scenario.Name, mdCell(rn),
				mdCell(scored[top].Policy), fnum(-slow[top], 3), rankOf(slow, top), n,
				mdCell(scored[best].Policy), rankOf(rw, best), n, fnum(Spearman(rw, slow), 3))
		}
	}
	if b.Len() == 0 {
		return
	}
	fmt.Fprintf(out, "\n## Reward against mean slowdown\n\n")
	out.WriteString("Does the reward rank the policies as their flow completion times do? Ranks count from 1 (highest reward, lowest mean slowdown); ρ is Spearman's rank correlation of reward and −mean slowdown over the policies the rewards score (1: the same order).\n\n")
	out.WriteString("| scenario | reward | highest reward: policy | its mean slowdown (rank) | lowest mean slowdown: policy | its reward rank | ρ |\n")
	out.WriteString("|---|---|---|---:|---|---:|---:|\n")
	out.WriteString(b.String())
}

// argmaxFirst returns the index of the largest value of v, the first of
// ties, ignoring NaNs; -1 if there is none.
func argmaxFirst(v []float64) int {
	best := -1
	for i, x := range v {
		if !math.IsNaN(x) && (best < 0 || x > v[best]) {
			best = i
		}
	}
	return best
}

// rankOf returns 1 + the number of values of v greater than v[i]: v[i]'s
// rank from the top, ties sharing the best rank.
func rankOf(v []float64, i int) int {
	r := 1
	for _, x := range v {
		if x > v[i] {
			r++
		}
	}
	return r
}

// Spearman returns Spearman's rank correlation of x and y: Pearson's
// correlation of their ranks, ties given their mean rank. It is NaN when
// the lengths differ, fewer than two pairs are given, a value is NaN, or
// either side is constant.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			return math.NaN()
		}
	}
	rx, ry := midRanks(x), midRanks(y)
	n := float64(len(x))
	var mx, my float64
	for i := range rx {
		mx += rx[i] / n
		my += ry[i] / n
	}
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mx, ry[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// midRanks returns the rank of each value of v in ascending order, from 1,
// tied values sharing the mean of their ranks.
func midRanks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	ranks := make([]float64, len(v))
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && v[idx[hi]] == v[idx[lo]] {
			hi++
		}
		mid := float64(lo+hi+1) / 2 // mean of ranks lo+1 .. hi
		for _, i := range idx[lo:hi] {
			ranks[i] = mid
		}
		lo = hi
	}
	return ranks
}

// groupThousands writes n with comma separators: 19490 -> "19,490".
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// The JSON form of a report. Summaries keep the simulator's keys
// (see Summary).
type (
	evalJSON struct {
		Reference string   `json:"reference"`
		Policies  []string `json:"policies"`
		Seeds     []uint64 `json:"seeds"`
		Bins      []*int64 `json:"bins_max_bytes"` // null: the open last bin
		Rewards   []string `json:"rewards,omitempty"`
		CILevel   *float64 `json:"ci_level,omitempty"` // absent without intervals
		// per policy; absent with a single scenario
		GeoMean   []*float64     `json:"geomean_mean_slowdown_vs_reference,omitempty"`
		GeoMeanCI [][]float64    `json:"geomean_mean_slowdown_vs_reference_ci,omitempty"`
		Scenarios []scenarioJSON `json:"scenarios"`
	}
	scenarioJSON struct {
		Name        string       `json:"name"`
		Description string       `json:"description"`
		Summary     string       `json:"summary"`
		Clos        *closJSON    `json:"clos,omitempty"`     // absent with a topology
		Topology    *topoJSON    `json:"topology,omitempty"` // instead of the Clos
		Fail        []string     `json:"fail"`
		FailRandom  int          `json:"fail_random"`
		Workload    string       `json:"workload"`
		Load        float64      `json:"load"`
		DurationMs  float64      `json:"duration_ms"`
		Incast      incastJSON   `json:"incast"`
		Flows       []int        `json:"flows_per_seed"`
		FailedLinks [][]string   `json:"failed_links_per_seed"`
		SizeCDF     []cdfJSON    `json:"flow_size_cdf"`
		Results     []policyJSON `json:"policies"`
	}
	closJSON struct {
		Leaves       int     `json:"leaves"`
		Spines       int     `json:"spines"`
		HostsPerLeaf int     `json:"hosts_per_leaf"`
		HostGbps     float64 `json:"host_gbps"`
		FabricGbps   float64 `json:"fabric_gbps"`
		LinkDelayUs  float64 `json:"link_delay_us"`
		BufferBytes  int64   `json:"buffer_bytes"`
	}
	topoJSON struct {
		Name     string `json:"name"`
		Hosts    int    `json:"hosts"`
		Switches int    `json:"switches"`
		Links    int    `json:"links"`
	}
	cdfJSON struct {
		Bytes   float64 `json:"bytes"`
		Percent float64 `json:"percent"`
	}
	incastJSON struct {
		PeriodUs float64 `json:"period_us"` // 0: no incasts
		FanIn    int     `json:"fanin"`
		Size     int64   `json:"size_bytes"`
	}
	policyJSON struct {
		Policy                 string            `json:"policy"`
		Summary                metrics.Summary   `json:"summary"`
		NormalizedMeanSlowdown *float64          `json:"mean_slowdown_vs_reference"`    // null when undefined
		MeanVsRefCI            []float64         `json:"mean_slowdown_vs_reference_ci"` // [lo, hi]; null without an interval
		SmallP99               float64           `json:"slowdown_p99_small"`            // flows <= 100 KB
		SmallP99VsRef          *float64          `json:"slowdown_p99_small_vs_reference"`
		SmallP99VsRefCI        []float64         `json:"slowdown_p99_small_vs_reference_ci"`
		ThroughputVsRef        *float64          `json:"throughput_vs_reference"`
		ThroughputVsRefCI      []float64         `json:"throughput_vs_reference_ci"`
		QueueVsRef             *float64          `json:"queue_mean_vs_reference"`
		QueueVsRefCI           []float64         `json:"queue_mean_vs_reference_ci"`
		SlowdownByBin          []metrics.Stats   `json:"slowdown_by_figure_bin"`
		BinVsRef               []binJSON         `json:"slowdown_by_figure_bin_vs_reference"`
		PerSeed                []metrics.Summary `json:"per_seed"`
		// per EvalReport.Rewards; null where no interval was scored
		Rewards        []*float64   `json:"rewards,omitempty"`
		PerSeedRewards [][]*float64 `json:"per_seed_rewards,omitempty"`
	}
)

// binJSON is BinRatios in JSON: each ratio (null where undefined) and its
// interval ([lo, hi], null without one).
type binJSON struct {
	P50   *float64  `json:"p50"`
	P50CI []float64 `json:"p50_ci"`
	P95   *float64  `json:"p95"`
	P95CI []float64 `json:"p95_ci"`
	P99   *float64  `json:"p99"`
	P99CI []float64 `json:"p99_ci"`
}

// ratioJSON returns r's value (nil if NaN) and interval (nil without one).
func ratioJSON(r metrics.Ratio) (*float64, []float64) {
	var ci []float64
	if r.HasInterval() {
		ci = []float64{r.Lo, r.Hi}
	}
	return jsonFloats([]float64{r.Value})[0], ci
}

// jsonFloats returns v with NaNs as nil, which JSON writes as null.
func jsonFloats(v []float64) []*float64 {
	if v == nil {
		return nil
	}
	out := make([]*float64, len(v))
	for i := range v {
		if !math.IsNaN(v[i]) {
			out[i] = &v[i]
		}
	}
	return out
}

// WriteJSON writes the report as indented JSON: the reference, policies,
// seeds, figure bins and level of the intervals ("ci_level", absent without
// intervals), with several scenarios the geometric means of GeoMeanVsRef
// and their intervals (in the order of "policies"), then per scenario its
// metadata (name, description, Clos or topology, failures, workload, load,
// duration, incasts, flows per seed, the flow-size CDF as {Bytes, Percent}
// points) and per policy the merged Summary under "summary" with the
// simulator's keys, the mean slowdown divided by the reference's and that
// ratio's interval ("mean_slowdown_vs_reference_ci": [lo, hi], null without
// one), the p99 slowdown of flows of at most 100 KB, that divided by the
// reference's and its interval, the mean throughput and mean queue divided
// by the reference's ("throughput_vs_reference", "queue_mean_vs_reference")
// with their intervals, the slowdown per figure bin and its median, p95 and
// p99 divided by the reference's with their intervals
// ("slowdown_by_figure_bin_vs_reference"), the per-seed summaries and, with
// rewards, the scores under each of them ("rewards", in the order of the
// top-level "rewards"; null where no interval was scored) and per seed.
func (r *Report) WriteJSON(w io.Writer) error {
	out := evalJSON{Reference: r.Reference, Policies: r.Policies, Seeds: r.Seeds, Bins: binBounds(r.Bins), Rewards: r.Rewards}
	if len(r.Seeds) >= metrics.MinIntervalSeeds {
		l := metrics.CILevel
		out.CILevel = &l
	}
	for _, g := range r.GeoMeanVsRef {
		v, ci := ratioJSON(g)
		out.GeoMean, out.GeoMeanCI = append(out.GeoMean, v), append(out.GeoMeanCI, ci)
	}
	for si, sr := range r.Scenarios {
		s := sr.Scenario
		sj := scenarioJSON{
			Name: s.Name, Description: s.Description, Summary: s.Describe(),
			Fail: append([]string{}, s.Fail...), FailRandom: s.FailRandom,
			Load: s.Gen.Load, DurationMs: float64(s.Gen.Duration) / float64(topo.Millisecond),
			Incast: incastJSON{FanIn: s.Gen.Incast.FanIn, Size: s.Gen.Incast.Size,
				PeriodUs: float64(s.Gen.Incast.Period) / float64(topo.Microsecond)},
			Flows: sr.Flows, FailedLinks: sr.FailedLinks,
		}
		if t := s.Topology; t != nil {
			sj.Topology = &topoJSON{Name: s.TopologyName, Hosts: len(t.Hosts()), Switches: len(t.Nodes) - len(t.Hosts()), Links: len(t.Links)}
		} else {
			sj.Clos = &closJSON{
				Leaves: s.Clos.Leaves, Spines: s.Clos.Spines, HostsPerLeaf: s.Clos.HostsPerLeaf,
				HostGbps: float64(s.Clos.HostRate) / float64(topo.Gbps), FabricGbps: float64(s.Clos.FabricRate) / float64(topo.Gbps),
				LinkDelayUs: float64(s.Clos.LinkDelay) / float64(topo.Microsecond), BufferBytes: s.Clos.Buffer,
			}
		}
		if s.Gen.Workload != nil {
			sj.Workload = s.Gen.Workload.Name
			for _, p := range s.Gen.Workload.Points {
				sj.SizeCDF = append(sj.SizeCDF, cdfJSON(p))
			}
		}
		for pi, pr := range sr.Policies {
			pj := policyJSON{Policy: pr.Policy, Summary: pr.Summary, SmallP99: pr.SmallP99,
				SlowdownByBin: pr.SlowdownByBin, PerSeed: pr.PerSeed, Rewards: jsonFloats(pr.Rewards)}
			for _, v := range pr.PerSeedRewards {
				pj.PerSeedRewards = append(pj.PerSeedRewards, jsonFloats(v))
			}
			if v := r.NormalizedMeanSlowdown(si, pi); !math.IsNaN(v) {
				pj.NormalizedMeanSlowdown = &v
			}
			_, pj.MeanVsRefCI = ratioJSON(pr.MeanVsRef)
			pj.SmallP99VsRef, pj.SmallP99VsRefCI = ratioJSON(pr.SmallP99VsRef)
			pj.ThroughputVsRef, pj.ThroughputVsRefCI = ratioJSON(pr.ThroughputVsRef)
			pj.QueueVsRef, pj.QueueVsRefCI = ratioJSON(pr.QueueVsRef)
			for _, b := range pr.BinVsRef {
				var bj binJSON
				bj.P50, bj.P50CI = ratioJSON(b.P50)
				bj.P95, bj.P95CI = ratioJSON(b.P95)
				bj.P99, bj.P99CI = ratioJSON(b.P99)
				pj.BinVsRef = append(pj.BinVsRef, bj)
			}
			sj.Results = append(sj.Results, pj)
		}
		out.Scenarios = append(out.Scenarios, sj)
	}
	return fileio.WriteJSON(w, out)
}

// binBounds returns bins for JSON: an open bound, math.MaxInt64, is nil
// (null), which a float64 reader such as jq or JavaScript keeps exact.
func binBounds(bins []int64) []*int64 {
	out := make([]*int64, len(bins))
	for i, b := range bins {
		if b != math.MaxInt64 {
			out[i] = &bins[i]
		}
	}
	return out
}
