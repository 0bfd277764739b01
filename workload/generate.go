package workload

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"graphcc/topo"
	"graphcc/trace"
)

// PCG streams of Generate: background arrivals and incasts draw from
// separate streams of the same seed, so enabling incasts leaves the
// background trace unchanged.
const (
	streamBackground uint64 = 1
	streamIncast     uint64 = 2
)

// IncastConfig describes periodic N:1 incasts: every Period, FanIn distinct
// random senders each send Size bytes to one random receiver.
type IncastConfig struct {
	Period int64 // picoseconds between incasts; 0 disables incasts
	FanIn  int   // senders per incast, at most hosts-1
	Size   int64 // bytes per sender
}

// DefaultIncast is the GraphCC training setup: every 1 ms, 16 senders,
// 64 KB (64000 bytes) each.
func DefaultIncast() IncastConfig {
	return IncastConfig{Period: topo.Millisecond, FanIn: 16, Size: 64000}
}

// GenConfig configures Generate.
type GenConfig struct {
	Workload *CDF    // flow-size distribution of background flows
	Load     float64 // offered background load, a fraction of each host's link rate, in (0,1]
	Duration int64   // picoseconds of arrivals, > 0
	Start    int64   // picoseconds; the arrival window is [Start, Start+Duration] (HPCC: 2 s)
	Incast   IncastConfig
	Seed     uint64
	// Phases, if not empty, makes the traffic phased: the phases one after
	// another from Start, each with its own workload, load and incasts
	// (see Phase and Generate). Workload, Load and Incast are then not
	// used (a scenario keeps them as what its phases were given by
	// default), and Duration must be the phases' total (PhasesDuration).
	Phases []Phase
}

// Phase is one segment of phased traffic (GenConfig.Phases): for Duration
// picoseconds, background flows of Workload at Load and the incasts of
// Incast (none if its Period is 0), as a GenConfig of those fields over
// the phase's own window would draw them.
type Phase struct {
	Duration int64 // picoseconds of arrivals, > 0
	Workload *CDF
	Load     float64
	Incast   IncastConfig
}

// MaxPhases bounds GenConfig.Phases.
const MaxPhases = 1000

// PhasesDuration returns the total duration of phases, ps, or -1 if it
// overflows int64 or a duration is not positive.
func PhasesDuration(phases []Phase) int64 {
	var total int64
	for _, p := range phases {
		if p.Duration <= 0 || total > math.MaxInt64-p.Duration {
			return -1
		}
		total += p.Duration
	}
	return total
}

// DefaultStart is where arrivals start, ps: 2 s, HPCC's convention, which
// its flow files and every trace Generate makes by default follow.
const DefaultStart = 2 * topo.Second

// DefaultGen is the GraphCC training traffic: FB_Hadoop at 60 % load for
// 25 ms of arrivals starting at 2 s, with DefaultIncast, seed 1.
func DefaultGen() GenConfig {
	w, err := Builtin("fb_hadoop")
	if err != nil {
		panic(err) // the embedded files are part of the build
	}
	return GenConfig{
		Workload: w,
		Load:     0.6,
		Duration: 25 * topo.Millisecond,
		Start:    DefaultStart,
		Incast:   DefaultIncast(),
		Seed:     1,
	}
}

// A GenError is a GenConfig that cannot make a trace. Field is the
// offending field's path in GenConfig ("Incast.FanIn", "Duration") and
// Reason says why, with the values involved, in words that need no Go
// names: a caller can name the field its own way (a flag, a key of a
// scenario file) and keep the reason.
type GenError struct {
	Field  string
	Reason string
}

// Error returns "GenConfig.Field: Reason".
func (e *GenError) Error() string { return "GenConfig." + e.Field + ": " + e.Reason }

