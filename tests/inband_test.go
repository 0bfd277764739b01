package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/controller/p4rt"
	"graphcc/internal/privtest"
	"graphcc/p4src"
	"graphcc/topo"
)

// inbandRounds is how many exchange rounds TestTestbedInband times.
const inbandRounds = 100

// inbandHop is one directed switch-to-switch link: switch From sends on
// its BMv2 port FromNum, switch To receives on ToNum.
type inbandHop struct {
	From, To       int // indices in Plan.Switches
	FromNum, ToNum uint32
}

// inbandHops lists every directed switch-to-switch link of plan.
func inbandHops(plan *lab.Plan) []inbandHop {
	index := map[topo.NodeID]int{}
	for i, sp := range plan.Switches {
		index[sp.Node] = i
	}
	var hops []inbandHop
	for i, sp := range plan.Switches {
		for _, pp := range sp.Ports {
			j, ok := index[pp.Peer]
			if !ok {
				continue // a host
			}
			link := plan.Fabric.Ports[pp.Port].Link
			for _, pq := range plan.Switches[j].Ports {
				if plan.Fabric.Ports[pq.Port].Link == link {
					hops = append(hops, inbandHop{From: i, To: j, FromNum: pp.Num, ToNum: pq.Num})
				}
			}
		}
	}
	return hops
}

// inbandMessage is the in-band frame of round r on hop h (at least 64
// bytes; the message layer is the agents', this test's payload is text).
func inbandMessage(r int, h inbandHop) []byte {
	f := []byte{0x02, 0, 0, 0, 0, byte(h.To), 0x02, 0, 0, 0, 0, byte(h.From), p4src.EtherTypeInband >> 8, p4src.EtherTypeInband & 0xff}
	f = fmt.Appendf(f, "round %d from switch %d port %d to switch %d port %d", r, h.From, h.FromNum, h.To, h.ToNum)
	for len(f) < 64 {
		f = append(f, '.')
	}
	return f
}

