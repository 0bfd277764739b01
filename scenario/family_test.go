package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

// dumpScenario writes what a draw is, exactly: every phase's duration,
// load and incast, its workload's name and every point of its CDF (the
// floats' bits), and the events.
func dumpScenario(s Scenario) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v %d\n", s.Name, s.HeldOut, s.Gen.Duration)
	for _, p := range s.Gen.Phases {
		fmt.Fprintf(&b, "%d %x %+v %q", p.Duration, math.Float64bits(p.Load), p.Incast, p.Workload.Name)
		for _, pt := range p.Workload.Points {
			fmt.Fprintf(&b, " %x:%x", math.Float64bits(pt.Bytes), math.Float64bits(pt.Percent))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%+v\n", s.Events)
	return b.String()
}

// TestFamilyDeterministic: a draw is the same scenario every time, the
// same as DrawFrom with its PCG, and the draws of both families are pinned
// byte for byte (a hash of every field and CDF point), so that a change
// of the draws, or of a platform's arithmetic, fails here.
func TestFamilyDeterministic(t *testing.T) {
	h := sha256.New()
	for _, fam := range Families() {
		first, _ := fam.Draws()
		for n := first; n < first+20; n++ {
			a, err := fam.Draw(n)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := fam.Draw(n)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: two draws differ", a.Name)
			}
			c := fam.DrawFrom(a.Name, rand.New(rand.NewPCG(n, fam.Stream)))
			c.Description, c.HeldOut, c.heldOutWhy = a.Description, a.HeldOut, a.heldOutWhy // Draw's own
			if !reflect.DeepEqual(a, c) {
				t.Fatalf("%s: DrawFrom differs from Draw:\n%s\n%s", a.Name, dumpScenario(c), dumpScenario(a))
			}
			h.Write([]byte(dumpScenario(a)))
		}
	}
	const want = "44c79ffe780e6bf5ddf454b7bffc0160c74298cd15c656538dd48587c7132e96"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("the draws changed: hash %s, want %s", got, want)
	}
	s, err := ByName("family-3")
	if err != nil {
		t.Fatal(err)
	}
	const describe = "in phases: 15 ms of AliStorage2019 55 % + 4:1 incasts of 128 KB every 1 ms; 18 ms of FB_Hadoop 85 % + 4:1 incasts of 32 KB every 1 ms; 4 ms of AliStorage2019 60 %, no incasts; 37 ms of arrivals; Clos of 4 leaves x 6 hosts, 2 spines"
	if got := s.Describe(); got != describe {
		t.Errorf("family-3:\n got %s\nwant %s", got, describe)
	}
}

