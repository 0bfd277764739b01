package p4rt

import (
	"strings"
	"testing"

	p4configv1 "github.com/p4lang/p4runtime/go/p4/config/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"graphcc/p4src"
)

// testP4Info is the P4Info p4c made of graphcc.p4 (embedded in p4src).
func testP4Info(tb testing.TB) *P4Info {
	tb.Helper()
	info, err := ParseP4Info(p4src.P4Info)
	if err != nil {
		tb.Fatal(err)
	}
	return info
}

func findTable(p *p4configv1.P4Info, name string) *p4configv1.Table {
	for _, t := range p.Tables {
		if t.Preamble.Name == name {
			return t
		}
	}
	panic("no table " + name)
}

func findAction(p *p4configv1.P4Info, name string) *p4configv1.Action {
	for _, a := range p.Actions {
		if a.Preamble.Name == name {
			return a
		}
	}
	panic("no action " + name)
}

func findCounter(p *p4configv1.P4Info, name string) *p4configv1.Counter {
	for _, c := range p.Counters {
		if c.Preamble.Name == name {
			return c
		}
	}
	panic("no counter " + name)
}

func TestResolveP4Info(t *testing.T) {
	info := testP4Info(t)
	prefix := map[uint32]string{}
	check := func(what string, id uint32, want byte) {
		t.Helper()
		if byte(id>>24) != want {
			t.Errorf("%s id %#08x: prefix %#02x, want %#02x", what, id, id>>24, want)
		}
		if prev, ok := prefix[id]; ok {
			t.Errorf("%s and %s share id %#08x", what, prev, id)
		}
		prefix[id] = what
	}
	check("ipv4_route", info.IPv4Route, 0x02)
	check("ecmp_group", info.ECMPGroup, 0x02)
	check("ecn_settings", info.ECNSettings, 0x02)
	check("depth_bucket", info.DepthBucket, 0x02)
	check("set_port", info.SetPort, 0x01)
	check("set_group", info.SetGroup, 0x01)
	check("set_ecn", info.SetECN, 0x01)
	check("set_depth_bucket", info.SetDepthBucket, 0x01)
	check("rx_port", info.RxPort, 0x12)
	check("tx_port", info.TxPort, 0x12)
	check("marked_port", info.MarkedPort, 0x12)
	check("enq_depth", info.EnqDepth, 0x12)
	check("flow_starts", info.FlowStarts, 0x12)
	check("packet_out", info.PacketOut, 0x04)
	check("packet_in", info.PacketIn, 0x04)
	if info.MetaEgressPort == 0 || info.MetaIngressPort == 0 || len(info.outPad) != 1 {
		t.Errorf("packet metadata: egress_port %d, ingress_port %d, padding %v", info.MetaEgressPort, info.MetaIngressPort, info.outPad)
	}
	for _, id := range []uint32{info.FieldDstAddr, info.FieldGroup, info.FieldMember, info.FieldEgressPort, info.FieldEnqQdepth,
		info.ParamPort, info.ParamGroup, info.ParamGroupSize, info.ParamKMin, info.ParamKMax, info.ParamPMax, info.ParamBucket} {
		if id == 0 {
			t.Errorf("a field or param id is 0: %+v", info)
		}
	}
	if info.FieldGroup == info.FieldMember || info.ParamKMin == info.ParamKMax {
		t.Error("ids of one table's fields or one action's params coincide")
	}
	if got := info.Name(info.SetECN); got != "GraphccEgress.set_ecn" {
		t.Errorf("Name(set_ecn id) = %q", got)
	}
}

