package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"graphcc/control"
	"graphcc/dcqcn"
	"graphcc/metrics"
	"graphcc/topo"
	"graphcc/trace"
)

// Config is one simulation: a fabric, the flows to replay on it, and how to
// control and observe it.
type Config struct {
	Fabric *topo.Fabric
	// Flows need not be sorted; each starts at its Start time.
	Flows []trace.Flow
	// Params are the hardware constants; the zero value means DefaultParams().
	Params Params
	// Seed drives the random choices of the run (ECN marking).
	Seed uint64
	// ECMPSeed perturbs the per-switch ECMP hash seeds. 0 keeps HPCC's
	// (each switch's node id), so that a flow takes the path HPCC's
	// simulator gives it.
	ECMPSeed uint32
	// ECN is the initial marking setting per port (indexed by topo.PortID);
	// nil means Alibaba's static thresholds (control.StaticSettings).
	ECN []control.ECN
	// Policy, if not nil, is called every Interval with the telemetry of the
	// interval and may change the ECN settings; the change takes effect at
	// the next dequeue. A policy that is an InBand runs its step over
	// fabric time instead, its agents' messages packets on the links.
	Policy control.Policy
	// Interval is the control interval Δt in picoseconds; 0 means
	// DefaultInterval.
	Interval int64
	// Until, if positive, stops the run at that simulated time (ps) even if
	// flows are unfinished.
	Until int64
	// QueueUntil, if positive, ends the queue samples of the summary
	// (QueueBytesMean, QueueBytesP99, QueueFeatureMean, QueueFeatureP99,
	// QueueSeconds) at that simulated time
	// (ps): they are those of the control intervals that end by then. A
	// generated trace's arrival window (its first arrival plus the
	// scenario's duration) makes runs of one trace under different
	// policies, which finish at different times, sample the same span;
	// 0 samples the whole run.
	QueueUntil int64
	// Trace, if not nil, receives one CSV row per port per interval (see
	// control.TraceHeader).
	Trace io.Writer
	// Progress, if not nil, is called every interval with the simulated time
	// and the flows finished so far.
	Progress func(now int64, completed, total int)
	// MessageLoss is the probability that a per-switch agent's message
	// (with an InBand policy) is lost on its link, drawn per message from
	// a source seeded with Seed; 0 loses none. Only with an InBand policy.
	MessageLoss float64
	// OnFinish, if not nil, is called with the record of every flow as it
	// finishes, before the control interval it finishes in ends, and the
	// ports its data crossed, from its sender's NIC to the last switch's
	// port to the receiver (valid only during the call).
	OnFinish func(rec trace.FCT, path []topo.PortID)
	// LinkEvents are switch-switch links failing and coming back during
	// the run, in any order (New sorts them by time, stably). The fabric
	// keeps every port: a link that fails drops what its ports hold and
	// the flows crossing it are rerouted; one that comes back carries the
	// flows that start from then on (docs/simulator.md, "Links that fail
	// and come back during a run").
	LinkEvents []topo.LinkEvent
}

// Counters are totals of one run, for the summary and for checks.
type Counters struct {
	Events         int64 // events processed
	PFCPauses      int64 // PAUSE frames sent by switches
	PFCResumes     int64 // RESUME frames sent by switches
	ECNMarked      int64 // data packets marked CE
	Drops          int64 // packets dropped at switch admission
	DataPackets    int64 // data packets transmitted by senders, retransmissions included
	SentPayload    int64 // payload bytes transmitted by senders, retransmissions included
	DeliverPayload int64 // payload bytes accepted in order by receivers
	Retransmits    int64 // NACKs that made a sender go back
	Timeouts       int64 // loss timeouts that made a sender go back (PFC off, or with link events)
	MessagesLost   int64 // agent messages lost (Config.MessageLoss, or on a link that failed)
	LinkDrops      int64 // packets dropped from the queues and wires of a link that failed (in Drops)
	StaleDrops     int64 // packets of a rerouted flow dropped at their next switch (in Drops)
	Reroutes       int64 // flows in progress rerouted by a link failing
}

// Result is what a run produced.
type Result struct {
	Summary  metrics.Summary
	FCT      []trace.FCT // completed flows, in completion order
	Counters Counters
	End      int64 // simulated time of the last event processed, ps
	// Warnings name what the simulator ran as HPCC would but a user likely
	// did not mean: a switch whose ports' PFC headroom and reserve exceed its
	// buffer (long links), whose shared pool is then negative, so that
	// headroom admits packets past the buffer.
	Warnings []string
}

// Run simulates cfg until every flow has finished (or cfg.Until).
func Run(cfg Config) (*Result, error) {
	return RunContext(context.Background(), cfg)
}

