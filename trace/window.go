package trace

import (
	"fmt"
	"io"
	"math"
	"slices"

	"graphcc/topo"
)

// Windows is a recorded trace cut into windows of one length, which play
// the part seeds play for generated traffic: window 1 starts at the
// trace's first flow, window k at (k-1) lengths after it, and the last
// is the one that holds the trace's last flow (so it may carry less than
// a length of arrivals). Every window holds at least one flow.
type Windows struct {
	length int64
	flows  []Flow // every flow, in start order, Start from the first flow's
	first  []int  // per window, the index of its first flow; then len(flows)
}

// ReadWindows reads an HPCC flow.txt (as ReadFlows, hosts of f if f is
// not nil) whose flows are in start order and cuts it into windows of
// length ps. Its errors name the file and the line: a host not in f, a
// zero size, a start before the flow before's, and an empty window (at
// the line of the first flow after it).
func ReadWindows(r io.Reader, name string, f *topo.Fabric, length int64) (*Windows, error) {
	if length <= 0 {
		return nil, fmt.Errorf("%s: window %s: must be positive", name, topo.FormatDuration(length))
	}
	w := &Windows{length: length}
	var t0 int64
	err := scanFlows(r, name, f, func(count int64) { w.flows = make([]Flow, 0, min(count, 1<<16)) }, func(fl Flow, _ int) error {
		if len(w.flows) == 0 {
			t0 = fl.Start
		}
		fl.Start -= t0
		k := fl.Start / length // 0-based window
		switch {
		case len(w.flows) > 0 && fl.Start < w.flows[len(w.flows)-1].Start:
			return fmt.Errorf("start %s s is before the flow before's, %s s: a trace's flows are in start order",
				formatSeconds(fl.Start+t0), formatSeconds(w.flows[len(w.flows)-1].Start+t0))
		case k > int64(len(w.first)) && len(w.first) > 0:
			return fmt.Errorf("window %d (%s to %s after the first flow) is empty: this flow is the first after it",
				len(w.first)+1, topo.FormatDuration(int64(len(w.first))*length), topo.FormatDuration(int64(len(w.first)+1)*length))
		case k >= math.MaxInt32:
			return fmt.Errorf("start %s s: more than %d windows of %s", formatSeconds(fl.Start+t0), math.MaxInt32, topo.FormatDuration(length))
		}
		for int64(len(w.first)) <= k {
			w.first = append(w.first, len(w.flows))
		}
		w.flows = append(w.flows, fl)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(w.flows) == 0 {
		return nil, fmt.Errorf("%s: no flow, so no window", name)
	}
	w.first = append(w.first, len(w.flows))
	return w, nil
}

// Length returns the windows' length, ps.
func (w *Windows) Length() int64 { return w.length }

// Count returns the number of windows.
func (w *Windows) Count() int { return len(w.first) - 1 }

// Flows returns every flow of the trace, in start order, Start from the
// first flow's (the trace ReadWindows reads back to the same windows).
func (w *Windows) Flows() []Flow { return slices.Clone(w.flows) }

// Window returns the flows of window k, 1-based, Start from the window's
// start; an error names the windows there are.
func (w *Windows) Window(k uint64) ([]Flow, error) {
	n := w.Count()
	if k == 0 || k > uint64(n) {
		return nil, fmt.Errorf("window %d: the trace has %d windows of %s (seed k plays window k: seeds 1 to %d)", k, n, topo.FormatDuration(w.length), n)
	}
	out := slices.Clone(w.flows[w.first[k-1]:w.first[k]])
	shift := int64(k-1) * w.length
	for i := range out {
		out[i].Start -= shift
	}
	return out, nil
}
