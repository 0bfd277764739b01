package hostgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"graphcc/dcqcn"
	"graphcc/topo"
	"graphcc/trace"
)

// This file is a testbed host: the configuration, and Run, which drives the
// sender and the receiver of one host on one packet socket. The receive
// loop reads every frame: data segments go to the receiver, which answers
// with ACKs, NACKs and CNPs at once; ACKs, NACKs and CNPs go to the sender.
// The send loop asks the sender for the next segment and, when there is
// none yet, sleeps until the sender's next pacing time or an ACK. Both share
// the host's state under one mutex and read the fabric time inside it, so
// the times the state machines see never go back.
//
// Pacing accuracy: the send loop waits on a timerfd (waker.go). On the
// shared 2-core VM this was written on, it woke up 70-260 µs late on average
// (real time) and a few ms at worst; a flow keeps its pacing schedule across
// a late wake-up (PacingSlack) and sends what is due within PacingQuantum
// per wake-up, so the mean rates hold and the error shows as bursts of a few
// frames. Stats reports the lateness measured in a run.

// Defaults of HostConfig, fabric time.
const (
	// DefaultNACKInterval is the least time between two NACKs for the same
	// expected byte, the simulator's 500 µs.
	DefaultNACKInterval = 500 * topo.Microsecond
	// DefaultLossTimeout is the time without progress after which a sender
	// with data in flight goes back to its last acknowledged byte, the
	// simulator's 1 ms (software switches may tail-drop).
	DefaultLossTimeout = 1 * topo.Millisecond
	// DefaultPacingSlackReal is the real time by which a flow behind its
	// pacing schedule may catch up (in a burst) after the host woke up
	// late: 200 µs, a few wake-up latencies.
	DefaultPacingSlackReal = 200 * time.Microsecond
	// DefaultPacingQuantumReal is the real time by which a segment may go
	// ahead of its pacing time: 50 µs, about what one wake-up of the send
	// loop costs, so that the loop sends several frames per wake-up
	// instead of falling behind.
	DefaultPacingQuantumReal = 50 * time.Microsecond
)

// HostConfig describes one testbed host. Times are fabric picoseconds and
// rates fabric bits per second: the host scales them to real time with the
// Clock passed to Run. A zero field takes the default named in its comment;
// where said, a negative one turns the feature off.
type HostConfig struct {
	// Node is the host's node in Fabric.
	Node topo.NodeID
	// Fabric is the testbed's fabric, for line rates, the default window
	// and standalone FCTs.
	Fabric *topo.Fabric
	// Netns and Iface are the host's network namespace ("" for the caller's)
	// and its NIC there.
	Netns, Iface string
	// MAC is the source MAC address of the host's frames; nil takes the
	// interface's.
	MAC net.HardwareAddr
	// FabricMAC is the destination MAC address of every frame: no
	// interface's, so that the receiving kernel drops the frames as another
	// host's (never answering them) while the packet socket reads them.
	FabricMAC net.HardwareAddr
	// IP is the host's IPv4 address; frames to other addresses are ignored.
	IP netip.Addr
	// Peers are the IPv4 addresses of the hosts this host sends to.
	Peers map[topo.NodeID]netip.Addr
	// LineRate is the NIC rate, bps; 0: the rate of the host's link.
	LineRate int64
	// Window is the inflight payload limit per flow, bytes; 0: the fabric's
	// largest base-RTT bandwidth-delay product, as the simulator; negative:
	// none.
	Window int64
	// DCQCN are the reaction-point constants; the zero value takes
	// dcqcn.DefaultParams(LineRate).
	DCQCN dcqcn.Params
	// CNPInterval is the least time between two CNPs of one flow; 0 (the
	// default) or negative: none, a CNP for every CE-marked segment, as
	// the simulator's receiver sets the CNP flag on the ACK of every
	// CE-marked packet (docs/simulator.md). An interval drops CNPs the simulator
	// would send: even one of 1 µs, DCQCN's alpha period, since the
	// receiver does not know the sender's timer phase. The DCQCN paper's
	// notification point uses 50 µs.
	CNPInterval int64
	// NACKInterval is the least time between two NACKs for the same
	// expected byte; 0: DefaultNACKInterval; negative: none.
	NACKInterval int64
	// LossTimeout is the go-back-N timeout; 0: DefaultLossTimeout;
	// negative: none.
	LossTimeout int64
	// PacingSlack is how far a flow behind its pacing schedule may catch
	// up; 0: the fabric time of DefaultPacingSlackReal; negative: none.
	PacingSlack int64
	// PacingQuantum is how far ahead of its pacing time a segment may go,
	// so that one wake-up of the send loop sends a few frames; 0: the
	// fabric time of DefaultPacingQuantumReal; negative: none.
	PacingQuantum int64
	// NoPropagationDelay turns off the emulation of the links' propagation
	// delays. By default a frame from a peer is handled only after the
	// one-way delay of the path from the peer (topo.Fabric.PathDelay), since
	// the testbed's veths and switches add almost none; round trips, and so
	// the fixed window's reach and DCQCN's feedback delay, then match the
	// simulator's.
	NoPropagationDelay bool
	// FinishedLeaveAtOnce drops a finished flow from the NIC's round robin
	// as soon as it finishes, the position staying on the flow served last,
	// as the simulator does with replay.Params.HPCCRoundRobin off
	// (--hpcc-rr=false). By default the round robin is the simulator's
	// default, HPCC's: a finished flow stays in the list until a later scan
	// meets it, and that scan compacts the list without moving the
	// position.
	FinishedLeaveAtOnce bool
}

