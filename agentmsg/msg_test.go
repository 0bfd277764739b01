package agentmsg

import (
	"bytes"
	"math"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// A message written out by hand from the layout: version 1, round 2, two
// floats, step 0x01020304, port 42, vector [1, -2.5].
var golden = []byte{
	0x01, 0x02, 0x00, 0x02,
	0x01, 0x02, 0x03, 0x04,
	0x00, 0x00, 0x00, 0x2a,
	0x3f, 0x80, 0x00, 0x00, // 1.0
	0xc0, 0x20, 0x00, 0x00, // -2.5
}

var goldenFields = Message{Version: 1, Round: 2, Step: 0x01020304, Port: 42, Vector: []float32{1, -2.5}}

// sameFields compares every field, the vector bit for bit.
func sameFields(a, b *Message) bool {
	return a.Version == b.Version && a.Round == b.Round && a.Step == b.Step && a.Port == b.Port &&
		slices.EqualFunc(a.Vector, b.Vector, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

func TestGolden(t *testing.T) {
	var m Message
	if err := m.DecodeFromBytes(append(slices.Clone(golden), 'x'), gopacket.NilDecodeFeedback); err != nil {
		t.Fatal(err)
	}
	if !sameFields(&m, &goldenFields) {
		t.Errorf("decoded %+v, want %+v", m, goldenFields)
	}
	if string(m.Payload) != "x" || !bytes.Equal(m.Contents, golden) {
		t.Errorf("contents % x, payload %q", m.Contents, m.Payload)
	}
	buf := gopacket.NewSerializeBuffer()
	if err := goldenFields.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), golden) {
		t.Errorf("serialized % x, want % x", buf.Bytes(), golden)
	}
	if goldenFields.Len() != len(golden) {
		t.Errorf("Len %d, want %d", goldenFields.Len(), len(golden))
	}
}

// TestEthernetFrame builds Ethernet/AgentMessage (padded to Ethernet's
// 60-byte minimum when short) and decodes it back through gopacket's registry (the
// EtherType) and through a DecodingLayerParser.
func TestEthernetFrame(t *testing.T) {
	for _, n := range []int{1, 9, 24} {
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: EtherType}
		msg := &Message{Version: Version, Round: 1, Step: 7, Port: 17, Vector: make([]float32, n)}
		for i := range msg.Vector {
			msg.Vector[i] = float32(i) - 0.25
		}
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, eth, msg); err != nil {
			t.Fatal(err)
		}
		frame := buf.Bytes() // gopacket's Ethernet pads to the 60-byte minimum
		pad := max(0, 60-(14+HeaderLen+4*n))
		if want := 14 + HeaderLen + 4*n + pad; len(frame) != want {
			t.Fatalf("%d floats: frame of %d bytes, want %d", n, len(frame), want)
		}

		pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
		if el := pkt.ErrorLayer(); el != nil {
			t.Fatalf("%d floats: %v", n, el.Error())
		}
		got, ok := pkt.Layer(LayerTypeMessage).(*Message)
		if !ok {
			t.Fatalf("%d floats: no message layer in %v", n, pkt)
		}
		if !sameFields(got, msg) || len(got.Payload) != pad {
			t.Errorf("%d floats: decoded %+v with %d bytes of payload, want %+v and %d", n, got, len(got.Payload), msg, pad)
		}

		var deth layers.Ethernet
		var dmsg Message
		var payload gopacket.Payload
		parser := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &deth, &dmsg, &payload)
		decoded := []gopacket.LayerType{}
		if err := parser.DecodeLayers(frame, &decoded); err != nil {
			t.Fatalf("%d floats: parser: %v", n, err)
		}
		if len(decoded) < 2 || decoded[1] != LayerTypeMessage || !sameFields(&dmsg, msg) {
			t.Errorf("%d floats: parser decoded %v, message %+v", n, decoded, dmsg)
		}
	}
}

// truncation records whether SetTruncated was called.
type truncation bool

func (tr *truncation) SetTruncated() { *tr = true }

// TestRangeAndTruncation: short input is an error that marks the packet
// truncated; an unknown version and an over-long vector are refused.
func TestRangeAndTruncation(t *testing.T) {
	badVersion := slices.Clone(golden)
	badVersion[0] = 2
	for _, tc := range []struct {
		name      string
		data      []byte
		truncated bool
		want      string
	}{
		{"empty", nil, true, "0 bytes"},
		{"header", golden[:HeaderLen-1], true, "11 bytes"},
		{"vector", golden[:len(golden)-1], true, "announces 2 floats"},
		{"version", badVersion, false, "version 2"},
		{"no floats", append([]byte{1, 1, 0, 0}, make([]byte, 8)...), false, ""},
	} {
		var m Message
		var tr truncation
		err := m.DecodeFromBytes(tc.data, &tr)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) || bool(tr) != tc.truncated {
			t.Errorf("%s: error %v, truncated %v; want %q, %v", tc.name, err, tr, tc.want, tc.truncated)
		}
	}
	for _, m := range []Message{{Version: 0}, {Version: Version, Vector: make([]float32, MaxVector+1)}} {
		if err := m.SerializeTo(gopacket.NewSerializeBuffer(), gopacket.SerializeOptions{}); err == nil {
			t.Errorf("version %d, %d floats: serialized", m.Version, len(m.Vector))
		}
	}
}

// TestDecodeReusesVector: decoding into a message whose vector has room
// does not allocate.
func TestDecodeReusesVector(t *testing.T) {
	m := Message{Vector: make([]float32, 0, 24)}
	if n := testing.AllocsPerRun(100, func() {
		if err := m.DecodeFromBytes(golden, gopacket.NilDecodeFeedback); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("DecodeFromBytes allocates %.1f times", n)
	}
}

// FuzzDecodeMessage: whatever decodes serializes back to the bytes it was
// decoded from (NaN payloads included), and nothing panics.
func FuzzDecodeMessage(f *testing.F) {
	f.Add(golden)
	f.Add(golden[:5])
	f.Add(append([]byte{1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}, 0x7f, 0x80, 0x00, 0x01))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Message
		if err := m.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			return
		}
		buf := gopacket.NewSerializeBuffer()
		if err := m.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
			t.Fatalf("decoded %+v does not serialize: %v", m, err)
		}
		if !bytes.Equal(buf.Bytes(), data[:m.Len()]) {
			t.Fatalf("round trip % x, want % x", buf.Bytes(), data[:m.Len()])
		}
	})
}
