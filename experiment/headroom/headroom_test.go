package headroom

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/experiment"
	"graphcc/experiment/tune"
	"graphcc/internal/fileio"
	"graphcc/internal/testfabric"
	"graphcc/policy"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// phased is the tiny scenario in three phases of 1 ms: FB_Hadoop at 30 %,
// WebSearch at 90 %, FB_Hadoop at 50 %.
func phased() scenario.Scenario {
	s := testfabric.TinyScenario()
	s.Name = "tinyphased"
	ws, err := workload.Builtin("websearch")
	if err != nil {
		panic(err)
	}
	s.Gen.Phases = []workload.Phase{
		{Duration: topo.Millisecond, Workload: s.Gen.Workload, Load: 0.3, Incast: s.Gen.Incast},
		{Duration: topo.Millisecond, Workload: ws, Load: 0.9, Incast: s.Gen.Incast},
		{Duration: topo.Millisecond, Workload: s.Gen.Workload, Load: 0.5, Incast: s.Gen.Incast},
	}
	s.Gen.Duration = 3 * topo.Millisecond
	return s
}

// tiny is a measurement of the phased tiny scenario that runs in seconds:
// a switch-only search of three settings without refinement, three
// candidates.
func tiny(workers int) Config {
	return Config{
		Scenario: phased(),
		Grid:     []tune.Setting{{KMinKB: 0, KMaxKB: 4, PMax: 1}, {KMinKB: 32, KMaxKB: 256, PMax: 0.01}, {KMinKB: 2, KMaxKB: 16, PMax: 0.25}},
		Refine:   -1, Top: 1, SwitchOnly: true, Candidates: 3, Passes: 2,
		SelectSeeds: []uint64{2001, 2002, 2003}, ReportSeeds: []uint64{3001, 3002, 3003},
		Workers: workers,
	}
}