// RunContext is Run that stops early when ctx is done: it checks ctx every
// 2^14 events (a few milliseconds of work) and then returns an error that
// wraps context.Cause(ctx) and says how far the run got.
func RunContext(ctx context.Context, cfg Config) (*Result, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	const checkEvery = 1 << 14
	first := s.Now()
	for left := 1; s.Step(); {
		if left--; left == 0 {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("interrupted at %.3f ms simulated: %w",
					float64(s.Now()-first)/float64(topo.Millisecond), context.Cause(ctx))
			}
			left = checkEvery
		}
	}
	return s.Result()
}

// packet kinds
const (
	kData uint8 = iota
	kAck
	kNack
	kPause
	kResume
	kMsg // a per-switch agent's message (InBand): hop holds its tag, seq its step
)

// packet is a slot of the packet slab; next links it into exactly one queue
// or link ring at a time.
type packet struct {
	next    int32
	flow    int32
	in      topo.PortID // ingress port at the current switch (MMU accounting)
	size    int32       // bytes on the wire
	payload int32
	hop     int32  // index of the port it is on in its route
	seq     int64  // data: first payload byte; ack: next expected byte
	gen     uint16 // its flow's route generation (flowState.fwdGen, revGen) when it left its host
	kind    uint8
	ce      bool
	cnp     bool
	start   bool // data: the first packet of its flow (control.IsFlowStart)
}

// fifo is an intrusive FIFO of packets of the slab, linked by packet.next;
// head and tail are -1 when it is empty (the zero value holds packet 0).
type fifo struct{ head, tail int32 }

// push appends packet i.
func (q *fifo) push(pkts []packet, i int32) {
	pkts[i].next = -1
	if q.tail < 0 {
		q.head = i
	} else {
		pkts[q.tail].next = i
	}
	q.tail = i
}

// pop removes and returns the first packet; q must not be empty.
func (q *fifo) pop(pkts []packet) int32 {
	i := q.head
	q.head = pkts[i].next
	if q.head < 0 {
		q.tail = -1
	}
	return i
}

// wire is the FIFO of the packets in flight on a link and their arrival
// times at its far end: a ring that doubles when full, so a delivery reads
// the next arrival from the port rather than from the next packet.
type wire struct {
	e          []wireEntry // len is 0 or a power of two
	head, tail uint32      // free-running; the ring holds tail-head entries
}

type wireEntry struct {
	at  int64 // arrival time at the far end
	pkt int32
}

// push appends packet i arriving at time at.
func (w *wire) push(i int32, at int64) {
	if int(w.tail-w.head) == len(w.e) {
		w.grow()
	}
	w.e[int(w.tail)&(len(w.e)-1)] = wireEntry{at, i}
	w.tail++
}

// pop removes the first packet; w must not be empty.
func (w *wire) pop() int32 {
	i := w.e[int(w.head)&(len(w.e)-1)].pkt
	w.head++
	return i
}

// next returns the arrival time of the first packet; w must not be empty.
func (w *wire) next() int64 { return w.e[int(w.head)&(len(w.e)-1)].at }

func (w *wire) empty() bool { return w.head == w.tail }

func (w *wire) grow() {
	e := make([]wireEntry, max(2*len(w.e), 16))
	for k := range w.tail - w.head {
		e[k] = w.e[int(w.head+k)&(len(w.e)-1)]
	}
	w.e, w.head, w.tail = e, 0, w.tail-w.head
}

// port is the state of one directed link: the egress queue at its source,
// the packets in flight on its wire, and the ingress accounting at its
// destination switch of the packets it delivers.
type port struct {
	src, dst  topo.NodeID
	rate      int64
	perByte   int64 // psPerByte(rate)
	delay     int64
	srcSwitch bool
	dstSwitch bool
	freeAt    int64 // end of the current serialization; busy while > now
	paused    bool  // data class paused by PFC from dst
	down      bool  // its link has failed (Config.LinkEvents): nothing is sent

	q      fifo // data queue (at a host: the ACK queue)
	ack    fifo // switch ports with Params.AckHighPriority: ACKs and NACKs
	qBytes int64
	qPkts  int64 // packets in the data queue (switch ports)
	ctl    fifo  // PFC frames waiting to be sent
	wire   wire  // packets on the wire

	kmin, kmax int64
	pmax       float64

	// ingress accounting at dst for packets arriving over this port
	ingBytes  int64
	hdrmBytes int64
	headroom  int64
	shift     uint8
	pausing   bool // dst has sent PAUSE over the reverse port

	// telemetry of the current interval
	tx, marked, enqMax int64
}

type switchState struct {
	buffer    int64
	totalHdrm int64
	totalRsrv int64
	pool      int64 // buffer - totalHdrm - totalRsrv: what the shared part may use
	shared    int64
	rng       *rand.Rand
}

type hostState struct {
	port   topo.PortID
	active []int32 // flows sending from this host, in arrival order; finished ones stay until a scan removes them
	rr     int     // index served last (HPCC's m_rrlast)
	cc     dcqcn.Params
}

