package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"graphcc/agentmsg"
	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/topo"
)

// broadcast is an in-band frame's destination: the neighbour's pipeline
// takes it by its EtherType alone.
var broadcast = []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// step runs step j, due at fabric time now: read (the loop observes the
// interval), K rounds, readout, and the loop's commit of the switch's
// settings.
func (r *agentRun) step(ctx context.Context, j uint32, now int64) (*Report, error) {
	due := r.c.Clock.At(now)
	begin := time.Now()
	if err := r.sw.ReadTelemetry(ctx, r.full.Ports); err != nil {
		return nil, err
	}
	rep := &Report{Switch: r.name, Step: j, Now: now, Interval: r.c.Interval, Ports: r.rows,
		Samples: make([]control.PortSample, len(r.rows)),
		StartNS: begin.Sub(due).Nanoseconds(), ReadNS: time.Since(begin).Nanoseconds()}
	r.full.Now, r.full.Interval = now, r.c.Interval
	r.loop.Observe(&r.full)
	for i, p := range r.rows {
		r.tel.Ports[i] = r.full.Ports[p]
		rep.Samples[i] = r.full.Ports[p]
	}
	r.tel.Now, r.tel.Interval = now, r.c.Interval
	if r.floor != nil {
		r.floor.Observe(&r.tel)
	} else {
		r.ag.Observe(&r.tel)
	}
	if r.ag.Step() != j {
		return nil, fmt.Errorf("the model is at step %d", r.ag.Step())
	}
	start := time.Now()
	for k := 1; k <= r.c.Model.K; k++ {
		if err := r.round(ctx, j, k, due.Add(time.Duration(k)*r.c.RoundTimeout), rep); err != nil {
			return nil, err
		}
		rep.RoundNS = append(rep.RoundNS, time.Since(start).Nanoseconds())
		start = time.Now()
	}
	err := r.commit(ctx, rep)
	rep.Written = r.act.written
	return rep, err
}

