package ideal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"graphcc/metrics"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

// Run runs the flows of cfg through the ideal of its fabric instead
// of the packet-level model: every flow is a fluid on its ECMP path (the
// one the simulator gives it) that receives, at every instant, its max-min
// fair share of the ports on that path, recomputed whenever a flow starts
// or finishes. Nothing queues, is marked, paused or dropped, and a flow has
// its share from its first instant: what a congestion control that
// converged at once to fair sharing, with empty queues, would give. It is
// the reference for congestion control that shares fairly, as DCQCN aims
// to, not a bound on every schedule: serving the shortest flows first
// would give a lower mean slowdown.
//
// A flow's FCT is the base RTT of its host pair plus the time its bytes,
// counted as Standalone counts them (payload plus one StandaloneHeader per
// packet of Params.Payload bytes), take to leave at its share; alone in the
// fabric a flow takes its Standalone FCT, slowdown 1.
//
// Links fail and come back (Config.LinkEvents) as in an ideal fabric that
// routes as the simulator does: at a link's failure every flow in progress
// whose path crosses it moves at once, with no byte lost, to the path the
// simulator reroutes it on (ECMP over the shortest paths without the links
// down); when a link comes back, flows in progress keep their paths and
// those that start from then on may take it, as in the simulator. The
// rates are recomputed at every event; Counters.Reroutes counts the flows
// moved. An event at the instant a flow starts applies first. Like the
// simulator, Run refuses events that leave some host pair without a path,
// so no flow ever waits for one.
//
// Run reads cfg's Fabric, Flows, Params.Payload, ECMPSeed, Until and
// LinkEvents, and ignores the rest: no policy, ECN setting or other
// hardware constant applies (a loss timeout is not needed: nothing is
// lost). The Result has the FCT records, in completion order, and their
// Summary; its queue, PFC and ECN figures are zero, and Summary.Events and
// Counters.Events count the rate allocations. ctx is checked every 1024
// of them.
func Run(ctx context.Context, cfg replay.Config) (*replay.Result, error) {
	wall := time.Now()
	p, err := cfg.EffectiveParams()
	if err != nil {
		return nil, err
	}
	router, err := replay.NewRouter(&cfg)
	if err != nil {
		return nil, err
	}
	r := &fairShare{
		fabric: cfg.Fabric, flows: cfg.Flows, router: router, payload: p.Payload,
		order: byStart(cfg.Flows), w: newWaterfill(cfg.Fabric), until: math.Inf(1),
		events: router.LinkEvents(),
	}
	if cfg.Until > 0 {
		r.until = float64(cfg.Until)
	}
	if len(r.order) > 0 {
		r.now = float64(r.flows[r.order[0]].Start)
	}
	first := r.now
	if err := r.run(ctx, first); err != nil {
		return nil, err
	}
	sum := metrics.Summarize(len(r.flows), r.recs, metrics.DefaultBins())
	sum.Events = r.c.Events
	sum.SimSeconds = (r.now - first) / float64(topo.Second)
	sum.WallSeconds = time.Since(wall).Seconds()
	sum.PeakRSSBytes = metrics.PeakRSS()
	return &replay.Result{Summary: sum, FCT: r.recs, Counters: r.c, End: int64(math.Round(r.now))}, nil
}

// byStart returns the indices of flows in order of start, ties in index
// order.
func byStart(flows []trace.Flow) []int32 {
	order := make([]int32, len(flows))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(flows[a].Start, flows[b].Start) })
	return order
}

// fairShare is a run of Run: the flows started so far and the time.
type fairShare struct {
	fabric  *topo.Fabric
	flows   []trace.Flow
	router  *replay.Router
	payload int
	order   []int32 // flows by start
	w       *waterfill
	until   float64 // the end of the run, ps; +Inf: when every flow is done

	active []fluid
	recs   []trace.FCT
	c      replay.Counters
	path   []topo.PortID // scratch
	next   int           // the position in order of the next flow to start
	events []topo.LinkEvent
	nextEv int // the number of link events applied
	now    float64
}

