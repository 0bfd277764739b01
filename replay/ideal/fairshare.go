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

// FairShare runs the flows of cfg through the ideal of its fabric instead
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
// FairShare reads cfg's Fabric, Flows, Params.Payload, ECMPSeed and Until,
// and ignores the rest: no policy, ECN setting or other hardware constant
// applies. The Result has the FCT records, in completion order, and their
// Summary; its queue, PFC and ECN figures are zero, and Summary.Events and
// Counters.Events count the rate allocations. ctx is checked every 1024
// of them.
func Run(ctx context.Context, cfg replay.Config) (*replay.Result, error) {
	wall := time.Now()
	f := cfg.Fabric
	p, err := cfg.EffectiveParams()
	if err != nil {
		return nil, err
	}
	flows := cfg.Flows
	router, err := replay.NewRouter(&cfg)
	if err != nil {
		return nil, err
	}
	order := make([]int32, len(flows))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(flows[a].Start, flows[b].Start) })

	w := newWaterfill(f)
	until := math.Inf(1)
	if cfg.Until > 0 {
		until = float64(cfg.Until)
	}
	var (
		active []fluid
		recs   []trace.FCT
		c      replay.Counters
		path   []topo.PortID
		next   int
		now    float64
	)
	if len(order) > 0 {
		now = float64(flows[order[0]].Start)
	}
	first := now
	for next < len(order) || len(active) > 0 {
		if c.Events%1024 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted at %.3f ms simulated: %w", (now-first)/float64(topo.Millisecond), context.Cause(ctx))
		}
		if len(active) == 0 {
			now = max(now, float64(flows[order[next]].Start))
		}
		if now > until {
			break
		}
		for next < len(order) && float64(flows[order[next]].Start) <= now {
			id := order[next]
			fl := flows[id]
			path = router.Route(path[:0], int(id))
			bytes := float64(wireBytes(fl.Size, p.Payload))
			active = append(active, fluid{id: id, bytes: bytes, left: bytes, path: slices.Clone(path)})
			next++
		}
		w.allocate(active)
		c.Events++

		// Advance to the first completion or arrival, whichever is sooner.
		dt, fin := math.Inf(1), -1
		for i := range active {
			if t := active[i].left / active[i].rate; t < dt {
				dt, fin = t, i
			}
		}
		if next < len(order) {
			if t := float64(flows[order[next]].Start) - now; t < dt {
				dt, fin = t, -1
			}
		}
		if now+dt > until {
			dt, fin = until-now, -1
		}
		if math.IsInf(dt, 1) {
			return nil, errors.New("replay: fair share: flows without a rate") // a port of rate 0
		}
		now += dt
		kept := active[:0]
		for i, a := range active {
			a.left -= a.rate * dt
			if i == fin || a.left <= 1e-9*a.bytes {
				fl := flows[a.id]
				recs = append(recs, trace.FCT{
					Src: fl.Src, Dst: fl.Dst, SPort: router.SourcePort(int(a.id)), DPort: fl.DPort, Size: fl.Size, Start: fl.Start,
					FCT:        f.BaseRTT(fl.Src, fl.Dst) + int64(math.Round(now-float64(fl.Start))),
					Standalone: trace.Standalone(f, fl.Src, fl.Dst, fl.Size, p.Payload, trace.StandaloneHeader),
				})
				continue
			}
			kept = append(kept, a)
		}
		clear(active[len(kept):])
		active = kept
		if now >= until {
			break
		}
	}
	sum := metrics.Summarize(len(flows), recs, metrics.DefaultBins())
	sum.Events = c.Events
	sum.SimSeconds = (now - first) / float64(topo.Second)
	sum.WallSeconds = time.Since(wall).Seconds()
	sum.PeakRSSBytes = metrics.PeakRSS()
	return &replay.Result{Summary: sum, FCT: recs, Counters: c, End: int64(math.Round(now))}, nil
}

// wireBytes is a flow's payload plus one StandaloneHeader per packet of
// payload bytes, as Standalone counts them.
func wireBytes(size int64, payload int) int64 {
	packets := (size-1)/int64(payload) + 1
	return size + packets*trace.StandaloneHeader
}

// fluid is a flow in progress under FairShare.
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
