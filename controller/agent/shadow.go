package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/topo"
)

// Shadow is the control loop's Fabric while agents run the step: it reads
// no switch and writes none. Its ReadTelemetry waits for every live
// agent's report of the next step and assembles the fabric's telemetry
// from the samples they read; its SetECN compares the central step's
// settings with the agents' choices on the same reads and counts the
// ports that differ. RunLoop on a Shadow thus runs the central step as a
// shadow of the agents, with its trace and statistics. Each of its
// methods is for one goroutine (the loop's), Add and End for the agents'
// readers.
type Shadow struct {
	f *topo.Fabric

	mu      sync.Mutex
	wake    chan struct{} // closed and replaced when a report or an end comes
	reports [][]*Report   // per agent, by step
	ended   []bool

	started       bool
	cur           int // the step of the last read, -1 before
	pending       bool
	now, interval int64
	mismatches    int64
}

// NewShadow returns the shadow of agents agents on fabric f.
func NewShadow(f *topo.Fabric, agents int) *Shadow {
	return &Shadow{f: f, wake: make(chan struct{}), reports: make([][]*Report, agents), ended: make([]bool, agents), cur: -1}
}

// Add records agent i's report; reports come in step order.
func (s *Shadow) Add(i int, r *Report) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if int(r.Step) != len(s.reports[i]) {
		return fmt.Errorf("agent %d (%s): report of step %d after %d steps", i, r.Switch, r.Step, len(s.reports[i]))
	}
	if len(r.Samples) != len(r.Ports) || len(r.Chosen) > len(r.Ports) {
		return fmt.Errorf("agent %d (%s): step %d: %d samples, %d settings for %d ports", i, r.Switch, r.Step, len(r.Samples), len(r.Chosen), len(r.Ports))
	}
	for _, p := range r.Ports {
		if p < 0 || int(p) >= len(s.f.Ports) {
			return fmt.Errorf("agent %d (%s): step %d: port %d is not in the fabric", i, r.Switch, r.Step, p)
		}
	}
	s.reports[i] = append(s.reports[i], r)
	s.signal()
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
// ends, then calls End. It returns the first malformed line's error
// (after which it reads on and drops the rest).
func (s *Shadow) Feed(i int, rd io.Reader) error {
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
		first = s.Add(i, &r)
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

// SetECN compares ecn, the central step's settings of the last read, with
// the agents' choices of that step, counts the ports that differ, and
// returns the entries the agents wrote that step. Calls that follow
// another without a read between (the loop's restore after a failure)
// do nothing.
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
		if len(rs) <= s.cur {
			continue
		}
		r := rs[s.cur]
		written += r.Written
		for k, e := range r.Chosen {
			if ecn[r.Ports[k]] != e {
				s.mismatches++
			}
		}
	}
	return written, nil
}

// Stats returns the agents' figures over every report so far, and the
// mismatches over the steps the loop ran.
func (s *Shadow) Stats() controller.AgentStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := controller.AgentStats{Processes: len(s.reports), Mismatches: s.mismatches}
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

var _ controller.TimedFabric = (*Shadow)(nil)
