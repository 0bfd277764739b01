package tests

import (
	"net"
	"slices"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"graphcc/agentmsg"
	"graphcc/control"
	"graphcc/gnn"
	"graphcc/p4src"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/workload"
)

// recording is the central GraphCC policy keeping a copy of every
// interval's telemetry and of the settings it chose.
type recording struct {
	g    *gnn.GraphCC
	tels []control.Telemetry
	ecns [][]control.ECN
}

func (r *recording) Decide(t *control.Telemetry, ecn []control.ECN) {
	r.g.Decide(t, ecn)
	r.tels = append(r.tels, control.Telemetry{Now: t.Now, Interval: t.Interval, Ports: slices.Clone(t.Ports)})
	r.ecns = append(r.ecns, slices.Clone(ecn))
}

// wireAgent is one switch's agent with the rows of its telemetry.
type wireAgent struct {
	ag   *gnn.Agent
	rows []topo.PortID // the view's ports, then the hosts' NIC ports
	tel  control.Telemetry
}

// frame is one message in flight: an Ethernet frame and the switch it
// goes to.
type frame struct {
	to    topo.NodeID
	bytes []byte
}

// TestAgentsOverTheWire: the shipped model's central decisions in a
// simulator run are remade from the run's telemetry by one agent per
// switch, each built from its switch's view alone, whose messages travel
// as Ethernet frames of agentmsg.Message (serialized, then decoded by a
// DecodingLayerParser at the receiver) delivered in reverse order: every
// setting of every step is the same, on the default Clos and with a
// failed link, and a step moves K × the switch-to-switch ports' frames.
func TestAgentsOverTheWire(t *testing.T) {
	m, err := gnn.EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	clos, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	failed, err := clos.FailLinks("leaf1-spine0")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*topo.Fabric{clos, failed} {
		gen := workload.DefaultGen()
		gen.Duration = 2 * topo.Millisecond
		flows, err := workload.Generate(f, gen)
		if err != nil {
			t.Fatal(err)
		}
		g, err := gnn.NewGraphCC(m, f, gnn.FeatureConfig{})
		if err != nil {
			t.Fatal(err)
		}
		rec := &recording{g: g}
		if _, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Policy: rec, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		agents := wireAgents(t, m, f)
		switchPorts := 0
		for _, wa := range agents {
			switchPorts += wa.ag.Sends()
		}
		changed := false
		for step, tel := range rec.tels {
			n := wireStep(t, agents, uint32(step), &tel, m.K)
			if want := switchPorts * (2*(14+agentmsg.HeaderLen) + 4*(m.Features+m.Hidden)); n != want {
				t.Fatalf("%d links, step %d: %d bytes of frames, want %d", len(f.Links), step, n, want)
			}
			for _, wa := range agents {
				for j, vp := range wa.ag.View().Ports {
					got := m.ActionSet.Setting(wa.ag.Actions()[j], vp.Rate)
					if want := rec.ecns[step][vp.Port]; got != want {
						t.Fatalf("%d links, step %d, port %s: per-switch %+v, central %+v", len(f.Links), step, f.PortName(vp.Port), got, want)
					}
				}
			}
			changed = changed || step > 0 && !slices.Equal(rec.ecns[step], rec.ecns[step-1])
		}
		if len(rec.tels) < 10 || !changed {
			t.Errorf("%d links: %d steps, settings changed: %v; the comparison shows little", len(f.Links), len(rec.tels), changed)
		}
	}
}

// wireAgents builds every switch's agent from its view.
func wireAgents(t *testing.T, m *gnn.Model, f *topo.Fabric) map[topo.NodeID]*wireAgent {
	agents := map[topo.NodeID]*wireAgent{}
	for _, n := range f.Switches() {
		v, err := gnn.NewSwitchView(f, n)
		if err != nil {
			t.Fatal(err)
		}
		ag, err := gnn.NewAgent(m, v, gnn.FeatureConfig{})
		if err != nil {
			t.Fatal(err)
		}
		wa := &wireAgent{ag: ag}
		for _, vp := range v.Ports {
			wa.rows = append(wa.rows, vp.Port)
		}
		wa.rows = append(wa.rows, wa.ag.Hosts()...)
		wa.tel.Ports = make([]control.PortSample, len(wa.rows))
		agents[n] = wa
	}
	return agents
}

// wireStep runs one control step of every agent on its share of tel,
// with its messages sent as frames, and returns the frames' bytes.
func wireStep(t *testing.T, agents map[topo.NodeID]*wireAgent, step uint32, tel *control.Telemetry, K int) int {
	t.Helper()
	for _, wa := range agents {
		wa.tel.Now, wa.tel.Interval = tel.Now, tel.Interval
		for j, p := range wa.rows {
			wa.tel.Ports[j] = tel.Ports[p]
		}
		wa.ag.Observe(&wa.tel)
		if wa.ag.Step() != step {
			t.Fatalf("agent of switch %d at step %d, want %d", wa.ag.View().Switch, wa.ag.Step(), step)
		}
	}
	var eth layers.Ethernet
	var msg agentmsg.Message
	parser := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &msg)
	var decoded []gopacket.LayerType
	total := 0
	for k := 1; k <= K; k++ {
		var frames []frame
		for _, wa := range agents {
			for i := range wa.ag.Sends() {
				from, to, h := wa.ag.Message(k, i)
				frames = append(frames, frame{to, wireFrame(t, step, k, from, h)})
			}
		}
		for i := len(frames) - 1; i >= 0; i-- {
			fr := frames[i]
			total += len(fr.bytes)
			if err := parser.DecodeLayers(fr.bytes, &decoded); err != nil {
				t.Fatal(err)
			}
			if eth.EthernetType != agentmsg.EtherType || msg.Step != step || int(msg.Round) != k {
				t.Fatalf("decoded EtherType %v, step %d, round %d; sent step %d, round %d", eth.EthernetType, msg.Step, msg.Round, step, k)
			}
			if err := agents[fr.to].ag.Receive(k, topo.PortID(msg.Port), msg.Vector); err != nil {
				t.Fatal(err)
			}
		}
		for _, wa := range agents {
			if err := wa.ag.Round(k); err != nil {
				t.Fatal(err)
			}
		}
	}
	return total
}

// wireFrame is the Ethernet frame of one message.
func wireFrame(t *testing.T, step uint32, k int, from topo.PortID, h []float32) []byte {
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: agentmsg.EtherType}
	msg := &agentmsg.Message{Version: agentmsg.Version, Round: uint8(k), Step: step, Port: uint32(from), Vector: h}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, eth, msg); err != nil {
		t.Fatal(err)
	}
	return slices.Clone(buf.Bytes())
}

// TestInbandEtherType: the agents' messages (agentmsg) travel on the
// EtherType the switch program hands to its controller (p4src).
func TestInbandEtherType(t *testing.T) {
	if uint16(agentmsg.EtherType) != p4src.EtherTypeInband {
		t.Errorf("agentmsg.EtherType %#x, the P4 program's in-band EtherType %#x", uint16(agentmsg.EtherType), p4src.EtherTypeInband)
	}
}
