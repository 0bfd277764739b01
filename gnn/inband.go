package gnn

import (
	"fmt"
	"slices"

	"graphcc/agentmsg"
	"graphcc/control"
	"graphcc/metrics"
	"graphcc/topo"
)

// DefaultRoundDeadline is the default deadline of each round of the
// per-switch agents' exchange in the simulator: a tenth of the default
// control interval, so K = 2 rounds end at the latest 20 µs into the
// 100 µs interval.
const DefaultRoundDeadline = 10 * topo.Microsecond

// ethernetHeader is the bytes of an Ethernet header before an agent
// message (no VLAN tag).
const ethernetHeader = 14

// InBandConfig configures the per-switch agents of InBand.
type InBandConfig struct {
	// Deadline is each round's deadline, ps: round k of the step that
	// began at T must be computed by T + k·Deadline. An agent still
	// waiting for messages of round k then computes it without them
	// (Agent.RoundFallback). 0 means DefaultRoundDeadline. K·Deadline must
	// be shorter than the control interval.
	Deadline int64
	// Misses is the miss limit (control.Fallback): the number of
	// consecutive steps with a message missing after which an agent puts
	// its own ports at the static settings (control.StaticSettings), until
	// a step in which every message came in time. 0 never reverts; the
	// commands default to control.DefaultMissLimit.
	Misses int
	// Compute is the fabric time an agent takes to compute a round (the
	// last round's readout included), ps; 0, the default, computes
	// instantly. A round's computation begins when its messages are all
	// in or at its deadline; a message that arrives during it is late.
	Compute int64
}

// InBand is the GraphCC policy run as one agent per switch whose messages
// are packets on the simulator's links (a control.InBand, and a
// replay.InBand; docs/agents.md):
// each step every agent observes its switch's telemetry at the tick and
// sends its round-1 messages out of the ports they describe; it computes
// round k when its round-k messages are all in, or at the round's deadline
// with the last messages of the missing ones (counted late), sends round
// k+1, and after round K puts its ports' settings in force. Computing
// takes no fabric time. A shadow central GraphCC on the same model (with a
// floor, NewInBandFloor, the central Floor) decides on the same telemetry,
// and every agent port's setting that differs from it is counted
// (decision_mismatches). With a host head the leaves'
// choices of their hosts' DCQCN constants are committed with the step, an
// agent on the static settings puts its hosts on the constants they
// started the run with, and every host whose committed constants differ
// from the shadow's is counted (host_decision_mismatches). Decide is
// PerSwitch's, ideal delivery within the step. No method allocates but
// for amortized growth of the latency samples.
type InBand struct {
	ps     *PerSwitch
	shadow control.Policy // the central step: a GraphCC, or the Floor of NewInBandFloor
	// shadowH is shadow's host step with a host head: it decides from
	// shadow's last Decide and reads no telemetry (GraphCC's, and a
	// Floor's whose base decides no hosts, which NewInBandFloor requires).
	shadowH control.HostDecider
	cfg     InBandConfig
	static  []control.ECN // what an agent falls back to, by PortID: the static settings, or a floor's base
	want    []control.ECN // the shadow's settings of the step, by PortID
	chosen  []control.ECN // the agents' models' settings of the step, by PortID
	ecn     []control.ECN // the agents' settings in force, by PortID
	// With a host head: the shadow's hosts' constants of the step, the
	// hosts' constants at the run's start (set at the first commit) and
	// the agents' choices of the step.
	wantH, hostBase, chosenH []control.HostParams
	baseSet                  bool

	link   []int32       // per PortID: its directed switch-to-switch link, or -1
	from   []topo.PortID // per link: the sending port
	to     []int32       // per link: the receiving agent
	in     [][]int32     // per agent: the links into it
	slots  []msgSlot     // round k's message on link l at (k-1)·links + l
	agents []agentRun

	t0      int64  // the step's tick
	step    uint32 // the step, from 0
	started bool
	due     int   // the next round deadline to enforce, 1..K; K+1 when none
	armed   int64 // the time of the wake-up asked for and not yet had, or -1
	pending int   // agents that have not decided this step

	stats          metrics.AgentStats
	hostMismatches int64
	roundPS        []int64 // per agent-round: its latency, ps
	decidePS       []int64 // per step: from the tick to the last agent's decision, ps
}

