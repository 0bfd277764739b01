package replay

import (
	"strconv"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/metrics"
	"graphcc/topo"
)

// echoAgents is an InBand that, at every tick, sends one message of size
// bytes out of every switch-to-switch port and records, per message, the
// time from the tick to its arrival. The step is over when all have
// arrived.
type echoAgents struct {
	control.Static
	ports   []topo.PortID
	size    int
	t0      int64
	step    uint32
	left    int
	delays  []int64
	stale   int // arrivals of an earlier step
	commits int
}

func (e *echoAgents) Start(net control.Net, _ *control.Telemetry) bool {
	e.step++
	e.t0, e.left = net.Now(), len(e.ports)
	for i, p := range e.ports {
		net.Send(p, e.size, int32(i), e.step)
	}
	return e.left == 0
}

func (e *echoAgents) Arrive(net control.Net, _ int32, step uint32) bool {
	if step != e.step {
		e.stale++
		return false
	}
	e.delays = append(e.delays, net.Now()-e.t0)
	e.left--
	return e.left == 0
}

func (e *echoAgents) Wake(control.Net) bool { return e.left == 0 }

func (e *echoAgents) Settings([]control.ECN, []control.HostParams) { e.commits++ }

func (e *echoAgents) AgentStats() metrics.AgentStats { return metrics.AgentStats{Agents: "echo"} }

// TestInBandTransport: an agent message leaves by the strict-priority
// queue and arrives after its serialization and the link's delay, plus at
// most what was already on the port's wire (one data packet, or PFC
// frames) — under the default load, with ACKs in the data queue or in the
// priority queue; its bytes are not counted in the port's telemetry.
func TestInBandTransport(t *testing.T) {
	f := clos(t)
	ports := switchPorts(f)
	flows := genFlows(t, f, 3, 2*topo.Millisecond)
	for _, tc := range []struct {
		name    string
		ackPrio bool
	}{{"acks behind data", false}, {"acks in the priority queue", true}} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			p.AckHighPriority = tc.ackPrio
			e := &echoAgents{ports: ports, size: 122}
			res, err := Run(Config{Fabric: f, Flows: flows, Params: p, Policy: e, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			rate := f.Ports[ports[0]].Rate
			base := serialization(122, rate) + f.Ports[ports[0]].Delay
			// what can be ahead: the rest of one data packet, two PFC
			// frames, and with ACKs in the priority queue a few ACKs
			slack := serialization(int64(p.Payload+p.Header)+2*int64(p.PFCSize), rate)
			if tc.ackPrio {
				slack += 8 * serialization(int64(p.AckSize), rate)
			}
			lo, hi, late := int64(1)<<62, int64(0), 0
			for _, d := range e.delays {
				lo, hi = min(lo, d), max(hi, d)
				if d > base {
					late++
				}
			}
			switch {
			case len(e.delays) != len(ports)*e.commits || e.commits < 10 || e.stale != 0:
				t.Errorf("%d arrivals, %d steps committed, %d stale", len(e.delays), e.commits, e.stale)
			case lo != base || hi > base+slack || late == 0:
				t.Errorf("delays %d..%d ps (%d behind something), want %d..%d", lo, hi, late, base, base+slack)
			case res.Summary.AgentStats == nil || res.Summary.AgentStats.Agents != "echo":
				t.Errorf("summary's agent stats %+v", res.Summary.AgentStats)
			}
		})
	}
}

// TestInBandUncounted: the agents' messages add no bytes to the ports'
// telemetry (as on the testbed, whose control queue is not counted): the
// bytes the switch ports sent over a run are the same with 1000-byte
// messages every step as without.
func TestInBandUncounted(t *testing.T) {
	f := clos(t)
	ports := switchPorts(f)
	flows := genFlows(t, f, 3, topo.Millisecond)
	var tx [2]int64
	for i, pol := range []control.Policy{control.Static{}, &echoAgents{ports: ports, size: 1000}} {
		var b strings.Builder
		res, err := Run(Config{Fabric: f, Flows: flows, Policy: pol, Seed: 3, Trace: &b})
		if err != nil {
			t.Fatal(err)
		}
		if res.Counters.Retransmits != 0 || res.Counters.Drops != 0 {
			t.Fatalf("retransmits %d, drops %d: the bytes differ anyway", res.Counters.Retransmits, res.Counters.Drops)
		}
		for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n")[1:] {
			v, err := strconv.ParseInt(strings.Split(line, ",")[5], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			tx[i] += v
		}
	}
	if tx[0] == 0 || tx[0] != tx[1] {
		t.Errorf("ports sent %d bytes without messages, %d with", tx[0], tx[1])
	}
}

// TestInBandConfigErrors: message loss needs an InBand policy and a
// probability in [0, 1).
func TestInBandConfigErrors(t *testing.T) {
	f := clos(t)
	flows := genFlows(t, f, 3, 100*topo.Microsecond)
	for _, tc := range []struct {
		name string
		pol  control.Policy
		loss float64
		want string
	}{
		{"no agents", control.Static{}, 0.1, "message loss without per-switch agents"},
		{"loss 1", &echoAgents{}, 1, "message loss 1 must be in [0, 1)"},
		{"negative", &echoAgents{}, -0.5, "message loss -0.5 must be in [0, 1)"},
	} {
		_, err := New(Config{Fabric: f, Flows: flows, Policy: tc.pol, MessageLoss: tc.loss})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// switchPorts returns f's ports from a switch to a switch, in id order.
func switchPorts(f *topo.Fabric) []topo.PortID {
	var ports []topo.PortID
	for i, p := range f.Ports {
		if f.Nodes[p.Src].Switch && f.Nodes[p.Dst].Switch {
			ports = append(ports, topo.PortID(i))
		}
	}
	return ports
}
