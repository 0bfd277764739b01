package hostgen

import (
	"bytes"
	"errors"
	"net"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// A BTH written out by hand from the IBTA layout: SEND Only, SE, pad 2,
// TVer 0, P_Key 0xffff, FECN and BECN, QP 0x123456, AckReq, PSN 0xabcdef.
var goldenBTH = []byte{0x04, 0xa0, 0xff, 0xff, 0xc0, 0x12, 0x34, 0x56, 0x80, 0xab, 0xcd, 0xef}

var goldenFields = BTH{OpCode: OpSendOnly, SE: true, Pad: 2, PKey: 0xffff, FECN: true, BECN: true,
	DestQP: 0x123456, AckReq: true, PSN: 0xabcdef}

func sameFields(a, b *BTH) bool {
	return a.OpCode == b.OpCode && a.SE == b.SE && a.M == b.M && a.Pad == b.Pad && a.TVer == b.TVer &&
		a.PKey == b.PKey && a.FECN == b.FECN && a.BECN == b.BECN && a.DestQP == b.DestQP &&
		a.AckReq == b.AckReq && a.PSN == b.PSN
}

func TestBTHGolden(t *testing.T) {
	var b BTH
	if err := b.DecodeFromBytes(append(goldenBTH, 'x'), gopacket.NilDecodeFeedback); err != nil {
		t.Fatal(err)
	}
	if !sameFields(&b, &goldenFields) {
		t.Errorf("decoded %+v, want %+v", b, goldenFields)
	}
	if string(b.Payload) != "x" {
		t.Errorf("payload %q", b.Payload)
	}
	buf := gopacket.NewSerializeBuffer()
	if err := goldenFields.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), goldenBTH) {
		t.Errorf("serialized % x, want % x", buf.Bytes(), goldenBTH)
	}
}

// TestRoCEv2Frame builds Ethernet/IPv4/UDP 4791/BTH/payload and decodes it
// back through gopacket's registry.
func TestRoCEv2Frame(t *testing.T) {
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, TOS: 0x02, SrcIP: net.IP{10, 0, 0, 1}, DstIP: net.IP{10, 0, 0, 2}}
	udp := &layers.UDP{SrcPort: 49152, DstPort: RoCEv2Port}
	if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
		t.Fatal(err)
	}
	bth := &BTH{OpCode: OpCNP, PKey: 0xffff, DestQP: 7, PSN: 42, BECN: true}
	payload := gopacket.Payload(bytes.Repeat([]byte{0xab}, 1000))
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, udp, bth, payload); err != nil {
		t.Fatal(err)
	}
	frame := buf.Bytes()
	if len(frame) != 14+20+8+12+1000 {
		t.Fatalf("frame of %d bytes", len(frame))
	}
	p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	if el := p.ErrorLayer(); el != nil {
		t.Fatal(el.Error())
	}
	got, ok := p.Layer(LayerTypeBTH).(*BTH)
	if !ok {
		t.Fatalf("no BTH layer in %v", p)
	}
	if !sameFields(got, bth) {
		t.Errorf("decoded %+v, want %+v", got, bth)
	}
	if app := p.ApplicationLayer(); app == nil || !bytes.Equal(app.Payload(), payload) {
		t.Error("payload lost")
	}
	if ip4 := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ip4.TOS&3 != 2 {
		t.Errorf("ECN bits %d, want ECT(0)", ip4.TOS&3)
	}
}

func TestBTHRangeAndTruncation(t *testing.T) {
	for _, b := range []BTH{{Pad: 4}, {TVer: 16}, {DestQP: 1 << 24}, {PSN: 1 << 24}} {
		if err := b.SerializeTo(gopacket.NewSerializeBuffer(), gopacket.SerializeOptions{}); !errors.Is(err, errBTHRange) {
			t.Errorf("%+v: error %v, want a range error", b, err)
		}
	}
	p := gopacket.NewPacket(goldenBTH[:11], LayerTypeBTH, gopacket.Default)
	if p.ErrorLayer() == nil || !p.Metadata().Truncated {
		t.Error("an 11-byte BTH decoded without error")
	}
}

func FuzzDecodeBTH(f *testing.F) {
	f.Add(goldenBTH)
	f.Add(make([]byte, BTHLen))
	f.Fuzz(func(t *testing.T, data []byte) {
		var b BTH
		if err := b.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			if len(data) >= BTHLen {
				t.Fatalf("%d bytes refused: %v", len(data), err)
			}
			return
		}
		buf := gopacket.NewSerializeBuffer()
		if err := b.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
			t.Fatal(err)
		}
		// reserved bits are dropped; every other bit comes back
		want := append([]byte(nil), data[:BTHLen]...)
		want[4] &= 0xc0
		want[8] &= 0x80
		if !bytes.Equal(buf.Bytes(), want) {
			t.Fatalf("round trip % x -> % x", want, buf.Bytes())
		}
	})
}
