package ideal

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"graphcc/internal/testfabric"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

const t0 = 2 * topo.Millisecond

// runIdeal runs cfg through Run, failing the test on an error or an
// unfinished flow.
func runIdeal(t *testing.T, cfg replay.Config) *replay.Result {
	t.Helper()
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.FCT) != len(cfg.Flows) {
		t.Fatalf("%d of %d flows finished", len(res.FCT), len(cfg.Flows))
	}
	return res
}

// fctOf returns the FCT of the flow of size size in res.
func fctOf(t *testing.T, res *replay.Result, size int64) int64 {
	t.Helper()
	for _, r := range res.FCT {
		if r.Size == size {
			return r.FCT
		}
	}
	t.Fatalf("no flow of %d bytes", size)
	return 0
}

// A flow whose leaf-spine link fails moves to the other spine, which has
// room: alone, or beside a flow on that spine (both stay limited by their
// 25 Gbps NICs), it keeps its rate and finishes as without the event,
// whether the link comes back or not; Reroutes counts it once.
func TestLinkEventRerouteKeepsRate(t *testing.T) {
	f := testfabric.Clos(t)
	const size = 10_000_000
	long := trace.Flow{Src: testfabric.Node(t, f, "h0"), Dst: testfabric.Node(t, f, "h23"), DPort: trace.DPortBackground, Size: size, Start: t0}
	rt, err := replay.NewRouter(&replay.Config{Fabric: f, Flows: []trace.Flow{long}})
	if err != nil {
		t.Fatal(err)
	}
	up := rt.Route(nil, 0)[1].Link() // leaf0 to the spine the flow takes
	other := trace.Flow{Src: testfabric.Node(t, f, "h1"), Dst: testfabric.Node(t, f, "h22"), DPort: trace.DPortBackground, Size: size / 2, Start: t0}
	fail := topo.LinkEvent{At: t0 + 500*topo.Microsecond, Link: up}
	back := topo.LinkEvent{At: t0 + 1500*topo.Microsecond, Link: up, Up: true}
	for _, tc := range []struct {
		name   string
		flows  []trace.Flow
		events []topo.LinkEvent
	}{
		{"alone, fails", []trace.Flow{long}, []topo.LinkEvent{fail}},
		{"alone, fails and comes back", []trace.Flow{long}, []topo.LinkEvent{back, fail}},
		{"beside another", []trace.Flow{long, other}, []topo.LinkEvent{fail, back}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := runIdeal(t, replay.Config{Fabric: f, Flows: tc.flows})
			res := runIdeal(t, replay.Config{Fabric: f, Flows: tc.flows, LinkEvents: tc.events})
			if got, want := fctOf(t, res, size), fctOf(t, base, size); got != want {
				t.Errorf("FCT %d ps, %d without the event", got, want)
			}
			if res.Counters.Reroutes != 1 {
				t.Errorf("%d reroutes, want 1", res.Counters.Reroutes)
			}
		})
	}
}

// Flows rerouted onto a spine already busy share it, and keep it after the
// link comes back (as the simulator's flows keep their routes): an outage
// can only make these flows slower. Four flows from leaf0 to leaf3 at
// most 25 Gbps each; when spine0's uplink from leaf0 fails, all four share
// spine1's: at 100 Gbps still 25 Gbps each, so nothing changes; on a
// fabric of 50 Gbps links they are slower.
func TestLinkEventNeverFaster(t *testing.T) {
	for _, rate := range []int64{100 * topo.Gbps, 50 * topo.Gbps} {
		c := topo.DefaultClos()
		c.FabricRate = rate
		f, err := topo.Clos(c)
		if err != nil {
			t.Fatal(err)
		}
		var flows []trace.Flow
		for i := range 4 {
			flows = append(flows, trace.Flow{Src: testfabric.Node(t, f, "h"+strconv.Itoa(i)), Dst: testfabric.Node(t, f, "h"+strconv.Itoa(18+i)),
				DPort: trace.DPortBackground, Size: 2_000_000 + int64(i), Start: t0})
		}
		l, ok := f.LinkByName("leaf0-spine0")
		if !ok {
			t.Fatal("no leaf0-spine0")
		}
		events := []topo.LinkEvent{{At: t0 + 100*topo.Microsecond, Link: l}, {At: t0 + 300*topo.Microsecond, Link: l, Up: true}}
		base := runIdeal(t, replay.Config{Fabric: f, Flows: flows})
		res := runIdeal(t, replay.Config{Fabric: f, Flows: flows, LinkEvents: events})
		slower := false
		for i, fl := range flows {
			got, want := fctOf(t, res, fl.Size), fctOf(t, base, fl.Size)
			if got < want {
				t.Errorf("fabric %d Gbps: flow %d: FCT %d ps beats %d without the outage", rate/topo.Gbps, i, got, want)
			}
			slower = slower || got > want
		}
		if slower != (rate < 100*topo.Gbps) {
			t.Errorf("fabric %d Gbps: some flow slower: %v", rate/topo.Gbps, slower)
		}
	}
}

