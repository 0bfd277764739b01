package hostgen

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

var (
	macA = [6]byte{0x02, 0, 0, 0, 0, 0x0a}
	macF = [6]byte{0x02, 0xfa, 0xb0, 0, 0, 1}
	ipA  = netip.MustParseAddr("10.0.0.1")
	ipB  = netip.MustParseAddr("10.0.0.2")
)

func dataFrame(qp uint32, off int64, n int) Frame {
	return Frame{Kind: KindData, SrcMAC: macA, DstMAC: macF, SrcIP: ipA, DstIP: ipB, ECN: ECNCapable,
		SPort: 10000, QP: qp, PSN: psnOf(off), Offset: off, Len: n}
}

func ctlFrame(k Kind, qp, psn uint32) Frame {
	return Frame{Kind: k, SrcMAC: macA, DstMAC: macF, SrcIP: ipB, DstIP: ipA, SPort: 10001, QP: qp, PSN: psn}
}

// ipv4ChecksumOK reports whether the IPv4 header h sums to 0xffff.
func ipv4ChecksumOK(h []byte) bool {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return sum == 0xffff
}

func TestFrameRoundTrip(t *testing.T) {
	ce := dataFrame(7, 3000, 1000)
	ce.ECN = ECNCE
	for _, tc := range []struct {
		name string
		f    Frame
		len  int
	}{
		{"full data", dataFrame(1, 0, 1000), 1048},
		{"data 1 B", dataFrame(2, 4000, 1), 70},
		{"data 22 B", dataFrame(3, 1000, 22), 70},
		{"data 23 B", dataFrame(4, 1000, 23), 71},
		{"data past 2^24 segments", dataFrame(0xffffff, 20_000_000_000, 1000), 1048},
		{"CE data", ce, 1048},
		{"ack", ctlFrame(KindACK, 5, 0xabcdef), AckFrameLen},
		{"nack", ctlFrame(KindNACK, 5, 17), AckFrameLen},
		{"cnp", ctlFrame(KindCNP, 9, 0), CNPFrameLen},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewEncoder().Encode(&tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) != tc.len {
				t.Errorf("frame of %d bytes, want %d", len(b), tc.len)
			}
			if tc.f.Kind == KindData && len(b) != DataFrameLen(tc.f.Len) {
				t.Errorf("frame of %d bytes, DataFrameLen says %d", len(b), DataFrameLen(tc.f.Len))
			}
			var got Frame
			if err := NewDecoder().Decode(b, &got); err != nil {
				t.Fatal(err)
			}
			if got != tc.f {
				t.Errorf("decoded %+v, want %+v", got, tc.f)
			}
			checkWire(t, b, &tc.f)
		})
	}
}

// checkWire checks the frame's fixed fields through gopacket's own decoders.
func checkWire(t *testing.T, b []byte, f *Frame) {
	t.Helper()
	p := gopacket.NewPacket(b, layers.LayerTypeEthernet, gopacket.Default)
	if el := p.ErrorLayer(); el != nil {
		t.Fatal(el.Error())
	}
	ip := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
	udp := p.Layer(layers.LayerTypeUDP).(*layers.UDP)
	bth, ok := p.Layer(LayerTypeBTH).(*BTH)
	if !ok {
		t.Fatal("no BTH")
	}
	if ip.TTL != 64 || ip.Flags != layers.IPv4DontFragment || ip.TOS != f.ECN || ip.IHL != 5 {
		t.Errorf("IPv4 TTL %d flags %v TOS %#x IHL %d", ip.TTL, ip.Flags, ip.TOS, ip.IHL)
	}
	if !ipv4ChecksumOK(b[14:34]) {
		t.Error("bad IPv4 checksum")
	}
	if udp.Checksum != 0 || udp.DstPort != RoCEv2Port || uint16(udp.SrcPort) != f.SPort {
		t.Errorf("UDP %d -> %d checksum %#x", udp.SrcPort, udp.DstPort, udp.Checksum)
	}
	want := map[Kind]uint8{KindData: OpSendOnly, KindACK: OpAcknowledge, KindNACK: OpAcknowledge, KindCNP: OpCNP}[f.Kind]
	if bth.OpCode != want || bth.AckReq != (f.Kind == KindData) || bth.BECN != (f.Kind == KindCNP) || bth.PKey != 0xffff {
		t.Errorf("BTH %+v", bth)
	}
	if f.Kind == KindCNP && !bytes.Equal(bth.Payload, make([]byte, 16)) {
		t.Errorf("CNP payload % x, want 16 zero bytes", bth.Payload)
	}
	if f.Kind == KindData && int(ip.Length) != len(b)-14 {
		t.Errorf("IPv4 length %d in a %d-byte frame", ip.Length, len(b))
	}
}

