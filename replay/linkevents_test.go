package replay

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/topo"
	"graphcc/trace"
)

func link(t testing.TB, f *topo.Fabric, name string) topo.LinkID {
	t.Helper()
	l, ok := f.LinkByName(name)
	if !ok {
		t.Fatalf("no link %s", name)
	}
	return l
}

func TestLinkEventsRefused(t *testing.T) {
	f := clos(t)
	flows := incast(t, f, 2, 100_000)
	l01, l00 := link(t, f, "leaf0-spine1"), link(t, f, "leaf0-spine0")
	noRTO := DefaultParams()
	noRTO.LossRTO = 0
	for _, tc := range []struct {
		name   string
		events []topo.LinkEvent
		params Params
		want   string
	}{
		{"unknown link", []topo.LinkEvent{{At: t0, Link: topo.LinkID(len(f.Links))}}, Params{}, "no link"},
		{"host link", []topo.LinkEvent{{At: t0, Link: link(t, f, "h0-leaf0")}}, Params{}, "h0-leaf0 fails at"},
		{"failed twice", []topo.LinkEvent{{At: t0, Link: l01}, {At: t0 + 1, Link: l01}}, Params{}, "already down"},
		{"up while up", []topo.LinkEvent{{At: t0, Link: l01, Up: true}}, Params{}, "the link is up"},
		{"disconnects", []topo.LinkEvent{{At: t0 + 5, Link: l00}, {At: t0, Link: l01}}, Params{}, "leaf0-spine0 fails at 2000000000005ps: failing leaf0-spine0, leaf0-spine1 disconnects h0"},
		{"negative time", []topo.LinkEvent{{At: -1, Link: l01}}, Params{}, "negative time"},
		{"no loss timeout", []topo.LinkEvent{{At: t0, Link: l01}}, noRTO, "loss timeout"},
	} {
		_, err := New(Config{Fabric: f, Flows: flows, Params: tc.params, LinkEvents: tc.events})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.want)
		}
	}
}