func genErrorf(field, format string, args ...any) error {
	return &GenError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Check reports whether c can make a trace on fabric f, as Generate would
// refuse it, without drawing a flow: a field out of range comes back as a
// *GenError, and so does a trace of more than MaxFlows flows (expected from
// the load, workload and duration, with the incasts), under Duration or,
// when the incasts alone are too many, Incast.Period. A field of phase i
// comes back under "Phases[i]." ("Phases[2].Load"); a problem of the
// phases together (their count, their total flows) under "Phases", and a
// Duration that is not their total under "Duration". A fabric without two
// hosts is refused with a plain error.
func (c GenConfig) Check(f *topo.Fabric) error {
	_, err := c.check(f)
	return err
}

// check is Check, returning c's arrival windows with the hosts' mean
// inter-arrival times of each.
func (c GenConfig) check(f *topo.Fabric) ([]window, error) {
	if f == nil {
		return nil, errors.New("nil fabric")
	}
	hosts := f.Hosts()
	if len(hosts) < 2 {
		return nil, fmt.Errorf("the fabric has %d host(s), want at least 2", len(hosts))
	}
	if err := c.checkPhases(); err != nil {
		return nil, err
	}
	ws := c.windows()
	total := 0.0
	for i := range ws {
		w := &ws[i]
		if err := w.c.validate(len(hosts)); err != nil {
			return nil, w.prefix(err)
		}
		lam, err := w.c.interArrivals(f, hosts)
		if err != nil {
			return nil, err
		}
		w.lam = lam
		// The expected count, refused before the trace is drawn if it is
		// beyond MaxFlows (a duration of seconds, a workload of tiny flows).
		expect := w.c.expectedFlows(lam)
		if !(expect <= MaxFlows) {
			return nil, w.prefix(genErrorf("Duration", "about %.3g flows expected (%s at load %g over %d hosts for %s, and the incasts): more than a trace may hold (%d); shorten the duration",
				expect, w.c.Workload.Name, w.c.Load, len(hosts), topo.FormatDuration(w.c.Duration), int64(MaxFlows)))
		}
		total += expect
	}
	if len(ws) > 1 && !(total <= MaxFlows) {
		return nil, genErrorf("Phases", "about %.3g flows expected over the %d phases: more than a trace may hold (%d); shorten them", total, len(ws), int64(MaxFlows))
	}
	return ws, nil
}

// checkPhases checks what the phases of c must agree on with c: their
// count, their durations, and that Duration is their total.
func (c GenConfig) checkPhases() error {
	if len(c.Phases) == 0 {
		return nil
	}
	if len(c.Phases) > MaxPhases {
		return genErrorf("Phases", "%d phases, want at most %d", len(c.Phases), MaxPhases)
	}
	for i, p := range c.Phases {
		if p.Duration <= 0 {
			return genErrorf(fmt.Sprintf("Phases[%d].Duration", i), "%d ps, want > 0", p.Duration)
		}
	}
	total := PhasesDuration(c.Phases)
	switch {
	case total < 0:
		return genErrorf("Phases", "the phases' durations overflow int64 picoseconds")
	case c.Duration != total:
		return genErrorf("Duration", "%s, but the phases last %s in all: a phased trace lasts its phases", topo.FormatDuration(c.Duration), topo.FormatDuration(total))
	case c.Start < 0:
		return genErrorf("Start", "%d ps, want >= 0", c.Start)
	case c.Start > math.MaxInt64-c.Duration:
		return genErrorf("Start", "%d ps plus the duration (%d ps) overflows", c.Start, c.Duration)
	}
	return nil
}

// streamPhase is the first PCG stream of phased traffic: phase i draws its
// background from stream streamPhase+2i of the seed and its incasts from
// streamPhase+2i+1, so a phase's flows depend only on the seed, its index,
// its own fields and its start, never on another phase's fields.
const streamPhase uint64 = 1 << 32

// window is one arrival window of a trace: the whole of a GenConfig
// without phases, or one phase as a GenConfig of its own.
type window struct {
	c       GenConfig // without Phases; Start and Duration the window's
	field   string    // prefix of its GenError fields: "" or "Phases[2]."
	bg, inc uint64    // PCG streams of the background and the incasts
	lam     []float64 // the hosts' mean inter-arrival times, ns (check)
}

// windows returns c's arrival windows: c itself, or one per phase, back to
// back from Start (checkPhases has checked that their ends fit).
func (c GenConfig) windows() []window {
	if len(c.Phases) == 0 {
		return []window{{c: c, bg: streamBackground, inc: streamIncast}}
	}
	out := make([]window, len(c.Phases))
	start := c.Start
	for i, p := range c.Phases {
		g := GenConfig{Workload: p.Workload, Load: p.Load, Duration: p.Duration, Start: start, Incast: p.Incast, Seed: c.Seed}
		s := streamPhase + 2*uint64(i)
		out[i] = window{c: g, field: fmt.Sprintf("Phases[%d].", i), bg: s, inc: s + 1}
		start += p.Duration
	}
	return out
}

// prefix puts w's field prefix in front of the field of a GenError.
func (w *window) prefix(err error) error {
	var ge *GenError
	if w.field == "" || !errors.As(err, &ge) {
		return err
	}
	return &GenError{Field: w.field + ge.Field, Reason: ge.Reason}
}

// validate checks c's fields against a fabric with nhosts hosts.
func (c GenConfig) validate(nhosts int) error {
	switch {
	case c.Workload == nil:
		return genErrorf("Workload", "nil")
	case len(c.Workload.Points) == 0:
		return genErrorf("Workload", "%s has no points", c.Workload.Name)
	case !(c.Workload.Mean() > 0) || math.IsInf(c.Workload.Mean(), 0):
		return genErrorf("Workload", "%s has mean flow size %v, want > 0", c.Workload.Name, c.Workload.Mean())
	case !(c.Load > 0 && c.Load <= 1):
		return genErrorf("Load", "%v not in (0, 1]", c.Load)
	case c.Duration <= 0:
		return genErrorf("Duration", "%d ps, want > 0", c.Duration)
	case c.Start < 0:
		return genErrorf("Start", "%d ps, want >= 0", c.Start)
	case c.Start > math.MaxInt64-c.Duration:
		return genErrorf("Start", "%d ps plus the duration (%d ps) overflows", c.Start, c.Duration)
	case c.Incast.Period < 0:
		return genErrorf("Incast.Period", "%d ps, want >= 0", c.Incast.Period)
	}
	if c.Incast.Period > 0 {
		switch {
		case c.Incast.FanIn < 1:
			return genErrorf("Incast.FanIn", "%d, want at least 1", c.Incast.FanIn)
		case c.Incast.FanIn > nhosts-1:
			return genErrorf("Incast.FanIn", "%d senders, but the fabric has only %d other hosts per receiver", c.Incast.FanIn, nhosts-1)
		case c.Incast.Size <= 0 || c.Incast.Size > MaxFlowSize:
			return genErrorf("Incast.Size", "%d bytes, want > 0 and at most %d (1 PiB)", c.Incast.Size, int64(MaxFlowSize))
		case c.Duration/c.Incast.Period > MaxFlows/int64(c.Incast.FanIn):
			return genErrorf("Incast.Period", "%d incasts of %d flows in %s: more than a trace may hold (%d flows); lengthen the period or shorten the duration",
				c.Duration/c.Incast.Period, c.Incast.FanIn, topo.FormatDuration(c.Duration), int64(MaxFlows))
		}
	}
	return nil
}

// interArrivals returns the mean inter-arrival time of each of hosts in ns,
// exactly HPCC's expression: 1/(rate*Load/8/mean_size) seconds.
func (c GenConfig) interArrivals(f *topo.Fabric, hosts []topo.NodeID) ([]float64, error) {
	avg := c.Workload.Mean()
	lam := make([]float64, len(hosts))
	for i, h := range hosts {
		p := f.HostPort(h)
		if p < 0 || int(p) >= len(f.Ports) {
			return nil, fmt.Errorf("host %d has no port", h)
		}
		rate := float64(f.Ports[p].Rate)
		if !(rate > 0) {
			return nil, fmt.Errorf("host %d link rate %v bps, want > 0", h, rate)
		}
		lam[i] = 1 / (rate * c.Load / 8. / avg) * 1000000000
	}
	return lam, nil
}

// expectedFlows is the number of flows a trace of c is expected to hold,
// background (from the hosts' mean inter-arrival times lam, in ns) and
// incasts together.
func (c GenConfig) expectedFlows(lam []float64) float64 {
	expect := 0.0
	for _, l := range lam {
		expect += float64(c.Duration) / 1000 / l
	}
	if c.Incast.Period > 0 {
		expect += float64(c.Duration/c.Incast.Period) * float64(c.Incast.FanIn)
	}
	return expect
}

// MaxFlows bounds the flows Generate makes, background (as expected from
// the load, workload and duration) and incasts together, and MaxFlowSize an
// incast flow's size: a trace beyond them would exhaust memory, or wrap the
// byte counts, rather than run.
const (
	MaxFlows    = 20_000_000
	MaxFlowSize = 1 << 50
)

// arrival is one host's next flow arrival in Generate; i indexes the host
// list. Entries order by (t, i) like HPCC's heap of (t, src) tuples.
type arrival struct {
	t int64
	i int
}

// arrivalHeap is a container/heap min-heap of arrivals.
type arrivalHeap []arrival

func (h arrivalHeap) Len() int { return len(h) }
func (h arrivalHeap) Less(a, b int) bool {
	return h[a].t < h[b].t || (h[a].t == h[b].t && h[a].i < h[b].i)
}
func (h arrivalHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *arrivalHeap) Push(x any)   { *h = append(*h, x.(arrival)) }
func (h *arrivalHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// poissonNs is HPCC's poisson(lam): an exponential inter-arrival time with
// mean lam nanoseconds, -ln(1-u)*lam, truncated to whole nanoseconds like
// HPCC's int(). ok is false if it does not fit in int64 picoseconds.
func poissonNs(r *rand.Rand, lam float64) (ns int64, ok bool) {
	x := -math.Log(1-r.Float64()) * lam
	if !(x < math.MaxInt64/1000) {
		return 0, false
	}
	return int64(x), true
}

// Generate makes a flow trace on fabric f as HPCC's traffic_gen.py does, plus
// periodic incasts.
//
// Background: every host h is a Poisson source with mean inter-arrival time
// 1/(rate*Load/8/mean_size) seconds, rate being h's link rate
// (f.Ports[f.HostPort(h)].Rate), computed in nanoseconds and truncated to
// whole nanoseconds as HPCC does. The first arrival of each host is
// Start + one inter-arrival. A heap of each host's next arrival (ties by host
// index) is served in time order; serving a host draws the next
// inter-arrival, then a destination uniform among the other hosts, and then,
// only if the next arrival is still within Start+Duration, a size from the
// workload and emits the flow (DefaultPG, DPortBackground); otherwise the
// host is retired. Like HPCC, this means a host's last arrival in the window
// is not emitted.
//
// Incasts (if Incast.Period > 0): at Start + k*Period for k = 1, 2, ... while
// that time is before Start+Duration (so none at Start itself), one random
// receiver and Incast.FanIn distinct random senders other than it, each
// sending Incast.Size bytes (DefaultPG, DPortIncast).
//
// Background and incasts use separate PCG streams of Seed.
//
// Phased traffic (Phases not empty): each phase in turn is drawn exactly as
// above over its own window, which starts where the previous phase's ends
// (the first at Start), with its own workload, load and incasts, from PCG
// streams of Seed of its own (derived from the seed and the phase's
// index): changing a phase changes no flow of the phases before it, nor
// of those after it as long as its duration stays. Flows are generated by
// start time only: a flow that starts in a phase runs to completion
// whatever follows, so the traffic of a phase overlaps the tail of the
// previous one's large flows.
//
// The result is sorted stably by (Start, Src): ties keep generation order,
// which is HPCC's file order for the background flows (a host can start two
// flows in the same nanosecond when an inter-arrival truncates to 0),
// followed by incast flows.
func Generate(f *topo.Fabric, c GenConfig) ([]trace.Flow, error) {
	ws, err := c.check(f)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	hosts := f.Hosts()
	var flows []trace.Flow
	for i := range ws {
		flows = ws[i].background(flows, hosts)
		flows = ws[i].incasts(flows, hosts)
	}
	// Background flows come out in HPCC's order, (Start, Src) then
	// generation order (a zero-ns inter-arrival repeats a (Start, Src));
	// sorting on those two keys alone, stably, keeps it, and puts each
	// incast after the background flows of the same instant and source.
	slices.SortStableFunc(flows, func(a, b trace.Flow) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Src, b.Src))
	})
	return flows, nil
}