// Rate returns the host's NIC rate, bps: LineRate, or with 0 the rate of
// the host's link in Fabric.
func (c HostConfig) Rate() int64 {
	if c.LineRate != 0 {
		return c.LineRate
	}
	return c.Fabric.Ports[c.Fabric.HostPort(c.Node)].Rate
}

// Stats are a host's counters.
type Stats struct {
	// Sender.
	DataFrames    int64 // data segments sent, retransmissions included
	SentBytes     int64 // flow bytes of those segments
	Retransmitted int64 // flow bytes sent again after a go-back-N
	ACKsReceived  int64
	NACKsReceived int64
	CNPsReceived  int64
	Timeouts      int64 // loss timeouts
	StaleAcks     int64 // ACKs, NACKs or CNPs of a flow not in progress
	MaxStartLag   int64 // fabric ps: the latest start of a flow after its Start

	// Receiver.
	Delivered  int64 // flow bytes delivered in order, each once
	ACKsSent   int64
	NACKsSent  int64
	CNPsSent   int64
	Duplicates int64 // data segments already delivered
	OutOfOrder int64 // data segments beyond a gap
	CEMarked   int64 // CE-marked data segments
	Invalid    int64 // data segments that do not fit their flow

	// Wire.
	Corrupt   int64 // data frames whose content is wrong
	Malformed int64 // RoCEv2 frames that do not decode
	Foreign   int64 // frames for another address, not RoCEv2, or of an unknown queue pair
	TxDrops   int64 // frames the interface refused (ENOBUFS)

	// Pacing: how late the send loop woke up after a timed wait, real time.
	Wakeups       int64
	OversleepMean time.Duration
	OversleepMax  time.Duration
}

// Host is one testbed host: the senders of the flows it sources and the
// receivers of the flows it sinks. Its methods are safe for concurrent
// use; Run may be called once.
type Host struct {
	cfg   HostConfig
	name  string
	dcqcn dcqcn.Params

	mu      sync.Mutex
	started bool
	tx      *sender
	rx      *receiver
	delays  *delayLine // nil: frames are handled as they arrive
	wire    Stats      // the Wire fields and the pacing sums
	sleeps  time.Duration
	closed  bool
	done    chan struct{}

	kick     atomic.Bool // the sender's state changed since the send loop last looked
	sleeping atomic.Bool // the send loop waits, or is about to
	alarm    *waker      // set by run before its loops start
	conn     *Conn       // set by Open
}

