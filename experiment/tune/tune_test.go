package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"graphcc/experiment"
	"graphcc/gnn"
	"graphcc/internal/testfabric"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
)

// tinyTune is a search on the tiny scenario (1 ms of traffic): a grid of
// four settings, two of them the paper's, one refinement round around
// the leader.
func tinyTune(workers int, confirm []uint64) Config {
	return Config{
		Scenarios: []scenario.Scenario{testfabric.TinyScenario()},
		Grid: []Setting{
			{2, 16, 0.01}, {32, 256, 1}, {0, 4, 1}, {8, 512, 0.5},
		},
		Refine: 1, Top: 1,
		Seeds:        []uint64{2001},
		ConfirmSeeds: confirm,
		Workers:      workers,
	}
}

func TestTune(t *testing.T) {
	var rounds []Round
	c := tinyTune(2, []uint64{3001, 3002, 3003})
	c.Progress = func(r Round) { rounds = append(rounds, r) }
	res, err := Search(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	// determinism: the same result with another number of workers, and
	// with every round in batches of one setting
	c1 := tinyTune(1, []uint64{3001, 3002, 3003})
	c1.Batch = 1
	var runsDone []int
	c1.RunProgress = func(done, total int) { runsDone = append(runsDone, done, total) }
	again, err := Search(context.Background(), c1)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := res.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := again.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("two runs differ:\n%s\n%s", a.String(), b.String())
	}
	// run progress counts each round's runs through its batches: the grid's
	// 4 settings on one seed, 1 of 4 to 4 of 4
	if len(runsDone) < 8 || !reflect.DeepEqual(runsDone[:8], []int{1, 4, 2, 4, 3, 4, 4, 4}) {
		t.Errorf("run progress %v", runsDone)
	}

	// the grid first, in order, then only settings not run before
	if len(res.Runs) <= 4 {
		t.Fatalf("%d runs: the refinement added none", len(res.Runs))
	}
	seen := map[string]bool{}
	for i, r := range res.Runs {
		if seen[r.Policy] {
			t.Errorf("%s run twice", r.Policy)
		}
		seen[r.Policy] = true
		wantRound := "refine 1"
		if i < 4 {
			wantRound = "grid"
			if r.Setting != c.Grid[i] {
				t.Errorf("run %d: %+v, want the grid's %+v", i, r.Setting, c.Grid[i])
			}
		}
		if r.Round != wantRound || r.Policy != r.Spec() || r.ToSwitch != nil || r.DCQCN != nil || !(r.Score >= 1) {
			t.Errorf("run %d: %+v", i, r)
		}
		if _, err := policy.Parse(context.Background(), r.Policy, policy.Env{}); err != nil {
			t.Errorf("run %d: %v", i, err)
		}
	}
	// the refinement is around the grid's leader, one level away
	lead := 0
	for i, r := range res.Runs[:4] {
		if r.Score < res.Runs[lead].Score {
			lead = i
		}
	}
	for _, r := range res.Runs[4:] {
		l, s := res.Runs[lead].Setting, r.Setting
		changed := 0
		for _, d := range [][2]float64{{l.KMinKB, s.KMinKB}, {l.KMaxKB, s.KMaxKB}, {l.PMax, s.PMax}} {
			if d[0] != d[1] {
				changed++
			}
		}
		if changed != 1 {
			t.Errorf("refinement %s is not one level from the leader %s", r.Policy, res.Runs[lead].Policy)
		}
	}

	// the best is the argmin of the validation scores
	best := res.Runs[0]
	for _, r := range res.Runs {
		if r.Score < best.Score {
			best = r
		}
	}
	if res.BestPolicy != best.Policy || res.Score != best.Score || res.Best.Setting != best.Setting || res.Scenario != "tiny" {
		t.Errorf("best %s (%g), want %s (%g)", res.BestPolicy, res.Score, best.Policy, best.Score)
	}

	// the confirmation, with intervals from three seeds
	cf := res.Confirm
	if cf.VsStatic.Lo == nil || cf.VsStatic.Hi == nil || !(*cf.VsStatic.Lo <= cf.VsStatic.Value && cf.VsStatic.Value <= *cf.VsStatic.Hi) {
		t.Errorf("ratio to static %+v: want an interval around it", cf.VsStatic)
	}
	if want := cf.MeanSlowdown["best_policy"] / cf.MeanSlowdown["static"]; !near(cf.VsStatic.Value, want) {
		t.Errorf("ratio to static %g, want %g", cf.VsStatic.Value, want)
	}
	if cf.PaperGridBest == "" || cf.VsPaperGridBest == nil || cf.VsPaperGridBest.Lo == nil {
		t.Fatalf("no ratio to the paper grid's best: %+v", cf)
	}
	// the paper's settings among the runs, the grid's and the refinement's
	paper := map[string]bool{}
	for _, s := range PaperGrid() {
		paper[s.Spec()] = true
	}
	var gridBest *Run
	for i, r := range res.Runs {
		if paper[r.Policy] && (gridBest == nil || r.Score < gridBest.Score) {
			gridBest = &res.Runs[i]
		}
	}
	if cf.PaperGridBest != gridBest.Policy {
		t.Errorf("paper grid's best %s, want %s", cf.PaperGridBest, gridBest.Policy)
	}
	if want := cf.MeanSlowdown["best_policy"] / cf.MeanSlowdown["paper_grid_best"]; !near(cf.VsPaperGridBest.Value, want) {
		t.Errorf("ratio to the paper grid's best %g, want %g", cf.VsPaperGridBest.Value, want)
	}
	var names []string
	for _, r := range rounds {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, ","); got != "grid,refine 1,confirm" {
		t.Errorf("rounds %s", got)
	}

	// the JSON's keys
	var m map[string]any
	if err := json.Unmarshal(a.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scenario", "best_policy", "score", "confirm", "runs"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON has no %s", k)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9*b && b-a < 1e-9*b }