// run allocates the rates at every start and completion until every flow
// has finished or until has passed. first is the time of the first start.
func (r *fairShare) run(ctx context.Context, first float64) error {
	for r.next < len(r.order) || len(r.active) > 0 {
		if r.c.Events%1024 == 0 && ctx.Err() != nil {
			return fmt.Errorf("interrupted at %.3f ms simulated: %w", (r.now-first)/float64(topo.Millisecond), context.Cause(ctx))
		}
		if len(r.active) == 0 {
			r.now = max(r.now, float64(r.flows[r.order[r.next]].Start))
		}
		if r.now > r.until {
			break
		}
		r.linkEvents()
		r.admit()
		r.w.allocate(r.active)
		r.c.Events++
		dt, fin := r.advance()
		if math.IsInf(dt, 1) {
			return errors.New("replay: fair share: flows without a rate") // a port of rate 0
		}
		r.now += dt
		r.finish(fin, dt)
		if r.now >= r.until {
			break
		}
	}
	return nil
}

// linkEvents applies every link event due by now: the flows in progress
// whose path crosses a link that fails take the path the simulator
// reroutes them on; a link that comes back moves no flow.
func (r *fairShare) linkEvents() {
	for r.nextEv < len(r.events) && float64(r.events[r.nextEv].At) <= r.now {
		e := r.events[r.nextEv]
		r.nextEv++
		if e.Up {
			continue
		}
		for i := range r.active {
			a := &r.active[i]
			if topo.Crosses(a.path, e.Link) {
				a.path = r.router.RouteAfter(a.path[:0], int(a.id), r.nextEv)
				r.c.Reroutes++
			}
		}
	}
}

// admit makes every flow that has started by now active, on its ECMP path
// on the fabric without the links down now.
func (r *fairShare) admit() {
	for r.next < len(r.order) && float64(r.flows[r.order[r.next]].Start) <= r.now {
		id := r.order[r.next]
		fl := r.flows[id]
		r.path = r.router.RouteAfter(r.path[:0], int(id), r.nextEv)
		bytes := float64(wireBytes(fl.Size, r.payload))
		r.active = append(r.active, fluid{id: id, bytes: bytes, left: bytes, path: slices.Clone(r.path)})
		r.next++
	}
}

// advance returns the time to the first completion, arrival or link
// event, whichever is sooner, bounded by until, and the index in active of the flow that
// completes then (-1: none).
func (r *fairShare) advance() (dt float64, fin int) {
	dt, fin = math.Inf(1), -1
	for i := range r.active {
		if t := r.active[i].left / r.active[i].rate; t < dt {
			dt, fin = t, i
		}
	}
	if r.next < len(r.order) {
		if t := float64(r.flows[r.order[r.next]].Start) - r.now; t < dt {
			dt, fin = t, -1
		}
	}
	if r.nextEv < len(r.events) {
		if t := float64(r.events[r.nextEv].At) - r.now; t < dt {
			dt, fin = t, -1
		}
	}
	if r.now+dt > r.until {
		dt, fin = r.until-r.now, -1
	}
	return dt, fin
}

// finish takes dt of sending off every active flow and records the FCT of
// those that are done: the one at index fin and any with nothing left.
func (r *fairShare) finish(fin int, dt float64) {
	f, p := r.fabric, r.payload
	kept := r.active[:0]
	for i, a := range r.active {
		a.left -= a.rate * dt
		if i == fin || a.left <= 1e-9*a.bytes {
			fl := r.flows[a.id]
			r.recs = append(r.recs, trace.FCT{
				Src: fl.Src, Dst: fl.Dst, SPort: r.router.SourcePort(int(a.id)), DPort: fl.DPort, Size: fl.Size, Start: fl.Start,
				FCT:        f.BaseRTT(fl.Src, fl.Dst) + int64(math.Round(r.now-float64(fl.Start))),
				Standalone: trace.Standalone(f, fl.Src, fl.Dst, fl.Size, p, trace.StandaloneHeader),
			})
			continue
		}
		kept = append(kept, a)
	}
	clear(r.active[len(kept):])
	r.active = kept
}

// wireBytes is a flow's payload plus one StandaloneHeader per packet of
// payload bytes, as Standalone counts them.
func wireBytes(size int64, payload int) int64 {
	packets := (size-1)/int64(payload) + 1
	return size + packets*trace.StandaloneHeader
}

// fluid is a flow in progress under Run.
type fluid struct {
	id          int32
	bytes, left float64 // wire bytes in all, and still to send
	rate        float64 // bytes per ps
	path        []topo.PortID
}