// NewHost checks cfg, fills in its defaults and returns the host.
func NewHost(cfg HostConfig) (*Host, error) {
	f := cfg.Fabric
	if f == nil {
		return nil, errors.New("host: no fabric")
	}
	if cfg.Node < 0 || int(cfg.Node) >= len(f.Nodes) || f.Nodes[cfg.Node].Switch {
		return nil, fmt.Errorf("host: node %d is not a host of the fabric", cfg.Node)
	}
	name := f.Nodes[cfg.Node].Name
	switch {
	case len(cfg.FabricMAC) != 6:
		return nil, fmt.Errorf("host %s: fabric MAC %v is not 6 bytes", name, cfg.FabricMAC)
	case cfg.MAC != nil && len(cfg.MAC) != 6:
		return nil, fmt.Errorf("host %s: MAC %v is not 6 bytes", name, cfg.MAC)
	case !cfg.IP.Is4():
		return nil, fmt.Errorf("host %s: address %v is not IPv4", name, cfg.IP)
	case cfg.Iface == "":
		return nil, fmt.Errorf("host %s: no interface", name)
	case cfg.LineRate < 0:
		return nil, fmt.Errorf("host %s: line rate %d", name, cfg.LineRate)
	}
	cfg.LineRate = cfg.Rate()
	if cfg.Window == 0 {
		cfg.Window = f.MaxBDP()
	}
	if cfg.DCQCN == (dcqcn.Params{}) {
		cfg.DCQCN = dcqcn.DefaultParams(cfg.LineRate)
	}
	if err := cfg.DCQCN.Validate(); err != nil {
		return nil, fmt.Errorf("host %s: %w", name, err)
	}
	if cfg.DCQCN.MinRate > cfg.LineRate {
		return nil, fmt.Errorf("host %s: DCQCN's minimum rate %s exceeds the line rate %s",
			name, topo.FormatRate(cfg.DCQCN.MinRate), topo.FormatRate(cfg.LineRate))
	}
	cfg.CNPInterval = max(cfg.CNPInterval, 0)
	cfg.NACKInterval = orDefault(cfg.NACKInterval, DefaultNACKInterval)
	cfg.LossTimeout = orDefault(cfg.LossTimeout, DefaultLossTimeout)
	return &Host{
		cfg: cfg, name: name, dcqcn: cfg.DCQCN,
		done: make(chan struct{}),
	}, nil
}

// SetDCQCN puts p in force as the host's DCQCN constants from fabric time
// now on (the host's clock's): every queue pair the host is sending is
// rebased at now (dcqcn.Sender.Rebase: the timers already armed fire when
// armed, later periods and every later action use p), then p replaces the
// constants every sender reads. It is safe to call while the host runs
// (the senders read the constants under the host's lock, which SetDCQCN
// holds), and cheap: it allocates nothing and touches only the host's
// active queue pairs. Before Run, p becomes the constants the host starts
// with. p must pass dcqcn.Params.Validate and keep MinRate at most the
// line rate.
func (h *Host) SetDCQCN(p dcqcn.Params, now int64) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("host %s: %w", h.name, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.MinRate > h.cfg.LineRate {
		return fmt.Errorf("host %s: DCQCN's minimum rate %s exceeds the line rate %s",
			h.name, topo.FormatRate(p.MinRate), topo.FormatRate(h.cfg.LineRate))
	}
	if h.tx != nil {
		for _, i := range h.tx.active {
			h.tx.flows[i].cc.Rebase(now)
		}
	}
	h.dcqcn = p
	return nil
}