// msgSlot is one message of the step in flight: a copy of the sender's
// vector (the sender's own is overwritten by its next round).
type msgSlot struct {
	h       []float32
	arrived bool
}

// agentRun is an agent's progress in the step and its record of misses.
type agentRun struct {
	start  int64 // when its current round began
	ready  int64 // while busy: when its computation of the round ends
	missed bool  // a message of this step was late
	busy   bool  // computing its current round
	fb     control.Fallback
	done   bool
}

// NewInBand returns the per-switch agents of model m on fabric f, with
// features normalized by c, exchanging messages as packets as cfg says.
// It fails as NewPerSwitch, on a negative deadline or compute time and on
// a negative miss limit.
func NewInBand(m *Model, f *topo.Fabric, c FeatureConfig, cfg InBandConfig) (*InBand, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	ps, err := NewPerSwitch(m, f, c)
	if err != nil {
		return nil, err
	}
	shadow, err := NewGraphCC(m, f, c)
	if err != nil {
		return nil, err
	}
	return newInBand(ps, shadow, control.StaticSettings(f), f, cfg), nil
}

// NewInBandFloor returns fl's per-switch agents (NewPerSwitchFloor) whose
// messages are packets, as NewInBand: fl itself is their shadow, and an
// agent that falls back (Misses) holds its ports on fl's base settings and
// its hosts on their starting constants, the base's. It fails as
// NewPerSwitchFloor and NewInBand.
func NewInBandFloor(fl *Floor, f *topo.Fabric, cfg InBandConfig) (*InBand, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	ps, err := NewPerSwitchFloor(fl, f)
	if err != nil {
		return nil, err
	}
	return newInBand(ps, fl, fl.start, f, cfg), nil
}

// check reports a negative deadline, compute time or miss limit.
func (cfg InBandConfig) check() error {
	if cfg.Deadline < 0 || cfg.Compute < 0 {
		return fmt.Errorf("per-switch agents: round deadline %s and compute time %s must not be negative",
			topo.FormatDuration(cfg.Deadline), topo.FormatDuration(cfg.Compute))
	}
	if err := control.CheckMissLimit(cfg.Misses); err != nil {
		return fmt.Errorf("per-switch agents: %w", err)
	}
	return nil
}

// newInBand returns the in-band agents of ps with shadow, falling back to
// static (by PortID).
func newInBand(ps *PerSwitch, shadow control.Policy, static []control.ECN, f *topo.Fabric, cfg InBandConfig) *InBand {
	if cfg.Deadline == 0 {
		cfg.Deadline = DefaultRoundDeadline
	}
	m := ps.m
	ib := &InBand{ps: ps, shadow: shadow, cfg: cfg, static: slices.Clone(static),
		want: control.StaticSettings(f), chosen: control.StaticSettings(f), ecn: slices.Clone(static),
		link: make([]int32, len(f.Ports)), in: make([][]int32, len(ps.agents)), agents: make([]agentRun, len(ps.agents))}
	for a := range ib.agents {
		ib.agents[a].fb.Limit = cfg.Misses
	}
	for i := range ib.link {
		ib.link[i] = -1
	}
	for _, ag := range ps.agents {
		for _, vp := range ag.view.Ports {
			if !vp.PeerSwitch {
				continue
			}
			l := int32(len(ib.from))
			ib.link[vp.Port] = l
			ib.from = append(ib.from, vp.Port)
			ib.to = append(ib.to, ps.byNode[vp.Peer])
		}
	}
	for l, a := range ib.to {
		ib.in[a] = append(ib.in[a], int32(l))
	}
	ib.slots = make([]msgSlot, m.K*len(ib.from))
	for i := range ib.slots {
		ib.slots[i].h = make([]float32, m.Hidden)
	}
	if m.HostActions > 0 {
		ib.shadowH, _ = control.HostDeciderOf(shadow)
		n := len(f.Ports)
		ib.wantH, ib.hostBase, ib.chosenH = make([]control.HostParams, n), make([]control.HostParams, n), make([]control.HostParams, n)
	}
	ib.resetStats()
	return ib
}

