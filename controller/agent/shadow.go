package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/topo"
)

// Shadow is the control loop's Fabric while agents run the step: it reads
// no switch and writes none. Its ReadTelemetry waits for every live
// agent's report of the next step and assembles the fabric's telemetry
// from the samples they read. The loop runs LoopPolicy's policy on it: the
// central step decides on the same reads as a shadow, each agent port
// whose model's choice differs from it counts a mismatch, and the loop
// takes the settings the agents applied, so its trace rows and settings
// counts are the agents'. With a model with a host head the Shadow also
// applies the hosts' constants each leaf's agent reports, as Add takes the
// report, and is the loop's controller.Hosts, which applies nothing more;
// the central step's hosts' constants are compared with the leaves'
// choices. Its Fabric and Hosts methods and the policy are for one
// goroutine (the loop's); Add, End and HostsToBase are for the agents'
// readers.
type Shadow struct {
	f      *topo.Fabric
	static []control.ECN        // what an ended agent's switch goes back to, by PortID: the static settings, or a floor's base
	hosts  controller.Hosts     // nil: no host head
	base   []control.HostParams // the hosts' constants at the start, by PortID

	mu      sync.Mutex
	putMu   sync.Mutex    // orders the hosts' SetDCQCN calls (putHosts); never held with mu held
	wake    chan struct{} // closed and replaced when a report or an end comes
	reports [][]*Report   // per agent, by step
	ended   []bool

	applied          []control.HostParams // the hosts' constants in force, by PortID
	hostDelay, hopNS []time.Duration

	started        bool
	cur            int // the step of the last read, -1 before
	pending        bool
	now, interval  int64
	mismatches     int64
	hostMismatches int64
}

// NewShadow returns the shadow of agents agents on fabric f. With a model
// with a host head, hosts are the run's hosts, which the leaves' choices
// go to, and base their constants at the start (by topo.PortID), which the
// hosts of an agent on the static settings, or ended, go back to; without
// one, hosts is nil.
func NewShadow(f *topo.Fabric, agents int, hosts controller.Hosts, base []control.HostParams) *Shadow {
	s := &Shadow{f: f, static: control.StaticSettings(f), wake: make(chan struct{}), reports: make([][]*Report, agents),
		ended: make([]bool, agents), cur: -1}
	if hosts != nil {
		s.hosts, s.base, s.applied = hosts, slices.Clone(base), slices.Clone(base)
	}
	return s
}

// Add records agent i's report (reports come in step order) and, with a
// host head, puts the hosts' constants it reports in force: the model's
// choice, or with the report's Static the base constants.
func (s *Shadow) Add(ctx context.Context, i int, r *Report) error {
	s.mu.Lock()
	if int(r.Step) != len(s.reports[i]) {
		s.mu.Unlock()
		return fmt.Errorf("agent %d (%s): report of step %d after %d steps", i, r.Switch, r.Step, len(s.reports[i]))
	}
	if err := s.check(r); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("agent %d (%s): step %d: %w", i, r.Switch, r.Step, err)
	}
	s.reports[i] = append(s.reports[i], r)
	s.signal()
	hosts := len(r.Hosts) > 0
	if hosts {
		for k, p := range r.Ports[len(r.Chosen):] {
			if r.Static {
				s.applied[p] = s.base[p]
			} else {
				s.applied[p] = r.Hosts[k]
			}
		}
	}
	s.mu.Unlock()
	if !hosts {
		return nil
	}
	if err := s.putHosts(ctx); err != nil {
		return fmt.Errorf("agent %d (%s): step %d: hosts' DCQCN: %w", i, r.Switch, r.Step, err)
	}
	s.timeHosts(r)
	return nil
}