func jsonOf(t *testing.T, r *Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestMeasure checks a measurement's rows and its search's invariants,
// that the result does not depend on the workers, and that a run resumed
// from an interrupted one's journal gives the same result.
func TestMeasure(t *testing.T) {
	ctx := context.Background()
	c := tiny(2)
	var saved []string // the journal at each checkpoint
	c.Checkpoint = func(j *Journal) error {
		var b bytes.Buffer
		err := j.WriteJSON(&b)
		saved = append(saved, b.String())
		return err
	}
	res, err := Measure(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if res.ScheduleScore > res.BestScore {
		t.Errorf("schedule scores %v, above the best constant's %v: the descent keeps only improvements", res.ScheduleScore, res.BestScore)
	}
	for i, s := range res.Steps {
		if prev := res.BestScore; i > 0 {
			prev = res.Steps[i-1].Score
			if s.Score >= prev {
				t.Errorf("step %d scores %v, not below %v", i, s.Score, prev)
			}
		}
	}
	if len(res.Segments) != 3 || !slices.Equal(res.SegmentStarts, []int64{0, topo.Millisecond, 2 * topo.Millisecond}) ||
		len(res.Candidates) != 3 || res.Candidates[0] != res.BestConstant || res.Joint {
		t.Errorf("segments %v %v, candidates %v, joint %v", res.Segments, res.SegmentStarts, res.Candidates, res.Joint)
	}
	var names []string
	for _, r := range res.Rows {
		names = append(names, r.Name)
	}
	want := []string{"best constant", "schedule", "ideal"}
	if res.Schedule == res.BestConstant {
		want = []string{"best constant = schedule", "ideal"}
	}
	if !slices.Equal(names, want) || res.Rows[0].VsBest.Value != 1 || res.Rows[len(res.Rows)-1].VsBest.Lo == nil {
		t.Errorf("rows %+v", res.Rows)
	}

	if again, err := Measure(ctx, tiny(1)); err != nil {
		t.Fatal(err)
	} else if jsonOf(t, again) != jsonOf(t, res) {
		t.Errorf("one worker and two differ:\n%s\n%s", jsonOf(t, again), jsonOf(t, res))
	}

	// interrupted after the search and the first step of the descent
	if len(saved) < 3 {
		t.Fatalf("%d checkpoints", len(saved))
	}
	j, err := ReadJournal(strings.NewReader(saved[1]))
	if err != nil {
		t.Fatal(err)
	}
	r := tiny(2)
	r.Journal = j
	// its search given as a tune result file instead of journaled
	path := filepath.Join(t.TempDir(), "tune.json")
	if err := fileio.WriteAtomic(path, j.Tune.WriteJSON); err != nil {
		t.Fatal(err)
	}
	j.Tune = nil
	if r.Tuned, err = LoadTuned(path); err != nil {
		t.Fatal(err)
	}
	checkpoints := 0
	r.Checkpoint = func(*Journal) error { checkpoints++; return nil }
	resumed, err := Measure(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, resumed) != jsonOf(t, res) {
		t.Errorf("resumed and whole runs differ:\n%s\n%s", jsonOf(t, resumed), jsonOf(t, res))
	}
	if checkpoints >= len(saved) {
		t.Errorf("the resumed run checkpointed %d times, the whole run %d: it ran its journal's steps again", checkpoints, len(saved))
	}
	last, err := ReadJournal(strings.NewReader(saved[len(saved)-1]))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("schedule %s, steps %+v", res.Schedule, res.Steps)
	checkRoundTrip(t, c, last)
}

// checkRoundTrip checks that the descent's schedules (in j) are specs
// policy.Parse takes unchanged and that, evaluated as eval runs them,
// they score what the descent recorded.
func checkRoundTrip(t *testing.T, c Config, j *Journal) {
	ctx := context.Background()
	var specs []string
	for spec := range j.Scores {
		if strings.HasPrefix(spec, "sched:") {
			specs = append(specs, spec)
		}
	}
	slices.Sort(specs)
	if len(specs) == 0 {
		t.Fatal("the descent scored no schedule")
	}
	specs = specs[:min(len(specs), 3)]
	var pols []policy.Named
	for _, s := range specs {
		np, err := policy.Parse(ctx, s, policy.Env{})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if np.Name != s || policy.Canonical(s) != s {
			t.Errorf("%s is named %s, canonically %s", s, np.Name, policy.Canonical(s))
		}
		pols = append(pols, np)
	}
	rep, err := experiment.Evaluate(ctx, experiment.Config{Scenarios: []scenario.Scenario{c.Scenario}, Policies: pols, Seeds: c.SelectSeeds, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range specs {
		if got := rep.Scenarios[0].Policies[i].Summary.Slowdown.Mean; got != j.Scores[s] {
			t.Errorf("%s scores %v evaluated, %v in the descent", s, got, j.Scores[s])
		}
	}
}

// TestSpec checks the schedules' specs: a constant is its own spec, a
// schedule steps where its setting changes, and every step carries the
// hosts' constants (the hardware's where a candidate has none) once one
// does.
func TestSpec(t *testing.T) {
	d := tune.DCQCNSetting{IncreaseTimerUS: 55, AlphaPeriodUS: 55, DecreasePeriodUS: 2, AIMbps: 5, HAIMbps: 25}
	m := &measurement{
		cands:  []tune.Candidate{{Setting: tune.Setting{KMinKB: 0.5, KMaxKB: 32, PMax: 0.125}}, {Setting: tune.Setting{KMinKB: 2, KMaxKB: 64, PMax: 1}, DCQCN: &d}},
		starts: []int64{0, 5 * topo.Millisecond, 10 * topo.Millisecond, 25 * topo.Millisecond},
	}
	for _, tc := range []struct {
		sched []int
		want  string
	}{
		{[]int{0, 0, 0, 0}, "static:0.5,32,0.125"},
		{[]int{1, 1, 1, 1}, "static:2,64,1+dcqcn:55,55,2,5,25"},
		{[]int{0, 1, 1, 0}, "sched:0=0.5,32,0.125/300,1,4,5,50:5ms=2,64,1/55,55,2,5,25:25ms=0.5,32,0.125/300,1,4,5,50"},
	} {
		got := m.spec(tc.sched)
		if got != tc.want {
			t.Errorf("%v: %s, want %s", tc.sched, got, tc.want)
		}
		if _, err := policy.Parse(context.Background(), got, policy.Env{}); err != nil {
			t.Errorf("%s: %v", got, err)
		}
	}
	m.cands[1].DCQCN = nil
	if got, want := m.spec([]int{1, 0, 0, 1}), "sched:0=2,64,1:5ms=0.5,32,0.125:25ms=2,64,1"; got != want {
		t.Errorf("switch-only: %s, want %s", got, want)
	}
}

func TestSegments(t *testing.T) {
	ms := topo.Millisecond
	starts, labels, err := Segments(nil, 12*ms, 5*ms)
	if err != nil || !slices.Equal(starts, []int64{0, 5 * ms, 10 * ms}) || labels[2] != "from 10ms" {
		t.Errorf("fixed segments: %v %v %v", starts, labels, err)
	}
	starts, labels, err = Segments([]int64{0, 10 * ms, 15 * ms}, 40*ms, 5*ms)
	if err != nil || !slices.Equal(starts, []int64{0, 10 * ms, 15 * ms}) || labels[1] != "phase 1 (from 10ms)" {
		t.Errorf("phases: %v %v %v", starts, labels, err)
	}
	if _, _, err := Segments(nil, topo.Second, topo.Microsecond); err == nil || !strings.Contains(err.Error(), "more than 1000 segments") {
		t.Errorf("too many segments: %v", err)
	}
}

// TestRefused checks that bad measurements are refused with a reason.
func TestRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"report seed selected on", func(c *Config) { c.ReportSeeds = []uint64{2003, 3001} }, "both a selection and a report seed"},
		{"eval seed selected on", func(c *Config) { c.SelectSeeds = []uint64{1001} }, "selection seeds: 1001 is one of eval's seeds"},
		{"journal of another", func(c *Config) { c.Journal = &Journal{Key: "sha256:0"} }, "journal is of another measurement"},
		{"tune of another", func(c *Config) {
			c.Tuned = &tune.Result{Scenario: "fb60", Seeds: c.SelectSeeds, BestPolicy: "static"}
		}, `tune result is of scenario "fb60"`},
		{"tune on other seeds", func(c *Config) {
			c.Tuned = &tune.Result{Scenario: c.Scenario.Name, Seeds: []uint64{7}, BestPolicy: "static"}
		}, "selected on seeds 7"},
		{"hosts besides a switch-only search", func(c *Config) {
			c.Also = []tune.Candidate{{Setting: tune.Setting{KMaxKB: 4, PMax: 1}, DCQCN: &tune.DCQCNSetting{IncreaseTimerUS: 55, AlphaPeriodUS: 55, DecreasePeriodUS: 4, AIMbps: 5, HAIMbps: 50}}}
		}, "but the search is switch-only"},
		{"a setting per role besides", func(c *Config) {
			c.Also = []tune.Candidate{{Setting: tune.Setting{KMaxKB: 4, PMax: 1}, ToSwitch: &tune.Setting{KMaxKB: 8, PMax: 1}}}
		}, "a setting per port role"},
	} {
		c := tiny(1)
		tc.edit(&c)
		_, err := Measure(ctx, c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestJournalJSON checks that scores survive the journal's JSON exactly.
func TestJournalJSON(t *testing.T) {
	j := &Journal{Key: "k", Scores: map[string]float64{"static": 1.0 / 3, "sched:0=1,2,1:1ms=2,4,1": 2.718281828459045}}
	var b bytes.Buffer
	if err := j.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJournal(&b)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := json.Marshal(j)
	y, _ := json.Marshal(back)
	if string(x) != string(y) {
		t.Errorf("%s became %s", x, y)
	}
}

// TestDescend checks the coordinate descent on a made-up score with
// coupling between neighbouring segments: it starts from the constant,
// keeps only changes that lower the score, revisits segments in later
// passes, stops after a pass without a change or at the pass limit, and
// simulates no schedule twice.
func TestDescend(t *testing.T) {
	cands := []tune.Candidate{
		{Setting: tune.Setting{KMinKB: 2, KMaxKB: 32, PMax: 0.01}},
		{Setting: tune.Setting{KMinKB: 32, KMaxKB: 256, PMax: 0.75}},
		{Setting: tune.Setting{KMinKB: 0, KMaxKB: 4, PMax: 1}},
	}
	// cost[seg][k], plus a coupling: candidate 2 in a segment costs 3
	// less if segment seg+1 plays 1 (the setting before a burst).
	cost := [][]float64{{1, 2, 3}, {5, 3, 6}, {2, 4, 1}, {1, 1, 1}}
	score := func(v []int) float64 {
		s := 10.0
		for seg, k := range v {
			s += cost[seg][k]
			if k == 2 && seg+1 < len(v) && v[seg+1] == 1 {
				s -= 3
			}
		}
		return s
	}
	for _, passes := range []int{1, 5} {
		m := &measurement{
			c:       Config{Passes: passes},
			journal: &Journal{Scores: map[string]float64{}},
			tuned:   &tune.Result{Score: score([]int{0, 0, 0, 0})},
			cands:   cands, scored: map[string]bool{},
			starts: []int64{0, topo.Millisecond, 2 * topo.Millisecond, 3 * topo.Millisecond},
		}
		table := map[string]float64{}
		for v := range 81 {
			s := []int{v % 3, v / 3 % 3, v / 9 % 3, v / 27}
			table[m.spec(s)] = score(s)
		}
		runs := map[string]int{}
		m.simulate = func(_ context.Context, pols []policy.Named) ([]float64, error) {
			out := make([]float64, len(pols))
			for i, p := range pols {
				runs[p.Name]++
				out[i] = table[p.Name]
			}
			return out, nil
		}
		if err := m.descend(context.Background()); err != nil {
			t.Fatal(err)
		}
		for spec, n := range runs {
			if n > 1 {
				t.Errorf("%s simulated %d times", spec, n)
			}
		}
		// pass 1: segment 0 stays 0 (1 and 2 cost more with segment 1
		// at 0), segment 1 takes 1 (3 < 5), segment 2 takes 2 (1 < 2),
		// segment 3 takes 1 (the coupling lowers segment 2's cost by 3);
		// pass 2: segment 0 takes 2 (3 - 3 < 1); pass 3 changes nothing
		want, wantScore, wantPasses := []int{0, 1, 2, 1}, 10.0+1+3+1-3+1, 1
		if passes > 1 {
			want, wantScore, wantPasses = []int{2, 1, 2, 1}, 10.0+3-3+3+1-3+1, 3
		}
		if !slices.Equal(m.cur, want) || m.score != wantScore || m.passes != wantPasses {
			t.Errorf("%d passes: schedule %v scoring %v after %d passes, want %v scoring %v after %d", passes, m.cur, m.score, m.passes, want, wantScore, wantPasses)
		}
		for i, s := range m.steps {
			prev := m.tuned.Score
			if i > 0 {
				prev = m.steps[i-1].Score
			}
			if s.Score >= prev {
				t.Errorf("step %+v does not lower the score %v", s, prev)
			}
		}
	}
}

// TestCandidates checks the candidates' order: the best constant, the
// configurations given besides, then the search's runs of lowest score,
// each once; a configuration with a setting per role is never one.
func TestCandidates(t *testing.T) {
	cand := func(kmin float64) tune.Candidate {
		return tune.Candidate{Setting: tune.Setting{KMinKB: kmin, KMaxKB: 64, PMax: 0.1}}
	}
	run := func(round string, kmin, score float64) tune.Run {
		c := cand(kmin)
		return tune.Run{Policy: c.Spec(), Candidate: c, Round: round, Score: score}
	}
	roles := run("roles", 9, 0.5)
	roles.ToSwitch = &tune.Setting{KMinKB: 1, KMaxKB: 2, PMax: 1}
	tr := &tune.Result{Runs: []tune.Run{
		run("grid", 0, 3), run("grid", 1, 2.5), run("refine 1", 2, 1.1), run("refine 1", 3, 1.0),
		run("dcqcn ai", 4, 1.2), run("dcqcn ai", 5, 1.05), run("refine 1", 6, 1.01), roles,
	}}
	tr.Best = tr.Runs[3].Candidate
	perRole := cand(11)
	perRole.ToSwitch = &tune.Setting{KMinKB: 1, KMaxKB: 2, PMax: 1}
	kmins := func(cs []tune.Candidate) []float64 {
		var out []float64
		for _, c := range cs {
			out = append(out, c.KMinKB)
		}
		return out
	}
	for _, tc := range []struct {
		n    int
		also []tune.Candidate
		want []float64
	}{
		{5, nil, []float64{3, 6, 5, 2, 4}},
		{5, []tune.Candidate{cand(10), perRole, cand(3), cand(6)}, []float64{3, 10, 6, 5, 2}},
		{2, []tune.Candidate{cand(10), cand(12)}, []float64{3, 10}},
	} {
		if got := kmins(candidates(tr, tc.n, tc.also)); !slices.Equal(got, tc.want) {
			t.Errorf("%d candidates with %d besides: by kmin %v, want %v", tc.n, len(tc.also), got, tc.want)
		}
	}
}

// TestReportFromRunsMade checks that the report compares the schedule with
// the best constant from the runs the search, the descent and the rows
// made, as an evaluation of the two together gives it (in-sample on the
// selection seeds, held out on the report seeds), with or without the
// search's values leaving out each seed (a search read from a file).
func TestReportFromRunsMade(t *testing.T) {
	ctx := context.Background()
	c := tiny(2)
	c.Grid = []tune.Setting{{KMinKB: 32, KMaxKB: 256, PMax: 0.01}, {KMinKB: 16, KMaxKB: 128, PMax: 0.01},
		{KMinKB: 32, KMaxKB: 256, PMax: 0.05}, {KMinKB: 64, KMaxKB: 512, PMax: 0.01}, {KMinKB: 8, KMaxKB: 256, PMax: 0.02}}
	c.Candidates = 5
	var last *Journal
	c.Checkpoint = func(j *Journal) error { last = j; return nil }
	res, err := Measure(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Schedule == res.BestConstant || len(res.Rows) < 2 {
		t.Fatalf("the descent kept no schedule (%s): the test needs one", res.Schedule)
	}
	if last.LOO[res.Schedule] == nil || last.LOO[res.BestConstant] == nil {
		t.Errorf("the journal lacks the schedule's or the constant's values leaving out each seed: %v", last.LOO)
	}
	pair := func(seeds []uint64) experiment.PolicyResult {
		m := &measurement{c: c}
		rep, err := m.evaluate(ctx, []string{res.BestConstant, res.Schedule}, seeds)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Scenarios[0].Policies[1]
	}
	asJSON := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if in := ratioOf(pair(c.SelectSeeds).MeanVsRef); in.Lo == nil || asJSON(in) != asJSON(res.InSample) {
		t.Errorf("in-sample %s, evaluated together %s", asJSON(res.InSample), asJSON(in))
	}
	if out := rowOf("schedule", pair(c.ReportSeeds)); out.SmallP99VsBest.Lo == nil || asJSON(out) != asJSON(res.Rows[1]) {
		t.Errorf("schedule's row %s, evaluated together %s", asJSON(res.Rows[1]), asJSON(out))
	}

	// the search from a file (no values leaving out each seed), the
	// descent from the journal
	r := c
	r.Checkpoint, r.Tuned = nil, new(tune.Result)
	if err := json.Unmarshal([]byte(asJSON(last.Tune)), r.Tuned); err != nil {
		t.Fatal(err)
	}
	r.Journal = &Journal{Key: last.Key, Scores: last.Scores}
	if again, err := Measure(ctx, r); err != nil {
		t.Fatal(err)
	} else if jsonOf(t, again) != jsonOf(t, res) {
		t.Errorf("from a file and whole differ:\n%s\n%s", jsonOf(t, again), jsonOf(t, res))
	}
}

// TestMeasureTrace checks a measurement of a recorded trace (a scenario
// file's flows: seed k plays window k): it has no phases, so its segments
// are of Config.Segment over one window, and its rows are reported on the
// report windows.
func TestMeasureTrace(t *testing.T) {
	ctx := context.Background()
	gen := testfabric.TinyScenario()
	gen.Gen.Duration = 6 * topo.Millisecond
	f, flows, err := gen.Build(7)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := trace.WriteFlows(&b, flows); err != nil {
		t.Fatal(err)
	}
	sc := gen
	sc.Name, sc.TraceName, sc.Gen = "tinytrace", "tiny.txt", workload.GenConfig{Duration: topo.Millisecond}
	if sc.Trace, err = trace.ReadWindows(&b, "tiny.txt", f, topo.Millisecond); err != nil {
		t.Fatal(err)
	}
	if sc.Trace.Count() != 6 {
		t.Fatalf("%d windows, want 6", sc.Trace.Count())
	}
	c := tiny(2)
	c.Scenario, c.Segment = sc, topo.Millisecond/2
	c.SelectSeeds, c.ReportSeeds = []uint64{1, 2, 3}, []uint64{4, 5, 6}
	res, err := Measure(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Segments, []string{"from 0", "from 500us"}) || len(res.Rows) < 2 || res.Rows[len(res.Rows)-1].VsBest.Lo == nil {
		t.Errorf("segments %v, rows %+v", res.Segments, res.Rows)
	}
	t.Logf("schedule %s; rows %+v", res.Schedule, res.Rows)
	c.ReportSeeds = []uint64{4, 5, 7}
	if _, err := Measure(ctx, c); err == nil || !strings.Contains(err.Error(), "window 7: the trace has 6 windows of 1ms") {
		t.Errorf("a report seed past the last window: %v", err)
	}
}