// Decide runs the step with ideal delivery (PerSwitch.Decide), for a
// fabric that does not carry the messages.
func (ib *InBand) Decide(t *control.Telemetry, ecn []control.ECN) { ib.ps.Decide(t, ecn) }

// DecidesHosts reports whether the model has a host head.
func (ib *InBand) DecidesHosts() bool { return ib.ps.DecidesHosts() }

// HostParams returns the hosts' fixed constants of a floor's base, if it
// has them (PerSwitch.HostParams): the hosts start with them.
func (ib *InBand) HostParams() (control.HostParams, bool) { return ib.ps.HostParams() }

// DecideHosts writes the hosts' DCQCN constants the leaves' agents chose
// last (PerSwitch.DecideHosts).
func (ib *InBand) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	ib.ps.DecideHosts(t, hosts)
}

// MessagesPerStep returns the messages one step sends: K rounds × the
// directed switch-to-switch links.
func (ib *InBand) MessagesPerStep() int { return ib.ps.MessagesPerStep() }

// Rounds returns K, the rounds of a step.
func (ib *InBand) Rounds() int { return ib.ps.m.K }

// Config returns the configuration in use, defaults filled in.
func (ib *InBand) Config() InBandConfig { return ib.cfg }

// Start begins a step on t: the shadow decides, every agent observes its
// share and sends round 1 (control.InBand).
func (ib *InBand) Start(net control.Net, t *control.Telemetry) bool {
	if ib.started {
		ib.step++
	}
	ib.started = true
	ib.t0 = net.Now()
	ib.stats.Steps++
	ib.shadow.Decide(t, ib.want)
	ib.ps.observe(t)
	for i := range ib.slots {
		ib.slots[i].arrived = false
	}
	ib.pending = len(ib.agents)
	for a := range ib.agents {
		r := &ib.agents[a]
		r.start, r.missed, r.done, r.busy = ib.t0, false, false, false
		ib.send(net, a, 1)
	}
	for a := range ib.agents {
		ib.enter(net, a, 1)
	}
	ib.due, ib.armed = 1, -1
	ib.arm(net)
	return ib.pending == 0
}

// Arrive takes a message that reached its switch (control.InBand). A
// message of an earlier step, or of a round its receiver has already
// computed without it, is dropped: the round counted it late.
func (ib *InBand) Arrive(net control.Net, tag int32, step uint32) bool {
	if step != ib.step || ib.pending == 0 {
		return ib.pending == 0
	}
	nl := int32(len(ib.from))
	k, l := int(tag/nl)+1, tag%nl
	ib.slots[tag].arrived = true
	a := ib.to[l]
	ag := ib.ps.agents[a]
	if r := &ib.agents[a]; r.done || r.busy || ag.next != k {
		return false // a later round's, kept for it; or a round's begun without it, late
	}
	ib.receive(a, k, l)
	if ag.Missing() == 0 {
		ib.begin(net, int(a))
	}
	ib.arm(net)
	return ib.pending == 0
}

// Wake ends the computations due and enforces the round deadlines that
// have passed (control.InBand).
func (ib *InBand) Wake(net control.Net) bool {
	now := net.Now()
	ib.armed = -1
	for a := range ib.agents {
		if r := &ib.agents[a]; r.busy && r.ready <= now {
			ib.complete(net, a)
		}
	}
	for ib.pending > 0 && ib.due <= ib.ps.m.K && now >= ib.deadline(ib.due) {
		for a, ag := range ib.ps.agents {
			if r := &ib.agents[a]; !r.done && !r.busy && ag.next == ib.due {
				ib.begin(net, a)
			}
		}
		ib.due++
	}
	ib.arm(net)
	return ib.pending == 0
}