func TestDecodeRejects(t *testing.T) {
	enc := NewEncoder()
	mk := func(f Frame) []byte {
		b, err := enc.Encode(&f)
		if err != nil {
			t.Fatal(err)
		}
		return append([]byte(nil), b...)
	}
	data := mk(dataFrame(3, 2000, 1000))
	corrupt := append([]byte(nil), data...)
	corrupt[500] ^= 1
	otherPort := append([]byte(nil), data...)
	otherPort[36], otherPort[37] = 0x12, 0x34 // UDP destination
	arp := append([]byte(nil), data...)
	arp[12], arp[13] = 0x08, 0x06
	qpMismatch := append([]byte(nil), data...)
	qpMismatch[54+3] ^= 1 // sequence header's queue pair
	badAETH := mk(ctlFrame(KindACK, 1, 1))
	badAETH[54] = 0x20
	badOp := mk(ctlFrame(KindCNP, 1, 0))
	badOp[42] = 0x0a
	frag := append([]byte(nil), data...)
	frag[20] |= 0x20 // more fragments
	for _, tc := range []struct {
		name string
		b    []byte
		want error // nil: any error
	}{
		{"corrupt content", corrupt, ErrCorrupt},
		{"not UDP 4791", otherPort, ErrNotRoCE},
		{"not IPv4", arp, ErrNotRoCE},
		{"truncated", data[:600], nil},
		{"queue pair mismatch", qpMismatch, nil},
		{"AETH syndrome", badAETH, nil},
		{"opcode", badOp, nil},
		{"fragment", frag, nil},
		{"empty", nil, nil},
	} {
		var f Frame
		err := NewDecoder().Decode(tc.b, &f)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	for _, f := range []Frame{
		{},
		func() Frame { f := dataFrame(1, 0, 0); return f }(),
		func() Frame { f := dataFrame(1, 0, 1001); return f }(),
		func() Frame { f := dataFrame(1<<24, 0, 10); return f }(),
		func() Frame { f := dataFrame(1, -1000, 10); return f }(),
		func() Frame { f := ctlFrame(KindACK, 1, 1<<24); return f }(),
		func() Frame { f := ctlFrame(KindCNP, 1, 0); f.ECN = 4; return f }(),
		func() Frame { f := ctlFrame(KindCNP, 1, 0); f.DstIP = netip.MustParseAddr("::1"); return f }(),
	} {
		if _, err := NewEncoder().Encode(&f); err == nil {
			t.Errorf("%+v encoded", f)
		}
	}
}

// TestFrameNoAllocs pins the packet path: encoding and decoding reuse
// their buffers and layers.
func TestFrameNoAllocs(t *testing.T) {
	enc, dec := NewEncoder(), NewDecoder()
	frames := []Frame{dataFrame(1, 5000, 1000), ctlFrame(KindACK, 1, 4), ctlFrame(KindNACK, 1, 4), ctlFrame(KindCNP, 1, 0)}
	var got Frame
	for _, f := range frames {
		f := f
		if n := testing.AllocsPerRun(100, func() {
			b, err := enc.Encode(&f)
			if err != nil {
				t.Fatal(err)
			}
			if err := dec.Decode(b, &got); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%v: %v allocations per encode and decode", f.Kind, n)
		}
	}
}

func FuzzDecodeFrame(f *testing.F) {
	enc := NewEncoder()
	for _, fr := range []Frame{dataFrame(1, 0, 1000), dataFrame(2, 7000, 5), ctlFrame(KindACK, 3, 9),
		ctlFrame(KindNACK, 3, 9), ctlFrame(KindCNP, 4, 0)} {
		b, err := enc.Encode(&fr)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte(nil), b...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := NewDecoder()
		var fr Frame
		if err := dec.Decode(data, &fr); err != nil {
			return
		}
		b, err := NewEncoder().Encode(&fr)
		if err != nil {
			t.Fatalf("decoded %+v does not encode: %v", fr, err)
		}
		var again Frame
		if err := dec.Decode(b, &again); err != nil {
			t.Fatalf("re-encoded %+v does not decode: %v", fr, err)
		}
		if again != fr {
			t.Fatalf("round trip %+v -> %+v", fr, again)
		}
		want := map[Kind]int{KindACK: AckFrameLen, KindNACK: AckFrameLen, KindCNP: CNPFrameLen, KindData: DataFrameLen(fr.Len)}[fr.Kind]
		if len(b) != want {
			t.Fatalf("%v frame of %d bytes, want %d", fr.Kind, len(b), want)
		}
	})
}