// flowState is a started flow's sender and receiver. Slots are reused once a
// flow has finished and no packet of it is left in the network, so memory
// grows with the flows in progress, not with the trace.
type flowState struct {
	id           int32 // index in Config.Flows
	refs         int32 // packets of this flow in the network
	src, dst     topo.NodeID
	size         int64
	start        int64
	sport, dport int32
	sndNxt       int64
	sndUna       int64
	nextAvail    int64
	rcvNxt       int64
	lastNack     int64
	nackAt       int64
	progress     int64         // last time sndUna advanced (or the start)
	fwd, rev     []topo.PortID // routes of data and of ACKs, kept with the slot
	fwdGen       uint16        // generations of fwd and rev: each reroute adds one
	revGen       uint16
	done         bool
	active       bool // in its host's list of queue pairs (hostState.active)
	cc           dcqcn.Sender
}

// Sim is a simulation in progress. Build it with New and advance it with
// Step; it is not safe for concurrent use, but separate Sims share nothing.
type Sim struct {
	cfg      Config
	f        *topo.Fabric
	p        Params
	interval int64
	window   int64

	now        int64
	q          calendar
	ports      []port
	sws        []switchState
	hosts      []hostState
	flows      []flowState // slots of started flows
	free       []int32     // free slots
	slotOf     []int32     // per flow of the trace: its slot, or -1
	sports     []int32     // per flow of the trace: its source port
	ecmp       []uint32    // per node: its ECMP hash seed (ecmpSeeds)
	order      []int32     // flows of the trace by start time
	next       int         // next flow of order to start
	agents     []topo.PortID
	pkts       []packet
	freePkt    int32
	ecn        []control.ECN        // the settings the run starts with
	hostParams []control.HostParams // with a control.HostDecider: each host's constants in force, by its NIC port
	tel        control.Telemetry    // its EnqHist and FlowStarts fill as packets are enqueued
	loop       *control.Loop        // the control step, every interval

	// with an InBand policy: the agents, the loop's commit, whether a step
	// is in progress, and the message loss source
	inband  InBand
	ibWrite func([]control.ECN, []control.HostParams)
	ibBusy  bool
	msgRng  *rand.Rand

	fct      []trace.FCT
	done     int
	c        Counters
	firstAt  int64
	err      error
	warnings []string
	finished bool
	wall     time.Time
	rto      int64 // LossRTO when PFC is off or links fail, else 0
	until    int64 // Config.Until, or the end of time

	nPorts int32

	// link events: sorted, the next one, the routing after each, and the
	// routing new flows take
	events    []topo.LinkEvent
	nextEv    int
	evRouting []*topo.Routing
	routing   *topo.Routing
}

// Event sources: ports, links, the arrivals, the clock, the agents' timer
// (InBand), the link events, then flow slots.
func (s *Sim) portSrc(p topo.PortID) int32 { return int32(p) }
func (s *Sim) linkSrc(p topo.PortID) int32 { return s.nPorts + int32(p) }
func (s *Sim) arrivalSrc() int32           { return 2 * s.nPorts }
func (s *Sim) tickSrc() int32              { return 2*s.nPorts + 1 }
func (s *Sim) agentSrc() int32             { return 2*s.nPorts + 2 }
func (s *Sim) linkEvSrc() int32            { return 2*s.nPorts + 3 }
func (s *Sim) flowSrc(slot int32) int32    { return 2*s.nPorts + 4 + slot }

// EffectiveParams checks that cfg has a fabric and returns the hardware
// constants a run of cfg uses: cfg.Params, or DefaultParams for the zero
// value, with the hosts' DCQCN constants of cfg.Policy if it sets them
// (control.HostParamsOf), validated.
func (cfg *Config) EffectiveParams() (Params, error) {
	if cfg.Fabric == nil {
		return Params{}, errors.New("replay: config has no fabric")
	}
	p := cfg.Params
	if p.Payload == 0 {
		p = DefaultParams()
	}
	if cfg.Policy != nil {
		if h, ok := control.HostParamsOf(cfg.Policy); ok {
			if err := h.Validate(); err != nil {
				return Params{}, fmt.Errorf("replay: policy: %w", err)
			}
			p.DCQCN = h.Apply(p.DCQCN, control.RefRate)
		}
	}
	if err := p.Validate(); err != nil {
		return Params{}, fmt.Errorf("replay: %w", err)
	}
	return p, nil
}

