package workload

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
	"graphcc/trace"
)

// pointCDF is a workload whose every flow has size bytes.
func pointCDF(name string, bytes float64) *CDF {
	return &CDF{Name: name, Points: []CDFPoint{{bytes, 0}, {bytes, 100}}}
}

// threePhases is phased traffic whose phases are told apart by their flow
// sizes: 2 ms of 1000 B flows at 30 %, 3 ms of 50 KB flows at 80 %, 1 ms
// of 7000 B flows at 60 % with 4:1 incasts of 64 KB every 200 us.
func threePhases() GenConfig {
	c := DefaultGen()
	c.Phases = []Phase{
		{Duration: 2 * topo.Millisecond, Workload: pointCDF("a", 1000), Load: 0.3},
		{Duration: 3 * topo.Millisecond, Workload: pointCDF("b", 50000), Load: 0.8},
		{Duration: topo.Millisecond, Workload: pointCDF("c", 7000), Load: 0.6,
			Incast: IncastConfig{Period: 200 * topo.Microsecond, FanIn: 4, Size: 64000}},
	}
	c.Duration = PhasesDuration(c.Phases)
	return c
}

// TestGenPhases: each phase's flows start in its window, at its load, with
// its incasts only; a trace is the same for the same seed.
func TestGenPhases(t *testing.T) {
	f := clos24(t)
	c := threePhases()
	flows, err := Generate(f, c)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Generate(f, c); !slices.Equal(flows, again) {
		t.Error("same seed gave different flows")
	}
	start := c.Start
	capacity := 24 * 25e9 / 8 // bytes per second of all host links
	for i, p := range c.Phases {
		end := start + p.Duration
		var bytes float64
		incasts := map[int64]int{}
		for _, fl := range flows {
			switch {
			case fl.Incast() && fl.Start >= start && fl.Start < end:
				incasts[fl.Start]++
			case !fl.Incast() && float64(fl.Size) == p.Workload.Points[0].Bytes:
				if fl.Start < start || fl.Start > end {
					t.Errorf("phase %d: flow of %d B starts at %d ps, outside [%d, %d]", i, fl.Size, fl.Start, start, end)
				}
				bytes += float64(fl.Size)
			}
		}
		load := bytes / (capacity * float64(p.Duration) / float64(topo.Second))
		if math.Abs(load-p.Load)/p.Load > 0.1 {
			t.Errorf("phase %d: offered load %.3f, want %.2f within 10 %%", i, load, p.Load)
		}
		// Incasts at the phase's start + k*period, k >= 1, before its end.
		want := 0
		if p.Incast.Period > 0 {
			want = int((p.Duration - 1) / p.Incast.Period)
		}
		if len(incasts) != want {
			t.Errorf("phase %d: %d incasts, want %d", i, len(incasts), want)
		}
		for at, n := range incasts {
			if (at-start)%p.Incast.Period != 0 || at == start || n != p.Incast.FanIn {
				t.Errorf("phase %d: incast of %d senders at %d ps", i, n, at)
			}
		}
		start = end
	}
}

