package hostgen

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// RoCEv2Port is the UDP destination port of RoCEv2.
const RoCEv2Port = 4791

// BTH opcodes graphcc uses (IBTA vol. 1, 9.2; RoCEv2 annex A17).
const (
	OpSendOnly    uint8 = 0x04 // RC SEND Only: a data packet
	OpAcknowledge uint8 = 0x11 // RC Acknowledge
	OpCNP         uint8 = 0x81 // RoCEv2 congestion notification packet
)

// LayerTypeBTH is the gopacket layer type of the BTH (an application layer
// type id, 1000–1999).
var LayerTypeBTH = gopacket.RegisterLayerType(1791, gopacket.LayerTypeMetadata{Name: "BTH", Decoder: gopacket.DecodeFunc(decodeBTH)})

func init() {
	layers.RegisterUDPPortLayerType(RoCEv2Port, LayerTypeBTH)
}

// BTHLen is the length of a Base Transport Header.
const BTHLen = 12

// BTH is the InfiniBand Base Transport Header:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|    OpCode     |S|M|Pad|  TVer |           Partition Key       |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|F|B|  Resv6    |          Destination QP                       |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|A|   Resv7     |          Packet Sequence Number               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
type BTH struct {
	layers.BaseLayer
	OpCode uint8
	SE     bool   // solicited event
	M      bool   // migration state
	Pad    uint8  // pad count, 2 bits
	TVer   uint8  // transport header version, 4 bits
	PKey   uint16 // partition key
	FECN   bool   // forward explicit congestion notification
	BECN   bool   // backward explicit congestion notification
	DestQP uint32 // destination queue pair, 24 bits
	AckReq bool   // acknowledge request
	PSN    uint32 // packet sequence number, 24 bits
}

// LayerType returns LayerTypeBTH.
func (b *BTH) LayerType() gopacket.LayerType { return LayerTypeBTH }

// CanDecode returns LayerTypeBTH.
func (b *BTH) CanDecode() gopacket.LayerClass { return LayerTypeBTH }

// NextLayerType returns the payload layer.
func (b *BTH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes a BTH from data; data shorter than BTHLen is an
// error and marks the packet truncated.
func (b *BTH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < BTHLen {
		df.SetTruncated()
		return fmt.Errorf("bth: %d bytes, want at least %d", len(data), BTHLen)
	}
	b.OpCode = data[0]
	b.SE = data[1]&0x80 != 0
	b.M = data[1]&0x40 != 0
	b.Pad = data[1] >> 4 & 0x3
	b.TVer = data[1] & 0x0f
	b.PKey = binary.BigEndian.Uint16(data[2:4])
	b.FECN = data[4]&0x80 != 0
	b.BECN = data[4]&0x40 != 0
	b.DestQP = uint32(data[5])<<16 | uint32(data[6])<<8 | uint32(data[7])
	b.AckReq = data[8]&0x80 != 0
	b.PSN = uint32(data[9])<<16 | uint32(data[10])<<8 | uint32(data[11])
	b.Contents, b.Payload = data[:BTHLen], data[BTHLen:]
	return nil
}

var errBTHRange = errors.New("bth: field out of range")

// SerializeTo writes all 12 bytes of the header in front of b's buffer; it
// refuses fields wider than their bits.
func (b *BTH) SerializeTo(buf gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	switch {
	case b.Pad > 3:
		return fmt.Errorf("%w: pad count %d does not fit 2 bits", errBTHRange, b.Pad)
	case b.TVer > 15:
		return fmt.Errorf("%w: tver %d does not fit 4 bits", errBTHRange, b.TVer)
	case b.DestQP >= 1<<24:
		return fmt.Errorf("%w: dest qp %#x does not fit 24 bits", errBTHRange, b.DestQP)
	case b.PSN >= 1<<24:
		return fmt.Errorf("%w: psn %#x does not fit 24 bits", errBTHRange, b.PSN)
	}
	d, err := buf.PrependBytes(BTHLen) // not zeroed: every byte is written below
	if err != nil {
		return err
	}
	d[0] = b.OpCode
	d[1] = flag(b.SE, 0x80) | flag(b.M, 0x40) | b.Pad<<4 | b.TVer
	binary.BigEndian.PutUint16(d[2:4], b.PKey)
	d[4] = flag(b.FECN, 0x80) | flag(b.BECN, 0x40)
	d[5], d[6], d[7] = byte(b.DestQP>>16), byte(b.DestQP>>8), byte(b.DestQP)
	d[8] = flag(b.AckReq, 0x80)
	d[9], d[10], d[11] = byte(b.PSN>>16), byte(b.PSN>>8), byte(b.PSN)
	return nil
}

func flag(v bool, bit uint8) uint8 {
	if v {
		return bit
	}
	return 0
}

func decodeBTH(data []byte, p gopacket.PacketBuilder) error {
	b := &BTH{}
	if err := b.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(b)
	return p.NextDecoder(b.NextLayerType())
}
