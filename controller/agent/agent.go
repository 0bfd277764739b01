package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"graphcc/agentmsg"
	"graphcc/control"
	"graphcc/controller"
	"graphcc/gnn"
	"graphcc/topo"
)

// Switch is what an agent needs of its own switch: its counters, its ECN
// entries and its in-band channel. The testbed's is a P4Runtime client
// (DialSwitch); tests use fakes.
type Switch interface {
	// Name names the switch in errors.
	Name() string
	// ReadTelemetry writes the interval's samples of the switch's egress
	// ports and of its hosts' NIC ports into dst (indexed by topo.PortID,
	// the fabric's every port; other entries are left alone).
	ReadTelemetry(ctx context.Context, dst []control.PortSample) error
	// SetECN writes the settings of the switch's ports (ecn by
	// topo.PortID) that changed and returns how many it wrote.
	SetECN(ctx context.Context, ecn []control.ECN) (int, error)
	// Send sends frame out of egress port out.
	Send(ctx context.Context, out topo.PortID, frame []byte) error
	// Receive returns the next in-band frame, the link it came in on,
	// named by the neighbour's egress port (the message's sending port,
	// if it is honest), and when the client received it from the switch.
	// It returns an error once the switch is gone.
	Receive(ctx context.Context) (from topo.PortID, frame []byte, at time.Time, err error)
}

// Config configures Run, one switch's agent.
type Config struct {
	Fabric   *topo.Fabric
	Switch   topo.NodeID
	Model    *gnn.Model
	Features gnn.FeatureConfig
	// Static are the settings (by topo.PortID) the agent's ports start
	// on and go back to after MissLimit steps in a row with a neighbour's
	// message late.
	Static []control.ECN
	Clock  controller.FabricClock
	// Step j is due at fabric time Epoch + (j+1)×Interval; its telemetry
	// closes the interval [Epoch + j×Interval, Epoch + (j+1)×Interval] as
	// the features see it (the nominal interval, which the shadow uses
	// too).
	Epoch, Interval int64
	// RoundTimeout sets the rounds' deadlines: round k of a step ends
	// k×RoundTimeout of real time after the step is due, and the messages
	// missing then are replaced (gnn.Agent.RoundFallback). 0: a quarter of
	// the interval over K.
	RoundTimeout time.Duration
	// MissLimit is the steps in a row with a message late after which the
	// agent holds its ports on Static until a step with every message on
	// time (control.Fallback); 0 never. The commands default to
	// control.DefaultMissLimit.
	MissLimit int
	// Steps bounds the steps run (0: until ctx ends).
	Steps int
	// Floor, if set, holds the agent to a floored policy's fixed base
	// (gnn.AgentFloor): its report's Chosen and Hosts are the gated
	// settings and constants, and its ports start on and fall back to
	// Floor.Base, which replaces Static.
	Floor *Floor
	Log   *slog.Logger
}