// TestTuneFewSeeds checks the confirmation without intervals (two seeds).
func TestTuneFewSeeds(t *testing.T) {
	c := tinyTune(0, []uint64{3001, 3002})
	c.Refine = 0
	res, err := Search(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 4 || res.Confirm.VsStatic.Lo != nil || res.Confirm.VsPaperGridBest == nil || res.Confirm.VsPaperGridBest.Lo != nil {
		t.Errorf("%d runs, confirmation %+v", len(res.Runs), res.Confirm)
	}
}

func TestTuneRefuses(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		err  string
	}{
		{func(c *Config) { c.Seeds = []uint64{2001, 1005} }, "validation seeds: 1005 is one of eval's seeds"},
		{func(c *Config) { c.ConfirmSeeds = []uint64{1001} }, "confirmation seeds: 1001 is one of eval's seeds"},
		{func(c *Config) { c.ConfirmSeeds = []uint64{2001} }, "seed 2001 is both a validation and a confirmation seed"},
		{func(c *Config) { c.Grid = []Setting{{8, 4, 1}} }, "want 0 <= kmin <= kmax"},
		{func(c *Config) { c.Grid = []Setting{{2, 16, 1.5}} }, "pmax in [0, 1]"},
		{func(c *Config) { c.Refine = -1 }, "must not be negative"},
	} {
		c := tinyTune(1, []uint64{3001})
		tc.edit(&c)
		if _, err := Search(context.Background(), c); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("error %v, want one containing %q", err, tc.err)
		}
	}
}

