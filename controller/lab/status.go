package lab

import (
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
)

// Load returns the lab recorded in dir (DefaultDir(lab) if empty), for
// a process other than the one that ran Up: its Dialer, SetQueues,
// CheckSwitches, Status and Down work from the state file.
func Load(lab, dir string) (*Lab, error) {
	if dir == "" {
		dir = DefaultDir(lab)
	}
	st, err := ReadState(dir)
	if err != nil {
		return nil, fmt.Errorf("lab %s: %w", lab, err)
	}
	if st.Lab != lab {
		return nil, fmt.Errorf("lab %s: %s describes lab %s", lab, dir, st.Lab)
	}
	return &Lab{dir: dir, state: st, base: slog.Default(), log: slog.Default().With("lab", lab), children: map[int]*child{}}, nil
}

// Check reports whether the lab was built from a plan like p: the same
// lab name, switches, namespaces, device IDs, ports and hosts.
func (l *Lab) Check(p *Plan) error {
	st := l.state
	if p.Lab != st.Lab {
		return fmt.Errorf("lab %s: plan is for lab %s", st.Lab, p.Lab)
	}
	if len(p.Hosts) != len(st.Hosts) {
		return fmt.Errorf("lab %s: %d hosts, plan has %d", st.Lab, len(st.Hosts), len(p.Hosts))
	}
	for i, h := range p.Hosts {
		if s := st.Hosts[i]; s.Name != h.Name || s.Netns != h.Netns || s.IP != h.IP {
			return fmt.Errorf("lab %s: host %d is %s (%v), plan has %s (%v)", st.Lab, i, s.Name, s.IP, h.Name, h.IP)
		}
	}
	if len(st.Switches) == 0 { // built without switches
		return nil
	}
	if len(p.Switches) != len(st.Switches) {
		return fmt.Errorf("lab %s: %d switches, plan has %d", st.Lab, len(st.Switches), len(p.Switches))
	}
	for i, sp := range p.Switches {
		ss := st.Switches[i]
		if ss.Name != sp.Name || ss.Netns != sp.Netns || ss.DeviceID != sp.DeviceID || len(ss.Ports) != len(sp.Ports) {
			return fmt.Errorf("lab %s: switch %d is %s (device %d, %d ports), plan has %s (device %d, %d ports)",
				st.Lab, i, ss.Name, ss.DeviceID, len(ss.Ports), sp.Name, sp.DeviceID, len(sp.Ports))
		}
		for k, pp := range sp.Ports {
			if ps := ss.Ports[k]; ps.Num != pp.Num || ps.Iface != pp.Iface || ps.Port != pp.Port {
				return fmt.Errorf("lab %s: switch %s port %d differs from the plan", st.Lab, ss.Name, k)
			}
		}
	}
	return nil
}

// Status is what Lab.Status and ReadStatus report about a lab.
type Status struct {
	Lab, Dir, Phase string
	Scale           int64
	// Realtime is the switches' recorded SCHED_FIFO priority (0: normal
	// scheduling); Sched names what their threads have now (SwitchSched:
	// "fifo:10", "other" or "mixed"; empty if it could not be read, with
	// SchedErr saying why) and Threads counts them.
	Realtime   int
	Sched      string
	SchedErr   error
	Threads    int
	Namespaces []NetnsStatus
	Switches   []SwitchStatus
	Hosts      []HostState
}

// NetnsStatus is one namespace of a lab and whether it exists.
type NetnsStatus struct {
	Name   string
	Exists bool
}

// SwitchStatus is one switch of a lab and whether its process runs.
type SwitchStatus struct {
	SwitchState
	Alive bool
}

// Status reports the lab's namespaces (do they exist?), switches (does
// the recorded process still run?) and ports, as recorded and as they are
// now.
func (l *Lab) Status() *Status {
	st := l.state
	s := &Status{Lab: st.Lab, Dir: l.dir, Phase: st.Phase, Scale: st.Scale, Realtime: st.Realtime, Hosts: st.Hosts}
	for _, n := range st.Namespaces {
		s.Namespaces = append(s.Namespaces, NetnsStatus{Name: n, Exists: NetnsExists(n)})
	}
	for _, ss := range st.Switches {
		s.Switches = append(s.Switches, SwitchStatus{SwitchState: ss, Alive: processAlive(ss.PID, ss.StartTime)})
	}
	if len(st.Switches) > 0 {
		s.Sched, s.Threads, s.SchedErr = l.SwitchSched()
	}
	return s
}

// ReadStatus is Load(lab, dir).Status().
func ReadStatus(lab, dir string) (*Status, error) {
	l, err := Load(lab, dir)
	if err != nil {
		return nil, err
	}
	return l.Status(), nil
}

// WriteText writes s as a human-readable report: a summary line, one line
// per switch and one per switch port.
func (s *Status) WriteText(w io.Writer) error {
	missing := 0
	for _, n := range s.Namespaces {
		if !n.Exists {
			missing++
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "lab %s (%s): %s, scale 1/%d, %d namespaces (%d missing), %d switches, %d hosts\n",
		s.Lab, s.Dir, s.Phase, s.Scale, len(s.Namespaces), missing, len(s.Switches), len(s.Hosts))
	if len(s.Switches) > 0 {
		fmt.Fprintf(tw, "switch threads: %s\n", s.schedText())
		fmt.Fprintln(tw, "switch\tdevice\tpid\trunning\tport\tiface\tpeer\tqueue pps\tdepth\tcontrol pps")
	}
	for _, sw := range s.Switches {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t\t\t\t\t\t\n", sw.Name, sw.DeviceID, sw.PID, sw.Alive)
		for _, p := range sw.Ports {
			fmt.Fprintf(tw, "\t\t\t\t%d\t%s\t%s\t%d\t%d\t%d\n", p.Num, p.Iface, p.Peer, p.QueueRatePPS, p.QueueDepth, p.ControlRatePPS)
		}
	}
	return tw.Flush()
}

// schedText describes the switches' scheduling: as recorded (--realtime)
// and as their threads have it now.
func (s *Status) schedText() string {
	want := SchedName(s.Realtime)
	now := s.Sched
	if s.SchedErr != nil {
		now = "unknown (" + s.SchedErr.Error() + ")"
	}
	note := ""
	switch {
	case s.SchedErr != nil || now == want:
	case s.Realtime > 0:
		note = "; not as recorded: testbed run sets them again"
	default:
		note = "; not as recorded: not set by the lab"
	}
	return fmt.Sprintf("%s recorded, %s now (%d threads)%s", want, now, s.Threads, note)
}