// Report is what an agent tells the controller after each step: the raw
// samples it read (so the controller can run the central step on exactly
// these), its model's choice, what it applied and how its rounds went.
type Report struct {
	Switch   string               `json:"switch"`
	Step     uint32               `json:"step"`
	Now      int64                `json:"now_ps"`
	Interval int64                `json:"interval_ps"`
	Ports    []topo.PortID        `json:"ports"`   // the rows of Samples: the egress ports, then the hosts' NIC ports
	Samples  []control.PortSample `json:"samples"` // as read, by Ports
	// Chosen are the model's settings of the switch's egress ports (the
	// first rows of Ports), Applied those the agent's control loop checked
	// and applied: Chosen's, or with Static the static settings
	// (control.Fallback).
	Chosen  []control.ECN `json:"chosen"`
	Applied []control.ECN `json:"applied"`
	Static  bool          `json:"static,omitempty"`
	// Hosts are, with a model with a host head, the DCQCN constants the
	// model chose for the switch's hosts (those of the rows of Ports after
	// Chosen, in order): the controller, which emulates the hosts' NICs,
	// puts them in force as it reads the report, or with Static the run's
	// base constants. Empty without a host head.
	Hosts []control.HostParams `json:"hosts,omitempty"`
	// DecidedNS is when the readout ended and ReportNS when the report was
	// written (Unix ns), to time the hosts' hop through the controller.
	DecidedNS int64   `json:"decided_unix_ns,omitempty"`
	ReportNS  int64   `json:"reported_unix_ns,omitempty"`
	Written   int     `json:"written"` // ECN entries written
	Sent      int     `json:"sent"`    // messages sent
	Bytes     int     `json:"bytes"`   // their frames' bytes
	Late      int     `json:"late"`    // messages missing at their round's deadline
	Stale     int     `json:"stale"`   // messages that came after their round
	RoundNS   []int64 `json:"round_ns"`
	// Where the step's time went. Times "at" are Unix ns, comparable
	// across the agents of a run (one machine's clock).
	StartNS int64     `json:"start_ns"` // how long after it was due the step began
	ReadNS  int64     `json:"read_ns"`  // the telemetry read
	Out     []MsgTime `json:"out,omitempty"`
	In      []MsgTime `json:"in,omitempty"`
}

// MsgTime times one message of a step. In Report.Out: Port sent it, At is
// when the send began, NS how long the send took. In Report.In: Port is
// the neighbour's port that sent it, At when the agent's client received it
// from the switch, NS how long after that its round took it.
type MsgTime struct {
	Round int         `json:"round"`
	Port  topo.PortID `json:"port"`
	At    int64       `json:"at_unix_ns"`
	NS    int64       `json:"ns"`
}

// inMsg is a decoded message from a neighbour.
type inMsg struct {
	step  uint32
	round int
	from  topo.PortID
	h     []float32
	at    time.Time // received from the switch
}

// agentRun is one Run.
type agentRun struct {
	c      Config
	sw     Switch
	ag     *gnn.Agent
	floor  *gnn.AgentFloor      // with Config.Floor; nil without
	hosts  []control.HostParams // with a floor and a host head: its hosts' gated constants, by PortID
	loop   *control.Loop        // the control step on the switch's own ports
	act    *switchWriter
	fb     control.Fallback
	name   string
	rows   []topo.PortID     // telemetry rows: egress ports, then hosts
	full   control.Telemetry // the switch's reads, by PortID
	tel    control.Telemetry // the agent's rows
	chosen []control.ECN     // the model's settings of the step, by PortID
	in     chan inMsg
	rerr   chan error // the receiver's end
	buf    []inMsg    // messages of a later round or step
	ser    gopacket.SerializeBuffer
}

// Run runs switch c.Switch's agent on sw until ctx ends (then it returns
// nil) or c.Steps are done, calling report after every step (with a model
// with a host head, the report carries the switch's hosts' DCQCN
// constants: Report.Hosts). It fails, naming the switch, when the switch
// does (a read, a write, a send or the in-band stream) or report does.
func Run(ctx context.Context, c Config, sw Switch, report func(*Report) error) error {
	r, err := newRun(c, sw)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: the receiver ends with ctx
	defer cancel()
	wg.Go(func() { r.receive(ctx) })
	// The first read starts the counters' first interval.
	if err := sw.ReadTelemetry(ctx, r.full.Ports); err != nil {
		return r.fail(ctx, fmt.Errorf("first telemetry read: %w", err))
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for j := 0; c.Steps == 0 || j < c.Steps; j++ {
		now := c.Epoch + int64(j+1)*c.Interval
		if !sleepUntil(ctx, timer, c.Clock.At(now)) {
			return nil
		}
		rep, err := r.step(ctx, uint32(j), now)
		if err != nil {
			return r.fail(ctx, fmt.Errorf("step %d: %w", j, err))
		}
		rep.ReportNS = time.Now().UnixNano()
		if err := report(rep); err != nil {
			return fmt.Errorf("agent of %s: report of step %d: %w", r.name, j, err)
		}
	}
	return nil
}

// fail returns err naming the switch, or nil if ctx has ended (a read cut
// short by the end of the run is not a failure).
func (r *agentRun) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("agent of %s: %w", r.name, err)
}