// DCQCN returns the host's DCQCN constants in force.
func (h *Host) DCQCN() dcqcn.Params {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dcqcn
}

// orDefault maps 0 to def and a negative v to 0.
func orDefault(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Config returns the host's configuration with its defaults filled in (the
// pacing slack and quantum stay 0 until Run knows the clock).
func (h *Host) Config() HostConfig {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cfg
}

// Done is closed once every flow the host sends has been acknowledged in
// full and every flow it receives has been delivered in full. The host
// should keep running until its peers are done too: a peer whose last ACK
// was lost needs this host to acknowledge again.
func (h *Host) Done() <-chan struct{} { return h.done }

// frameConn is what Run needs of a Conn.
type frameConn interface {
	ReadFrame(buf []byte) (int, error)
	WriteFrame(frame []byte) error
	SetReadDeadline(t time.Time) error
}

// Open opens the host's packet socket in its namespace. Run opens it if the
// caller has not; a testbed should open every host before its clock starts,
// so that no host sends before its peers read. Run closes the socket when
// it returns.
func (h *Host) Open() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conn != nil {
		return nil
	}
	c, err := Open(h.cfg.Netns, h.cfg.Iface)
	if err != nil {
		return fmt.Errorf("host %s: %w", h.name, err)
	}
	h.conn = c
	return nil
}

// Close closes a socket that Open opened for a Run that never came; Run
// closes its socket itself. Closing twice is harmless.
func (h *Host) Close() error {
	h.mu.Lock()
	c := h.conn
	h.conn = nil
	started := h.started
	h.mu.Unlock()
	if c == nil || started {
		return nil
	}
	return c.Close()
}

// Run runs the host's senders and receivers until ctx is done: flows is the
// testbed's whole schedule, of which the host sends those from its node,
// each at its Start, and receives those to its node. Every time is fabric
// time on clock. Run returns nil when ctx ends it, else the first error of
// the socket.
func (h *Host) Run(ctx context.Context, flows []Flow, clock *Clock) error {
	if err := h.Open(); err != nil {
		return err
	}
	h.mu.Lock()
	c := h.conn
	h.mu.Unlock()
	defer c.Close()
	mac := h.cfg.MAC
	if mac == nil {
		mac = c.HardwareAddr()
		if len(mac) != 6 {
			return fmt.Errorf("host %s: interface %s has no Ethernet address", h.name, h.cfg.Iface)
		}
	}
	return h.run(ctx, c, [6]byte(mac), flows, clock)
}

// run is Run on conn, with source MAC mac.
func (h *Host) run(ctx context.Context, conn frameConn, mac [6]byte, flows []Flow, clock *Clock) error {
	if err := h.prepare(flows, clock); err != nil {
		return err
	}
	alarm, err := newWaker()
	if err != nil {
		return fmt.Errorf("host %s: %w", h.name, err)
	}
	defer alarm.close()
	h.alarm = alarm
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The wake-up on ctx's end runs on a goroutine of its own: run waits
	// for it before the waker closes (it arms the waker's timerfd by
	// number, which a later open could reuse).
	woken := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(woken)
		conn.SetReadDeadline(time.Unix(1, 0)) // wakes the receive loop
		h.wake()
	})
	defer func() {
		if !stop() { // started: wait for it
			<-woken
		}
	}()
	tmpl := Frame{SrcMAC: mac, DstMAC: [6]byte(h.cfg.FabricMAC), SrcIP: h.cfg.IP}
	loops := 2
	errc := make(chan error, 3)
	var delayed chan arrival
	if h.delays != nil {
		loops++
		delayed = make(chan arrival, 1024)
		go func() { errc <- h.delayLoop(ctx, conn, clock, tmpl, h.delays, delayed) }()
	}
	go func() { errc <- h.receiveLoop(ctx, conn, clock, tmpl, h.delays, delayed) }()
	go func() { errc <- h.sendLoop(ctx, conn, clock, tmpl) }()
	var errs []error
	for range loops {
		if err := <-errc; err != nil {
			errs = append(errs, err)
			cancel()
		}
	}
	return errors.Join(errs...)
}

