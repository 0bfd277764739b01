package agentmsg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// EtherType is the EtherType of an agent message: IEEE 802 local
// experimental ethertype 1, for use inside one network without
// registration.
const EtherType layers.EthernetType = 0x88B5

// Version is the format version this package writes and reads.
const Version = 1

// HeaderLen is the bytes before the hidden vector.
const HeaderLen = 12

// MaxVector is the most floats a message can carry (the 16-bit length).
const MaxVector = math.MaxUint16

// LayerTypeMessage is the gopacket layer type of an agent message (an
// application layer type id, 1000–1999).
var LayerTypeMessage = gopacket.RegisterLayerType(1885, gopacket.LayerTypeMetadata{Name: "AgentMessage", Decoder: gopacket.DecodeFunc(decodeMessage)})

func init() {
	layers.EthernetTypeMetadata[EtherType] = layers.EnumMetadata{
		DecodeWith: gopacket.DecodeFunc(decodeMessage), Name: "AgentMessage", LayerType: LayerTypeMessage,
	}
}

// Message is one hidden state sent from one switch's agent to its
// neighbour's, over the link it describes:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|    Version    |     Round     |         Vector length         |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                          Control step                         |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                          Sending port                         |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|            Hidden vector: Vector length × float32             |
//	|                         (IEEE 754, big-endian)                ...
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Every field is big-endian. The sending port is the topo.PortID of the
// sender's egress port, the fabric-wide name of the link and its
// direction that every agent's view uses; the receiver's ingress port is
// the same PortID. Round k carries h^{k-1}: in round 1 the port's
// features (the model's Features floats), after it Hidden floats.
// Bytes after the vector (Ethernet padding) are the layer's payload.
type Message struct {
	layers.BaseLayer
	Version uint8
	Round   uint8
	Step    uint32    // the control step, counted from 0 by the sender
	Port    uint32    // the sending port, a topo.PortID
	Vector  []float32 // the hidden state; decoding reuses its storage
}

// LayerType returns LayerTypeMessage.
func (m *Message) LayerType() gopacket.LayerType { return LayerTypeMessage }

// CanDecode returns LayerTypeMessage.
func (m *Message) CanDecode() gopacket.LayerClass { return LayerTypeMessage }

// NextLayerType returns the payload layer (Ethernet padding, if any).
func (m *Message) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// Len returns the bytes the message occupies: HeaderLen and 4 per float.
func (m *Message) Len() int { return HeaderLen + 4*len(m.Vector) }

// DecodeFromBytes decodes a message from data, reusing m.Vector's storage.
// Data shorter than the header or than the vector it announces is an error
// and marks the packet truncated; a version other than Version is an
// error.
func (m *Message) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < HeaderLen {
		df.SetTruncated()
		return fmt.Errorf("agent message: %d bytes, want at least the %d of the header", len(data), HeaderLen)
	}
	if data[0] != Version {
		return fmt.Errorf("agent message: version %d, want %d", data[0], Version)
	}
	n := int(binary.BigEndian.Uint16(data[2:4]))
	end := HeaderLen + 4*n
	if len(data) < end {
		df.SetTruncated()
		return fmt.Errorf("agent message: %d bytes, the header announces %d floats (%d bytes)", len(data), n, end)
	}
	m.Version, m.Round = data[0], data[1]
	m.Step = binary.BigEndian.Uint32(data[4:8])
	m.Port = binary.BigEndian.Uint32(data[8:12])
	if cap(m.Vector) < n {
		m.Vector = make([]float32, n)
	}
	m.Vector = m.Vector[:n]
	for i := range m.Vector {
		o := HeaderLen + 4*i
		m.Vector[i] = math.Float32frombits(binary.BigEndian.Uint32(data[o : o+4]))
	}
	m.Contents, m.Payload = data[:end], data[end:]
	return nil
}

var errRange = errors.New("agent message: field out of range")

// SerializeTo writes the whole message in front of buf's contents; it
// refuses a version other than Version and a vector longer than
// MaxVector.
func (m *Message) SerializeTo(buf gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	switch {
	case m.Version != Version:
		return fmt.Errorf("%w: version %d, this package writes %d", errRange, m.Version, Version)
	case len(m.Vector) > MaxVector:
		return fmt.Errorf("%w: %d floats, at most %d", errRange, len(m.Vector), MaxVector)
	}
	d, err := buf.PrependBytes(m.Len()) // not zeroed: every byte is written below
	if err != nil {
		return err
	}
	d[0], d[1] = m.Version, m.Round
	binary.BigEndian.PutUint16(d[2:4], uint16(len(m.Vector)))
	binary.BigEndian.PutUint32(d[4:8], m.Step)
	binary.BigEndian.PutUint32(d[8:12], m.Port)
	for i, v := range m.Vector {
		o := HeaderLen + 4*i
		binary.BigEndian.PutUint32(d[o:o+4], math.Float32bits(v))
	}
	return nil
}

func decodeMessage(data []byte, p gopacket.PacketBuilder) error {
	m := &Message{}
	if err := m.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(m)
	return p.NextDecoder(m.NextLayerType())
}
