package gnn

import (
	"fmt"
	"math/rand/v2"

	"graphcc/control"
	"graphcc/topo"
)

// PerSwitch is the GraphCC policy run as one Agent per switch with ideal
// delivery: every control interval each agent observes its own switch's
// telemetry, the agents exchange their K rounds of messages within the
// interval (no loss, no delay), and each sets its own ports. It decides
// exactly as GraphCC on the same model and telemetry (docs/agents.md).
// It is a control.Policy (and a control.HostDecider with a host head);
// Decide does not allocate.
type PerSwitch struct {
	m      *Model
	agents []*Agent
	byNode []int32             // per NodeID: the agent's index, -1 for a host
	local  [][]topo.PortID     // per agent: the ports of its telemetry rows
	tels   []control.Telemetry // per agent: its telemetry
	msgs   []agentMessage      // one round's messages
	rng    *rand.Rand          // with Shuffle: the delivery order's source
	ports  int
	sent   int64
}

// agentMessage is one message in flight between two agents.
type agentMessage struct {
	to   int32
	from topo.PortID
	h    []float32
}

// NewPerSwitch returns the per-switch GraphCC policy of model m on fabric
// f, with features normalized by c. It fails as NewGraphCC on a model that
// does not fit it or an invalid c, and if a switch's view cannot be
// formed (NewSwitchView).
func NewPerSwitch(m *Model, f *topo.Fabric, c FeatureConfig) (*PerSwitch, error) {
	if err := CheckPolicyModel(m); err != nil {
		return nil, fmt.Errorf("per-switch graphcc policy: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("per-switch graphcc policy: %w", err)
	}
	return newPerSwitch(m, f, c, haveAVX2FMA())
}

// newPerSwitch is NewPerSwitch with the kernels chosen by asm and any
// shape.
func newPerSwitch(m *Model, f *topo.Fabric, c FeatureConfig, asm bool) (*PerSwitch, error) {
	ps := &PerSwitch{m: m, byNode: make([]int32, len(f.Nodes)), ports: len(f.Ports)}
	for i := range ps.byNode {
		ps.byNode[i] = -1
	}
	sends := 0
	for _, n := range f.Switches() {
		v, err := NewSwitchView(f, n)
		if err != nil {
			return nil, err
		}
		ag := newAgent(m, v, c, asm)
		ps.byNode[n] = int32(len(ps.agents))
		ps.agents = append(ps.agents, ag)
		var rows []topo.PortID
		for _, p := range v.Ports {
			rows = append(rows, p.Port)
		}
		rows = append(rows, ag.Hosts()...)
		ps.local = append(ps.local, rows)
		ps.tels = append(ps.tels, control.Telemetry{Ports: make([]control.PortSample, len(rows))})
		sends += ag.Sends()
	}
	ps.msgs = make([]agentMessage, 0, sends)
	return ps, nil
}

// Shuffle makes every round deliver its messages in an order drawn from
// a PCG source seeded with seed (the order of arrival must not matter;
// tests check that it does not). Without it they go in the agents' order.
func (ps *PerSwitch) Shuffle(seed uint64) {
	ps.rng = rand.New(rand.NewPCG(seed, 0x6167656e7473)) // "agents"
}

// Decide runs one step of every agent on its switch's share of t and
// writes every agent port's setting into ecn.
func (ps *PerSwitch) Decide(t *control.Telemetry, ecn []control.ECN) {
	checkLen("ECN settings", len(ecn), ps.ports)
	ps.observe(t)
	for k := 1; k <= ps.m.K; k++ {
		ps.exchange(k)
	}
	for _, ag := range ps.agents {
		ag.Settings(ecn)
	}
}

// observe has every agent observe its switch's share of t.
func (ps *PerSwitch) observe(t *control.Telemetry) {
	checkLen("telemetry ports", len(t.Ports), ps.ports)
	for i, ag := range ps.agents {
		lt := &ps.tels[i]
		lt.Now, lt.Interval = t.Now, t.Interval
		for j, p := range ps.local[i] {
			lt.Ports[j] = t.Ports[p]
		}
		ag.Observe(lt)
	}
}

// exchange sends every agent's round-k messages, delivers them, and has
// every agent compute round k.
func (ps *PerSwitch) exchange(k int) {
	ps.msgs = ps.msgs[:0]
	for _, ag := range ps.agents {
		for i := range ag.Sends() {
			from, to, h := ag.Message(k, i)
			ps.msgs = append(ps.msgs, agentMessage{to: ps.byNode[to], from: from, h: h})
		}
	}
	if ps.rng != nil {
		ps.rng.Shuffle(len(ps.msgs), func(i, j int) { ps.msgs[i], ps.msgs[j] = ps.msgs[j], ps.msgs[i] })
	}
	for _, msg := range ps.msgs {
		if err := ps.agents[msg.to].Receive(k, msg.from, msg.h); err != nil {
			panic("gnn: ideal delivery: " + err.Error())
		}
	}
	ps.sent += int64(len(ps.msgs))
	for _, ag := range ps.agents {
		if err := ag.Round(k); err != nil {
			panic("gnn: ideal delivery: " + err.Error())
		}
	}
}

// MessagesPerStep returns the messages one step exchanges: K rounds × the
// egress ports from a switch to a switch.
func (ps *PerSwitch) MessagesPerStep() int { return ps.m.K * cap(ps.msgs) }

// Messages returns the messages exchanged since NewPerSwitch.
func (ps *PerSwitch) Messages() int64 { return ps.sent }

// Agents returns the agents, one per switch in increasing NodeID.
func (ps *PerSwitch) Agents() []*Agent { return ps.agents }

// DecidesHosts reports whether the model has a host head.
func (ps *PerSwitch) DecidesHosts() bool { return ps.m.HostActions > 0 }

// DecideHosts writes into hosts (by topo.PortID) the DCQCN constants of
// every host's action of the last Decide, as the leaf's agent chose it.
func (ps *PerSwitch) DecideHosts(_ *control.Telemetry, hosts []control.HostParams) {
	checkLen("host settings", len(hosts), ps.ports)
	if ps.m.HostActions == 0 {
		return
	}
	for _, ag := range ps.agents {
		acts := ag.Actions()[ag.nOwn:]
		for j, p := range ag.Hosts() {
			hosts[p] = ps.m.HostTable.Action(acts[j])
		}
	}
}

// Reset forgets every agent's feature history, for a new run, and
// re-snapshots the model's parameters.
func (ps *PerSwitch) Reset() {
	for _, ag := range ps.agents {
		ag.Reset()
		ag.Load(ps.m)
	}
}

var _ control.HostDecider = (*PerSwitch)(nil)