func TestResolveP4InfoErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*p4configv1.P4Info)
		want   string
	}{
		{"table missing", func(p *p4configv1.P4Info) {
			findTable(p, p4src.TableIPv4Route).Preamble.Name = "ipv4_lpm"
		}, "table GraphccIngress.ipv4_route: missing"},
		{"field renamed", func(p *p4configv1.P4Info) {
			findTable(p, p4src.TableDepthBucket).MatchFields[0].Name = "depth"
		}, "match field enq_qdepth: missing"},
		{"field width", func(p *p4configv1.P4Info) {
			findTable(p, p4src.TableECNSettings).MatchFields[0].Bitwidth = 16
		}, "match field egress_port is 16-bit"},
		{"field kind", func(p *p4configv1.P4Info) {
			findTable(p, p4src.TableIPv4Route).MatchFields[0].Match = &p4configv1.MatchField_MatchType_{MatchType: p4configv1.MatchField_EXACT}
		}, "match field dst_addr is 32-bit EXACT"},
		{"action missing", func(p *p4configv1.P4Info) {
			findAction(p, p4src.ActionSetECN).Preamble.Name = "set_red"
		}, "action GraphccEgress.set_ecn: missing"},
		{"param width", func(p *p4configv1.P4Info) {
			findAction(p, p4src.ActionSetECN).Params[2].Bitwidth = 16
		}, "param pmax_fixed is 16-bit"},
		{"param id 0", func(p *p4configv1.P4Info) {
			findAction(p, p4src.ActionSetPort).Params[0].Id = 0
		}, "param port: id 0"},
		{"counter size", func(p *p4configv1.P4Info) {
			findCounter(p, p4src.CounterEnqDepth).Size = 64
		}, "counter GraphccEgress.enq_depth"},
		{"counter missing", func(p *p4configv1.P4Info) {
			findCounter(p, p4src.CounterRxPort).Preamble.Name = "rx"
		}, "counter GraphccIngress.rx_port: missing"},
		{"flow starts missing", func(p *p4configv1.P4Info) {
			findCounter(p, p4src.CounterFlowStarts).Preamble.Name = "starts"
		}, "counter GraphccEgress.flow_starts: missing"},
		{"packet_out missing", func(p *p4configv1.P4Info) {
			findPacketHeader(p, p4src.PacketOutHeader).Preamble.Name = "to_switch"
		}, "controller packet metadata packet_out: missing"},
		{"ingress_port width", func(p *p4configv1.P4Info) {
			findPacketHeader(p, p4src.PacketInHeader).Metadata[0].Bitwidth = 16
		}, "controller packet metadata packet_in: ingress_port is 16-bit"},
		{"egress_port renamed", func(p *p4configv1.P4Info) {
			findPacketHeader(p, p4src.PacketOutHeader).Metadata[0].Name = "port"
		}, "controller packet metadata packet_out: egress_port: missing"},
		{"action not in table", func(p *p4configv1.P4Info) {
			t := findTable(p, p4src.TableECNSettings)
			t.ActionRefs = t.ActionRefs[1:]
		}, "table GraphccEgress.ecn_settings: action GraphccEgress.set_ecn"},
	}
	base := testP4Info(t).Proto
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pb := proto.Clone(base).(*p4configv1.P4Info)
			tc.mutate(pb)
			_, err := ResolveP4Info(pb)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Several problems are all named.
	pb := proto.Clone(base).(*p4configv1.P4Info)
	pb.Counters = nil
	_, err := ResolveP4Info(pb)
	for _, c := range []string{"rx_port", "tx_port", "marked_port", "enq_depth", "flow_starts"} {
		if err == nil || !strings.Contains(err.Error(), c) {
			t.Errorf("error %v does not name %s", err, c)
		}
	}
}

func TestParseP4InfoBinary(t *testing.T) {
	text := testP4Info(t)
	bin, err := proto.Marshal(text.Proto)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseP4Info(bin)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got.Proto, text.Proto) || got.SetECN != text.SetECN || got.EnqDepth != text.EnqDepth {
		t.Error("binary P4Info resolves differently from its text form")
	}
	if _, err := ParseP4Info([]byte("tables { preamble { id: ")); err == nil {
		t.Error("truncated text parsed")
	}
	if _, err := ParseP4Info([]byte{0xff, 0xfe, 0x01}); err == nil {
		t.Error("garbage parsed")
	}
}

// FuzzParseP4Info: any input is parsed or refused without panicking, and
// whatever parses survives a text round trip unchanged.
func FuzzParseP4Info(f *testing.F) {
	f.Add(p4src.P4Info)
	f.Add([]byte(""))
	f.Add([]byte(`tables { preamble { id: 1 name: "x" } match_fields { id: 1 bitwidth: 9 match_type: RANGE } }`))
	f.Fuzz(func(t *testing.T, data []byte) {
		pb, err := UnmarshalP4Info(data)
		if err != nil {
			return
		}
		info, rerr := ResolveP4Info(pb)
		if rerr == nil && info.IPv4Route == 0 {
			t.Fatal("resolved with a zero table id")
		}
		text, err := prototext.Marshal(pb)
		if err != nil {
			t.Fatal(err)
		}
		again, err := UnmarshalP4Info(text)
		if err != nil {
			t.Fatalf("re-parse of %q: %v", text, err)
		}
		// Unknown fields of a binary input have no text form: compare texts.
		if text2, _ := prototext.Marshal(again); string(text2) != string(text) {
			t.Fatalf("text round trip changed the P4Info:\n%s\n%s", text, text2)
		}
	})
}

func findPacketHeader(p *p4configv1.P4Info, name string) *p4configv1.ControllerPacketMetadata {
	for _, m := range p.GetControllerPacketMetadata() {
		if m.GetPreamble().GetName() == name {
			return m
		}
	}
	panic("no controller packet metadata " + name)
}
