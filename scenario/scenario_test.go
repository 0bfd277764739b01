package scenario

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

func TestSuiteNamesUniqueAndBuild(t *testing.T) {
	suite := Suite()
	seen := map[string]bool{}
	for _, s := range suite {
		if s.Name == "" || strings.ContainsAny(s.Name, " ,/") {
			t.Errorf("bad scenario name %q", s.Name)
		}
		if seen[s.Name] {
			t.Errorf("scenario %q twice", s.Name)
		}
		seen[s.Name] = true
		if s.Description == "" {
			t.Errorf("%s: no description", s.Name)
		}
	}
	for _, want := range []string{"fb60-incast", "fb60", "websearch60", "alistorage60", "googlerpc60",
		"fb80", "fb90", "fail1", "fail2", "flat8", "flat12", "day", "day-b", "day-held"} {
		if !seen[want] {
			t.Errorf("suite lacks %s", want)
		}
	}
	if Default().Name != "fb60-incast" || suite[0].Name != "fb60-incast" {
		t.Errorf("default scenario %s, suite starts with %s", Default().Name, suite[0].Name)
	}
	if testing.Short() {
		return
	}
	// Every scenario builds (googlerpc60's 390k flows take a few hundred ms).
	for _, s := range suite {
		f, flows, err := s.Build(7)
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		if len(flows) == 0 {
			t.Errorf("%s: no flows", s.Name)
		}
		if got, want := len(f.Hosts()), s.Clos.Leaves*s.Clos.HostsPerLeaf; got != want {
			t.Errorf("%s: %d hosts, want %d", s.Name, got, want)
		}
		if got, want := len(f.Links), s.Clos.Leaves*(s.Clos.HostsPerLeaf+s.Clos.Spines)-s.FailRandom; got != want {
			t.Errorf("%s: %d links, want %d", s.Name, got, want)
		}
		incast := 0
		for _, fl := range flows {
			if fl.Incast() {
				incast++
			}
		}
		wantIncast := !strings.Contains(s.Description, "no incasts") && !strings.Contains(s.Description, "without incasts")
		hasIncast := s.Gen.Incast.Period > 0
		if len(s.Gen.Phases) > 0 {
			hasIncast = slices.ContainsFunc(s.Gen.Phases, func(p workload.Phase) bool { return p.Incast.Period > 0 })
		}
		if (incast > 0) != wantIncast || (incast > 0) != hasIncast {
			t.Errorf("%s: %d incast flows with incast period %d (%s)", s.Name, incast, s.Gen.Incast.Period, s.Description)
		}
	}
}

func TestScenarioByName(t *testing.T) {
	s, err := ByName("fail2")
	if err != nil || s.Name != "fail2" || s.FailRandom != 2 {
		t.Fatalf("fail2: %+v, %v", s, err)
	}
	_, err = ByName("fb70")
	if err == nil || !strings.Contains(err.Error(), `"fb70"`) || !strings.Contains(err.Error(), "fb60-incast, fb60, websearch60") {
		t.Errorf("unknown scenario: %v", err)
	}
	// Suite returns fresh copies: changing one leaves the next call alone.
	a := Suite()
	a[0].Gen.Load = 0.1
	a[0].Gen.Workload.Points[1].Bytes = 1
	if b := Suite(); b[0].Gen.Load != 0.6 || b[0].Gen.Workload.Points[1].Bytes == 1 {
		t.Error("Suite shares state between calls")
	}
}

func linkNames(t *testing.T, s Scenario, seed uint64) ([]string, []trace.Flow) {
	t.Helper()
	f, flows, err := s.Build(seed)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range f.Links {
		names = append(names, l.Name)
	}
	return names, flows
}

func TestBuildDeterministic(t *testing.T) {
	s, err := ByName("fail2")
	if err != nil {
		t.Fatal(err)
	}
	s.Gen.Duration /= 10 // keep it fast; failures do not depend on it
	l1, f1 := linkNames(t, s, 3)
	l2, f2 := linkNames(t, s, 3)
	if !reflect.DeepEqual(l1, l2) || !reflect.DeepEqual(f1, f2) {
		t.Fatal("same seed, different fabric or flows")
	}
	_, f3 := linkNames(t, s, 4)
	if reflect.DeepEqual(f1, f3) {
		t.Error("seeds 3 and 4 give the same flows")
	}
	// The failed links change with the seed.
	sets := map[string]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		l, _ := linkNames(t, s, seed)
		sets[strings.Join(l, ",")] = true
	}
	if len(sets) < 2 {
		t.Errorf("8 seeds failed the same links: %v", sets)
	}
	// A fixed failure comes on top of the random ones.
	s.Fail = []string{"leaf0-spine0"}
	s.FailRandom = 1
	l, _ := linkNames(t, s, 3)
	if len(l) != len(l1) || strings.Contains(strings.Join(l, ","), "leaf0-spine0") {
		t.Errorf("Fail + FailRandom 1: links %v", l)
	}
}