func TestGrids(t *testing.T) {
	paper, ext := PaperGrid(), ExtendedGrid()
	if len(paper) != 120 || len(ext) != 265 || !reflect.DeepEqual(ext[:120], paper) {
		t.Fatalf("grids of %d and %d settings", len(paper), len(ext))
	}
	seen := map[string]bool{}
	for _, s := range ext {
		spec := s.Spec()
		if seen[spec] || !s.valid() {
			t.Errorf("%s twice or invalid", spec)
		}
		seen[spec] = true
		if np, err := policy.Parse(context.Background(), spec, policy.Env{}); err != nil || np.Name != spec {
			t.Errorf("%s: %v, named %q", spec, err, np.Name)
		}
	}
	for _, spec := range []string{"static:0,2,0.01", "static:1,512,1", "static:32,512,0.5", "static:2,16,0.01"} {
		if !seen[spec] {
			t.Errorf("extended grid lacks %s", spec)
		}
	}
	for _, set := range gnn.ActionSets() {
		g := ActionGrid(set)
		for a, s := range g {
			e := set.Setting(a, gnn.ActionRefRate)
			if !s.valid() || int64(s.KMinKB*1000) != e.KMin || int64(s.KMaxKB*1000) != e.KMax || s.PMax != e.PMax {
				t.Errorf("%s action %d: grid setting %+v, the table's %+v", set, a, s, e)
			}
		}
	}
	if s := ActionGrid(gnn.ActionsRPC)[0]; s != (Setting{0, 1, 0.01}) {
		t.Errorf("rpc grid starts with %+v, want 0,1,0.01", s)
	}
	if got := levelsAround(0, 2); !reflect.DeepEqual(got, []float64{1}) {
		t.Errorf("levelsAround(0, 2) = %v", got)
	}
	if got := levelsAround(2, 1.4142135623730951); !reflect.DeepEqual(got, []float64{1.41, 2.83}) {
		t.Errorf("levelsAround(2, √2) = %v", got)
	}
}