// New validates cfg and prepares a simulation at the time of its first flow.
func New(cfg Config) (*Sim, error) {
	f := cfg.Fabric
	p, err := cfg.EffectiveParams()
	if err != nil {
		return nil, err
	}
	s := &Sim{cfg: cfg, f: f, p: p, interval: cfg.Interval, freePkt: -1, wall: time.Now()}
	if s.interval == 0 {
		s.interval = control.DefaultInterval
	}
	if s.interval < 0 {
		return nil, fmt.Errorf("replay: interval %d ps must be positive", s.interval)
	}
	if !p.PFC {
		s.rto = p.LossRTO
	}
	s.until = cfg.Until
	if s.until <= 0 {
		s.until = math.MaxInt64
	}
	s.window = p.Window
	if s.window == 0 {
		s.window = f.MaxBDP()
	}
	if len(cfg.Flows) > math.MaxInt32/2 {
		return nil, fmt.Errorf("replay: %d flows is too many", len(cfg.Flows))
	}
	s.nPorts = int32(len(f.Ports))

	s.ecn = make([]control.ECN, len(f.Ports))
	if cfg.ECN != nil {
		if len(cfg.ECN) != len(f.Ports) {
			return nil, fmt.Errorf("replay: %d ECN settings for %d ports", len(cfg.ECN), len(f.Ports))
		}
		copy(s.ecn, cfg.ECN)
	} else {
		copy(s.ecn, control.StaticSettings(f))
	}

	if err := s.buildPorts(); err != nil {
		return nil, err
	}
	if err := s.buildFlows(); err != nil {
		return nil, err
	}
	if err := s.initLinkEvents(); err != nil {
		return nil, err
	}
	s.agents = f.Agents()
	s.tel = control.Telemetry{Interval: s.interval, Ports: make([]control.PortSample, len(f.Ports))}
	if _, ok := control.HostDeciderOf(cfg.Policy); ok {
		s.hostParams = make([]control.HostParams, len(f.Ports))
		for _, p := range control.HostPorts(f) {
			s.hostParams[p] = control.HostParamsAt(s.p.DCQCN, control.RefRate)
		}
	}
	s.loop, err = control.NewLoop(control.LoopConfig{
		Fabric: f, Policy: cfg.Policy, ECN: s.ecn, Apply: (*simActuator)(s),
		Hosts: s.hostParams, Trace: cfg.Trace, QueueUntil: cfg.QueueUntil,
	})
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}

	if err := s.initInBand(); err != nil {
		return nil, err
	}
	s.q.init(int(2*s.nPorts+4), int(s.nPorts))
	if len(s.order) > 0 {
		s.firstAt = cfg.Flows[s.order[0]].Start
		s.now = s.firstAt
		if len(s.events) > 0 {
			s.q.schedule(s.linkEvSrc(), max(s.events[0].At, s.now))
		}
		s.q.schedule(s.arrivalSrc(), s.firstAt)
		s.q.schedule(s.tickSrc(), s.firstAt+s.interval)
	}
	return s, nil
}

func (s *Sim) buildPorts() error {
	f := s.f
	s.ports = make([]port, len(f.Ports))
	s.sws = make([]switchState, len(f.Nodes))
	s.hosts = make([]hostState, len(f.Nodes))
	nicRate := int64(0)
	for _, h := range f.Hosts() {
		out := f.Out(h)
		if len(out) != 1 {
			return fmt.Errorf("replay: host %s has %d links; graphcc models one NIC per host", f.Nodes[h].Name, len(out))
		}
		if rate := f.Ports[out[0]].Rate; s.p.DCQCN.MinRate > rate {
			return fmt.Errorf("replay: DCQCN's minimum rate %s (Params.DCQCN.MinRate) exceeds host %s's line rate %s",
				topo.FormatRate(s.p.DCQCN.MinRate), f.Nodes[h].Name, topo.FormatRate(rate))
		}
		s.hosts[h] = hostState{port: out[0], cc: s.p.dcqcnFor(f.Ports[out[0]].Rate)}
		if nicRate == 0 {
			nicRate = f.Ports[out[0]].Rate // HPCC's get_nic_rate: the first host's NIC
		}
	}
	empty := fifo{head: -1, tail: -1}
	for i, fp := range f.Ports {
		pt := &s.ports[i]
		*pt = port{
			src: fp.Src, dst: fp.Dst, rate: fp.Rate, perByte: psPerByte(fp.Rate), delay: fp.Delay,
			srcSwitch: f.Nodes[fp.Src].Switch, dstSwitch: f.Nodes[fp.Dst].Switch,
			q: empty, ack: empty, ctl: empty,
		}
		if err := s.setECN(topo.PortID(i), s.ecn[i]); err != nil {
			return err
		}
		if pt.dstSwitch {
			h, ok := headroom(fp.Rate, fp.Delay, s.p.HeadroomRTTs)
			if !ok {
				return fmt.Errorf("replay: port %d (%s->%s): the PFC headroom of %d bps over %d ps (%d round trips) overflows int64", i, f.Nodes[fp.Src].Name, f.Nodes[fp.Dst].Name, fp.Rate, fp.Delay, s.p.HeadroomRTTs)
			}
			pt.headroom = h
			// HPCC third.cc: pfc_a_shift = 3, one less per doubling above
			// the NIC rate.
			shift, r := uint8(3), fp.Rate
			for r > nicRate && shift > 0 {
				shift--
				r /= 2
			}
			pt.shift = shift
		}
	}
	s.ecmp = ecmpSeeds(f, s.cfg.ECMPSeed)
	for _, n := range f.Switches() {
		sw := &s.sws[n]
		sw.buffer = f.Buffer
		for _, p := range f.Out(n) {
			// the headroom of the ingress side of every port of the switch
			h := s.ports[topo.PortID(p).Reverse()].headroom
			if h > math.MaxInt64-sw.totalHdrm {
				return fmt.Errorf("replay: switch %s: the PFC headroom of its ports overflows int64", f.Nodes[n].Name)
			}
			sw.totalHdrm += h
			sw.totalRsrv += s.p.Reserve
		}
		sw.pool = sw.buffer - sw.totalHdrm - sw.totalRsrv
		if sw.pool < 0 {
			s.warnings = append(s.warnings, fmt.Sprintf("switch %s: the PFC headroom of its ports (%d B) and their reserve (%d B) exceed its %d B buffer: packets in headroom go past the buffer, as in HPCC (raise the buffer or shorten the links)",
				f.Nodes[n].Name, sw.totalHdrm, sw.totalRsrv, sw.buffer))
		}
		sw.rng = rand.New(rand.NewPCG(s.cfg.Seed, 0x65636e00+uint64(n)))
	}
	return nil
}

