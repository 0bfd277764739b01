package gnn

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"graphcc/control"
	"graphcc/topo"
)

// PerSwitch is the GraphCC policy run as one Agent per switch with ideal
// delivery: every control interval each agent observes its own switch's
// telemetry, the agents exchange their K rounds of messages within the
// interval (no loss, no delay), and each sets its own ports. It decides
// exactly as GraphCC on the same model and telemetry (docs/agents.md);
// with a floor (NewPerSwitchFloor), as the Floor but for its hold on link
// events.
// It is a control.Policy (and a control.HostDecider with a host head);
// Decide does not allocate.
type PerSwitch struct {
	m      *Model
	agents []*Agent
	floors []*AgentFloor      // per agent, with a floor (NewPerSwitchFloor); nil without
	hp     control.HostParams // with hpOK, the floor's base's hosts' constants (HostParams)
	hpOK   bool
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

// NewPerSwitchFloor returns fl run as one Agent per switch with ideal
// delivery, each agent held to fl's base by its AgentFloor: the same
// decisions as fl step by step on the same telemetry, but for the hold on
// link events, which is each switch's own (AgentFloor). fl's base must be
// fixed: its settings are fl's starting ones for the whole run, and its
// hosts' constants those the hosts start with (its own if it is a
// control.HostTuner, which the policy forwards). A base that decides the
// hosts' constants every interval is refused; that the base's settings
// never change is the caller's to know (policy.WithAgents admits static,
// edge and tuned constants only).
func NewPerSwitchFloor(fl *Floor, f *topo.Fabric) (*PerSwitch, error) {
	if fl == nil {
		return nil, errors.New("per-switch floor: no floor")
	}
	if _, ok := control.HostDeciderOf(fl.base); ok {
		return nil, fmt.Errorf("per-switch floor: the base %T decides the hosts' constants every interval, the agents hold to fixed ones", fl.base)
	}
	ps, err := NewPerSwitch(fl.g.Model(), f, fl.g.Featurizer().Config())
	if err != nil {
		return nil, err
	}
	if len(fl.start) != ps.ports {
		return nil, fmt.Errorf("per-switch floor: %d base settings for %d ports", len(fl.start), ps.ports)
	}
	ps.floors = make([]*AgentFloor, len(ps.agents))
	for i, ag := range ps.agents {
		if ps.floors[i], err = NewAgentFloor(ag, fl.start, fl.gates); err != nil {
			return nil, err
		}
	}
	ps.hp, ps.hpOK = fl.HostParams()
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
	for i := range ps.agents {
		ps.settings(i, ecn)
	}
}

// settings writes agent i's settings of its last step into ecn: its
// model's, or with a floor the gated ones (AgentFloor.Settings).
func (ps *PerSwitch) settings(i int, ecn []control.ECN) {
	if ps.floors != nil {
		ps.floors[i].Settings(ecn)
		return
	}
	ps.agents[i].Settings(ecn)
}

// hostSettings writes the constants agent i chose for its hosts at its
// last step into hosts (by topo.PortID): its model's host actions, or with
// a floor the gated ones (AgentFloor.HostSettings, whose base constants
// are those hosts holds at its first call). A model without a host head
// writes nothing.
func (ps *PerSwitch) hostSettings(i int, hosts []control.HostParams) {
	if ps.m.HostActions == 0 {
		return
	}
	if ps.floors != nil {
		ps.floors[i].HostSettings(hosts)
		return
	}
	ag := ps.agents[i]
	acts := ag.Actions()[ag.nOwn:]
	for j, p := range ag.Hosts() {
		hosts[p] = ps.m.HostTable.Action(acts[j])
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
		if ps.floors != nil {
			ps.floors[i].Observe(lt)
		} else {
			ag.Observe(lt)
		}
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
// every host's action of the last Decide, as the leaf's agent chose it
// (with a floor, gated: the base's constants are those hosts holds at the
// first call, the hosts' starting constants).
func (ps *PerSwitch) DecideHosts(_ *control.Telemetry, hosts []control.HostParams) {
	checkLen("host settings", len(hosts), ps.ports)
	for i := range ps.agents {
		ps.hostSettings(i, hosts)
	}
}

// HostParams returns, with a floor whose base sets the hosts' constants
// (control.HostTuner), those constants: the hosts start with them.
func (ps *PerSwitch) HostParams() (control.HostParams, bool) { return ps.hp, ps.hpOK }

// Floors returns the agents' floors, one per agent in the order of
// Agents, or nil without a floor. The slice is the policy's own.
func (ps *PerSwitch) Floors() []*AgentFloor { return ps.floors }

// Reset forgets every agent's feature history (and with a floor its hold
// and hosts' base constants), for a new run, and re-snapshots the model's
// parameters.
func (ps *PerSwitch) Reset() {
	for i, ag := range ps.agents {
		if ps.floors != nil {
			ps.floors[i].Reset()
		} else {
			ag.Reset()
		}
		ag.Load(ps.m)
	}
}

var (
	_ control.HostDecider = (*PerSwitch)(nil)
	_ control.HostTuner   = (*PerSwitch)(nil)
)