// TestNeighbours checks the refinement's candidates: one level from each
// leader in kmin, kmax or pmax, valid, the leaders by score.
func TestNeighbours(t *testing.T) {
	tu := &tuner{c: Config{Top: 2}, runs: []Run{
		{Candidate: Candidate{Setting: Setting{8, 64, 0.5}}, Score: 3},
		{Candidate: Candidate{Setting: Setting{0, 2, 0}}, Score: 1},
		{Candidate: Candidate{Setting: Setting{2, 16, 1}}, Score: 2},
	}}
	var got []string
	for _, c := range tu.ecnNeighbours(2) {
		got = append(got, c.Spec())
	}
	want := "static:1,2,0 static:0,1,0 static:0,4,0 " + // kmin 0 → 1; no pmax step from 0
		"static:1,16,1 static:4,16,1 static:2,8,1 static:2,32,1 static:2,16,0.5 static:2,16,1"
	if strings.Join(got, " ") != want {
		t.Errorf("neighbours:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}

// TestTuneDCQCNAndRoles checks the rounds of a joint search: a round per
// DCQCN constant that changes only that constant of a leader, ECN rounds
// with the leaders' constants, then role rounds that change one role's
// setting; every configuration a spec that runs, and the best of one
// setting confirmed beside the winner.
func TestTuneDCQCNAndRoles(t *testing.T) {
	c := tinyTune(0, []uint64{3001, 3002, 3003})
	c.DCQCN, c.Roles = true, true
	var rounds []string
	c.Progress = func(r Round) { rounds = append(rounds, r.Name) }
	res, err := Search(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := "grid,refine 1,dcqcn timer,dcqcn alpha,dcqcn decrease,dcqcn ai,dcqcn hai,refine dcqcn 1,roles 1,roles 2,confirm"
	if got := strings.Join(rounds, ","); got != want {
		t.Errorf("rounds\n%s\nwant\n%s", got, want)
	}
	if len(rounds) != c.Rounds() {
		t.Errorf("%d rounds, Rounds() says %d", len(rounds), c.Rounds())
	}
	byPolicy := map[string]Run{}
	sawDCQCN, sawRole := false, false
	for _, r := range res.Runs {
		if _, err := policy.Parse(context.Background(), r.Policy, policy.Env{}); err != nil || r.Policy != r.Spec() {
			t.Errorf("%s: %v (spec %s)", r.Policy, err, r.Spec())
		}
		byPolicy[r.Policy] = r
		switch {
		case strings.HasPrefix(r.Round, "dcqcn"):
			sawDCQCN = true
			if r.DCQCN == nil { // the preset's level is the leader, run before
				t.Errorf("%s in round %s has the preset's constants", r.Policy, r.Round)
			}
		case strings.HasPrefix(r.Round, "roles"):
			sawRole = true
			if r.ToSwitch == nil {
				t.Errorf("%s in round %s has one setting for both roles", r.Policy, r.Round)
			}
		}
	}
	if !sawDCQCN || !sawRole {
		t.Fatalf("no DCQCN (%v) or role (%v) runs", sawDCQCN, sawRole)
	}
	cf := res.Confirm
	if cf.BestOneSetting == "" || !byPolicy[cf.BestOneSetting].oneSetting() {
		t.Errorf("best of one setting %q", cf.BestOneSetting)
	}
	if (cf.VsBestOneSetting == nil) != (cf.BestOneSetting == res.BestPolicy) {
		t.Errorf("ratio to the best of one setting %+v with best %s and one setting %s", cf.VsBestOneSetting, res.BestPolicy, cf.BestOneSetting)
	}
	if cf.VsBestOneSetting != nil && !near(cf.VsBestOneSetting.Value, cf.MeanSlowdown["best_policy"]/cf.MeanSlowdown["best_one_setting"]) {
		t.Errorf("ratio to the best of one setting %g, slowdowns %v", cf.VsBestOneSetting.Value, cf.MeanSlowdown)
	}
}

// TestDCQCNNeighbours checks that a DCQCN round changes one constant of
// each leader to each of its levels, the preset's level giving the leader
// without constants.
func TestDCQCNNeighbours(t *testing.T) {
	fast := DefaultDCQCNSetting()
	fast.IncreaseTimerUS = 55
	tu := &tuner{c: Config{Top: 2}, runs: []Run{
		{Candidate: Candidate{Setting: Setting{2, 32, 0.01}}, Score: 1},
		{Candidate: Candidate{Setting: Setting{4, 64, 1}, DCQCN: &fast}, Score: 2},
	}}
	var got []string
	for _, c := range tu.dcqcnNeighbours(DCQCNLadders()[3]) { // ai
		got = append(got, c.Spec())
	}
	want := []string{
		"static:2,32,0.01+dcqcn:300,1,4,2.5,50", "static:2,32,0.01", "static:2,32,0.01+dcqcn:300,1,4,10,50",
		"static:2,32,0.01+dcqcn:300,1,4,20,50", "static:2,32,0.01+dcqcn:300,1,4,40,50", "static:2,32,0.01+dcqcn:300,1,4,80,50",
		"static:4,64,1+dcqcn:55,1,4,2.5,50", "static:4,64,1+dcqcn:55,1,4,5,50", "static:4,64,1+dcqcn:55,1,4,10,50",
		"static:4,64,1+dcqcn:55,1,4,20,50", "static:4,64,1+dcqcn:55,1,4,40,50", "static:4,64,1+dcqcn:55,1,4,80,50",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ai neighbours\n%v\nwant\n%v", got, want)
	}
	// a timer at or below the decrease period is not a configuration
	slow := DefaultDCQCNSetting()
	slow.DecreasePeriodUS = 50
	tu.runs = []Run{{Candidate: Candidate{Setting: Setting{2, 32, 0.01}, DCQCN: &slow}, Score: 1}}
	for _, c := range tu.dcqcnNeighbours(DCQCNLadders()[0]) {
		if c.DCQCN != nil && c.DCQCN.IncreaseTimerUS <= 50 {
			t.Errorf("timer neighbour %s of a 50 µs decrease period", c.Spec())
		}
	}
}

func TestCandidateSpec(t *testing.T) {
	s, sw := Setting{2, 32, 0.01}, Setting{16, 64, 0.5}
	d := DefaultDCQCNSetting()
	d.IncreaseTimerUS, d.AIMbps = 55, 10
	preset := DefaultDCQCNSetting()
	for _, tc := range []struct {
		c    Candidate
		want string
	}{
		{Candidate{Setting: s}, "static:2,32,0.01"},
		{Candidate{Setting: s, ToSwitch: &s}, "static:2,32,0.01"},
		{Candidate{Setting: s, ToSwitch: &sw}, "edge:2,32,0.01:16,64,0.5"},
		{Candidate{Setting: s, DCQCN: &d}, "static:2,32,0.01+dcqcn:55,1,4,10,50"},
		{Candidate{Setting: s, DCQCN: &preset}, "static:2,32,0.01"},
		{Candidate{Setting: s, ToSwitch: &sw, DCQCN: &d}, "edge:2,32,0.01:16,64,0.5+dcqcn:55,1,4,10,50"},
	} {
		got := tc.c.normalized(DefaultDCQCNSetting()).Spec()
		if got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.c, got, tc.want)
		}
		if np, err := policy.Parse(context.Background(), got, policy.Env{}); err != nil || np.Name != got {
			t.Errorf("%s: %v, named %q", got, err, np.Name)
		}
	}
}

// TestCandidateSpecOnHardware checks that a configuration is written
// against the hardware's hosts' constants: without +dcqcn: when it has
// them, with all five otherwise (HPCC's preset included).
func TestCandidateSpecOnHardware(t *testing.T) {
	p := replay.DefaultParams()
	p.DCQCN.IncreaseInterval, p.DCQCN.HAI = 55*topo.Microsecond, 25*topo.Mbps
	hw := HardwareDCQCN(p)
	if want := (DCQCNSetting{55, 1, 4, 5, 25}); hw != want {
		t.Fatalf("HardwareDCQCN = %+v, want %+v", hw, want)
	}
	if got := HardwareDCQCN(replay.Params{}); got != DefaultDCQCNSetting() {
		t.Errorf("HardwareDCQCN of the zero Params = %+v, want the preset %+v", got, DefaultDCQCNSetting())
	}
	s := Setting{2, 32, 0.01}
	same, preset, other := hw, DefaultDCQCNSetting(), hw
	other.AlphaPeriodUS = 55
	for _, tc := range []struct {
		c    Candidate
		want string
	}{
		{Candidate{Setting: s}, "static:2,32,0.01"},
		{Candidate{Setting: s, DCQCN: &same}, "static:2,32,0.01"},
		{Candidate{Setting: s, DCQCN: &preset}, "static:2,32,0.01+dcqcn:300,1,4,5,50"},
		{Candidate{Setting: s, DCQCN: &other}, "static:2,32,0.01+dcqcn:55,55,4,5,25"},
	} {
		if got := tc.c.normalized(hw).Spec(); got != tc.want {
			t.Errorf("%+v on hardware %+v: %s, want %s", tc.c, hw, got, tc.want)
		}
	}
}

// TestTuneOnHardware tunes on hardware other than HPCC's preset (a 55 µs
// rate-increase timer, 25 Mbps HAI): the DCQCN rounds start from the
// hardware's constants, a configuration with them is written without
// +dcqcn:, and every spec of the result, +dcqcn: or not, scores as
// recorded when evaluated again on that hardware, and otherwise on the
// preset's.
func TestTuneOnHardware(t *testing.T) {
	ctx := context.Background()
	c := tinyTune(0, []uint64{3001})
	c.Grid, c.Refine, c.DCQCN = c.Grid[:2], 0, true
	c.Params = replay.DefaultParams()
	c.Params.DCQCN.IncreaseInterval, c.Params.DCQCN.HAI = 55*topo.Microsecond, 25*topo.Mbps
	hw := HardwareDCQCN(c.Params)
	res, err := Search(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Hardware != policy.Hardware(c.Params, 0) || res.Hardware == policy.Hardware(replay.Params{}, 0) {
		t.Errorf("hardware %s", res.Hardware)
	}
	ladders := map[string]DCQCNLadder{}
	for _, l := range DCQCNLadders() {
		ladders["dcqcn "+l.Name] = l
	}
	var specs []string
	byRound := map[string]int{}
	before := []DCQCNSetting{hw} // the constants of the runs of earlier rounds
	var this []DCQCNSetting
	for i, r := range res.Runs {
		if i > 0 && r.Round != res.Runs[i-1].Round {
			before, this = append(before, this...), nil
		}
		byRound[r.Round]++
		d := hw
		if r.DCQCN != nil {
			d = *r.DCQCN
		}
		this = append(this, d)
		if r.DCQCN != nil && r.DCQCN.Params() == hw.Params() {
			t.Errorf("%s (%s) has the hardware's constants written out", r.Policy, r.Round)
		}
		l, ok := ladders[r.Round]
		if !ok {
			continue
		}
		// a leader's constants with the round's one changed; the first
		// round's leaders are the grid's, on the hardware's constants
		lead := slices.IndexFunc(before, func(b DCQCNSetting) bool { return l.set(b, 0) == l.set(d, 0) })
		if r.DCQCN == nil || lead < 0 || r.Round == "dcqcn timer" && lead != 0 {
			t.Errorf("%s in round %s: not a leader's constants with one changed", r.Policy, r.Round)
		}
		if len(specs) < 2 && strings.Contains(r.Policy, policy.HostsMark) {
			specs = append(specs, r.Policy)
		}
	}
	if byRound["dcqcn timer"] == 0 || byRound["dcqcn hai"] == 0 || len(specs) == 0 {
		t.Fatalf("rounds %v", byRound)
	}
	// HPCC's preset timer on this hardware is a configuration of its own
	if !slices.ContainsFunc(res.Runs, func(r Run) bool { return strings.HasSuffix(r.Policy, "+dcqcn:300,1,4,5,25") }) {
		t.Errorf("no run of the timer at 300 µs, the hardware's other constants kept")
	}
	specs = append(specs, res.Runs[0].Policy, res.BestPolicy)
	recorded := map[string]float64{}
	for _, r := range res.Runs {
		recorded[r.Policy] = r.Score
	}
	for _, spec := range specs {
		np, err := policy.Parse(ctx, spec, policy.Env{})
		if err != nil {
			t.Fatal(err)
		}
		rerun := func(p replay.Params) float64 {
			rep, err := experiment.Evaluate(ctx, experiment.Config{Scenarios: c.Scenarios, Policies: []policy.Named{np}, Seeds: c.Seeds, Params: p})
			if err != nil {
				t.Fatal(err)
			}
			return rep.Scenarios[0].Policies[0].Summary.Slowdown.Mean
		}
		if got := rerun(c.Params); got != recorded[spec] {
			t.Errorf("%s on the same hardware: %v, recorded %v", spec, got, recorded[spec])
		}
		if !strings.Contains(spec, policy.HostsMark) {
			if got := rerun(replay.DefaultParams()); got == recorded[spec] {
				t.Errorf("%s on HPCC's preset scores %v too: the hardware made no difference", spec, got)
			}
		}
	}
}

// TestTuneRefusesHardware: a joint search cannot start from hosts'
// constants no +dcqcn: spec can hold.
func TestTuneRefusesHardware(t *testing.T) {
	c := tinyTune(0, []uint64{3001})
	c.DCQCN = true
	c.Params = replay.DefaultParams()
	c.Params.DCQCN.AI = 500 * topo.Kbps
	_, err := Search(context.Background(), c)
	if want := "the hardware's hosts' constants, where the DCQCN rounds start, are not a NIC's: host DCQCN: additive increase 0.5 Mbps"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}

// TestTuneScenarios checks a search over two scenarios: each run's score
// is the geometric mean of its scenarios' mean slowdowns.
func TestTuneScenarios(t *testing.T) {
	c := tinyTune(0, []uint64{3001})
	other := testfabric.TinyScenario()
	other.Name, other.Gen.Load = "tiny30", 0.3
	c.Scenarios = append(c.Scenarios, other)
	c.Refine = 0
	res, err := Search(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scenario != "" || !reflect.DeepEqual(res.Scenarios, []string{"tiny", "tiny30"}) {
		t.Errorf("scenario %q, scenarios %v", res.Scenario, res.Scenarios)
	}
	for _, r := range res.Runs {
		if len(r.PerScenario) != 2 || !near(r.Score, math.Sqrt(r.PerScenario[0]*r.PerScenario[1])) || r.PerScenario[0] == r.PerScenario[1] {
			t.Errorf("%s: score %g of %v", r.Policy, r.Score, r.PerScenario)
		}
	}
	if _, ok := res.Confirm.MeanSlowdown["static"]; !ok {
		t.Errorf("confirmation %+v", res.Confirm)
	}
}

// TestTuneScoreInterval checks the validation score's interval from three
// seeds, and none from one.
func TestTuneScoreInterval(t *testing.T) {
	c := tinyTune(0, []uint64{3001})
	c.Grid, c.Refine = c.Grid[:2], 0
	c.Seeds = []uint64{2001, 2002, 2003}
	res, err := Search(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if res.ScoreLo == nil || res.ScoreHi == nil || !(*res.ScoreLo < res.Score && res.Score < *res.ScoreHi) {
		t.Errorf("score %g, interval %v–%v", res.Score, res.ScoreLo, res.ScoreHi)
	}
	c.Seeds = []uint64{2001}
	if res, err = Search(context.Background(), c); err != nil || res.ScoreLo != nil {
		t.Errorf("one seed: %v, interval from %v", err, res.ScoreLo)
	}
}

// TestTunePrior searches two scenarios at once with the one-scenario
// searches of each as priors: every grid configuration's score comes from
// them, the winner is run again for its interval, and the result is the
// search without priors but for the runs' Reused counts. Priors of other
// seeds, other hardware (the error naming both), another scenario, one
// given twice, or that disagree with the winner's own run are refused.
func TestTunePrior(t *testing.T) {
	ctx := context.Background()
	two := func() Config {
		c := tinyTune(2, []uint64{3001})
		other := testfabric.TinyScenario()
		other.Name, other.Gen.Load = "tiny30", 0.3
		c.Scenarios = append(c.Scenarios, other)
		c.Seeds, c.Refine = []uint64{2001, 2002, 2003}, 1
		return c
	}
	var priors []*Result
	for _, sc := range two().Scenarios {
		c := two()
		c.Scenarios, c.Refine = []scenario.Scenario{sc}, 0
		r, err := Search(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		priors = append(priors, r)
	}
	plain, err := Search(ctx, two())
	if err != nil {
		t.Fatal(err)
	}
	c := two()
	c.Prior = priors
	reused, err := Search(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	sameSearch(t, reused, plain)
	for i, r := range reused.Runs {
		want := 0
		if r.Round == "grid" {
			want = 2
		}
		if r.Reused != want || r.Score != plain.Runs[i].Score || r.Policy != plain.Runs[i].Policy {
			t.Errorf("run %d %s (%s): reused %d (want %d), score %v, without priors %s %v", i, r.Policy, r.Round, r.Reused, want, r.Score, plain.Runs[i].Policy, plain.Runs[i].Score)
		}
	}
	if reused.Hardware == "" || reused.Hardware != policy.Hardware(c.Params, c.Interval) {
		t.Errorf("hardware %q", reused.Hardware)
	}

	lie := *priors[0]
	lie.Runs = append([]Run(nil), lie.Runs...)
	lie.Runs[0].Score *= 0.01 // the winner now, on a score its run will not give
	otherSeeds, otherHW, wrong := *priors[0], *priors[0], *priors[1]
	otherSeeds.Seeds = []uint64{2001}
	otherHW.Hardware = `{"params":{"pfc":false}}`
	wrong.Scenario = "fb60"
	fast := replay.DefaultParams()
	fast.DCQCN.IncreaseInterval = 55 * topo.Microsecond
	fastHW, old := *priors[0], *priors[0]
	fastHW.Hardware, old.Hardware = policy.Hardware(fast, 0), ""
	for _, tc := range []struct {
		name   string
		prior  []*Result
		params replay.Params // the search's hardware
		err    string
	}{
		{"seeds", []*Result{&otherSeeds}, replay.Params{}, "scored on seeds [2001], this search on [2001 2002 2003]"},
		{"hardware", []*Result{&otherHW}, replay.Params{}, "made with other simulated hardware"},
		{"other timer", []*Result{&fastHW}, replay.Params{},
			"prior scenario tiny: made with other simulated hardware (" + policy.Hardware(fast, 0) + "), this search's is " + policy.Hardware(replay.Params{}, 0)},
		{"from before hardware on other hardware", []*Result{&old}, fast,
			"made with other simulated hardware (not recorded: the default), this search's is " + policy.Hardware(fast, 0)},
		{"scenario", []*Result{&wrong}, replay.Params{}, `a tune result of "fb60", not of one of the scenarios searched`},
		{"twice", []*Result{priors[0], priors[0]}, replay.Params{}, "scenario tiny given twice"},
		{"disagrees", []*Result{&lie, priors[1]}, replay.Params{}, "its prior result said"},
	} {
		c := two()
		c.Prior, c.Params = tc.prior, tc.params
		if _, err := Search(ctx, c); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.err)
		}
	}
}

// TestTunePriorOneScenario searches one scenario jointly with the hosts'
// DCQCN, its own switch-only search as the prior: the grid and the
// refinement the prior ran are not simulated again, and the result is the
// joint search without the prior but for the runs' Reused counts.
func TestTunePriorOneScenario(t *testing.T) {
	ctx := context.Background()
	joint := func() Config {
		c := tinyTune(2, []uint64{3001})
		c.Seeds, c.DCQCN = []uint64{2001, 2002, 2003}, true
		return c
	}
	sw := joint()
	sw.DCQCN = false
	prior, err := Search(ctx, sw)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Search(ctx, joint())
	if err != nil {
		t.Fatal(err)
	}
	c := joint()
	c.Prior = []*Result{prior}
	reused, err := Search(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	sameSearch(t, reused, plain)
	ran := map[string]bool{}
	for _, r := range prior.Runs {
		ran[r.Policy] = true
	}
	n := 0
	for i, r := range reused.Runs {
		want := 0
		if ran[r.Policy] {
			want, n = 1, n+1
		}
		if r.Reused != want || r.Score != plain.Runs[i].Score || r.Policy != plain.Runs[i].Policy {
			t.Errorf("run %d %s (%s): reused %d (want %d), score %v, without the prior %s %v", i, r.Policy, r.Round, r.Reused, want, r.Score, plain.Runs[i].Policy, plain.Runs[i].Score)
		}
	}
	if n != len(prior.Runs) || n == len(reused.Runs) {
		t.Errorf("%d of %d runs reused; the prior ran %d", n, len(reused.Runs), len(prior.Runs))
	}
}

// sameSearch fails t unless a search with priors (reused) found what the
// same search without them (plain) did: the best policy, its score and
// interval, and as many runs.
func sameSearch(t *testing.T, reused, plain *Result) {
	t.Helper()
	if reused.BestPolicy != plain.BestPolicy || reused.Score != plain.Score || !reflect.DeepEqual(reused.ScoreLo, plain.ScoreLo) {
		t.Errorf("with priors %s %v (%v), without %s %v (%v)", reused.BestPolicy, reused.Score, reused.ScoreLo, plain.BestPolicy, plain.Score, plain.ScoreLo)
	}
	if len(reused.Runs) != len(plain.Runs) {
		t.Fatalf("%d runs with priors, %d without", len(reused.Runs), len(plain.Runs))
	}
}