// deadline returns the time by which round k's computation begins.
func (ib *InBand) deadline(k int) int64 { return ib.t0 + int64(k)*ib.cfg.Deadline }

// arm asks for a wake-up at the next deadline or end of a computation
// while an agent has not decided.
func (ib *InBand) arm(net control.Net) {
	if ib.pending == 0 {
		return
	}
	at := int64(-1)
	if ib.due <= ib.ps.m.K {
		at = ib.deadline(ib.due)
	}
	for a := range ib.agents {
		if r := &ib.agents[a]; r.busy && (at < 0 || r.ready < at) {
			at = r.ready
		}
	}
	if at >= 0 && at != ib.armed {
		net.WakeAt(at)
		ib.armed = at
	}
}

// send sends agent a's round-k messages: a copy of each vector in its
// slot, and a packet of the agentmsg frame's size on its port.
func (ib *InBand) send(net control.Net, a, k int) {
	ag := ib.ps.agents[a]
	base := (k - 1) * len(ib.from)
	for i := range ag.Sends() {
		from, _, h := ag.Message(k, i)
		tag := base + int(ib.link[from])
		copy(ib.slots[tag].h, h)
		bytes := ethernetHeader + agentmsg.HeaderLen + 4*len(h)
		net.Send(from, bytes, int32(tag), ib.step)
		ib.stats.Messages++
		ib.stats.MessageBytes += int64(bytes)
	}
}

// enter hands agent a the messages of round k that arrived before it
// reached the round, and begins the round if none is missing or its
// deadline has passed.
func (ib *InBand) enter(net control.Net, a, k int) {
	ag := ib.ps.agents[a]
	base := (k - 1) * len(ib.from)
	for _, l := range ib.in[a] {
		if ib.slots[base+int(l)].arrived {
			ib.receive(int32(a), k, l)
		}
	}
	if ag.Missing() == 0 || net.Now() >= ib.deadline(k) {
		ib.begin(net, a)
	}
}

// receive hands agent a round k's message on link l.
func (ib *InBand) receive(a int32, k int, l int32) {
	ag := ib.ps.agents[a]
	h := ib.slots[(k-1)*len(ib.from)+int(l)].h[:ag.msgLen(k)]
	if err := ag.Receive(k, ib.from[l], h); err != nil {
		panic("gnn: in-band delivery: " + err.Error())
	}
}

// begin begins agent a's computation of its current round with the
// messages it has, counting the missing ones late, and ends it at once
// without a compute time.
func (ib *InBand) begin(net control.Net, a int) {
	ag, r := ib.ps.agents[a], &ib.agents[a]
	if late := ag.Missing(); late > 0 {
		ib.stats.LateMessages += int64(late)
		ib.stats.FallbackRounds++
		r.missed = true
	}
	if ib.cfg.Compute == 0 {
		ib.complete(net, a)
		return
	}
	r.busy, r.ready = true, net.Now()+ib.cfg.Compute
}

// complete ends agent a's computation of its current round (the missing
// messages replaced, Agent.RoundFallback), then sends the next round's
// messages and enters it, or after round K decides.
func (ib *InBand) complete(net control.Net, a int) {
	ag, r := ib.ps.agents[a], &ib.agents[a]
	k := ag.next
	if _, err := ag.RoundFallback(k); err != nil {
		panic("gnn: in-band round: " + err.Error())
	}
	r.busy = false
	now := net.Now()
	ib.roundPS = append(ib.roundPS, now-r.start)
	r.start = now
	if k < ib.ps.m.K {
		ib.send(net, a, k+1)
		ib.enter(net, a, k+1)
		return
	}
	ib.decide(net, a)
}