// On a generated trace with a link down for a while every flow finishes,
// the run is deterministic, flows are rerouted, and the mean slowdown is
// no better than without the outage.
func TestLinkEventTrace(t *testing.T) {
	sc := testfabric.TinyScenario()
	sc.Clos.Spines = 2
	f, flows, err := sc.Build(3)
	if err != nil {
		t.Fatal(err)
	}
	// The link fails just after the largest flow between leaves starts, on
	// its path from its leaf up.
	rt, err := replay.NewRouter(&replay.Config{Fabric: f, Flows: flows})
	if err != nil {
		t.Fatal(err)
	}
	big, path := -1, []topo.PortID(nil)
	for i, fl := range flows {
		if p := rt.Route(nil, i); len(p) > 2 && (big < 0 || fl.Size > flows[big].Size) {
			big, path = i, p
		}
	}
	if big < 0 {
		t.Fatal("no flow between leaves")
	}
	l, at := path[1].Link(), flows[big].Start+1
	cfg := replay.Config{Fabric: f, Flows: flows, LinkEvents: []topo.LinkEvent{{At: at, Link: l}, {At: at + sc.Gen.Duration/4, Link: l, Up: true}}}
	a, b := runIdeal(t, cfg), runIdeal(t, cfg)
	if !reflect.DeepEqual(a.FCT, b.FCT) || a.Summary.Slowdown != b.Summary.Slowdown || a.Counters != b.Counters {
		t.Error("two runs differ")
	}
	if a.Counters.Reroutes == 0 {
		t.Error("no flow rerouted")
	}
	base := runIdeal(t, replay.Config{Fabric: f, Flows: flows})
	if a.Summary.Slowdown.Mean < base.Summary.Slowdown.Mean {
		t.Errorf("mean slowdown %.4f with the outage, %.4f without", a.Summary.Slowdown.Mean, base.Summary.Slowdown.Mean)
	}
	t.Logf("%d flows, %d rerouted: mean slowdown %.4f, %.4f without the outage", len(flows), a.Counters.Reroutes, a.Summary.Slowdown.Mean, base.Summary.Slowdown.Mean)
}

// Run refuses the link events the simulator refuses, with its error: a
// failure that leaves a host pair without a path (a flow would have none),
// a host's link, a link failed twice.
func TestLinkEventsRefusedAsSimulator(t *testing.T) {
	small, f := testfabric.SmallClos(t), testfabric.Clos(t) // small: one spine, a leaf-spine link is the only path
	for _, tc := range []struct {
		name   string
		f      *topo.Fabric
		events func(l topo.LinkID) []topo.LinkEvent
		want   string
	}{
		{"only path cut", small, func(l topo.LinkID) []topo.LinkEvent {
			return []topo.LinkEvent{{At: t0, Link: l}, {At: t0 + topo.Millisecond, Link: l, Up: true}}
		}, "disconnects"},
		{"host link", f, func(topo.LinkID) []topo.LinkEvent { return []topo.LinkEvent{{At: t0, Link: 0}} }, "host's link cannot fail"},
		{"failed twice", f, func(l topo.LinkID) []topo.LinkEvent {
			return []topo.LinkEvent{{At: t0, Link: l}, {At: t0 + 1, Link: l}}
		}, "already down"},
	} {
		l, ok := tc.f.LinkByName("leaf0-spine0")
		if !ok {
			t.Fatal("no leaf0-spine0")
		}
		flows := []trace.Flow{{Src: testfabric.Node(t, tc.f, "h0"), Dst: testfabric.Node(t, tc.f, "h2"), DPort: trace.DPortBackground, Size: 1000, Start: t0}}
		cfg := replay.Config{Fabric: tc.f, Flows: flows, LinkEvents: tc.events(l)}
		_, err := Run(context.Background(), cfg)
		_, simErr := replay.New(cfg)
		if err == nil || simErr == nil || err.Error() != simErr.Error() || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, simulator's %v, want the same, with %q", tc.name, err, simErr, tc.want)
		}
	}
}
