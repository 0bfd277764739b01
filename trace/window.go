package trace

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

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
	return cutWindows(name, length, func(start func(int64), each func(Flow, int) error) error {
		return scanFlows(r, name, f, start, each)
	})
}

// cutWindows cuts the flows scan gives (as scanFlows does) into windows
// of length ps, as ReadWindows does.
func cutWindows(name string, length int64, scan func(start func(count int64), each func(fl Flow, line int) error) error) (*Windows, error) {
	if length <= 0 {
		return nil, fmt.Errorf("%s: window %s: must be positive", name, topo.FormatDuration(length))
	}
	w := &Windows{length: length}
	var t0 int64
	err := scan(func(count int64) { w.flows = make([]Flow, 0, min(count, 1<<16)) }, func(fl Flow, _ int) error {
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

// CSVHeader is the first line of a flow CSV (ReadWindowsCSV).
const CSVHeader = "start,src,dst,size"

// ReadWindowsCSV is ReadWindows of a flow CSV: a first line CSVHeader,
// then one flow per line, its start in seconds (an exact decimal, as
// flow.txt's), its source and destination hosts by node id and its size
// in bytes, separated by commas (spaces around them allowed). Blank lines
// and lines starting with # are skipped. Its flows are background flows
// of DefaultPG and DPortBackground.
func ReadWindowsCSV(r io.Reader, name string, f *topo.Fabric, length int64) (*Windows, error) {
	return cutWindows(name, length, func(start func(int64), each func(Flow, int) error) error {
		return scanCSV(r, name, f, start, each)
	})
}

// scanCSV reads a flow CSV as scanFlows reads a flow.txt.
func scanCSV(r io.Reader, name string, f *topo.Fabric, start func(int64), each func(Flow, int) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	header := false
	start(0)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, ",")
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		if !header {
			if strings.Join(cols, ",") != CSVHeader {
				return fmt.Errorf("%s:%d: want the header %s", name, line, CSVHeader)
			}
			header = true
			continue
		}
		if len(cols) != 4 {
			return fmt.Errorf("%s:%d: want 4 fields (%s), got %d", name, line, CSVHeader, len(cols))
		}
		fl, err := parseFlow([]string{cols[1], cols[2], strconv.Itoa(DefaultPG), strconv.Itoa(DPortBackground), cols[3], cols[0]}, f)
		if err == nil {
			err = each(fl, line)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if !header {
		return fmt.Errorf("%s:1: want the header %s", name, CSVHeader)
	}
	return nil
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