// headroom is the PFC headroom of an ingress port fed at rate bps over a
// link of delay ps, HPCC third.cc's rate*delay/8/1e9*rtts with the delay
// in whole nanoseconds, computed in 128 bits so that long links cannot wrap
// it; ok is false if the result does not fit an int64.
func headroom(rate, delay, rtts int64) (bytes int64, ok bool) {
	hi, lo := bits.Mul64(uint64(rate), uint64(delay/topo.Nanosecond))
	const div = 8 * 1_000_000_000
	if hi >= div {
		return 0, false
	}
	q, _ := bits.Div64(hi, lo, div)
	if q > math.MaxInt64 || (rtts > 0 && q > uint64(math.MaxInt64/rtts)) {
		return 0, false
	}
	return int64(q) * rtts, true
}

func (s *Sim) setECN(p topo.PortID, e control.ECN) error {
	if err := e.Validate(); err != nil {
		return fmt.Errorf("replay: port %d (%s->%s): %w", p, s.f.Nodes[s.ports[p].src].Name, s.f.Nodes[s.ports[p].dst].Name, err)
	}
	pt := &s.ports[p]
	pt.kmin, pt.kmax, pt.pmax = e.KMin, e.KMax, e.PMax
	return nil
}

// A Router routes the flows of a run as the simulator does: per flow, ECMP
// over shortest paths with each switch's hash of the 5-tuple (HPCC's
// source ports, Config.ECMPSeed), on the fabric without the links down
// (Config.LinkEvents). The fair-share ideal uses it so that its flows take
// the simulator's paths.
type Router struct {
	f      *topo.Fabric
	rt     *topo.Routing
	flows  []trace.Flow
	seeds  []uint32
	sports []int32
	events []topo.LinkEvent
	after  []*topo.Routing // the routing after each event
}

// NewRouter checks cfg's flows and link events against its fabric and
// returns their router.
func NewRouter(cfg *Config) (*Router, error) {
	if cfg.Fabric == nil {
		return nil, errors.New("replay: config has no fabric")
	}
	sports, err := sourcePorts(cfg.Fabric, cfg.Flows)
	if err != nil {
		return nil, err
	}
	rt := cfg.Fabric.Routing()
	events, after, err := linkRoutings(cfg.Fabric, rt, cfg.LinkEvents)
	if err != nil {
		return nil, err
	}
	return &Router{f: cfg.Fabric, rt: rt, flows: cfg.Flows, seeds: ecmpSeeds(cfg.Fabric, cfg.ECMPSeed), sports: sports, events: events, after: after}, nil
}

// Route appends to r the ports of the path of flow i of the config (its
// index in Config.Flows), from source to destination, on the whole
// fabric, and returns it.
func (rt *Router) Route(r []topo.PortID, i int) []topo.PortID {
	return rt.RouteAfter(r, i, 0)
}

// LinkEvents returns the config's link events in the order the simulator
// applies them: by time, ties in config order. The caller must not modify
// them.
func (rt *Router) LinkEvents() []topo.LinkEvent { return rt.events }

// RouteAfter is Route on the fabric after the first k link events of
// LinkEvents (k = 0: the whole fabric): the path the simulator gives flow i
// when it starts then, or when the kth event takes down a link its path
// crosses.
func (rt *Router) RouteAfter(r []topo.PortID, i, k int) []topo.PortID {
	routing := rt.rt
	if k > 0 {
		routing = rt.after[k-1]
	}
	fl := rt.flows[i]
	return ecmpRoute(rt.f, routing, rt.seeds, r, fl.Src, fl.Dst, rt.sports[i], int32(fl.DPort))
}

// SourcePort returns the source port of flow i of the config: HPCC numbers
// the flows of each host pair from 10000, in trace order.
func (rt *Router) SourcePort(i int) int { return int(rt.sports[i]) }

