package scenario

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"graphcc/topo"
	"graphcc/workload"
)

// The draws of a family (Family): numbers FirstTrainingDraw to
// LastTrainingDraw are training draws, which training may use, and
// FirstEvaluationDraw to LastEvaluationDraw evaluation draws, which no
// training may use (Scenario.CheckTraining). A held-out family has
// evaluation draws only.
const (
	FirstTrainingDraw   = 1
	LastTrainingDraw    = 9999
	FirstEvaluationDraw = 10000
	LastEvaluationDraw  = 10999
)

// The families' names (Families): FamilyName's draws are the training
// family's, FamilyHeldName's the held-out configuration's.
const (
	FamilyName     = "family"
	FamilyHeldName = "family-held"
)

// A Family is a family of randomized phased scenarios on the GraphCC Clos:
// draw n of it (Draw) is the scenario NAME-n, whose phase sequence is drawn
// from a PCG stream of n (DrawFrom), the same on every machine. The fields
// bound what is drawn; a range [a, b] holds both ends.
type Family struct {
	// Name names the family; its draws are NAME-n.
	Name string
	// Description says in a sentence what the family is for.
	Description string
	// HeldOut keeps every draw out of training; otherwise only the
	// evaluation draws are.
	HeldOut bool
	// Stream is the PCG stream of the draws (the draw number is the seed).
	Stream uint64
	// Phases is the range of the number of phases.
	Phases [2]int
	// PhaseMs is the range of a phase's duration, ms; MaxMs caps the
	// phases' total (later phases are drawn shorter to fit).
	PhaseMs [2]int
	MaxMs   int
	// LoadPct is the range of a phase's load, percent of each host's link
	// rate, drawn in steps of LoadStepPct.
	LoadPct     [2]int
	LoadStepPct int
	// Workloads are the built-in workloads drawn among. A phase is a
	// mixture of Mixed of them with chance MixPct percent, else one of
	// them; a mixture's weights (by flow count) are whole tenths, each at
	// least one.
	Workloads []string
	Mixed     int
	MixPct    int
	// IncastPct is the chance, percent, that a phase has incasts: every
	// IncastPeriodMs, FanIn senders (one of FanIns) send IncastKB each (one
	// of IncastKBs, KB of 1000 B) to one receiver.
	IncastPct      int
	FanIns         []int
	IncastKBs      []int
	IncastPeriodMs int
	// EventPct is the chance, percent, that a draw has a link event: one
	// leaf-spine link fails at a time on a 100 µs grid at least 1 ms
	// before the arrivals end, and comes back DownMs later (a range, ms),
	// or when the arrivals end if that is sooner.
	EventPct int
	DownMs   [2]int
}

// Families returns the built-in families, fresh copies, the training
// family first:
//
//   - family: 2 to 6 phases of 1 to 20 ms (40 ms of arrivals at most), each
//     one of the four built-in workloads or, in 4 of 10 phases, a mixture
//     of two of them; loads 30 to 90 % in steps of 5; incasts in half the
//     phases (fan-in 4 to 20, 16 to 128 KB, every 1 ms); a leaf-spine link
//     down for 1 to 10 ms in a quarter of the draws. Draws 1-9999 are for
//     training, 10000-10999 for evaluation.
//   - family-held: the same, but every phase a mixture of three of the
//     workloads, which family never draws; held out of training (its
//     draws are 10000-10999).
func Families() []Family {
	train := Family{
		Name:        FamilyName,
		Description: "randomized phased traffic: workloads (or a mixture of two), loads, incasts, phase lengths and a link event drawn per draw",
		Stream:      0x66616d696c79, // "family"
		Phases:      [2]int{2, 6}, PhaseMs: [2]int{1, 20}, MaxMs: 40,
		LoadPct: [2]int{30, 90}, LoadStepPct: 5,
		Workloads: []string{"fb_hadoop", "websearch", "alistorage", "googlerpc"},
		Mixed:     2, MixPct: 40,
		IncastPct: 50, FanIns: []int{4, 8, 12, 16, 20}, IncastKBs: []int{16, 32, 64, 128}, IncastPeriodMs: 1,
		EventPct: 25, DownMs: [2]int{1, 10},
	}
	held := train
	held.Name, held.HeldOut, held.Stream = FamilyHeldName, true, 0x68656c64 // "held"
	held.Description = "the held-out family configuration: as family, but every phase a mixture of three workloads, which family never draws"
	held.Workloads = slices.Clone(train.Workloads)
	held.FanIns, held.IncastKBs = slices.Clone(train.FanIns), slices.Clone(train.IncastKBs)
	held.Mixed, held.MixPct = 3, 100
	return []Family{train, held}
}