// background appends the background flows of window w to flows (Generate).
func (w *window) background(flows []trace.Flow, hosts []topo.NodeID) []trace.Flow {
	c := w.c
	end := c.Start + c.Duration
	rng := rand.New(rand.NewPCG(c.Seed, w.bg))
	hp := make(arrivalHeap, 0, len(hosts))
	for i := range hosts {
		// Like HPCC, every host enters the heap, even one whose first
		// arrival is already past the window: it is served (drawing an
		// inter-arrival and a destination) and retired in time order.
		t := int64(math.MaxInt64)
		if ns, ok := poissonNs(rng, w.lam[i]); ok && ns <= (math.MaxInt64-c.Start)/1000 {
			t = c.Start + ns*1000
		}
		hp = append(hp, arrival{t: t, i: i})
	}
	heap.Init(&hp)
	n := len(hosts)
	for len(hp) > 0 {
		a := hp[0]
		ns, ok := poissonNs(rng, w.lam[a.i])
		dst := rng.IntN(n)
		for dst == a.i {
			dst = rng.IntN(n)
		}
		if !ok || a.t > end || ns > (end-a.t)/1000 {
			heap.Pop(&hp)
			continue
		}
		flows = append(flows, trace.Flow{
			Src: hosts[a.i], Dst: hosts[dst], PG: trace.DefaultPG, DPort: trace.DPortBackground,
			Size: c.Workload.Sample(rng), Start: a.t,
		})
		hp[0].t = a.t + ns*1000
		heap.Fix(&hp, 0)
	}
	return flows
}