// prepare builds the host's sender and receiver from the schedule.
func (h *Host) prepare(flows []Flow, clock *Clock) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.started {
		return fmt.Errorf("host %s: Run called twice", h.name)
	}
	h.started = true
	var out, in []Flow
	seen := make(map[uint32]bool, len(flows))
	for _, fl := range flows {
		if err := checkFlow(h.cfg.Fabric, fl.Flow); err != nil {
			return fmt.Errorf("host %s: flow of qp %d: %w", h.name, fl.QP, err)
		}
		if fl.QP > psnMask || seen[fl.QP] {
			return fmt.Errorf("host %s: queue pair %d is out of range or not unique", h.name, fl.QP)
		}
		seen[fl.QP] = true
		if fl.Src == h.cfg.Node {
			if !h.cfg.Peers[fl.Dst].Is4() {
				return fmt.Errorf("host %s: no IPv4 address for peer %s of qp %d", h.name, h.cfg.Fabric.Nodes[fl.Dst].Name, fl.QP)
			}
			out = append(out, fl)
		}
		if fl.Dst == h.cfg.Node {
			in = append(in, fl)
		}
	}
	if h.cfg.PacingSlack == 0 {
		h.cfg.PacingSlack = clock.Fabric(DefaultPacingSlackReal)
	}
	if h.cfg.PacingQuantum == 0 {
		h.cfg.PacingQuantum = clock.Fabric(DefaultPacingQuantumReal)
	}
	f := h.cfg.Fabric
	h.tx = newSender(senderConfig{
		params: &h.dcqcn, lineRate: h.cfg.LineRate, window: h.cfg.Window,
		lossTimeout: h.cfg.LossTimeout, slack: max(h.cfg.PacingSlack, 0), quantum: max(h.cfg.PacingQuantum, 0),
		leaveAtOnce: h.cfg.FinishedLeaveAtOnce,
	}, out,
		func(fl Flow) netip.Addr { return h.cfg.Peers[fl.Dst] },
		func(fl Flow) int64 {
			return trace.Standalone(f, fl.Src, fl.Dst, fl.Size, trace.StandalonePayload, trace.StandaloneHeader)
		})
	h.rx = newReceiver(h.cfg.NACKInterval, h.cfg.CNPInterval, in)
	if !h.cfg.NoPropagationDelay {
		delays := make(map[netip.Addr]int64, len(h.cfg.Peers))
		for node, addr := range h.cfg.Peers {
			delays[addr] = f.PathDelay(node, h.cfg.Node)
		}
		h.delays = newDelayLine(delays)
	}
	h.checkDone()
	return nil
}

// checkDone closes done once everything is delivered. h.mu is held.
func (h *Host) checkDone() {
	if !h.closed && h.tx.remaining == 0 && h.rx.remaining == 0 {
		h.closed = true
		close(h.done)
	}
}

// wake tells the send loop that the sender's state changed: a kick, and
// the waker armed to fire at once if the loop waits or is about to. The
// loop sets sleeping before it looks for a kick the last time, and wake
// sets the kick before it looks at sleeping; with Go's sequentially
// consistent atomics one of them sees the other, so no kick is lost, and
// a busy loop costs no timerfd call per ACK.
func (h *Host) wake() {
	h.kick.Store(true)
	if h.sleeping.Load() {
		h.alarm.arm(0)
	}
}

// write sends frame f; a frame the interface drops is counted, not an error.
func (h *Host) write(conn frameConn, enc *Encoder, f *Frame) error {
	b, err := enc.Encode(f)
	if err != nil {
		return fmt.Errorf("host %s: %w", h.name, err)
	}
	if err := conn.WriteFrame(b); err != nil {
		if errors.Is(err, unix.ENOBUFS) {
			h.mu.Lock()
			h.wire.TxDrops++
			h.mu.Unlock()
			return nil
		}
		return fmt.Errorf("host %s: %w", h.name, err)
	}
	return nil
}

