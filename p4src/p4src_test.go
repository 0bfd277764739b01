package p4src

import (
	"fmt"
	"math/bits"
	"regexp"
	"strings"
	"testing"

	"graphcc/control"
)

// The Go constants and the P4 source must agree: p4c derives the P4Info
// names from these declarations.
func TestNamesDeclared(t *testing.T) {
	// control type name -> its body
	bodies := map[string]string{}
	for _, ctl := range []string{"GraphccIngress", "GraphccEgress"} {
		i := strings.Index(Source, "control "+ctl+"(")
		if i < 0 {
			t.Fatalf("control %s not in graphcc.p4", ctl)
		}
		body := Source[i:]
		if j := strings.Index(body[1:], "\ncontrol "); j >= 0 {
			body = body[:j+1]
		}
		bodies[ctl] = body
	}
	decl := func(kind, qualified string) {
		t.Helper()
		ctl, name, ok := strings.Cut(qualified, ".")
		if !ok {
			t.Errorf("%s %s is not qualified by its control", kind, qualified)
			return
		}
		re := regexp.MustCompile(`(?m)^\s*` + kind + `\s+` + regexp.QuoteMeta(name) + `\b`)
		if kind == "counter" {
			re = regexp.MustCompile(`(?m)^\s*counter\(.*\)\s+` + regexp.QuoteMeta(name) + `;`)
		}
		if !re.MatchString(bodies[ctl]) {
			t.Errorf("%s %s not declared in control %s", kind, name, ctl)
		}
	}
	for _, tb := range []string{TableIPv4Route, TableECMPGroup, TableECNSettings, TableDepthBucket} {
		decl("table", tb)
	}
	for _, a := range []string{ActionSetPort, ActionSetGroup, ActionDrop, ActionSetECN, ActionSetDepthBucket} {
		decl("action", a)
	}
	for _, c := range []string{CounterRxPort, CounterTxPort, CounterMarkedPort, CounterEnqDepth, CounterFlowStarts} {
		decl("counter", c)
	}
	for _, f := range []string{FieldDstAddr, FieldGroup, FieldMember, FieldEgressPort, FieldEnqQdepth} {
		if !strings.Contains(Source, `@name("`+f+`")`) {
			t.Errorf("match field %s: no @name in graphcc.p4", f)
		}
	}
	params := map[string][]string{
		ActionSetPort:        {"bit<9> " + ParamPort},
		ActionSetGroup:       {"bit<16> " + ParamGroup, "bit<16> " + ParamGroupSize},
		ActionSetECN:         {"bit<32> " + ParamKMinBytes, "bit<32> " + ParamKMaxBytes, "bit<17> " + ParamPMaxFixed},
		ActionSetDepthBucket: {"bit<8> " + ParamBucket},
	}
	for a, ps := range params {
		_, name, _ := strings.Cut(a, ".")
		i := strings.Index(Source, "action "+name+"(")
		j := strings.Index(Source[i:], ")")
		sig := Source[i : i+j]
		for _, p := range ps {
			if !strings.Contains(sig, p) {
				t.Errorf("action %s: no parameter %q in %q", a, p, sig)
			}
		}
	}
}

func TestSizesAgree(t *testing.T) {
	if DepthBuckets != control.DepthBuckets {
		t.Errorf("DepthBuckets %d, control.DepthBuckets %d", DepthBuckets, control.DepthBuckets)
	}
	if QueuePacketBytes != control.QueuePacketBytes {
		t.Errorf("QueuePacketBytes %d, control.QueuePacketBytes %d", QueuePacketBytes, control.QueuePacketBytes)
	}
	if PSNBits != control.PSNBits {
		t.Errorf("PSNBits %d, control.PSNBits %d", PSNBits, control.PSNBits)
	}
	if PMaxOne >= 1<<PMaxBits || PMaxOne < 1<<(PMaxBits-1) {
		t.Errorf("PMaxOne %d does not need exactly %d bits", PMaxOne, PMaxBits)
	}
	for _, want := range []string{
		fmt.Sprintf("#define PORT_SLOTS %d\n", PortSlots),
		fmt.Sprintf("#define DEPTH_BUCKETS %d\n", DepthBuckets),
		fmt.Sprintf("const bit<64> QUEUE_PACKET_BYTES = %d;", QueuePacketBytes),
		fmt.Sprintf("pmax_fixed is the probability at kmax times 2^%d", bits.Len(PMaxOne)-1),
		fmt.Sprintf("const bit<16> ROCEV2_PORT    = %d;", RoCEv2Port),
		fmt.Sprintf("bit<%d> psn;", PSNBits),
		"hdr.bth.psn == 0",
		fmt.Sprintf("const bit<16> ETHERTYPE_GRAPHCC = 0x%04X;", EtherTypeInband),
		fmt.Sprintf("#define CPU_PORT %d\n", CPUPort),
		fmt.Sprintf("@controller_header(%q)\nheader packet_out_t {\n    bit<%d> %s;", PacketOutHeader, PortBits, MetaEgressPort),
		fmt.Sprintf("@controller_header(%q)\nheader packet_in_t {\n    bit<%d> %s;", PacketInHeader, PortBits, MetaIngressPort),
	} {
		if !strings.Contains(Source, want) {
			t.Errorf("graphcc.p4 lacks %q", want)
		}
	}
}