// TestFamilyRanges: the training and evaluation draws are disjoint, the
// evaluation draws and every held-out draw are refused by CheckTraining
// with a message naming the draw, and draws outside the ranges do not
// exist.
func TestFamilyRanges(t *testing.T) {
	if !(FirstTrainingDraw <= LastTrainingDraw && LastTrainingDraw < FirstEvaluationDraw && FirstEvaluationDraw <= LastEvaluationDraw) {
		t.Fatal("the training and evaluation draws overlap")
	}
	cases := []struct {
		name  string
		train string // "" if training may use it, else a part of CheckTraining's error
	}{
		{"family-1", ""},
		{"family-9999", ""},
		{"family-10000", "scenario family-10000 is held out: its traffic is draw 10000 of family, an evaluation draw (draws 1-9999 for training, 10000-10999 for evaluation)"},
		{"family-10999", "draw 10999 of family, an evaluation draw"},
		{"family-held-10000", "scenario family-held-10000 is held out: its traffic is draw 10000 of family-held, the held-out family configuration"},
		{"family-held-10999", "draw 10999 of family-held"},
	}
	for _, c := range cases {
		s, err := ByName(c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		err = s.CheckTraining()
		if (c.train == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.train) {
			t.Errorf("%s: CheckTraining = %v, want %q", c.name, err, c.train)
		}
		if c.train != "" && !strings.Contains(s.Description, "held out of training") {
			t.Errorf("%s: description %q does not say it is held out", c.name, s.Description)
		}
	}
	for _, name := range []string{"family-0", "family-11000", "family-held-1", "family-held-9999", "family-held-11000"} {
		if _, err := ByName(name); err == nil || !strings.Contains(err.Error(), name+": no such draw") {
			t.Errorf("ByName(%s): %v", name, err)
		}
	}
	// a file scenario based on an evaluation draw stays held out
	got, err := Read(strings.NewReader("scenarios:\n  - name: mine\n    base: family-10003\n    clos: {buffer: 16MiB}\n"), "f.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := got[0].CheckTraining(); err == nil || !strings.Contains(err.Error(), "scenario mine is held out: its traffic is draw 10003 of family") {
		t.Errorf("a file's scenario on an evaluation draw: %v", err)
	}
}

// TestFamilyBounds draws many scenarios of each family and checks every
// drawn parameter against the family's documented bounds, and that the
// traffic and events fit the Clos; link events happen now and then, not
// always, and family-held's workloads are mixtures family never draws.
func TestFamilyBounds(t *testing.T) {
	cases := []struct {
		fam       string
		mixed     []int // the numbers of workloads a phase may mix (1: a built-in)
		draws     int
		minEvents float64
		maxEvents float64
	}{
		{FamilyName, []int{1, 2}, 300, 0.15, 0.35},
		{FamilyHeldName, []int{3}, 300, 0.15, 0.35},
	}
	for _, c := range cases {
		t.Run(c.fam, func(t *testing.T) {
			fam, err := FamilyByName(c.fam)
			if err != nil {
				t.Fatal(err)
			}
			first, _ := fam.Draws()
			events, mixes := 0, map[int]int{}
			for n := first; n < first+uint64(c.draws); n++ {
				s, err := fam.Draw(n)
				if err != nil {
					t.Fatal(err)
				}
				checkDrawBounds(t, fam, s, c.mixed, mixes)
				if len(s.Events) > 0 {
					events++
				}
			}
			if f := float64(events) / float64(c.draws); f < c.minEvents || f > c.maxEvents {
				t.Errorf("link events in %.2f of the draws, want %g to %g", f, c.minEvents, c.maxEvents)
			}
			for _, k := range c.mixed {
				if mixes[k] == 0 {
					t.Errorf("no phase mixes %d workloads", k)
				}
			}
		})
	}
}

// checkDrawBounds checks draw s of fam, counting its phases by the number
// of workloads they mix into mixes.
func checkDrawBounds(t *testing.T, fam Family, s Scenario, mixed []int, mixes map[int]int) {
	t.Helper()
	ps := s.Gen.Phases
	if len(ps) < fam.Phases[0] || len(ps) > fam.Phases[1] {
		t.Fatalf("%s: %d phases", s.Name, len(ps))
	}
	for i, p := range ps {
		ms := p.Duration / topo.Millisecond
		pct := math.Round(p.Load * 100)
		switch {
		case p.Duration%topo.Millisecond != 0 || ms < int64(fam.PhaseMs[0]) || ms > int64(fam.PhaseMs[1]):
			t.Fatalf("%s: phase %d lasts %d ps", s.Name, i, p.Duration)
		case p.Load != pct/100 || pct < float64(fam.LoadPct[0]) || pct > float64(fam.LoadPct[1]) || int(pct)%fam.LoadStepPct != 0:
			t.Fatalf("%s: phase %d load %v", s.Name, i, p.Load)
		case p.Incast.Period != 0 && (p.Incast.Period != topo.Millisecond || !slices.Contains(fam.FanIns, p.Incast.FanIn) || p.Incast.Size%1000 != 0 || !slices.Contains(fam.IncastKBs, int(p.Incast.Size/1000))):
			t.Fatalf("%s: phase %d incast %+v", s.Name, i, p.Incast)
		}
		k := checkMixture(t, fam, p.Workload.Name)
		if !slices.Contains(mixed, k) {
			t.Fatalf("%s: phase %d mixes %d workloads (%s)", s.Name, i, k, p.Workload.Name)
		}
		mixes[k]++
	}
	if s.Gen.Duration > int64(fam.MaxMs)*topo.Millisecond {
		t.Fatalf("%s: %d ps of arrivals", s.Name, s.Gen.Duration)
	}
	f, err := s.FixedFabric()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Gen.Check(f); err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	checkDrawEvents(t, fam, s, f)
}

// checkMixture checks a phase's workload name, a built-in of fam or a
// mixture "FB_Hadoop+WebSearch 3:7" of distinct ones in fam's order with
// weights of at least one tenth summing to ten, and returns how many
// workloads it mixes.
func checkMixture(t *testing.T, fam Family, name string) int {
	t.Helper()
	if slices.Contains(fam.Workloads, name) {
		return 1
	}
	titles, tenths, _ := strings.Cut(name, " ")
	var order []int
	for _, w := range strings.Split(titles, "+") {
		i := slices.IndexFunc(fam.Workloads, func(b string) bool { return WorkloadTitle(b) == w })
		if i < 0 || len(order) > 0 && i <= order[len(order)-1] {
			t.Fatalf("mixture %q: %s unknown or out of order", name, w)
		}
		order = append(order, i)
	}
	sum, parts := 0, strings.Split(tenths, ":")
	for _, p := range parts {
		var w int
		if _, err := fmt.Sscan(p, &w); err != nil || w < 1 {
			t.Fatalf("mixture %q: weight %q", name, p)
		}
		sum += w
	}
	if sum != 10 || len(parts) != len(order) {
		t.Fatalf("mixture %q: weights sum to %d tenths", name, sum)
	}
	return len(order)
}

// checkDrawEvents checks the link event of draw s of fam on its fabric f.
func checkDrawEvents(t *testing.T, fam Family, s Scenario, f *topo.Fabric) {
	t.Helper()
	if len(s.Events) == 0 {
		return
	}
	if i, err := checkEvents(f, s.Events); err != nil {
		t.Fatalf("%s: event %d: %v", s.Name, i, err)
	}
	fail, back := s.Events[0], s.Events[1]
	down := back.At - fail.At
	switch {
	case len(s.Events) != 2 || fail.Up || !back.Up || fail.Link != back.Link || !strings.HasPrefix(fail.Link, "leaf"):
		t.Fatalf("%s: events %+v", s.Name, s.Events)
	case fail.At%(100*topo.Microsecond) != 0 || fail.At < 0 || fail.At > s.Gen.Duration-topo.Millisecond:
		t.Fatalf("%s: fails at %d ps of %d", s.Name, fail.At, s.Gen.Duration)
	case back.At > s.Gen.Duration || down > int64(fam.DownMs[1])*topo.Millisecond ||
		back.At < s.Gen.Duration && (down < int64(fam.DownMs[0])*topo.Millisecond || down%topo.Millisecond != 0):
		t.Fatalf("%s: comes back at %d ps, %d ps after failing, of %d", s.Name, back.At, down, s.Gen.Duration)
	}
}

// TestFamilySimulates builds a family draw with a link event and simulates
// its first 300 µs of arrivals on the suite's Clos, the link failing and
// coming back meanwhile: every flow completes.
func TestFamilySimulates(t *testing.T) {
	var s Scenario
	for n := uint64(FirstTrainingDraw); ; n++ {
		fam, _ := FamilyByName(FamilyName)
		if s, _ = fam.Draw(n); len(s.Events) > 0 {
			break
		}
	}
	s.Events[0].At, s.Events[1].At = 50*topo.Microsecond, 150*topo.Microsecond
	f, flows, err := s.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	end := s.ArrivalStart() + 300*topo.Microsecond
	short := slices.DeleteFunc(flows, func(fl trace.Flow) bool { return fl.Start >= end })
	if len(short) < 10 {
		t.Fatalf("%s: %d flows in 300 µs", s.Name, len(short))
	}
	events, err := s.LinkEvents(f)
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(replay.Config{Fabric: f, Flows: short, Seed: 1, LinkEvents: events})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.FCT) != len(short) {
		t.Errorf("%s: %d of %d flows completed", s.Name, len(res.FCT), len(short))
	}
}