// receiveLoop reads frames until ctx is done and handles each at once, or,
// if delays is not nil, hands those from a sender with a propagation delay
// to the delay loop on delayed.
func (h *Host) receiveLoop(ctx context.Context, conn frameConn, clock *Clock, tmpl Frame, delays *delayLine, delayed chan<- arrival) error {
	buf := make([]byte, 2048)
	dec, enc := NewDecoder(), NewEncoder()
	var in Frame
	reply := tmpl
	for {
		n, err := conn.ReadFrame(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("host %s: %w", h.name, err)
		}
		if err := dec.Decode(buf[:n], &in); err != nil {
			h.mu.Lock()
			switch {
			case errors.Is(err, ErrNotRoCE):
				h.wire.Foreign++
			case errors.Is(err, ErrCorrupt):
				h.wire.Corrupt++
			default:
				h.wire.Malformed++
			}
			h.mu.Unlock()
			continue
		}
		if in.DstIP != h.cfg.IP {
			h.mu.Lock()
			h.wire.Foreign++
			h.mu.Unlock()
			continue
		}
		if delays != nil {
			if a, ok := delays.arrive(clock.Now(), &in); ok {
				select {
				case delayed <- a:
				case <-ctx.Done():
					return nil
				}
				continue
			}
		}
		if err := h.handle(conn, enc, &reply, &in, clock.Now()); err != nil {
			return err
		}
	}
}

// handle acts on frame in, received at fabric time now: a data segment is
// delivered and answered (ACK or NACK, and a CNP if CE-marked; reply is the
// template of the answers), an ACK, NACK or CNP goes to the sender.
func (h *Host) handle(conn frameConn, enc *Encoder, reply *Frame, in *Frame, now int64) error {
	switch in.Kind {
	case KindData:
		h.mu.Lock()
		r := h.rx.onData(now, in)
		if r.cnp {
			h.tx.onControlSent(now, CNPFrameLen)
		}
		if r.ack || r.nack {
			h.tx.onControlSent(now, AckFrameLen)
		}
		h.checkDone()
		h.mu.Unlock()
		reply.DstIP, reply.SPort, reply.QP = in.SrcIP, in.SPort, in.QP
		if r.cnp { // before the ACK, as the simulator applies the CNP flag before sending on
			reply.Kind, reply.PSN = KindCNP, 0
			if err := h.write(conn, enc, reply); err != nil {
				return err
			}
		}
		if r.ack || r.nack {
			reply.Kind, reply.PSN = KindACK, r.psn
			if r.nack {
				reply.Kind = KindNACK
			}
			if err := h.write(conn, enc, reply); err != nil {
				return err
			}
		}
	case KindACK, KindNACK:
		h.mu.Lock()
		sooner := h.tx.onAck(now, in.QP, in.PSN, in.Kind == KindNACK)
		h.checkDone()
		h.mu.Unlock()
		if sooner {
			h.wake()
		}
	case KindCNP:
		h.mu.Lock()
		h.tx.onCNP(now, in.QP)
		h.mu.Unlock()
	}
	return nil
}