// incasts appends the incast flows of window w to flows (Generate).
func (w *window) incasts(flows []trace.Flow, hosts []topo.NodeID) []trace.Flow {
	c := w.c
	if c.Incast.Period <= 0 {
		return flows
	}
	end := c.Start + c.Duration
	n := len(hosts)
	irng := rand.New(rand.NewPCG(c.Seed, w.inc))
	others := make([]int, 0, n-1)
	for k := int64(1); k <= (end-1-c.Start)/c.Incast.Period; k++ {
		at := c.Start + k*c.Incast.Period
		recv := irng.IntN(n)
		others = others[:0]
		for i := range n {
			if i != recv {
				others = append(others, i)
			}
		}
		// Partial Fisher-Yates: the first FanIn entries are a uniform
		// random subset of distinct senders.
		for j := 0; j < c.Incast.FanIn; j++ {
			m := j + irng.IntN(len(others)-j)
			others[j], others[m] = others[m], others[j]
			flows = append(flows, trace.Flow{
				Src: hosts[others[j]], Dst: hosts[recv], PG: trace.DefaultPG, DPort: trace.DPortIncast,
				Size: c.Incast.Size, Start: at,
			})
		}
	}
	return flows
}

// OfferedLoad returns the load that flows offer fabric f over an arrival
// window of duration ps: their bytes over the window as a fraction of the
// hosts' link capacity, incasts included, and the count of incast flows.
func OfferedLoad(f *topo.Fabric, flows []trace.Flow, duration int64) (load float64, bytes, incast int64) {
	for _, fl := range flows {
		bytes += fl.Size
		if fl.Incast() {
			incast++
		}
	}
	var capacity float64 // bps
	for _, h := range f.Hosts() {
		capacity += float64(f.Ports[f.HostPort(h)].Rate)
	}
	load = float64(bytes) * 8 / (capacity * float64(duration) / float64(topo.Second))
	return load, bytes, incast
}
