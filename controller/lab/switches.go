package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/vishvananda/netns"

	"graphcc/namespace"
	"graphcc/topo"
)

// cliStubFile is the name of the stub BMv2 program in the lab directory.
const cliStubFile = "cli-stub.json"

// startSwitches starts one switch process per switch of l's plan inside
// its namespace, recording each before starting it and its PID after,
// waits until every gRPC port accepts connections, puts their threads at
// the real-time priority if there is one, and sets the egress queues.
func (l *Lab) startSwitches(ctx context.Context, cfg *Config, handles map[string]netns.NsHandle) error {
	if l.state.CLIJSON == "" {
		path := filepath.Join(l.dir, cliStubFile)
		if err := os.WriteFile(path, []byte(cliStubJSON), 0o644); err != nil {
			return fmt.Errorf("write CLI stub program: %w", err)
		}
		l.state.CLIJSON = path
	}
	for i := range l.plan.Switches {
		if err := l.startSwitch(ctx, cfg, i, handles[l.plan.Switches[i].Netns]); err != nil {
			return err
		}
	}
	if err := l.waitSwitches(ctx, cfg, handles); err != nil {
		return err
	}
	if n, err := l.ApplyRealtime(); err != nil {
		return err
	} else if n > 0 {
		l.log.Info("switch threads at real-time priority", "sched", SchedName(l.state.Realtime), "threads", n)
	}
	return l.setQueues(ctx, cfg)
}

// switchState returns the state of switch sp of l's plan, before it starts:
// its addresses, log and ports with their egress queue settings.
func (l *Lab) switchState(cfg *Config, sp *SwitchPlan) SwitchState {
	f := l.plan.Fabric
	ss := SwitchState{
		Name: sp.Name, Netns: sp.Netns, DeviceID: sp.DeviceID, GRPCAddr: GRPCAddr, ThriftPort: ThriftPort,
		Log: filepath.Join(l.dir, sp.Name+".log"),
	}
	for _, pp := range sp.Ports {
		rate := f.Ports[pp.Port].Rate
		depth := cfg.QueueDepth
		if depth == 0 {
			var kmax int64
			if cfg.MaxKMax != nil {
				kmax = cfg.MaxKMax(rate)
			}
			depth = QueueDepth(rate, kmax)
		}
		ss.Ports = append(ss.Ports, PortState{
			Num: pp.Num, Iface: pp.Iface, Port: pp.Port, Peer: f.Nodes[pp.Peer].Name,
			RateBps: rate, QueueRatePPS: QueueRatePPS(rate, cfg.Scale), QueueDepth: depth,
			ControlRatePPS: ControlRatePPS(rate, cfg.Scale),
		})
	}
	return ss
}

// startSwitch starts the process of switch i of l's plan inside its
// namespace ns, recording the switch before starting it and its PID
// after.
func (l *Lab) startSwitch(ctx context.Context, cfg *Config, i int, ns netns.NsHandle) error {
	sp := &l.plan.Switches[i]
	ss := l.switchState(cfg, sp)
	if err := step(ctx, cfg, "switch "+sp.Name); err != nil {
		return err
	}
	l.state.Switches = append(l.state.Switches, ss)
	if err := l.save(); err != nil {
		return err
	}
	if err := os.Truncate(ss.Log, 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("switch %s: %w", sp.Name, err)
	}
	c, err := startInNetns(ns, cfg.SwitchBinary, switchArgs(&ss, cfg.SwitchLogLevel), ss.Log)
	if err != nil {
		return fmt.Errorf("switch %s: start %s: %w", sp.Name, cfg.SwitchBinary, err)
	}
	l.mu.Lock()
	l.children[i] = c
	l.mu.Unlock()
	pid := c.cmd.Process.Pid
	_, start, err := procStat(pid)
	if err != nil { // exited and reaped already: waitListening reports it
		start = 0
	}
	l.state.Switches[i].PID, l.state.Switches[i].StartTime = pid, start
	if err := l.save(); err != nil {
		return err
	}
	l.log.Debug("switch started", "switch", sp.Name, "pid", pid)
	return nil
}

// waitSwitches waits, within cfg.StartTimeout, until every switch accepts
// connections on its gRPC port and then its Thrift port; an error carries
// the end of the switch's log.
func (l *Lab) waitSwitches(ctx context.Context, cfg *Config, handles map[string]netns.NsHandle) error {
	wctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	return l.eachSwitch(func(i int, ss *SwitchState) error {
		h := handles[ss.Netns]
		withLog := func(err error) error {
			if t := fileTail(ss.Log, 5); t != "" {
				err = fmt.Errorf("%w; log %s: %s", err, ss.Log, t)
			}
			return err
		}
		if err := waitListening(wctx, h, ss.GRPCAddr, l.children[i]); err != nil {
			return withLog(err)
		}
		// BMv2 opens its Thrift port within moments of its gRPC one; one
		// built without Thrift never does, and would cost the whole
		// StartTimeout to find out.
		tctx, cancel := context.WithTimeout(wctx, thriftGrace)
		defer cancel()
		if err := waitListening(tctx, h, net.JoinHostPort("127.0.0.1", strconv.Itoa(ss.ThriftPort)), l.children[i]); err != nil {
			if wctx.Err() == nil && tctx.Err() != nil {
				err = fmt.Errorf("%w: %s serves P4Runtime but not Thrift, which the lab needs to set queue rates with %s; "+
					"a simple_switch_grpc built from source needs Thrift (BMv2's targets/simple_switch_grpc: ./configure --with-thrift)",
					err, cfg.SwitchBinary, cfg.CLIBinary)
			}
			return withLog(err)
		}
		return nil
	})
}