// TestTestbedInband is the in-band channel on a lab as testbed up builds
// it (the GraphCC Clos cut to 2 leaves, 2 spines and a host per leaf, at
// the default scale, the pipeline pushed and the queues set as testbed run
// does): in each of inbandRounds rounds every switch sends a message on
// every port facing a switch, as the per-switch agents' exchange does,
// and every message reaches the neighbour's controller, with the port it
// arrived on, once; the switch-to-switch ports count none of them. The log
// reports the one-way latency and the round's time (all messages sent
// until the last is in).
func TestTestbedInband(t *testing.T) {
	require(t, lab.DefaultSwitchBinary, lab.DefaultCLIBinary)
	privtest.Runs(t, lab.DefaultCLIBinary, "p4lang/behavioral-model", "--help")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	c := topo.DefaultClos()
	c.Leaves, c.Spines, c.HostsPerLeaf = 2, 2, 1
	f, err := topo.Clos(c)
	if err != nil {
		t.Fatal(err)
	}
	labName := fmt.Sprintf("ib%d", os.Getpid()%100000)
	plan, err := lab.NewPlan(labName, f)
	if err != nil {
		t.Fatal(err)
	}
	labDir := filepath.Join(t.TempDir(), "lab")
	t.Cleanup(func() {
		if err := lab.Down(context.Background(), labName, labDir); err != nil {
			t.Errorf("down: %v", err)
		}
	})
	l, err := lab.Up(ctx, lab.Config{Plan: plan, Dir: labDir})
	if err != nil {
		t.Fatal(err)
	}
	info, devcfg, err := p4rt.BuiltinPipeline()
	if err != nil {
		t.Fatal(err)
	}
	rt, closeAll, err := p4rt.Connect(ctx, l, plan, info, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	if err := rt.Program(ctx, devcfg, control.StaticSettings(f)); err != nil {
		t.Fatal(err)
	}
	if err := l.SetQueues(ctx); err != nil {
		t.Fatal(err)
	}
	// The controller's own connections carry the messages beside its
	// counter reads and table writes.
	sws := rt.Switches()
	hops := inbandHops(plan)
	if len(hops) != 2*c.Leaves*c.Spines {
		t.Fatalf("%d directed switch links, want %d", len(hops), 2*c.Leaves*c.Spines)
	}
	before := linkCounters(t, ctx, sws, info, hops)
	var oneWay, round []time.Duration
	for r := range inbandRounds {
		sent := make([]time.Time, len(hops))
		t0 := time.Now()
		for k, h := range hops {
			sent[k] = time.Now()
			if err := sws[h.From].SendPacket(ctx, h.FromNum, inbandMessage(r, h)); err != nil {
				t.Fatal(err)
			}
		}
		oneWay = append(oneWay, receiveRound(t, ctx, sws, hops, r, sent)...)
		round = append(round, time.Since(t0))
	}
	after := linkCounters(t, ctx, sws, info, hops)
	if !slices.Equal(before, after) {
		t.Errorf("switch-to-switch port counters moved: %v -> %v", before, after)
	}
	for _, s := range sws {
		if st := s.PacketStats(); st.Dropped+st.Malformed+st.OutErrors != 0 {
			t.Errorf("switch %s: %+v", s.Name(), st)
		}
	}
	om, op := meanP99(oneWay)
	rm, rp := meanP99(round)
	t.Logf("%d rounds of %d messages: one-way mean %v p99 %v; round mean %v p99 %v", inbandRounds, len(hops), om, op, rm, rp)
}

// receiveRound takes round r's messages off every switch's PacketIn queue
// (every hop's, once, on the hop's port) and returns their one-way
// latencies from sent.
func receiveRound(t *testing.T, ctx context.Context, sws []*p4rt.Switch, hops []inbandHop, r int, sent []time.Time) []time.Duration {
	t.Helper()
	lat := make([]time.Duration, 0, len(hops))
	seen := make([]bool, len(hops))
	for to, s := range sws {
		for n := countTo(hops, to); n > 0; n-- {
			p, err := s.ReceivePacket(ctx)
			if err != nil {
				t.Fatalf("round %d: switch %d: %v", r, to, err)
			}
			k := slices.IndexFunc(hops, func(h inbandHop) bool {
				return h.To == to && bytes.Equal(p.Payload, inbandMessage(r, h))
			})
			if k < 0 || seen[k] || hops[k].ToNum != p.Port {
				t.Fatalf("round %d: switch %d: unexpected PacketIn on port %d: %q", r, to, p.Port, p.Payload)
			}
			seen[k] = true
			lat = append(lat, time.Since(sent[k]))
		}
	}
	return lat
}

func countTo(hops []inbandHop, to int) int {
	n := 0
	for _, h := range hops {
		if h.To == to {
			n++
		}
	}
	return n
}

// linkCounters reads every counter cell of the hops' ports: tx, marked
// and flow starts on the sending side, rx on the receiving side, and the
// enqueue-depth histogram of the sending port.
func linkCounters(t *testing.T, ctx context.Context, sws []*p4rt.Switch, info *p4rt.P4Info, hops []inbandHop) []int64 {
	t.Helper()
	var out []int64
	for _, h := range hops {
		from := []*p4v1.CounterEntry{}
		from = append(from, counterCells(info.TxPort, int64(h.FromNum))...)
		from = append(from, counterCells(info.MarkedPort, int64(h.FromNum))...)
		from = append(from, counterCells(info.FlowStarts, int64(h.FromNum))...)
		for b := range int64(p4src.DepthBuckets) {
			from = append(from, counterCells(info.EnqDepth, int64(h.FromNum)*p4src.DepthBuckets+b)...)
		}
		for _, q := range []struct {
			s *p4rt.Switch
			e []*p4v1.CounterEntry
		}{{sws[h.From], from}, {sws[h.To], counterCells(info.RxPort, int64(h.ToNum))}} {
			vals, err := q.s.ReadCounters(ctx, nil, q.e)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				out = append(out, v.Packets, v.Bytes)
			}
		}
	}
	return out
}

// meanP99 returns the mean and the nearest-rank 99th percentile.
func meanP99(d []time.Duration) (mean, p99 time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	return sum / time.Duration(len(s)), s[(99*len(s)+99)/100-1]
}

// counterCells returns the CounterEntry entities of a ReadCounters call
// that reads counter's cells indices.
func counterCells(counter uint32, indices ...int64) []*p4v1.CounterEntry {
	e := make([]*p4v1.CounterEntry, len(indices))
	for i, x := range indices {
		e[i] = &p4v1.CounterEntry{CounterId: counter, Index: &p4v1.Index{Index: x}}
	}
	return e
}