// sourcePorts checks every flow of flows against fabric f (two distinct
// hosts, a positive size) and returns each flow's source port: HPCC numbers
// the flows of each host pair from 10000, in trace order.
func sourcePorts(f *topo.Fabric, flows []trace.Flow) ([]int32, error) {
	sports := make([]int32, len(flows))
	next := make(map[[2]topo.NodeID]int32)
	for i, fl := range flows {
		if int(fl.Src) >= len(f.Nodes) || int(fl.Dst) >= len(f.Nodes) || fl.Src < 0 || fl.Dst < 0 {
			return nil, fmt.Errorf("replay: flow %d: node out of range", i)
		}
		if f.Nodes[fl.Src].Switch || f.Nodes[fl.Dst].Switch || fl.Src == fl.Dst {
			return nil, fmt.Errorf("replay: flow %d: %s -> %s is not a pair of distinct hosts", i, f.Nodes[fl.Src].Name, f.Nodes[fl.Dst].Name)
		}
		if fl.Size <= 0 {
			return nil, fmt.Errorf("replay: flow %d: size %d must be positive", i, fl.Size)
		}
		key := [2]topo.NodeID{fl.Src, fl.Dst}
		sp, ok := next[key]
		if !ok {
			sp = 10000 // HPCC: each host pair numbers its ports from 10000
		}
		next[key] = sp + 1
		sports[i] = sp
	}
	return sports, nil
}

func (s *Sim) buildFlows() error {
	n := len(s.cfg.Flows)
	s.order = make([]int32, n)
	s.slotOf = make([]int32, n)
	sports, err := sourcePorts(s.f, s.cfg.Flows)
	if err != nil {
		return err
	}
	s.sports = sports
	for i := range s.cfg.Flows {
		s.slotOf[i] = -1
		s.order[i] = int32(i)
	}
	flows := s.cfg.Flows
	slices.SortStableFunc(s.order, func(a, b int32) int { return cmp.Compare(flows[a].Start, flows[b].Start) })
	return nil
}

// ecmpHash is HPCC's SwitchNode::EcmpHash (murmur3's 32-bit mix) over the
// 12-byte key {sip, dip, sport | dport<<16}.
func ecmpHash(k0, k1, k2, seed uint32) uint32 {
	h := seed
	for _, k := range [3]uint32{k0, k1, k2} {
		k *= 0xcc9e2d51
		k = k<<15 | k>>17
		k *= 0x1b873593
		h ^= k
		h = h<<13 | h>>19
		h += h<<2 + 0xe6546b64
	}
	h ^= 12
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// nodeIP is HPCC's node_id_to_ip.
func nodeIP(n topo.NodeID) uint32 {
	return 0x0b000001 + uint32(n/256)*0x10000 + uint32(n%256)*0x100
}

// ecmpSeeds returns the ECMP hash seed of every node of f, by NodeID (only
// switches' are used): HPCC's, the node's id, perturbed by a nonzero
// Config.ECMPSeed.
func ecmpSeeds(f *topo.Fabric, perturb uint32) []uint32 {
	seeds := make([]uint32, len(f.Nodes))
	for n := range seeds {
		seeds[n] = uint32(n)
		if perturb != 0 {
			seeds[n] ^= uint32((uint64(perturb) * 0x9e3779b97f4a7c15) >> 32)
		}
	}
	return seeds
}

// ecmpRoute appends to r the ECMP path through f, routed by rt (f's
// routing in some state of its links), of a packet from src to dst with the
// given ports, each switch hashing with its seed of seeds.
func ecmpRoute(f *topo.Fabric, rt *topo.Routing, seeds []uint32, r []topo.PortID, src, dst topo.NodeID, sport, dport int32) []topo.PortID {
	k0, k1, k2 := nodeIP(src), nodeIP(dst), uint32(sport)&0xffff|uint32(dport)<<16
	for at := src; at != dst; {
		hops := rt.NextHops(at, dst)
		pick := hops[0]
		if len(hops) > 1 {
			pick = hops[ecmpHash(k0, k1, k2, seeds[at])%uint32(len(hops))]
		}
		r = append(r, pick)
		at = f.Ports[pick].Dst
	}
	return r
}

// Step processes one event. It returns false when the run is over: every
// flow has finished, Until has passed, nothing is left to happen, or an
// error occurred (see Result).
func (s *Sim) Step() bool {
	if s.finished {
		return false
	}
	e, ok := s.q.pop()
	if !ok || s.done == len(s.cfg.Flows) || s.err != nil || e.at > s.until {
		s.finish()
		return false
	}
	s.now = e.at
	s.c.Events++
	switch src := e.src; {
	case src < s.nPorts:
		s.kick(topo.PortID(src))
	case src < 2*s.nPorts:
		s.deliver(topo.PortID(src - s.nPorts))
	case src == s.arrivalSrc():
		s.arrivals()
	case src == s.tickSrc():
		s.tick()
	case src == s.agentSrc():
		s.agentWake()
	case src == s.linkEvSrc():
		s.linkEvents()
	default:
		s.flowTimer(src - 2*s.nPorts - 4)
	}
	return true
}

func (s *Sim) finish() {
	s.finished = true
	if err := s.loop.Flush(); err != nil && s.err == nil {
		s.err = fmt.Errorf("replay: %w", err)
	}
}

// Result returns what the run produced so far; after Step has returned false
// it is the final result.
func (s *Sim) Result() (*Result, error) {
	if s.err != nil {
		return nil, s.err
	}
	sum := metrics.Summarize(len(s.cfg.Flows), s.fct, metrics.DefaultBins())
	sum.QueueBytesMean, sum.QueueBytesP99 = metrics.MeanP99(s.loop.QueueBytes())
	sum.QueueFeatureMean, sum.QueueFeatureP99 = metrics.MeanP99(s.loop.QueueFeatures())
	sum.QueueSeconds = float64(s.loop.QueueSteps()) * float64(s.interval) / float64(topo.Second)
	sum.PFCPauses = s.c.PFCPauses
	sum.ECNMarkedPackets = s.c.ECNMarked
	sum.Drops = s.c.Drops
	sum.Events = s.c.Events
	sum.SimSeconds = float64(s.now-s.firstAt) / float64(topo.Second)
	sum.WallSeconds = time.Since(s.wall).Seconds()
	sum.PeakRSSBytes = metrics.PeakRSS()
	sum.ECNSettings = s.loop.Settings()
	if s.inband != nil {
		a := s.inband.AgentStats()
		a.Lost = s.c.MessagesLost
		sum.AgentStats = &a
	}
	return &Result{Summary: sum, FCT: s.fct, Counters: s.c, End: s.now, Warnings: slices.Clone(s.warnings)}, nil
}

// Now returns the simulated time, ps.
func (s *Sim) Now() int64 { return s.now }

// ---- packets ----

// alloc takes a packet from the slab for flow slot fl (-1 for PFC frames).
func (s *Sim) alloc(fl int32) int32 {
	if fl >= 0 {
		s.flows[fl].refs++
	}
	if i := s.freePkt; i >= 0 {
		s.freePkt = s.pkts[i].next
		return i
	}
	s.pkts = append(s.pkts, packet{})
	return int32(len(s.pkts) - 1)
}

// release returns packet i to the slab, and its flow's slot too if the flow
// has finished and this was its last packet in the network.
func (s *Sim) release(i int32) {
	if fl := s.pkts[i].flow; fl >= 0 {
		s.flows[fl].refs--
		s.freeSlot(fl)
	}
	s.pkts[i] = packet{next: s.freePkt}
	s.freePkt = i
}

// freeSlot returns flow slot fl to the free slots once its flow has
// finished, none of its packets is left and its host's list of queue pairs
// no longer holds it.
func (s *Sim) freeSlot(fl int32) {
	if st := &s.flows[fl]; st.done && st.refs == 0 && !st.active {
		s.free = append(s.free, fl)
	}
}

// newSlot returns a free flow slot, growing the slots and the event sources
// when every slot is in use.
func (s *Sim) newSlot() int32 {
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free = s.free[:n-1]
		return slot
	}
	s.flows = append(s.flows, flowState{})
	s.q.grow()
	return int32(len(s.flows) - 1)
}

