package scenario

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// A scenario of a scenario file may carry a recorded trace instead of
// generated traffic:
//
//	  - name: mine
//	    topology: fabric.txt        # or a clos (or a base's): the fabric whose hosts the flows name
//	    flows: flow.txt             # an HPCC flow.txt, relative to this file, flows in start order,
//	                                # or a .csv of start,src,dst,size (trace.ReadWindowsCSV)
//	    window: 10ms                # the length of the windows the trace is cut into
//
// Window 1 starts at the trace's first flow, window k (k-1) windows
// after it; the last holds the trace's last flow. Seed k plays window k
// (Scenario.Traffic), its flows shifted to start at 2 s as generated
// traffic does, so every command that takes seeds runs windows, and the
// intervals across seeds are the spread between windows. A scenario with
// flows takes none of workload, load, duration, incast and phases (the
// trace is its traffic) and inherits no base's phases.

// trafficKeys are the keys of generated traffic, which a scenario with
// flows may not have.
var trafficKeys = []string{"workload", "load", "duration", "incast", "phases"}

// trace gives scenario s, of mapping n, the trace of n's flows and
// window, if any: its flows read on s's fabric before failures and cut
// into windows. Errors name the flow file's line, or the scenario file's.
func (p *scenarioParser) trace(n *yaml.Node, s *Scenario) error {
	fk, fv := mapEntry(n, "flows")
	wk, wv := mapEntry(n, "window")
	switch {
	case fk == nil && wk == nil:
		return nil
	case fk == nil:
		return p.errorf(wk, "window", errors.New("a window of no trace: give flows too"))
	case wk == nil:
		return p.errorf(fk, "flows", errors.New("give window too: the length of the windows the trace is cut into (seed k plays window k)"))
	}
	spec, err := scalarString(fv)
	if err != nil {
		return p.errorf(fk, "flows", err)
	}
	window, err := scalarPositive(wv, topo.ParseDelay)
	if err != nil {
		return p.errorf(wk, "window", err)
	}
	if i := slices.IndexFunc(trafficKeys, func(k string) bool { return has(n, k) }); i >= 0 {
		k, _ := mapEntry(n, trafficKeys[i])
		return p.errorf(k, trafficKeys[i], errors.New("a scenario's traffic is its flows or generated, not both"))
	}
	f, err := s.BaseFabric()
	if err != nil {
		return p.errorf(n, "", fmt.Errorf("scenario %s: %w", s.Name, err))
	}
	path := p.path(spec)
	file, err := os.Open(path)
	if err != nil {
		return p.errorf(fk, "flows", err)
	}
	defer file.Close()
	read := trace.ReadWindows
	if strings.HasSuffix(strings.ToLower(spec), ".csv") {
		read = trace.ReadWindowsCSV
	}
	w, err := read(file, path, f, window)
	if err != nil {
		return p.errorf(fk, "flows", err)
	}
	s.Trace, s.TraceName = w, spec
	s.Gen = workload.GenConfig{Duration: window}
	s.HeldOut = false // the file's own traffic
	return nil
}