// round sends round k's messages of step j, takes the neighbours' until
// all are in or the round's deadline (real time: every agent's round k of
// a step ends at the same instant, so a late neighbour does not make its
// own neighbours late), and computes the round.
func (r *agentRun) round(ctx context.Context, j uint32, k int, until time.Time, rep *Report) error {
	for i := range r.ag.Sends() {
		from, _, h := r.ag.Message(k, i)
		frame, err := r.frame(j, k, from, h)
		if err != nil {
			return err
		}
		at := time.Now()
		if err := r.sw.Send(ctx, from, frame); err != nil {
			return err
		}
		rep.Out = append(rep.Out, MsgTime{Round: k, Port: from, At: at.UnixNano(), NS: time.Since(at).Nanoseconds()})
		rep.Sent++
		rep.Bytes += len(frame)
	}
	// Messages that came early, for this round.
	keep := r.buf[:0]
	for _, m := range r.buf {
		switch {
		case m.step == j && m.round == k:
			r.take(m, rep)
		case m.step > j || m.step == j && m.round > k:
			keep = append(keep, m)
		default:
			rep.Stale++
		}
	}
	r.buf = keep
	deadline := time.NewTimer(time.Until(until))
	defer deadline.Stop()
	for r.ag.Missing() > 0 {
		select {
		case m := <-r.in:
			switch {
			case m.step == j && m.round == k:
				r.take(m, rep)
			case m.step > j || m.step == j && m.round > k:
				r.buf = append(r.buf, m)
			default:
				rep.Stale++
			}
		case err := <-r.rerr:
			return err
		case <-deadline.C:
			n, err := r.ag.RoundFallback(k)
			rep.Late += n
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return r.ag.Round(k)
}

// take hands message m to the model; one it refuses (a second copy, a
// wrong length) is counted stale and logged.
func (r *agentRun) take(m inMsg, rep *Report) {
	rep.In = append(rep.In, MsgTime{Round: m.round, Port: m.from, At: m.at.UnixNano(), NS: time.Since(m.at).Nanoseconds()})
	if err := r.ag.Receive(m.round, m.from, m.h); err != nil {
		rep.Stale++
		r.c.Log.Warn("refused a message", "switch", r.name, "error", err)
	}
}

// frame returns the Ethernet frame of the message of round k of step j
// from port from with state h.
func (r *agentRun) frame(j uint32, k int, from topo.PortID, h []float32) ([]byte, error) {
	eth := &layers.Ethernet{SrcMAC: lab.FabricMAC, DstMAC: broadcast, EthernetType: agentmsg.EtherType}
	msg := &agentmsg.Message{Version: agentmsg.Version, Round: uint8(k), Step: j, Port: uint32(from), Vector: h}
	if err := gopacket.SerializeLayers(r.ser, gopacket.SerializeOptions{}, eth, msg); err != nil {
		return nil, fmt.Errorf("message of port %d: %w", from, err)
	}
	return append([]byte(nil), r.ser.Bytes()...), nil
}

// commit turns the model's actions into the settings of the switch's
// ports and, with a host head, its hosts' DCQCN constants, recorded in
// rep, and has the loop check, write and count what the agent applies:
// the model's settings, or the static ones while the fallback holds the
// ports there (control.Fallback). rep.Applied are the settings as the
// loop applied them.
func (r *agentRun) commit(ctx context.Context, rep *Report) error {
	ports := r.ag.OwnPorts()
	r.choose(rep)
	rep.DecidedNS = time.Now().UnixNano()
	static, changed := r.fb.Step(rep.Late > 0)
	switch {
	case changed && static:
		r.c.Log.Warn("a neighbour's messages are late: holding the ports on the static settings",
			"switch", r.name, "step", rep.Step, "steps_late", r.fb.Streak())
	case changed:
		r.c.Log.Info("every message on time again: back to the model's settings", "switch", r.name, "step", rep.Step)
	}
	rep.Static = static
	err := r.loop.Commit(ctx, rep.Now, func(ecn []control.ECN, _ []control.HostParams) {
		r.fb.Apply(ecn, r.chosen, r.c.Static, ports)
	})
	rep.Applied = make([]control.ECN, len(ports))
	for i, p := range ports {
		rep.Applied[i] = r.loop.ECN()[p]
	}
	return err
}

// choose records in rep the settings of the switch's ports and, with a
// host head, its hosts' DCQCN constants of the step: the model's, or with
// a floor the gated ones (gnn.AgentFloor).
func (r *agentRun) choose(rep *Report) {
	m := r.c.Model
	ports := r.ag.OwnPorts()
	if r.floor != nil {
		r.floor.Settings(r.chosen)
	} else {
		r.ag.Settings(r.chosen)
	}
	rep.Chosen = make([]control.ECN, len(ports))
	for i, p := range ports {
		rep.Chosen[i] = r.chosen[p]
	}
	if m.HostActions == 0 {
		return
	}
	rep.Hosts = make([]control.HostParams, len(r.ag.Hosts()))
	if r.floor != nil && r.hosts != nil {
		r.floor.HostSettings(r.hosts)
		for j, p := range r.ag.Hosts() {
			rep.Hosts[j] = r.hosts[p]
		}
		return
	}
	acts := r.ag.Actions()[len(ports):]
	for j := range rep.Hosts {
		rep.Hosts[j] = m.HostTable.Action(acts[j])
	}
}

// switchWriter is an agent loop's control.Actuator: its switch's ECN
// write, which counts the entries it wrote.
type switchWriter struct {
	sw      Switch
	written int // by the last write
}

// ApplyECN writes the switch's changed settings.
func (w *switchWriter) ApplyECN(ctx context.Context, ecn []control.ECN) error {
	n, err := w.sw.SetECN(ctx, ecn)
	w.written = n
	return err
}