// serialization returns the time to put bytes on a link of the given rate.
func serialization(bytes, rate int64) int64 {
	return (bytes*8*topo.Second + rate - 1) / rate
}

// txTime is the serialization time the simulation uses: exact (rounded up
// to the picosecond), or with Params.NanosecondTiming rounded down to the
// nanosecond.
func (s *Sim) txTime(bytes, rate int64) int64 {
	if s.p.NanosecondTiming {
		t := bytes * 8 * topo.Second / rate
		return t - t%topo.Nanosecond
	}
	return serialization(bytes, rate)
}

// psPerByte returns the serialization time of one byte at rate when that is
// a whole number of picoseconds (25, 40, 100 and 400 Gbps among others),
// else 0.
func psPerByte(rate int64) int64 {
	if per := 8 * topo.Second / rate; per*rate == 8*topo.Second {
		return per
	}
	return 0
}

// portTxTime is txTime at port pt's rate, a multiplication where the rate
// allows it.
func (s *Sim) portTxTime(pt *port, bytes int64) int64 {
	if pt.perByte == 0 {
		return s.txTime(bytes, pt.rate)
	}
	t := bytes * pt.perByte
	if s.p.NanosecondTiming {
		t -= t % topo.Nanosecond
	}
	return t
}

// transmit starts serializing packet i on port p. The port's own event is
// its caller's business: a port that has nothing more to send needs none
// (see wake).
func (s *Sim) transmit(p topo.PortID, i int32) {
	pt := &s.ports[p]
	size := int64(s.pkts[i].size)
	done := s.now + s.portTxTime(pt, size)
	pt.freeAt = done
	arrive := done + pt.delay
	if pt.wire.empty() {
		s.q.schedule(s.linkSrc(p), arrive)
	}
	pt.wire.push(i, arrive)
	if s.pkts[i].kind != kMsg { // the agents' messages are uncounted, as on the testbed
		pt.tx += size
	}
}