// waterfill computes max-min fair rates by progressive filling: the port
// whose remaining capacity per unallocated flow is the smallest fixes the
// rate of its flows at that share, which is taken from every port they
// cross, and so on until every flow has its rate.
type waterfill struct {
	capacity []float64 // per port, bytes per ps
	rem      []float64 // capacity not yet allocated
	count    []int32   // flows crossing the port not yet allocated
	ver      []int32   // bumped whenever the port's share changes
	start    []int32   // the port's flows are byPort[start[p]:start[p+1]]
	byPort   []int32   // indices into the active flows
	fill     []int32   // scratch: the next free slot of each port in byPort
	done     []bool
	heap     shareHeap
}

// newWaterfill allocates the ports of f, at their rates.
func newWaterfill(f *topo.Fabric) *waterfill {
	capacity := make([]float64, len(f.Ports))
	for i, pt := range f.Ports {
		capacity[i] = float64(pt.Rate) / 8 / float64(topo.Second)
	}
	return newWaterfillCap(capacity)
}

// newWaterfillCap allocates ports of the given capacities.
func newWaterfillCap(capacity []float64) *waterfill {
	n := len(capacity)
	return &waterfill{
		capacity: capacity, rem: make([]float64, n), count: make([]int32, n),
		ver: make([]int32, n), start: make([]int32, n+1),
	}
}

// allocate sets the rate of every flow of active to its max-min fair share.
func (w *waterfill) allocate(active []fluid) {
	clear(w.count)
	for _, a := range active {
		for _, p := range a.path {
			w.count[p]++
		}
	}
	// byPort lists the flows of each port, by counting sort.
	var total int32
	for p, n := range w.count {
		w.start[p] = total
		total += n
	}
	w.start[len(w.count)] = total
	w.byPort = slices.Grow(w.byPort[:0], int(total))[:total]
	w.fill = append(w.fill[:0], w.start[:len(w.count)]...)
	fill := w.fill
	for i, a := range active {
		for _, p := range a.path {
			w.byPort[fill[p]] = int32(i)
			fill[p]++
		}
	}
	w.done = slices.Grow(w.done[:0], len(active))[:len(active)]
	clear(w.done)
	w.heap = w.heap[:0]
	for p, n := range w.count {
		w.rem[p] = w.capacity[p]
		w.ver[p] = 0
		if n > 0 {
			w.heap = append(w.heap, shareItem{share: w.rem[p] / float64(n), port: int32(p)})
		}
	}
	w.heap.init()
	// A port's share only grows as flows elsewhere are fixed at the
	// smallest share so far, so an entry whose port has changed since is a
	// lower bound of its share: it is put back at the current share when it
	// comes up, rather than at every change.
	for left := len(active); left > 0; { // flows without a rate
		it := w.heap.pop()
		p := it.port
		if w.count[p] == 0 {
			continue // every flow of the port has its rate
		}
		if it.ver != w.ver[p] {
			w.heap.push(shareItem{share: w.rem[p] / float64(w.count[p]), port: p, ver: w.ver[p]})
			continue
		}
		share := max(it.share, 0)
		for _, i := range w.byPort[w.start[p]:w.start[p+1]] {
			if w.done[i] {
				continue
			}
			w.done[i] = true
			left--
			active[i].rate = share
			for _, q := range active[i].path {
				w.rem[q] -= share
				w.count[q]--
				w.ver[q]++
			}
		}
	}
}

// shareItem is a port's fair share at version ver of its state.
type shareItem struct {
	share float64
	port  int32
	ver   int32
}

// shareHeap is a binary min-heap of shares, ties broken by port.
type shareHeap []shareItem

func (h shareHeap) less(i, j int) bool {
	if h[i].share != h[j].share {
		return h[i].share < h[j].share
	}
	return h[i].port < h[j].port
}

func (h *shareHeap) push(it shareItem) {
	*h = append(*h, it)
	s := *h
	for i := len(s) - 1; i > 0; {
		up := (i - 1) / 2
		if !s.less(i, up) {
			break
		}
		s[i], s[up] = s[up], s[i]
		i = up
	}
}

func (h *shareHeap) pop() shareItem {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	s.down(0)
	*h = s
	return top
}

// init orders h as a heap, in linear time.
func (h shareHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// down moves h[i] down to its place.
func (h shareHeap) down(i int) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h.less(l, m) {
			m = l
		}
		if r < len(h) && h.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