// sendLoop sends data segments until ctx is done, waiting on the host's
// waker for the sender's next pacing time or an ACK.
func (h *Host) sendLoop(ctx context.Context, conn frameConn, clock *Clock, tmpl Frame) error {
	enc := NewEncoder()
	out := tmpl
	out.Kind, out.ECN = KindData, ECNCapable
	var (
		target time.Time // when a timed wait should have ended
		late   time.Duration
		timed  bool // the last wait ended on its timer: late counts
	)
	for {
		h.kick.Store(false)
		if ctx.Err() != nil {
			return nil
		}
		h.mu.Lock()
		if timed {
			h.wire.Wakeups++
			h.sleeps += late
			h.wire.OversleepMax = max(h.wire.OversleepMax, late)
			timed = false
		}
		now := clock.Now()
		seg, ok, wake := h.tx.poll(now)
		h.checkDone()
		h.mu.Unlock()
		if ok {
			out.DstIP, out.SPort, out.QP, out.PSN = seg.dst, seg.sport, seg.qp, seg.psn
			out.Offset, out.Len = seg.off, seg.n
			if err := h.write(conn, enc, &out); err != nil {
				return err
			}
			continue
		}
		var d time.Duration
		if wake == math.MaxInt64 {
			h.alarm.disarm()
		} else {
			if d = clock.Real(wake - now); d <= 0 {
				continue
			}
			h.alarm.arm(d)
			target = time.Now().Add(d)
		}
		h.sleeping.Store(true)
		if h.kick.Load() { // a kick since the top of the loop
			h.sleeping.Store(false)
			continue
		}
		err := h.alarm.wait()
		h.sleeping.Store(false)
		if err != nil {
			return fmt.Errorf("host %s: %w", h.name, err)
		}
		if d > 0 && !h.kick.Load() { // not woken by an ACK: a pacing wait
			late, timed = time.Since(target), true
		}
	}
}

// Stats returns the host's counters so far.
func (h *Host) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.wire
	if s.Wakeups > 0 {
		s.OversleepMean = h.sleeps / time.Duration(s.Wakeups)
	}
	if h.tx != nil {
		for i := range h.tx.flows {
			st := &h.tx.flows[i].st
			s.DataFrames += st.Segments
			s.SentBytes += st.Sent
			s.Retransmitted += st.Retransmitted
			s.ACKsReceived += st.ACKs
			s.NACKsReceived += st.NACKs
			s.CNPsReceived += st.CNPs
			s.Timeouts += st.Timeouts
		}
		s.StaleAcks = h.tx.c.stale
		s.Foreign += h.tx.c.unknownQP + h.tx.c.bogus
		s.MaxStartLag = h.tx.c.maxStartLag
	}
	if h.rx != nil {
		for i := range h.rx.flows {
			st := &h.rx.flows[i].st
			s.Delivered += st.Delivered
			s.ACKsSent += st.ACKs
			s.NACKsSent += st.NACKs
			s.CNPsSent += st.CNPs
			s.Duplicates += st.Duplicates
			s.OutOfOrder += st.OutOfOrder
			s.CEMarked += st.CE
			s.Invalid += st.Invalid
		}
		s.Foreign += h.rx.unknownQP
	}
	return s
}

// SentFlows returns the sender's account of each flow the host sends, in
// start order.
func (h *Host) SentFlows() []SentFlow {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tx == nil {
		return nil
	}
	out := make([]SentFlow, len(h.tx.flows))
	for i := range h.tx.flows {
		out[i] = h.tx.flows[i].st
	}
	return out
}

// ReceivedFlows returns the receiver's account of each flow the host
// receives, in schedule order.
func (h *Host) ReceivedFlows() []ReceivedFlow {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.rx == nil {
		return nil
	}
	out := make([]ReceivedFlow, len(h.rx.flows))
	for i := range h.rx.flows {
		out[i] = h.rx.flows[i].st
	}
	return out
}

// FCTs returns the FCT records of the flows the host has completed, in
// completion order: start and FCT in fabric picoseconds, the FCT ending at
// the ACK of the last byte, and the standalone FCT of trace.Standalone, as
// the simulator records them. Write them with trace.WriteFCT and summarize
// them with metrics.Summarize.
func (h *Host) FCTs() []trace.FCT {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tx == nil {
		return nil
	}
	return append([]trace.FCT(nil), h.tx.fcts...)
}