// wake makes sure a busy port p gets an event when its serialization ends.
func (s *Sim) wake(p topo.PortID) {
	src := s.portSrc(p)
	if at, ok := s.q.pending(src); !ok || at > s.ports[p].freeAt {
		s.q.schedule(src, s.ports[p].freeAt)
	}
}

// deliver hands the packet at the head of p's wire to p's destination.
func (s *Sim) deliver(p topo.PortID) {
	pt := &s.ports[p]
	i := pt.wire.pop()
	if !pt.wire.empty() {
		s.q.schedule(s.linkSrc(p), pt.wire.next())
	}
	switch s.pkts[i].kind {
	case kMsg:
		s.msgArrive(i)
		return
	case kPause, kResume:
		// A PFC frame from p's destination... arrives at p's destination;
		// it controls the port that sends back to the frame's sender.
		s.pfcArrive(p, s.pkts[i].kind == kPause)
		s.release(i)
		return
	}
	if pt.dstSwitch {
		s.forward(p, i)
	} else {
		s.hostReceive(i)
	}
}

// pfcArrive applies a PAUSE or RESUME that arrived over port p: it controls
// the reverse port, by which p's destination sends to the frame's sender.
func (s *Sim) pfcArrive(p topo.PortID, pause bool) {
	r := p.Reverse()
	s.ports[r].paused = pause
	if !pause {
		s.kick(r)
	}
}

// kick lets port p send if it is idle, or wakes it when it will be.
func (s *Sim) kick(p topo.PortID) {
	if s.ports[p].srcSwitch {
		s.switchSend(p)
	} else {
		s.nicSend(p)
	}
}

// ---- control loop ----

// tick ends a control interval: it hands the interval's telemetry to the
// control loop (which traces it, samples the queues up to
// Config.QueueUntil and runs the policy) and starts the next interval's
// counters.
func (s *Sim) tick() {
	s.tel.Now = s.now
	for i := range s.ports {
		pt := &s.ports[i]
		ps := &s.tel.Ports[i]
		ps.TxBytes, ps.MarkedBytes, ps.QueueBytes, ps.EnqDepthMax = pt.tx, pt.marked, pt.qBytes, pt.enqMax
		ps.LinkDown = pt.down
	} // EnqHist and FlowStarts are counted by forward
	if s.inband != nil {
		s.loop.Observe(&s.tel)
		if s.inbandTick(); s.err != nil {
			return
		}
	} else if err := s.loop.Step(context.Background(), &s.tel); err != nil {
		s.err = fmt.Errorf("replay: %w", err)
		return
	}
	for i := range s.ports {
		pt := &s.ports[i]
		pt.tx, pt.marked, pt.enqMax = 0, 0, 0
		s.tel.Ports[i].EnqHist, s.tel.Ports[i].FlowStarts = control.DepthHist{}, 0
	}
	if s.cfg.Progress != nil {
		s.cfg.Progress(s.now, s.done, len(s.cfg.Flows))
	}
	if s.q.len() > 0 {
		// keep ticking while anything else can still happen
		s.q.schedule(s.tickSrc(), s.now+s.interval)
	}
}

// simActuator applies the control loop's settings to the simulator's ports.
type simActuator Sim

// ApplyECN sets the marking of every agent port; the loop has checked the
// settings.
func (a *simActuator) ApplyECN(_ context.Context, ecn []control.ECN) error {
	s := (*Sim)(a)
	for _, p := range s.agents {
		pt, e := &s.ports[p], ecn[p]
		pt.kmin, pt.kmax, pt.pmax = e.KMin, e.KMax, e.PMax
	}
	return nil
}

// ApplyHosts puts the hosts' DCQCN constants in force from now on: for
// every host whose constants changed, each of its queue pairs is rebased
// (dcqcn.Sender.Rebase: every timer action before now ran with the old
// constants, the timers already armed fire when armed) and the host's
// Params, which its senders point to, take the new constants (the timers,
// and AI and HAI scaled to the NIC's rate as Params.DCQCN's are). A host
// whose constants did not change is left alone, so a policy that always
// sets the constants a run started with runs exactly as that run. Flows'
// pending events stay valid: Rebase changes no armed time.
func (a *simActuator) ApplyHosts(_ context.Context, hosts []control.HostParams) error {
	s := (*Sim)(a)
	for _, n := range s.f.Hosts() {
		h := &s.hosts[n]
		if hosts[h.port] == s.hostParams[h.port] {
			continue
		}
		p := s.p
		p.DCQCN = hosts[h.port].Apply(p.DCQCN, control.RefRate)
		cc := p.dcqcnFor(s.ports[h.port].rate)
		if err := cc.Validate(); err != nil {
			return fmt.Errorf("host %s: %w", s.f.Nodes[n].Name, err)
		}
		for _, i := range h.active {
			s.flows[i].cc.Rebase(s.now)
		}
		h.cc = cc
		s.hostParams[h.port] = hosts[h.port]
	}
	return nil
}