// TestGenPhasesIndependent: each phase draws from streams of its own, so
// changing a phase leaves the flows of the others as they were (those
// after it as long as its duration stays), and a phase's flows depend on
// the seed.
func TestGenPhasesIndependent(t *testing.T) {
	f := clos24(t)
	c := threePhases()
	base, err := Generate(f, c)
	if err != nil {
		t.Fatal(err)
	}
	of := func(flows []trace.Flow, size int64) []trace.Flow {
		var out []trace.Flow
		for _, fl := range flows {
			if fl.Size == size {
				out = append(out, fl)
			}
		}
		return out
	}
	// The last phase changes entirely: the first two are unchanged.
	c2 := threePhases()
	c2.Phases[2] = Phase{Duration: 4 * topo.Millisecond, Workload: pointCDF("d", 3000), Load: 0.9}
	c2.Duration = PhasesDuration(c2.Phases)
	edited, err := Generate(f, c2)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{1000, 50000} {
		if a, b := of(base, size), of(edited, size); len(a) == 0 || !slices.Equal(a, b) {
			t.Errorf("flows of %d B (%d of them) changed with the last phase", size, len(a))
		}
	}
	// The middle phase changes load: the others are unchanged.
	c3 := threePhases()
	c3.Phases[1].Load = 0.2
	edited, err = Generate(f, c3)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{1000, 7000, 64000} {
		if a, b := of(base, size), of(edited, size); len(a) == 0 || !slices.Equal(a, b) {
			t.Errorf("flows of %d B (%d of them) changed with the middle phase's load", size, len(a))
		}
	}
	if a, b := of(base, 50000), of(edited, 50000); len(b) >= len(a) {
		t.Errorf("middle phase at 20 %%: %d flows, at 80 %%: %d", len(b), len(a))
	}
	c.Seed = 2
	other, err := Generate(f, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{1000, 50000, 7000} {
		if slices.Equal(of(base, size), of(other, size)) {
			t.Errorf("flows of %d B are the same for seeds 1 and 2", size)
		}
	}
}

// TestGenPhasesErrors: a phase's field is refused under its index, and the
// phases must make up Duration.
func TestGenPhasesErrors(t *testing.T) {
	f := clos24(t)
	for _, tc := range []struct {
		field, want string
		mod         func(*GenConfig)
	}{
		{"Phases[1].Load", "1.3 not in (0, 1]", func(c *GenConfig) { c.Phases[1].Load = 1.3 }},
		{"Phases[0].Workload", "nil", func(c *GenConfig) { c.Phases[0].Workload = nil }},
		{"Phases[2].Incast.FanIn", "30 senders, but the fabric has only 23 other hosts", func(c *GenConfig) { c.Phases[2].Incast.FanIn = 30 }},
		{"Phases[1].Duration", "0 ps, want > 0", func(c *GenConfig) { c.Phases[1].Duration = 0 }},
		{"Duration", "7ms, but the phases last 6ms in all", func(c *GenConfig) { c.Duration = 7 * topo.Millisecond }},
		{"Phases", "the phases' durations overflow", func(c *GenConfig) { c.Phases[0].Duration = math.MaxInt64 }},
		{"Start", "-1 ps", func(c *GenConfig) { c.Start = -1 }},
		{"Phases", "1001 phases, want at most 1000", func(c *GenConfig) {
			c.Phases = slices.Repeat(c.Phases[:1], 1001)
			c.Duration = PhasesDuration(c.Phases)
		}},
		{"Phases[0].Duration", "flows expected", func(c *GenConfig) {
			c.Phases[0].Workload, c.Phases[0].Duration = pointCDF("tiny", 1), topo.Second
			c.Duration = PhasesDuration(c.Phases)
		}},
		{"Phases", "flows expected over the 3 phases", func(c *GenConfig) {
			for i := range c.Phases {
				c.Phases[i].Workload, c.Phases[i].Duration, c.Phases[i].Load = pointCDF("tiny", 75), 8*topo.Millisecond, 1
			}
			c.Duration = PhasesDuration(c.Phases)
		}},
	} {
		c := threePhases()
		tc.mod(&c)
		err := c.Check(f)
		var ge *GenError
		if !errors.As(err, &ge) || ge.Field != tc.field || !strings.Contains(ge.Reason, tc.want) {
			t.Errorf("%s: Check = %v, want field %s and %q", tc.field, err, tc.field, tc.want)
		}
		if _, err := Generate(f, c); err == nil {
			t.Errorf("%s: Generate accepted it", tc.field)
		}
	}
	// The unused top-level fields of a phased config are not checked.
	c := threePhases()
	c.Workload, c.Load = nil, 7
	if err := c.Check(f); err != nil {
		t.Errorf("phased config with unused top-level fields: %v", err)
	}
}