// thriftGrace is how long a switch that serves gRPC has to open its Thrift
// port.
const thriftGrace = 5 * time.Second

// eachSwitch runs fn for every switch of the state in parallel and joins
// the errors, each naming its switch.
func (l *Lab) eachSwitch(fn func(i int, ss *SwitchState) error) error {
	errs := make([]error, len(l.state.Switches))
	var wg sync.WaitGroup
	for i := range l.state.Switches {
		wg.Go(func() {
			ss := &l.state.Switches[i]
			if err := fn(i, ss); err != nil {
				errs[i] = fmt.Errorf("switch %s: %w", ss.Name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// SetQueues sets the egress queue rate and depth of every port of every
// switch, as the state file records them, through BMv2's Thrift CLI run
// inside each switch's namespace. Up does it once the switches listen;
// call it again if a pipeline push resets the queues.
func (l *Lab) SetQueues(ctx context.Context) error {
	return l.setQueues(ctx, &Config{})
}

func (l *Lab) setQueues(ctx context.Context, cfg *Config) error {
	if len(l.state.Switches) > 0 && l.state.CLIBinary == "" {
		return fmt.Errorf("lab %s: no Thrift CLI recorded", l.state.Lab)
	}
	return l.eachSwitch(func(i int, ss *SwitchState) error {
		if err := step(ctx, cfg, "queues "+ss.Name); err != nil {
			return err
		}
		h, err := OpenNetns(ss.Netns)
		if err != nil {
			return err
		}
		defer h.Close()
		return runCLI(ctx, h, l.state.CLIBinary, ss.ThriftPort, l.state.CLIJSON, queueCommands(ss.Ports))
	})
}

// Dialer returns a dialer that opens TCP connections inside the namespace
// of switch sw (an index into State().Switches, the plan's order), for
// grpc.WithContextDialer: the switches' gRPC servers listen on their own
// loopbacks (GRPCAddr). addr must be a literal IP and port.
func (l *Lab) Dialer(sw int) func(ctx context.Context, addr string) (net.Conn, error) {
	if sw < 0 || sw >= len(l.state.Switches) {
		return func(context.Context, string) (net.Conn, error) {
			return nil, fmt.Errorf("lab %s: no switch %d", l.state.Lab, sw)
		}
	}
	name := l.state.Switches[sw].Netns
	return func(ctx context.Context, addr string) (net.Conn, error) {
		return DialInNetns(ctx, name, addr)
	}
}

// DialInNetns opens a TCP connection to addr (a literal IP and port) from
// inside the named namespace ns.
func DialInNetns(ctx context.Context, ns, addr string) (net.Conn, error) {
	var conn net.Conn
	err := namespace.DoNamed(ns, func() error {
		var d net.Dialer
		var err error
		conn, err = d.DialContext(ctx, "tcp", addr)
		return err
	})
	return conn, err
}

// CheckSwitches returns an error naming every switch whose process is no
// longer running (gone, a zombie, or its PID reused), or nil.
func (l *Lab) CheckSwitches() error {
	var errs []error
	for _, ss := range l.state.Switches {
		if !processAlive(ss.PID, ss.StartTime) {
			errs = append(errs, fmt.Errorf("switch %s: process %d is not running (log %s)", ss.Name, ss.PID, ss.Log))
		}
	}
	return errors.Join(errs...)
}

// QueueDrainTime bounds the real time the switches of st take to empty
// queues a run left full: the slowest port's depth over its rate (BMv2's
// set_queue_depth and set_queue_rate), times the most switches any route of
// f crosses. A run that ends with flows still sending (its drain time
// passed) leaves frames queued; the next run on the lab waits this long so
// they do not delay its first frames.
func QueueDrainTime(st *State, f *topo.Fabric) time.Duration {
	var slowest time.Duration
	for _, ss := range st.Switches {
		for _, p := range ss.Ports {
			if p.QueueRatePPS > 0 {
				slowest = max(slowest, time.Duration(p.QueueDepth)*time.Second/time.Duration(p.QueueRatePPS))
			}
		}
	}
	return slowest * time.Duration(maxSwitchHops(f))
}

// maxSwitchHops returns the most switches a frame crosses between two
// hosts of f (following each route's first next hop: ECMP paths are equally
// long).
func maxSwitchHops(f *topo.Fabric) int {
	most := 0
	for _, src := range f.Hosts() {
		for _, dst := range f.Hosts() {
			n := 0
			for at := src; at != dst; n++ {
				hops := f.NextHops(at, dst)
				if len(hops) == 0 || n > len(f.Nodes) {
					break
				}
				at = f.Ports[hops[0]].Dst
			}
			most = max(most, n-1) // n links: n-1 switches
		}
	}
	return most
}