// decide puts agent a's settings in force after its last round: its
// model's, or the static settings after Misses consecutive steps with a
// late message (control.Fallback). It compares the model's with the
// shadow's and counts the ports held on the static settings.
func (ib *InBand) decide(net control.Net, a int) {
	ag, r := ib.ps.agents[a], &ib.agents[a]
	r.done = true
	ib.ps.settings(a, ib.chosen)
	ports := ag.OwnPorts()
	for _, p := range ports {
		if ib.chosen[p] != ib.want[p] {
			ib.stats.DecisionMismatches++
		}
	}
	if static, _ := r.fb.Step(r.missed); static {
		ib.stats.StaticSteps++
		ib.stats.FallbackPortSteps += int64(len(ports))
	}
	r.fb.Apply(ib.ecn, ib.chosen, ib.static, ports)
	for _, p := range ports {
		net.SetECN(p, ib.ecn[p])
	}
	if ib.pending--; ib.pending == 0 {
		ib.decidePS = append(ib.decidePS, net.Now()-ib.t0)
	}
}

// Settings writes the agents' settings in force (control.InBand) and, with
// a host head, the hosts' constants: those the leaves chose, or for a leaf
// on the static settings those the hosts started the run with (hosts as
// the first call finds them), counting those that differ from the
// shadow's, which decides them here from its Decide of the step.
func (ib *InBand) Settings(ecn []control.ECN, hosts []control.HostParams) {
	for _, ag := range ib.ps.agents {
		for _, vp := range ag.view.Ports {
			ecn[vp.Port] = ib.ecn[vp.Port]
		}
	}
	if hosts == nil || ib.wantH == nil {
		return
	}
	if !ib.baseSet {
		copy(ib.hostBase, hosts)
		copy(ib.wantH, hosts)
		copy(ib.chosenH, hosts)
		ib.baseSet = true
	}
	ib.shadowH.DecideHosts(nil, ib.wantH)
	for a, ag := range ib.ps.agents {
		ib.ps.hostSettings(a, ib.chosenH)
		for _, p := range ag.Hosts() {
			h := ib.chosenH[p]
			if ib.agents[a].fb.Static() {
				h = ib.hostBase[p]
			}
			if h != ib.wantH[p] {
				ib.hostMismatches++
			}
			hosts[p] = h
		}
	}
}

// AgentStats returns the run's counts (replay.InBand); Lost is the
// simulator's.
func (ib *InBand) AgentStats() metrics.AgentStats {
	s := ib.stats
	if ib.wantH != nil {
		n := ib.hostMismatches
		s.HostDecisionMismatches = &n
	}
	const us = float64(topo.Microsecond)
	m, p := metrics.MeanP99(ib.roundPS)
	s.RoundUSMean, s.RoundUSP99 = m/us, p/us
	m, p = metrics.MeanP99(ib.decidePS)
	s.DecisionUSMean, s.DecisionUSP99 = m/us, p/us
	return s
}

// Reset forgets every agent's history and the run's counts, for a new
// run.
func (ib *InBand) Reset() {
	ib.ps.Reset()
	if r, ok := ib.shadow.(interface{ Reset() }); ok {
		r.Reset()
	}
	for a := range ib.agents {
		ib.agents[a] = agentRun{fb: control.Fallback{Limit: ib.cfg.Misses}}
	}
	copy(ib.ecn, ib.static)
	ib.step, ib.started, ib.pending, ib.due, ib.baseSet = 0, false, 0, 0, false
	ib.resetStats()
	ib.roundPS, ib.decidePS = ib.roundPS[:0], ib.decidePS[:0]
}

// resetStats zeroes the run's counts.
func (ib *InBand) resetStats() {
	ib.stats = metrics.AgentStats{Agents: "per-switch", Switches: len(ib.agents)}
	ib.hostMismatches = 0
}

var (
	_ control.InBand    = (*InBand)(nil)
	_ control.HostTuner = (*InBand)(nil)
)
