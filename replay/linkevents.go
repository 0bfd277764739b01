package replay

import (
	"cmp"
	"fmt"
	"slices"

	"graphcc/topo"
)

// describeEvent names e on fabric f, e.g. "leaf0-spine1 fails at 5ms".
func describeEvent(e topo.LinkEvent, f *topo.Fabric) string {
	name := fmt.Sprintf("link %d", e.Link)
	if e.Link >= 0 && int(e.Link) < len(f.Links) {
		name = f.Links[e.Link].Name
	}
	verb := "fails"
	if e.Up {
		verb = "comes back"
	}
	return fmt.Sprintf("%s %s at %s", name, verb, topo.FormatDuration(e.At))
}

// The simulator runs Config.LinkEvents keeping every port of the fabric: a
// link that fails has its two ports go down, and routing changes around
// it.
//
// At a failure, the packets in both ports' queues and on their wires are
// dropped (Counters.LinkDrops; an agent message counts as lost), the PFC
// pause of either direction is lifted, and every flow in progress whose
// data or ACK route crosses the link is rerouted at once by ECMP over the
// shortest paths without the links down (Counters.Reroutes); its packets
// still on the old route are dropped at their next switch
// (Counters.StaleDrops). Senders recover lost data by NACKs or, for a lost
// tail, by the loss timeout (Params.LossRTO), armed with link events even
// with PFC on. Nothing is sent on a link while it is down.
//
// When a link comes back, flows in progress keep their routes (as switches
// with resilient hashing keep their flows' next hops) and flows that start
// from then on route over it again.

// initLinkEvents sorts and checks Config.LinkEvents and computes the
// routing after each event, one per distinct set of links down.
func (s *Sim) initLinkEvents() error {
	s.routing = s.f.Routing()
	if len(s.cfg.LinkEvents) == 0 {
		return nil
	}
	if s.p.LossRTO <= 0 {
		return fmt.Errorf("replay: link events need a loss timeout (Params.LossRTO) to recover lost data")
	}
	s.rto = s.p.LossRTO
	var err error
	s.events, s.evRouting, err = linkRoutings(s.f, s.routing, s.cfg.LinkEvents)
	return err
}

// linkRoutings returns events sorted by time, stably, and the routing of f
// after each, one per distinct set of links down (base: none down). It
// checks every event given the links down before it.
func linkRoutings(f *topo.Fabric, base *topo.Routing, events []topo.LinkEvent) ([]topo.LinkEvent, []*topo.Routing, error) {
	if len(events) == 0 {
		return nil, nil, nil
	}
	events = slices.Clone(events)
	slices.SortStableFunc(events, func(a, b topo.LinkEvent) int { return cmp.Compare(a.At, b.At) })
	after := make([]*topo.Routing, len(events))
	downs := make([]bool, len(f.Links))
	byKey := map[string]*topo.Routing{"": base}
	for k, e := range events {
		if err := checkLinkEvent(f, e, downs); err != nil {
			return nil, nil, fmt.Errorf("replay: link event %s: %w", describeEvent(e, f), err)
		}
		downs[e.Link] = !e.Up
		var ids []topo.LinkID
		key := ""
		for l, d := range downs {
			if d {
				ids = append(ids, topo.LinkID(l))
				key += fmt.Sprint(l, ",")
			}
		}
		rt, ok := byKey[key]
		if !ok {
			var err error
			if rt, err = f.RoutingWithout(ids); err != nil {
				return nil, nil, fmt.Errorf("replay: link event %s: %w", describeEvent(e, f), err)
			}
			byKey[key] = rt
		}
		after[k] = rt
	}
	return events, after, nil
}

// checkLinkEvent checks event e on f given the links down before it.
func checkLinkEvent(f *topo.Fabric, e topo.LinkEvent, downs []bool) error {
	switch {
	case e.At < 0:
		return fmt.Errorf("negative time %d ps", e.At)
	case e.Link < 0 || int(e.Link) >= len(f.Links):
		return fmt.Errorf("no link %d (the fabric has %d)", e.Link, len(f.Links))
	case !f.Nodes[f.Links[e.Link].A].Switch || !f.Nodes[f.Links[e.Link].B].Switch:
		return fmt.Errorf("a host's link cannot fail (a host has one NIC): fail a link between switches")
	case !e.Up && downs[e.Link]:
		return fmt.Errorf("the link is already down")
	case e.Up && !downs[e.Link]:
		return fmt.Errorf("the link is up")
	}
	return nil
}