func newRun(c Config, sw Switch) (*agentRun, error) {
	f := c.Fabric
	if c.Interval <= 0 {
		return nil, fmt.Errorf("agent: interval %d ps is not positive", c.Interval)
	}
	if c.Floor != nil {
		if err := c.Floor.check(f); err != nil {
			return nil, fmt.Errorf("agent: floor: %w", err)
		}
		c.Static = c.Floor.Base
	}
	if len(c.Static) != len(f.Ports) {
		return nil, fmt.Errorf("agent: %d static settings for %d ports", len(c.Static), len(f.Ports))
	}
	v, err := gnn.NewSwitchView(f, c.Switch)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	ag, err := gnn.NewAgent(c.Model, v, c.Features)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if err := control.CheckMissLimit(c.MissLimit); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if c.RoundTimeout == 0 {
		c.RoundTimeout = c.Clock.Real(c.Interval) / time.Duration(4*c.Model.K)
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	r := &agentRun{c: c, sw: sw, ag: ag, act: &switchWriter{sw: sw}, fb: control.Fallback{Limit: c.MissLimit},
		name: sw.Name(), full: control.Telemetry{Ports: make([]control.PortSample, len(f.Ports))},
		chosen: slices.Clone(c.Static), in: make(chan inMsg, 256), rerr: make(chan error, 1),
		ser: gopacket.NewSerializeBuffer()}
	r.loop, err = control.NewLoop(control.LoopConfig{Fabric: f, Ports: ag.OwnPorts(), ECN: c.Static, Apply: r.act})
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if err := r.setFloor(); err != nil {
		return nil, err
	}
	for _, p := range v.Ports {
		r.rows = append(r.rows, p.Port)
	}
	r.rows = append(r.rows, ag.Hosts()...)
	r.tel.Ports = make([]control.PortSample, len(r.rows))
	return r, nil
}

// setFloor holds the agent to c.Floor, if set: its base settings, and
// with a host head its hosts' base constants (the Floor's Hosts, which it
// then needs).
func (r *agentRun) setFloor() error {
	fl := r.c.Floor
	if fl == nil {
		return nil
	}
	var err error
	if r.floor, err = gnn.NewAgentFloor(r.ag, fl.Base, fl.Gates); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	if r.c.Model.HostActions > 0 && len(r.ag.Hosts()) > 0 {
		if fl.Hosts == nil {
			return errors.New("agent: floor: a host-head model's floor needs the hosts' base constants")
		}
		r.hosts = slices.Clone(fl.Hosts)
	}
	return nil
}

// receive decodes the switch's in-band frames into r.in until ctx ends or
// the switch fails (then its error goes to r.rerr).
func (r *agentRun) receive(ctx context.Context) {
	var eth layers.Ethernet
	var msg agentmsg.Message
	p := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &msg)
	p.IgnoreUnsupported = true
	decoded := make([]gopacket.LayerType, 0, 2)
	for {
		link, frame, at, err := r.sw.Receive(ctx)
		if err != nil {
			r.rerr <- err // buffered: the receiver's one error
			return
		}
		if err := p.DecodeLayers(frame, &decoded); err != nil || len(decoded) != 2 || topo.PortID(msg.Port) != link {
			r.c.Log.Warn("dropped an in-band frame", "switch", r.name, "link", link, "error", err)
			continue
		}
		m := inMsg{step: msg.Step, round: int(msg.Round), from: link, h: append([]float32(nil), msg.Vector...), at: at}
		select {
		case r.in <- m:
		case <-ctx.Done():
			return
		}
	}
}