// runWatching runs cfg step by step and fails the test if a port of a link
// down holds or sends a packet while the link is down.
func runWatching(t *testing.T, cfg Config) *Result {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for s.Step() {
		for l, p := range s.ports {
			if p.down && (!p.wire.empty() || p.q.head >= 0 || p.ack.head >= 0 || p.ctl.head >= 0 || p.qBytes != 0 || p.paused) {
				t.Fatalf("at %d ps: port %s is down but holds packets", s.now, s.f.PortName(topo.PortID(l)))
			}
		}
	}
	r, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// firstStart returns the earliest start of flows, which must not be empty.
func firstStart(flows []trace.Flow) int64 {
	first := flows[0].Start
	for _, fl := range flows {
		first = min(first, fl.Start)
	}
	return first
}

func TestLinkFailsMidRun(t *testing.T) {
	f := clos(t)
	flows := genFlows(t, f, 7, 3*topo.Millisecond)
	first := firstStart(flows)
	l := link(t, f, "leaf0-spine1")
	for _, tc := range []struct {
		name   string
		pfc    bool
		events []topo.LinkEvent
	}{
		{"fail pfc", true, []topo.LinkEvent{{At: first + topo.Millisecond, Link: l}}},
		{"fail no-pfc", false, []topo.LinkEvent{{At: first + topo.Millisecond, Link: l}}},
		{"fail and restore pfc", true, []topo.LinkEvent{{At: first + 2*topo.Millisecond, Link: l, Up: true}, {At: first + topo.Millisecond, Link: l}}},
		{"fail and restore no-pfc", false, []topo.LinkEvent{{At: first + topo.Millisecond, Link: l}, {At: first + 2*topo.Millisecond, Link: l, Up: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			p.PFC = tc.pfc
			r := runWatching(t, Config{Fabric: f, Flows: flows, Params: p, Seed: 7, LinkEvents: tc.events})
			if len(r.FCT) != len(flows) {
				t.Fatalf("%d of %d flows finished", len(r.FCT), len(flows))
			}
			checkConservation(t, r, flows)
			c := r.Counters
			if c.LinkDrops == 0 || c.Reroutes == 0 {
				t.Errorf("link drops %d, reroutes %d: want both positive", c.LinkDrops, c.Reroutes)
			}
			if c.Drops < c.LinkDrops+c.StaleDrops || r.Summary.Drops != c.Drops {
				t.Errorf("drops %d (summary %d) do not include link drops %d and stale drops %d", c.Drops, r.Summary.Drops, c.LinkDrops, c.StaleDrops)
			}
		})
	}
}

// TestLinkRestoreRoutesNewFlows: flows that start while the link is down
// avoid it, those that start after it came back may use it again, and a
// flow in progress keeps its route when it comes back.
func TestLinkRestoreRoutesNewFlows(t *testing.T) {
	f := clos(t)
	l := link(t, f, "leaf0-spine1")
	h0 := host(t, f, "h0")
	var flows []trace.Flow
	for k := range 3 {
		for d := 6; d < 24; d++ { // every remote host, at t0, t0+1ms, t0+2ms
			flows = append(flows, trace.Flow{Src: h0, Dst: host(t, f, "h"+itoa(d)), PG: trace.DefaultPG, DPort: trace.DPortBackground,
				Size: 20_000, Start: t0 + int64(k)*topo.Millisecond})
		}
	}
	long := trace.Flow{Src: host(t, f, "h1"), Dst: host(t, f, "h23"), PG: trace.DefaultPG, DPort: trace.DPortBackground, Size: 5_000_000, Start: t0 + 900*topo.Microsecond}
	flows = append(flows, long)
	events := []topo.LinkEvent{{At: t0 + 500*topo.Microsecond, Link: l}, {At: t0 + 1500*topo.Microsecond, Link: l, Up: true}}
	uses := make(map[int64]int) // per start: flows whose data crossed l
	var longPath []topo.PortID
	r := mustRun(t, Config{Fabric: f, Flows: flows, LinkEvents: events, OnFinish: func(rec trace.FCT, path []topo.PortID) {
		if rec.Size == long.Size {
			longPath = append(longPath, path...)
		}
		if topo.Crosses(path, l) {
			uses[rec.Start]++
		}
	}})
	if len(r.FCT) != len(flows) {
		t.Fatalf("%d of %d flows finished", len(r.FCT), len(flows))
	}
	if uses[t0] == 0 || uses[t0+2*topo.Millisecond] == 0 {
		t.Errorf("flows crossing %s: %d of those before the failure, %d of those after it came back; want both positive", f.Links[l].Name, uses[t0], uses[t0+2*topo.Millisecond])
	}
	if uses[t0+topo.Millisecond] != 0 || topo.Crosses(longPath, l) {
		t.Errorf("flows started while %s was down cross it: %d short, long %v", f.Links[l].Name, uses[t0+topo.Millisecond], topo.Crosses(longPath, l))
	}
}

// TestLongFlowRerouted: the link a long flow uses fails; it completes over
// the other spine, with PFC on and off.
func TestLongFlowRerouted(t *testing.T) {
	f := clos(t)
	flows := []trace.Flow{{Src: host(t, f, "h0"), Dst: host(t, f, "h23"), PG: trace.DefaultPG, DPort: trace.DPortBackground, Size: 10_000_000, Start: t0}}
	rt, err := NewRouter(&Config{Fabric: f, Flows: flows})
	if err != nil {
		t.Fatal(err)
	}
	path := rt.Route(nil, 0)
	up := path[1].Link() // leaf0 to the spine the flow takes
	for _, pfc := range []bool{true, false} {
		p := DefaultParams()
		p.PFC = pfc
		var got []topo.PortID
		r := runWatching(t, Config{Fabric: f, Flows: flows, Params: p, LinkEvents: []topo.LinkEvent{{At: t0 + 500*topo.Microsecond, Link: up}},
			OnFinish: func(_ trace.FCT, path []topo.PortID) { got = append(got, path...) }})
		if len(r.FCT) != 1 {
			t.Fatalf("pfc %v: the flow did not finish", pfc)
		}
		after, err := NewRouter(&Config{Fabric: f, Flows: flows, LinkEvents: []topo.LinkEvent{{At: t0 + 500*topo.Microsecond, Link: up}}})
		if err != nil {
			t.Fatal(err)
		}
		if want := after.RouteAfter(nil, 0, 1); !reflect.DeepEqual(got, want) {
			t.Errorf("pfc %v: final path %v, the router's after the event %v", pfc, got, want)
		}
		if topo.Crosses(got, up) || r.Counters.Reroutes != 1 || r.Counters.LinkDrops == 0 {
			t.Errorf("pfc %v: final path %v crosses %s: %v; reroutes %d, link drops %d", pfc, got, f.Links[up].Name, topo.Crosses(got, up), r.Counters.Reroutes, r.Counters.LinkDrops)
		}
		if r.Counters.Timeouts+r.Counters.Retransmits == 0 {
			t.Errorf("pfc %v: lost data recovered by neither timeout nor NACK", pfc)
		}
		checkConservation(t, r, flows)
	}
}

func TestLinkEventsDeterministic(t *testing.T) {
	f := clos(t)
	flows := genFlows(t, f, 9, 2*topo.Millisecond)
	l := link(t, f, "leaf1-spine0")
	cfg := Config{Fabric: f, Flows: flows, Seed: 9, LinkEvents: []topo.LinkEvent{{At: flows[0].Start + 700*topo.Microsecond, Link: l}, {At: flows[0].Start + 1400*topo.Microsecond, Link: l, Up: true}}}
	a, b := mustRun(t, cfg), mustRun(t, cfg)
	if !bytes.Equal(fctText(t, a), fctText(t, b)) || !reflect.DeepEqual(a.Counters, b.Counters) {
		t.Error("two runs with the same link events differ")
	}
}

func TestLinkEventsDoNotAllocate(t *testing.T) {
	f := clos(t)
	flows := genFlows(t, f, 5, 5*topo.Millisecond)
	l := link(t, f, "leaf2-spine1")
	var events []topo.LinkEvent
	for k := int64(0); k < 250; k++ { // down and up every 20 µs
		events = append(events, topo.LinkEvent{At: flows[0].Start + k*20*topo.Microsecond, Link: l, Up: k%2 == 1})
	}
	s, err := New(Config{Fabric: f, Flows: flows, Seed: 5, LinkEvents: events})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 300_000 && s.Step(); k++ {
	}
	before := s.c.Reroutes
	allocs := testing.AllocsPerRun(20_000, func() { s.Step() })
	if s.c.Reroutes == before {
		t.Fatal("no reroute while measuring")
	}
	if allocs > 0.01 {
		t.Errorf("Step allocates %.4f times per event", allocs)
	}
}

// fireAgents sends one message on each of its ports at every tick and does
// not wait for them (its step is over at once); it counts the arrivals.
type fireAgents struct{ echoAgents }

func (e *fireAgents) Start(net control.Net, _ *control.Telemetry) bool {
	for i, p := range e.ports {
		net.Send(p, e.size, int32(i), 0)
	}
	return true
}

func (e *fireAgents) Arrive(control.Net, int32, uint32) bool {
	e.left++
	return false
}

// TestAgentMessagesOnFailedLinkLost: an agent message sent on a link that
// is down, or on it when it fails, is lost.
func TestAgentMessagesOnFailedLinkLost(t *testing.T) {
	f := clos(t)
	l := link(t, f, "leaf0-spine1")
	flows := incast(t, f, 4, 2_000_000)
	ports := []topo.PortID{topo.PortID(2 * l), topo.PortID(2*l + 1)}
	ticks := func(events []topo.LinkEvent) (*Result, int) {
		e := &fireAgents{echoAgents{ports: ports, size: 100}}
		r := mustRun(t, Config{Fabric: f, Flows: flows, Policy: e, LinkEvents: events})
		return r, e.left
	}
	all, arrived := ticks(nil)
	if all.Counters.MessagesLost != 0 || arrived == 0 {
		t.Fatalf("no events: %d lost, %d arrived", all.Counters.MessagesLost, arrived)
	}
	r, got := ticks([]topo.LinkEvent{{At: t0, Link: l}})
	if got != 0 || r.Counters.MessagesLost == 0 {
		t.Errorf("link down throughout: %d messages arrived, %d lost", got, r.Counters.MessagesLost)
	}
}

// TestLostLastAckRecovered: one-packet flows whose ACKs cross a link when
// it fails all finish: the sender's timeout resends the data, and the
// receiver, which has it all, acknowledges the duplicate.
func TestLostLastAckRecovered(t *testing.T) {
	f := clos(t)
	l := link(t, f, "leaf0-spine1")
	var flows []trace.Flow
	for k := range 400 {
		flows = append(flows, trace.Flow{Src: host(t, f, "h"+itoa(18+k%6)), Dst: host(t, f, "h"+itoa(k%6)), PG: trace.DefaultPG,
			DPort: trace.DPortBackground, Size: 500, Start: t0 + int64(k)*20*topo.Nanosecond})
	}
	for _, pfc := range []bool{true, false} {
		p := DefaultParams()
		p.PFC = pfc
		r := mustRun(t, Config{Fabric: f, Flows: flows, Params: p, Until: t0 + 50*topo.Millisecond,
			LinkEvents: []topo.LinkEvent{{At: t0 + 5*topo.Microsecond, Link: l}}})
		if len(r.FCT) != len(flows) || r.Counters.Timeouts == 0 {
			t.Errorf("pfc %v: %d of %d flows finished, %d timeouts; want all, after a timeout", pfc, len(r.FCT), len(flows), r.Counters.Timeouts)
		}
	}
}

// TestTelemetryLinkDown: the telemetry reports the two ports of a link
// down in every interval that ends while it is down, and no other port
// and no other interval.
func TestTelemetryLinkDown(t *testing.T) {
	f := clos(t)
	flows := genFlows(t, f, 7, 3*topo.Millisecond)
	first := firstStart(flows)
	l := link(t, f, "leaf0-spine1")
	down, up := first+topo.Millisecond, first+2*topo.Millisecond
	var intervals, held int
	p := policyFunc(func(tel *control.Telemetry, _ []control.ECN) {
		intervals++
		want := tel.Now >= down && tel.Now < up
		if want {
			held++
		}
		for i, s := range tel.Ports {
			if s.LinkDown != (want && f.Ports[i].Link == l) {
				t.Fatalf("at %d ps (link down from %d to %d): port %s reports LinkDown %v", tel.Now, down, up, f.PortName(topo.PortID(i)), s.LinkDown)
			}
		}
	})
	events := []topo.LinkEvent{{At: down, Link: l}, {At: up, Link: l, Up: true}}
	if _, err := Run(Config{Fabric: f, Flows: flows, Policy: p, Seed: 7, LinkEvents: events}); err != nil {
		t.Fatal(err)
	}
	if held == 0 || held == intervals {
		t.Errorf("%d of %d intervals ended with the link down: the test shows nothing", held, intervals)
	}
}