// linkEvents applies every link event due by now and arms the next.
func (s *Sim) linkEvents() {
	for s.nextEv < len(s.events) && s.events[s.nextEv].At <= s.now {
		e := s.events[s.nextEv]
		s.routing = s.evRouting[s.nextEv]
		s.nextEv++
		if e.Up {
			s.linkUp(e.Link)
		} else {
			s.linkFail(e.Link)
		}
	}
	if s.nextEv < len(s.events) {
		s.q.schedule(s.linkEvSrc(), s.events[s.nextEv].At)
	} else {
		s.q.cancel(s.linkEvSrc())
	}
}

// linkFail takes link l down: its ports drop what they hold, and the flows
// crossing it are rerouted on s.routing.
func (s *Sim) linkFail(l topo.LinkID) {
	a := topo.PortID(2 * l)
	for _, p := range [2]topo.PortID{a, a.Reverse()} {
		pt := &s.ports[p]
		pt.down = true
		pt.paused, pt.pausing = false, false
		s.q.cancel(s.portSrc(p))
		s.q.cancel(s.linkSrc(p))
	}
	for _, p := range [2]topo.PortID{a, a.Reverse()} {
		s.drainPort(p)
	}
	for i := range s.flows {
		fl := &s.flows[i]
		if fl.done {
			continue
		}
		f, r := topo.Crosses(fl.fwd, l), topo.Crosses(fl.rev, l)
		if f {
			fl.fwd = ecmpRoute(s.f, s.routing, s.ecmp, fl.fwd[:0], fl.src, fl.dst, fl.sport, fl.dport)
			fl.fwdGen++
		}
		if r {
			fl.rev = ecmpRoute(s.f, s.routing, s.ecmp, fl.rev[:0], fl.dst, fl.src, fl.dport, fl.sport)
			fl.revGen++
		}
		if f || r {
			s.c.Reroutes++
		}
	}
}

// drainPort drops every packet in switch port p's queues and on its wire,
// releasing the buffer they hold at p's switch.
func (s *Sim) drainPort(p topo.PortID) {
	pt := &s.ports[p]
	sw := &s.sws[pt.src]
	for pt.q.head >= 0 {
		i := pt.q.pop(s.pkts)
		size, in := int64(s.pkts[i].size), s.pkts[i].in
		pt.qBytes -= size
		pt.qPkts--
		s.unadmit(sw, in, size)
		s.linkDrop(i)
		s.checkResume(sw, in)
	}
	for pt.ack.head >= 0 {
		s.linkDrop(pt.ack.pop(s.pkts))
	}
	for pt.ctl.head >= 0 {
		s.linkDrop(pt.ctl.pop(s.pkts))
	}
	for !pt.wire.empty() {
		s.linkDrop(pt.wire.pop())
	}
}

// linkDrop drops packet i of a link that failed.
func (s *Sim) linkDrop(i int32) {
	if s.pkts[i].kind == kMsg {
		s.c.MessagesLost++
	} else {
		s.c.Drops++
		s.c.LinkDrops++
	}
	s.release(i)
}

// linkUp brings link l back: its ports may send again. They hold nothing.
func (s *Sim) linkUp(l topo.LinkID) {
	a := topo.PortID(2 * l)
	for _, p := range [2]topo.PortID{a, a.Reverse()} {
		pt := &s.ports[p]
		pt.down = false
		pt.paused, pt.pausing = false, false
		pt.freeAt = min(pt.freeAt, s.now)
	}
}

// stale reports whether packet pk of flow fl, arrived at a switch, must be
// dropped: its flow was rerouted since it left its host (its hop indexes an
// old route), or the next port of its route is down (a finished flow's
// routes are not rerouted). Its hop is already the next port's.
func (s *Sim) stale(pk *packet, fl *flowState) bool {
	gen, r := fl.revGen, fl.rev
	if pk.kind == kData {
		gen, r = fl.fwdGen, fl.fwd
	}
	return pk.gen != gen || s.ports[r[pk.hop]].down
}