// check refuses a report that does not fit the fabric or the model.
func (s *Shadow) check(r *Report) error {
	if len(r.Samples) != len(r.Ports) || len(r.Chosen) > len(r.Ports) || len(r.Applied) != len(r.Chosen) {
		return fmt.Errorf("%d samples, %d settings chosen and %d applied for %d ports", len(r.Samples), len(r.Chosen), len(r.Applied), len(r.Ports))
	}
	for _, p := range r.Ports {
		if p < 0 || int(p) >= len(s.f.Ports) {
			return fmt.Errorf("port %d is not in the fabric", p)
		}
	}
	if len(r.Hosts) == 0 && (s.hosts == nil || len(r.Chosen) == len(r.Ports)) {
		return nil
	}
	if s.hosts == nil {
		return fmt.Errorf("%d hosts' constants, but the run's model has no host head", len(r.Hosts))
	}
	rows := r.Ports[len(r.Chosen):]
	if len(r.Hosts) != len(rows) {
		return fmt.Errorf("%d hosts' constants for %d hosts", len(r.Hosts), len(rows))
	}
	for k, p := range rows {
		if s.f.Nodes[s.f.Ports[p].Src].Switch {
			return fmt.Errorf("port %d is not a host's NIC port", p)
		}
		if err := r.Hosts[k].Validate(); err != nil {
			return fmt.Errorf("port %d: %w", p, err)
		}
	}
	return nil
}

// putHosts puts the hosts' constants s.applied holds in force without
// holding s.mu across the hosts' SetDCQCN. The calls are made one at a
// time (putMu), each with a copy of s.applied taken once the call before
// it returned, so no call can put back constants older than those an
// earlier call put in force: when putHosts returns, the constants of
// every change made before it was called are in force, and they stay so
// until a later change.
func (s *Shadow) putHosts(ctx context.Context) error {
	s.putMu.Lock()
	defer s.putMu.Unlock()
	s.mu.Lock()
	hosts := slices.Clone(s.applied)
	s.mu.Unlock()
	return s.hosts.SetDCQCN(ctx, hosts)
}

// timeHosts records the hop of report r's hosts' constants, now in force.
func (s *Shadow) timeHosts(r *Report) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.DecidedNS > 0 {
		s.hostDelay = append(s.hostDelay, now.Sub(time.Unix(0, r.DecidedNS)))
	}
	if r.ReportNS > 0 {
		s.hopNS = append(s.hopNS, now.Sub(time.Unix(0, r.ReportNS)))
	}
}

// HostsToBase puts the hosts of agent i (those of its last report) back on
// the base constants: for an agent that ended before the run did, whose
// switch goes back to the static settings.
func (s *Shadow) HostsToBase(ctx context.Context, i int) error {
	s.mu.Lock()
	rs := s.reports[i]
	if s.hosts == nil || len(rs) == 0 {
		s.mu.Unlock()
		return nil
	}
	r := rs[len(rs)-1]
	for _, p := range r.Ports[len(r.Chosen):] {
		s.applied[p] = s.base[p]
	}
	s.mu.Unlock()
	if err := s.putHosts(ctx); err != nil {
		return fmt.Errorf("agent %d (%s): hosts back on the base DCQCN constants: %w", i, r.Switch, err)
	}
	return nil
}

// End records that agent i will report no more.
func (s *Shadow) End(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended[i] = true
	s.signal()
}

func (s *Shadow) signal() {
	close(s.wake)
	s.wake = make(chan struct{})
}

// Feed reads agent i's reports, one JSON object a line, from rd until it
// ends, adding each (Add), then calls End. It returns the first malformed
// line's error or Add's (after which it reads on and drops the rest).
func (s *Shadow) Feed(ctx context.Context, i int, rd io.Reader) error {
	defer s.End(i)
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var first error
	line := 0
	for sc.Scan() {
		line++
		if first != nil {
			continue
		}
		var r Report
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			first = fmt.Errorf("agent %d: report line %d: %w", i, line, err)
			continue
		}
		first = s.Add(ctx, i, &r)
	}
	if err := sc.Err(); err != nil && first == nil {
		first = fmt.Errorf("agent %d: reports: %w", i, err)
	}
	return first
}