// TestBuildErrors: Build names the field of the Scenario at fault, with
// the message callers had before (scenario NAME: why), and Fabric and
// Traffic are Build's two halves.
func TestBuildErrors(t *testing.T) {
	base := Default()
	base.Name = "t"
	base.Gen.Duration /= 10
	for _, tc := range []struct {
		edit  func(*Scenario)
		field string
		msg   string
	}{
		{func(s *Scenario) { s.Clos.Leaves = 0 }, "Clos", "scenario t: "},
		{func(s *Scenario) { s.Fail = []string{"nosuch"} }, "Fail", `scenario t: fail links: unknown link "nosuch"`},
		{func(s *Scenario) { s.FailRandom = -1 }, "FailRandom", "scenario t: FailRandom -1 is negative"},
		{func(s *Scenario) { s.FailRandom = 99 }, "FailRandom", "scenario t: fail random: cannot fail 99"},
		{func(s *Scenario) { s.Gen.Incast.FanIn = 99 }, "Gen", "scenario t: generate: "},
	} {
		s := base
		tc.edit(&s)
		_, _, err := s.Build(1)
		var be *BuildError
		if !errors.As(err, &be) || be.Field != tc.field || !strings.HasPrefix(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want a BuildError of field %s starting %q", tc.field, err, tc.field, tc.msg)
		}
	}
	f, flows, err := base.Build(7)
	if err != nil {
		t.Fatal(err)
	}
	g, err := base.Fabric(7)
	if err != nil {
		t.Fatal(err)
	}
	flows2, err := base.Traffic(g, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Links) != len(g.Links) || !reflect.DeepEqual(flows, flows2) {
		t.Error("Fabric and Traffic differ from Build")
	}
}

// TestPhasedSuite: the built-in phased scenarios move between the four
// workloads in phases of 2 to 20 ms, their arrival window is their phases'
// total, day-held alone is held out, and Describe and SizeCDF show the
// phases.
func TestPhasedSuite(t *testing.T) {
	held := 0
	for _, name := range []string{"day", "day-b", "day-held"} {
		s, err := ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		ph := s.Gen.Phases
		if len(ph) < 4 || s.Gen.Duration != workload.PhasesDuration(ph) {
			t.Errorf("%s: %d phases, duration %d", name, len(ph), s.Gen.Duration)
		}
		workloads := map[string]bool{}
		incast := false
		for _, p := range ph {
			if p.Duration < 2*topo.Millisecond || p.Duration > 20*topo.Millisecond {
				t.Errorf("%s: a phase of %s", name, topo.FormatDuration(p.Duration))
			}
			workloads[p.Workload.Name] = true
			incast = incast || p.Incast.Period > 0
		}
		if len(workloads) != 4 || !incast {
			t.Errorf("%s: workloads %v, incasts %v", name, workloads, incast)
		}
		if d := s.Describe(); !strings.Contains(d, "in phases: ") || strings.Count(d, ";") != len(ph)+1 {
			t.Errorf("%s described as %q", name, d)
		}
		if c := s.SizeCDF(); c == nil || !strings.HasPrefix(c.Name, "mix of ") {
			t.Errorf("%s: size CDF %v", name, c)
		}
		if l := s.MeanLoad(); !(l > 0.3 && l < 0.9) {
			t.Errorf("%s: mean load %v", name, l)
		}
		if err := s.CheckTraining(); (err != nil) != s.HeldOut {
			t.Errorf("%s: held out %v, CheckTraining %v", name, s.HeldOut, err)
		}
		if s.HeldOut {
			held++
		}
	}
	if held != 1 {
		t.Errorf("%d held-out scenarios, want 1", held)
	}
	for _, s := range Suite() {
		if s.HeldOut != (s.Name == "day-held") {
			t.Errorf("%s: held out %v", s.Name, s.HeldOut)
		}
	}
}

// TestPhaseStarts: a phased scenario's phases start where the previous
// ones end, counted from its arrival window's start, and each is described
// as Describe lists it; a scenario without phases has no starts.
func TestPhaseStarts(t *testing.T) {
	day, err := ByName("day")
	if err != nil {
		t.Fatal(err)
	}
	ms := topo.Millisecond
	if got, want := day.PhaseStarts(), []int64{0, 10 * ms, 15 * ms, 25 * ms, 30 * ms}; !slices.Equal(got, want) {
		t.Errorf("day's phases start at %v, want %v", got, want)
	}
	if got := DescribePhase(day.Gen.Phases[3]); got != "5 ms of GoogleRPC2008 90 %, no incasts" {
		t.Errorf("day's RPC phase described as %q", got)
	}
	if d := DescribePhase(day.Gen.Phases[4]); !strings.Contains(day.Describe(), d+"; ") || !strings.Contains(d, "+ 16:1 incasts") {
		t.Errorf("day's last phase described as %q, not as in %q", d, day.Describe())
	}
	if got := Default().PhaseStarts(); got != nil {
		t.Errorf("fb60-incast has phase starts %v", got)
	}
}