// FamilyByName returns the built-in family named name.
func FamilyByName(name string) (Family, error) {
	for _, f := range Families() {
		if f.Name == name {
			return f, nil
		}
	}
	return Family{}, fmt.Errorf("unknown scenario family %q (known: %s, %s)", name, FamilyName, FamilyHeldName)
}

// Draws returns the first and last draw numbers of f: the training and
// evaluation draws, or the evaluation draws only if f is held out.
func (f Family) Draws() (first, last uint64) {
	if f.HeldOut {
		return FirstEvaluationDraw, LastEvaluationDraw
	}
	return FirstTrainingDraw, LastEvaluationDraw
}

// DescribeDraws says which draws f has: "draws 1-9999 for training,
// 10000-10999 for evaluation" or "draws 10000-10999, all held out of
// training".
func (f Family) DescribeDraws() string {
	if f.HeldOut {
		return fmt.Sprintf("draws %d-%d, all held out of training", FirstEvaluationDraw, LastEvaluationDraw)
	}
	return fmt.Sprintf("draws %d-%d for training, %d-%d for evaluation", FirstTrainingDraw, LastTrainingDraw, FirstEvaluationDraw, LastEvaluationDraw)
}

// checkDraw refuses a draw number f does not have, naming the draw.
func (f Family) checkDraw(n uint64) error {
	if first, last := f.Draws(); n < first || n > last {
		return fmt.Errorf("%s: no such draw: %s has %s", f.DrawName(n), f.Name, f.DescribeDraws())
	}
	return nil
}

// DrawName is the name of draw n of f: "family-17".
func (f Family) DrawName(n uint64) string { return f.Name + "-" + strconv.FormatUint(n, 10) }

// Draw returns draw n of f: the scenario DrawName(n), drawn by DrawFrom
// from the PCG of seed n and f's Stream, held out of training if f is or
// n is an evaluation draw. A draw number f does not have is an error.
func (f Family) Draw(n uint64) (Scenario, error) {
	if err := f.checkDraw(n); err != nil {
		return Scenario{}, err
	}
	s := f.DrawFrom(f.DrawName(n), rand.New(rand.NewPCG(n, f.Stream)))
	kind := "a training draw"
	switch {
	case f.HeldOut:
		kind = "held out of training"
		s.HeldOut = true
		s.heldOutWhy = fmt.Sprintf("its traffic is draw %d of %s, the held-out family configuration (%s), which no training may use: evaluate on it, and train on %s's training draws, such as %s:1-200", n, f.Name, f.DescribeDraws(), FamilyName, FamilyName)
	case n >= FirstEvaluationDraw:
		kind = "an evaluation draw, held out of training"
		s.HeldOut = true
		s.heldOutWhy = fmt.Sprintf("its traffic is draw %d of %s, an evaluation draw (%s), which no training may use: evaluate on it, and train on training draws, such as %s:1-200", n, f.Name, f.DescribeDraws(), f.Name)
	}
	s.Description = fmt.Sprintf("draw %d of %s (%s): %s", n, f.Name, kind, f.Description)
	return s, nil
}

// DrawFrom returns a scenario named name of f's traffic drawn from r: the
// GraphCC Clos (Default's) carrying the phases of drawPhases, then, with
// chance EventPct, a leaf-spine link failing and coming back (drawEvent).
// The same r state gives the same scenario.
func (f Family) DrawFrom(name string, r *rand.Rand) Scenario {
	s := Default()
	s.Name, s.Description = name, f.Description
	s.Gen.Phases = f.drawPhases(r)
	s.Gen.Duration = workload.PhasesDuration(s.Gen.Phases)
	if r.IntN(100) < f.EventPct {
		s.Events = f.drawEvent(r, s.Clos, s.Gen.Duration)
	}
	return s
}

// drawPhases draws f's phases from r: their number, then for each its
// workload, load, incasts and duration, the durations fitting MaxMs.
func (f Family) drawPhases(r *rand.Rand) []workload.Phase {
	n := between(r, f.Phases)
	out := make([]workload.Phase, n)
	total := 0
	for i := range out {
		p := workload.Phase{Workload: f.drawWorkload(r)}
		p.Load = float64(f.LoadPct[0]+f.LoadStepPct*r.IntN((f.LoadPct[1]-f.LoadPct[0])/f.LoadStepPct+1)) / 100
		if r.IntN(100) < f.IncastPct {
			p.Incast = workload.IncastConfig{
				Period: int64(f.IncastPeriodMs) * topo.Millisecond,
				FanIn:  f.FanIns[r.IntN(len(f.FanIns))],
				Size:   int64(f.IncastKBs[r.IntN(len(f.IncastKBs))]) * 1000,
			}
		}
		// leave at least PhaseMs[0] for each phase after this one
		hi := min(f.PhaseMs[1], f.MaxMs-total-(n-1-i)*f.PhaseMs[0])
		ms := between(r, [2]int{f.PhaseMs[0], hi})
		p.Duration = int64(ms) * topo.Millisecond
		total += ms
		out[i] = p
	}
	return out
}