// ReadTelemetry returns the telemetry of the next step every live agent
// has reported (the first call returns zeros: it opens the loop's first
// interval, as a switch read does). It waits until every agent has
// reported that step or ended, or ctx ends. The ports of an agent that
// ended without reporting it read 0.
func (s *Shadow) ReadTelemetry(ctx context.Context, dst []control.PortSample) error {
	if len(dst) != len(s.f.Ports) {
		return fmt.Errorf("agent shadow: %d samples for %d ports", len(dst), len(s.f.Ports))
	}
	clear(dst)
	if !s.started {
		s.started = true
		return nil
	}
	j := s.cur + 1
	for {
		s.mu.Lock()
		ready, wake := s.readyLocked(j), s.wake
		s.mu.Unlock()
		if ready {
			break
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return fmt.Errorf("agent shadow: step %d: %w", j, ctx.Err())
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	got := false
	for _, rs := range s.reports {
		if len(rs) <= j {
			continue
		}
		r := rs[j]
		for k, p := range r.Ports {
			dst[p] = r.Samples[k]
		}
		s.now, s.interval, got = r.Now, r.Interval, true
	}
	if !got {
		return fmt.Errorf("agent shadow: step %d: every agent has ended", j)
	}
	s.cur, s.pending = j, true
	return nil
}

// readyLocked reports whether every agent has reported step j or ended.
func (s *Shadow) readyLocked(j int) bool {
	for i, rs := range s.reports {
		if len(rs) <= j && !s.ended[i] {
			return false
		}
	}
	return true
}

// ReadTime returns the agents' time of the last read: the end of the
// nominal interval and its length.
func (s *Shadow) ReadTime() (now, interval int64) { return s.now, s.interval }

// SetECN returns the entries the agents wrote in the step of the last
// read: the loop's settings are theirs (LoopPolicy), which they have
// written. Calls that follow another without a read between (the loop's
// restore after a failure) do nothing.
func (s *Shadow) SetECN(_ context.Context, ecn []control.ECN) (int, error) {
	if len(ecn) != len(s.f.Ports) {
		return 0, fmt.Errorf("agent shadow: %d settings for %d ports", len(ecn), len(s.f.Ports))
	}
	if !s.pending {
		return 0, nil
	}
	s.pending = false
	s.mu.Lock()
	defer s.mu.Unlock()
	written := 0
	for _, rs := range s.reports {
		if len(rs) > s.cur {
			written += rs[s.cur].Written
		}
	}
	return written, nil
}

// SetDCQCN (controller.Hosts) applies nothing: the loop's hosts'
// constants are those in force (LoopPolicy), which the leaves' reports
// put there as they came.
func (s *Shadow) SetDCQCN(_ context.Context, hosts []control.HostParams) error {
	if len(hosts) != len(s.f.Ports) {
		return fmt.Errorf("agent shadow: %d hosts' constants for %d ports", len(hosts), len(s.f.Ports))
	}
	return nil
}

// LoopPolicy returns the policy the control loop runs on the Shadow in
// place of central, the run's policy (a controller.AgentLoop): central
// decides on every read as the shadow of the agents, and the policy
// writes the settings the agents applied (an ended agent's ports: the
// static settings its switch went back to) and, with a host head, the
// hosts' constants in force. Every agent port whose model's choice
// differs from central's counts a mismatch (AgentStats.Mismatches), and
// every host whose leaf's choice differs from central's a host mismatch.
func (s *Shadow) LoopPolicy(central control.Policy) control.Policy {
	p := &shadowPolicy{s: s, central: central, want: control.StaticSettings(s.f)}
	if d, ok := control.HostDeciderOf(central); ok {
		// the hosts' starting constants, which a floor's central step
		// (gnn.Floor) takes as its base at its first host step
		p.hosts, p.wantH = d, make([]control.HostParams, len(s.f.Ports))
		if s.base != nil {
			copy(p.wantH, s.base)
		}
	}
	return p
}

// shadowPolicy is LoopPolicy's policy.
type shadowPolicy struct {
	s       *Shadow
	central control.Policy
	hosts   control.HostDecider // central's, with a host head
	want    []control.ECN
	wantH   []control.HostParams
}

// Decide runs central on t, counts the agents' choices that differ from
// its settings and writes the agents' applied settings into ecn.
func (p *shadowPolicy) Decide(t *control.Telemetry, ecn []control.ECN) {
	p.central.Decide(t, p.want)
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rs := range s.reports {
		switch {
		case len(rs) > s.cur:
			r := rs[s.cur]
			for k, e := range r.Chosen {
				if p.want[r.Ports[k]] != e {
					s.mismatches++
				}
				ecn[r.Ports[k]] = r.Applied[k]
			}
		case len(rs) > 0: // ended: its switch is back on the static settings
			r := rs[len(rs)-1]
			for _, q := range r.Ports[:len(r.Chosen)] {
				ecn[q] = s.static[q]
			}
		}
	}
}

// DecidesHosts reports whether central decides the hosts' constants.
func (p *shadowPolicy) DecidesHosts() bool { return p.hosts != nil }

// DecideHosts runs central's host step, counts the leaves' choices that
// differ from its constants, and writes into hosts those the leaves'
// reports of the step put in force (the model's, or with Static the base
// ones; an ended leaf's hosts: the base ones).
func (p *shadowPolicy) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	p.hosts.DecideHosts(t, p.wantH)
	s := p.s
	if s.hosts == nil { // the run's hosts are not the agents'
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rs := range s.reports {
		if len(rs) == 0 {
			continue
		}
		ended := len(rs) <= s.cur
		r := rs[min(s.cur, len(rs)-1)]
		for k, q := range r.Ports[len(r.Chosen):] {
			if k >= len(r.Hosts) {
				break
			}
			switch {
			case ended || r.Static:
				hosts[q] = s.base[q]
			default:
				hosts[q] = r.Hosts[k]
			}
			if !ended && p.wantH[q] != r.Hosts[k] {
				s.hostMismatches++
			}
		}
	}
}

// Stats returns the agents' figures over every report so far, and the
// mismatches over the steps the loop ran.
func (s *Shadow) Stats() controller.AgentStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := controller.AgentStats{Processes: len(s.reports), Mismatches: s.mismatches, HostMismatches: s.hostMismatches,
		HostDelay: slices.Clone(s.hostDelay), HostHop: slices.Clone(s.hopNS)}
	for _, rs := range s.reports {
		for _, r := range rs {
			st.Steps++
			st.Messages += int64(r.Sent)
			st.Bytes += int64(r.Bytes)
			st.Late += int64(r.Late)
			st.Stale += int64(r.Stale)
			if r.Static {
				st.StaticPort += int64(len(r.Chosen))
			}
			var all time.Duration
			for k, ns := range r.RoundNS {
				st.Round = append(st.Round, time.Duration(ns))
				for len(st.ByRound) <= k {
					st.ByRound = append(st.ByRound, nil)
				}
				st.ByRound[k] = append(st.ByRound[k], time.Duration(ns))
				all += time.Duration(ns)
			}
			st.Exchange = append(st.Exchange, all)
		}
	}
	s.addTiming(&st)
	return st
}

// msgKey names a message of a run: its step, round and sending port.
type msgKey struct {
	step  uint32
	round int
	port  topo.PortID
}

// addTiming adds the reports' breakdown of the rounds' time to st, pairing
// each message's send with its receipt. s.mu is held.
func (s *Shadow) addTiming(st *controller.AgentStats) {
	sent := map[msgKey]int64{}
	for _, rs := range s.reports {
		for _, r := range rs {
			st.Start = append(st.Start, time.Duration(r.StartNS))
			st.Read = append(st.Read, time.Duration(r.ReadNS))
			for _, m := range r.Out {
				sent[msgKey{r.Step, m.Round, m.Port}] = m.At
				st.Send = append(st.Send, time.Duration(m.NS))
			}
		}
	}
	for _, rs := range s.reports {
		for _, r := range rs {
			for _, m := range r.In {
				st.Handoff = append(st.Handoff, time.Duration(m.NS))
				if at, ok := sent[msgKey{r.Step, m.Round, m.Port}]; ok {
					st.OneWay = append(st.OneWay, time.Duration(m.At-at))
					if m.Round < 1 || m.Round > len(r.RoundNS) {
						continue // not a round the report ran
					}
					for len(st.OneWayByRound) < m.Round {
						st.OneWayByRound = append(st.OneWayByRound, nil)
					}
					st.OneWayByRound[m.Round-1] = append(st.OneWayByRound[m.Round-1], time.Duration(m.At-at))
				}
			}
		}
	}
}

var (
	_ controller.TimedFabric = (*Shadow)(nil)
	_ controller.Hosts       = (*Shadow)(nil)
	_ controller.AgentLoop   = (*Shadow)(nil)
	_ control.HostDecider    = (*shadowPolicy)(nil)
)