// between draws a whole number in the range b, both ends included.
func between(r *rand.Rand, b [2]int) int { return b[0] + r.IntN(b[1]-b[0]+1) }

// drawWorkload draws a phase's workload from r: with chance MixPct a
// mixture of Mixed distinct workloads of f (in f's order) with weights in
// whole tenths, named like "FB_Hadoop+WebSearch 3:7", else one of them.
func (f Family) drawWorkload(r *rand.Rand) *workload.CDF {
	if r.IntN(100) >= f.MixPct {
		return builtin(f.Workloads[r.IntN(len(f.Workloads))])
	}
	picked := r.Perm(len(f.Workloads))[:f.Mixed]
	slices.Sort(picked)
	cdfs := make([]*workload.CDF, f.Mixed)
	weights := make([]float64, f.Mixed)
	titles := make([]string, f.Mixed)
	tenths := make([]string, f.Mixed)
	left := 10
	for i, k := range picked {
		w := left // the last takes what is left
		if i < f.Mixed-1 {
			w = 1 + r.IntN(left-(f.Mixed-1-i)) // at least one tenth for each after it
		}
		left -= w
		cdfs[i], weights[i] = builtin(f.Workloads[k]), float64(w)
		titles[i], tenths[i] = WorkloadTitle(f.Workloads[k]), strconv.Itoa(w)
	}
	m, err := workload.Mix(strings.Join(titles, "+")+" "+strings.Join(tenths, ":"), cdfs, weights)
	if err != nil {
		panic(fmt.Sprintf("scenario: mixing built-in workloads: %v", err)) // valid CDFs, positive weights
	}
	return m
}

// builtin returns the built-in workload name.
func builtin(name string) *workload.CDF {
	w, err := workload.Builtin(name)
	if err != nil {
		panic(err) // the embedded files are part of the build
	}
	return w
}

// drawEvent draws f's link event from r on Clos c for arrivals of
// duration ps: one leaf-spine link fails on a 100 µs grid at least 1 ms
// before the end, and comes back DownMs later or at the end.
func (f Family) drawEvent(r *rand.Rand, c topo.ClosConfig, duration int64) []Event {
	link := fmt.Sprintf("leaf%d-spine%d", r.IntN(c.Leaves), r.IntN(c.Spines))
	const grid = 100 * topo.Microsecond
	at := int64(r.IntN(int((duration-topo.Millisecond)/grid)+1)) * grid
	back := min(at+int64(between(r, f.DownMs))*topo.Millisecond, duration)
	return []Event{{At: at, Link: link}, {At: back, Link: link, Up: true}}
}

// Describe says what f draws, in a line: "2 to 6 phases of 1 to 20 ms (40
// ms of arrivals at most), each FB_Hadoop, ... or (40 % of phases) a
// mixture of 2 of them by flow count; ...".
func (f Family) Describe() string {
	titles := make([]string, len(f.Workloads))
	for i, w := range f.Workloads {
		titles[i] = WorkloadTitle(w)
	}
	what := fmt.Sprintf("%d to %d phases of %d to %d ms (%d ms of arrivals at most), each ", f.Phases[0], f.Phases[1], f.PhaseMs[0], f.PhaseMs[1], f.MaxMs)
	mix := fmt.Sprintf("a mixture of %d of %s by flow count, in tenths", f.Mixed, strings.Join(titles, ", "))
	if f.MixPct < 100 {
		mix = fmt.Sprintf("one of %s or (%d %% of phases) a mixture of %d of them by flow count, in tenths", strings.Join(titles, ", "), f.MixPct, f.Mixed)
	}
	what += mix + fmt.Sprintf("; loads %d to %d %% in steps of %d; ", f.LoadPct[0], f.LoadPct[1], f.LoadStepPct)
	what += fmt.Sprintf("incasts in %d %% of phases (fan-in %s, of %s KB each, every %d ms); ", f.IncastPct, joinInts(f.FanIns), joinInts(f.IncastKBs), f.IncastPeriodMs)
	c := Default().Clos
	return what + fmt.Sprintf("a leaf-spine link down for %d to %d ms in %d %% of draws; Clos of %d leaves x %d hosts, %d spines", f.DownMs[0], f.DownMs[1], f.EventPct, c.Leaves, c.HostsPerLeaf, c.Spines)
}

// joinInts writes vs as "4, 8 or 12".
func joinInts(vs []int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(v)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
