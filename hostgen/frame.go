package hostgen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"graphcc/trace"
)

// This file is the testbed's frames: data segments, ACKs, NACKs and CNPs as
// Ethernet / IPv4 / UDP 4791 / BTH, encoded and decoded through gopacket's
// layers with one reusable buffer and parser each.
//
// A data frame stands for a segment of Len flow bytes, counted as the
// simulator counts payload: a full segment is SegmentPayload (1000) bytes and
// its frame is 1048 bytes on the wire, the simulator's full packet. The
// simulator's 48 bytes of headers are 14 Ethernet + 20 IPv4 + 8 UDP + 6
// sequence bytes; here the transport headers after UDP are the 12-byte BTH and
// a 16-byte sequence header, 28 bytes, so 22 of a segment's Len bytes ride in
// them and Len-22 bytes of content follow:
//
//	14 Ethernet | 20 IPv4 | 8 UDP | 12 BTH | 16 sequence header | Len-22 content
//	\________ 42 ________/                                          (1048 for Len 1000)
//
// so the frame is Len+48 bytes, as in the simulator, for Len >= 22; shorter
// segments (only a flow's last one can be) still carry the whole sequence
// header and make a 70-byte frame. The sequence header is the queue pair
// (4 bytes), the segment's byte offset in the flow (8) and Len (4), big
// endian. Content byte k is a fixed pattern of the queue pair and the flow
// position Offset+k, so a receiver can check every byte it is given.
//
// The BTH of a data frame is SEND Only with AckReq, DestQP = the flow's queue
// pair and PSN = segment index mod 2^24 (all segments but a flow's last are
// full). An ACK or NACK is an RC Acknowledge with an AETH (4 bytes: syndrome,
// 24-bit MSN 0): syndrome 0x1f (ACK, no credit count) carries in its BTH PSN
// the last segment received in order; syndrome 0x60 (NAK, PSN sequence error)
// carries the segment expected next. Both make a 60-byte frame (58 padded),
// the simulator's ACK size. A CNP is opcode 0x81 with BECN set, DestQP = the
// flow's queue pair, PSN 0 and 16 reserved zero bytes (RoCEv2 annex A17.9),
// 70 bytes. Data frames are ECT(0) unless marked; ACKs, NACKs and CNPs are
// not ECN-capable. Every frame has DF set, TTL 64, IPv4 ID 0, a correct IPv4
// checksum and a UDP checksum of 0 (allowed for RoCEv2 over IPv4), and goes
// from UDP port SPort (the flow's) to RoCEv2Port.

// Segment and frame sizes.
const (
	// SegmentPayload is the flow bytes of a full data segment, the
	// simulator's payload per packet.
	SegmentPayload = trace.StandalonePayload
	// SegmentOverhead is what a data frame adds to its segment's flow bytes
	// on the wire, the simulator's header bytes per packet (for segments of
	// at least seqInHeaders bytes).
	SegmentOverhead = trace.StandaloneHeader
	// MaxFrameLen is the length of a full data frame, 1048 bytes.
	MaxFrameLen = SegmentPayload + SegmentOverhead
	// SeqHeaderLen is the length of the sequence header of a data frame.
	SeqHeaderLen = 16
	// AckFrameLen is the length of an ACK or NACK frame (Ethernet minimum).
	AckFrameLen = 60
	// CNPFrameLen is the length of a CNP frame.
	CNPFrameLen = headersLen + cnpPayloadLen
)

const (
	headersLen    = 14 + 20 + 8 + BTHLen // Ethernet, IPv4, UDP, BTH: 54
	aethLen       = 4
	cnpPayloadLen = 16
	// seqInHeaders is the part of a segment's flow bytes carried by the BTH
	// and the sequence header beyond the simulator's 48 header bytes.
	seqInHeaders = headersLen + SeqHeaderLen - SegmentOverhead // 22
	minDataFrame = headersLen + SeqHeaderLen                   // 70

	syndromeACK = 0x1f // ACK, invalid credit count (none advertised)
	syndromeNAK = 0x60 // NAK, PSN sequence error

	ecnMask = 0x03
	psnMask = 1<<24 - 1
)

// IPv4 ECN codepoints the hosts send and read.
const (
	// ECNCapable is ECT(0), the codepoint of every data frame sent.
	ECNCapable = 0x02
	// ECNCE is Congestion Experienced, set by a marking switch.
	ECNCE = 0x03
)

// DataFrameLen returns the wire length of a data frame for a segment of n
// flow bytes: n+48 (SegmentOverhead), but at least 70.
func DataFrameLen(n int) int {
	return max(n+SegmentOverhead, minDataFrame)
}

// contentLen returns the content bytes of a segment of n flow bytes.
func contentLen(n int) int { return max(n-seqInHeaders, 0) }

// Kind is what a frame is to the transport.
type Kind uint8

// Frame kinds.
const (
	KindData Kind = iota + 1 // a data segment: SEND Only
	KindACK                  // a cumulative acknowledgement: Acknowledge, AETH ACK
	KindNACK                 // a go-back-N request: Acknowledge, AETH NAK (PSN sequence error)
	KindCNP                  // a congestion notification: RoCEv2 CNP
)

var kindNames = [...]string{"invalid", "data", "ack", "nack", "cnp"}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Frame is the content of one testbed frame, in the form Encoder writes and
// Decoder reads it (see the file comment for the layout).
type Frame struct {
	Kind           Kind
	SrcMAC, DstMAC [6]byte
	SrcIP, DstIP   netip.Addr // IPv4
	ECN            uint8      // IPv4 ECN codepoint, 0..3
	SPort          uint16     // UDP source port (the destination is RoCEv2Port)
	QP             uint32     // BTH DestQP: the flow's queue pair, 24 bits
	PSN            uint32     // BTH PSN, 24 bits
	// Offset and Len are a data segment's byte offset in its flow and its
	// length in flow bytes, 1..SegmentPayload.
	Offset int64
	Len    int
}

// CE reports whether the frame is marked Congestion Experienced.
func (f *Frame) CE() bool { return f.ECN == ECNCE }

// Decoding and encoding errors that callers tell apart.
var (
	// ErrNotRoCE is returned for a frame that is not IPv4/UDP to RoCEv2Port
	// with a BTH.
	ErrNotRoCE = errors.New("hostgen: not a RoCEv2 frame")
	// ErrCorrupt is returned for a data frame whose content is not the
	// pattern its queue pair and offset call for.
	ErrCorrupt = errors.New("hostgen: corrupt data segment")
)

// Encoder writes frames. It holds one serialization buffer and one set of
// layers, so encoding does not allocate once the buffer has grown; use one
// Encoder per goroutine.
type Encoder struct {
	buf    gopacket.SerializeBuffer
	eth    layers.Ethernet
	ip     layers.IPv4
	udp    layers.UDP
	bth    BTH
	srcMAC [6]byte
	dstMAC [6]byte
	srcIP  [4]byte
	dstIP  [4]byte
}

// NewEncoder returns an Encoder.
func NewEncoder() *Encoder {
	return &Encoder{buf: gopacket.NewSerializeBufferExpectedSize(MaxFrameLen, AckFrameLen)}
}

var (
	fixLengths = gopacket.SerializeOptions{FixLengths: true}
	fixAll     = gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
)

// Encode writes frame f and returns its bytes, valid until the next Encode.
func (e *Encoder) Encode(f *Frame) ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if err := e.buf.Clear(); err != nil {
		return nil, err
	}
	var op uint8
	switch f.Kind {
	case KindData:
		op = OpSendOnly
		p, err := e.buf.PrependBytes(SeqHeaderLen + contentLen(f.Len))
		if err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(p[0:4], f.QP)
		binary.BigEndian.PutUint64(p[4:12], uint64(f.Offset))
		binary.BigEndian.PutUint32(p[12:16], uint32(f.Len))
		fillContent(p[SeqHeaderLen:], f.QP, f.Offset)
	case KindACK, KindNACK:
		op = OpAcknowledge
		p, err := e.buf.PrependBytes(aethLen)
		if err != nil {
			return nil, err
		}
		p[0] = syndromeACK
		if f.Kind == KindNACK {
			p[0] = syndromeNAK
		}
		p[1], p[2], p[3] = 0, 0, 0
	case KindCNP:
		op = OpCNP
		p, err := e.buf.PrependBytes(cnpPayloadLen)
		if err != nil {
			return nil, err
		}
		clear(p)
	}
	e.bth = BTH{OpCode: op, PKey: 0xffff, DestQP: f.QP, PSN: f.PSN, AckReq: f.Kind == KindData, BECN: f.Kind == KindCNP}
	if err := e.bth.SerializeTo(e.buf, fixLengths); err != nil {
		return nil, err
	}
	e.udp = layers.UDP{SrcPort: layers.UDPPort(f.SPort), DstPort: RoCEv2Port}
	if err := e.udp.SerializeTo(e.buf, fixLengths); err != nil { // checksum 0
		return nil, err
	}
	e.srcIP, e.dstIP = f.SrcIP.As4(), f.DstIP.As4()
	e.ip = layers.IPv4{
		Version: 4, TOS: f.ECN, Flags: layers.IPv4DontFragment, TTL: 64, Protocol: layers.IPProtocolUDP,
		SrcIP: e.srcIP[:], DstIP: e.dstIP[:],
	}
	if err := e.ip.SerializeTo(e.buf, fixAll); err != nil {
		return nil, err
	}
	e.srcMAC, e.dstMAC = f.SrcMAC, f.DstMAC
	e.eth = layers.Ethernet{SrcMAC: e.srcMAC[:], DstMAC: e.dstMAC[:], EthernetType: layers.EthernetTypeIPv4}
	if err := e.eth.SerializeTo(e.buf, fixLengths); err != nil { // pads to 60
		return nil, err
	}
	return e.buf.Bytes(), nil
}

// check reports why f cannot be encoded.
func (f *Frame) check() error {
	switch {
	case f.Kind < KindData || f.Kind > KindCNP:
		return fmt.Errorf("encode frame: unknown kind %d", f.Kind)
	case !f.SrcIP.Is4() || !f.DstIP.Is4():
		return fmt.Errorf("encode %v frame: addresses %v -> %v are not both IPv4", f.Kind, f.SrcIP, f.DstIP)
	case f.ECN > ecnMask:
		return fmt.Errorf("encode %v frame: ECN codepoint %d", f.Kind, f.ECN)
	case f.QP > psnMask:
		return fmt.Errorf("encode %v frame: queue pair %#x does not fit 24 bits", f.Kind, f.QP)
	case f.PSN > psnMask:
		return fmt.Errorf("encode %v frame: psn %#x does not fit 24 bits", f.Kind, f.PSN)
	case f.Kind == KindData && (f.Len < 1 || f.Len > SegmentPayload):
		return fmt.Errorf("encode data frame: segment of %d bytes, want 1..%d", f.Len, SegmentPayload)
	case f.Kind == KindData && f.Offset < 0:
		return fmt.Errorf("encode data frame: offset %d", f.Offset)
	}
	return nil
}

// Decoder reads frames with one gopacket DecodingLayerParser; decoding does
// not allocate. Use one Decoder per goroutine.
type Decoder struct {
	parser  *gopacket.DecodingLayerParser
	eth     layers.Ethernet
	ip      layers.IPv4
	udp     layers.UDP
	bth     BTH
	payload gopacket.Payload
	decoded []gopacket.LayerType
}

// NewDecoder returns a Decoder.
func NewDecoder() *Decoder {
	d := &Decoder{decoded: make([]gopacket.LayerType, 0, 8)}
	d.parser = gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &d.eth, &d.ip, &d.udp, &d.bth, &d.payload)
	d.parser.IgnoreUnsupported = true
	return d
}

// Decode reads data into f. It returns ErrNotRoCE for a frame that is not
// IPv4/UDP to RoCEv2Port with a BTH, ErrCorrupt for a data segment whose
// content is wrong, and another error for a malformed RoCEv2 frame; f is
// then undefined.
func (d *Decoder) Decode(data []byte, f *Frame) error {
	d.parser.Truncated = false
	if err := d.parser.DecodeLayers(data, &d.decoded); err != nil {
		return fmt.Errorf("decode frame: %w", err)
	}
	if len(d.decoded) < 4 || d.decoded[1] != layers.LayerTypeIPv4 || d.decoded[3] != LayerTypeBTH ||
		d.udp.DstPort != RoCEv2Port {
		return ErrNotRoCE
	}
	if d.parser.Truncated {
		return errors.New("decode frame: truncated")
	}
	if d.ip.Flags&layers.IPv4MoreFragments != 0 || d.ip.FragOffset != 0 {
		return errors.New("decode frame: IPv4 fragment")
	}
	var payload []byte
	if len(d.decoded) > 4 {
		payload = d.payload
	}
	*f = Frame{
		SrcIP: netip.AddrFrom4([4]byte(d.ip.SrcIP)), // 4 bytes of the frame,
		DstIP: netip.AddrFrom4([4]byte(d.ip.DstIP)),
		ECN:   d.ip.TOS & ecnMask,
		SPort: uint16(d.udp.SrcPort),
		QP:    d.bth.DestQP,
		PSN:   d.bth.PSN,
	}
	copy(f.SrcMAC[:], d.eth.SrcMAC)
	copy(f.DstMAC[:], d.eth.DstMAC)
	switch d.bth.OpCode {
	case OpSendOnly:
		f.Kind = KindData
		return decodeSegment(payload, f)
	case OpAcknowledge:
		if len(payload) != aethLen {
			return fmt.Errorf("decode ack of qp %#x: %d bytes after the BTH, want an AETH of %d", f.QP, len(payload), aethLen)
		}
		switch payload[0] {
		case syndromeACK:
			f.Kind = KindACK
		case syndromeNAK:
			f.Kind = KindNACK
		default:
			return fmt.Errorf("decode ack of qp %#x: AETH syndrome %#x", f.QP, payload[0])
		}
	case OpCNP:
		if len(payload) != cnpPayloadLen {
			return fmt.Errorf("decode cnp of qp %#x: %d bytes after the BTH, want %d", f.QP, len(payload), cnpPayloadLen)
		}
		f.Kind = KindCNP
	default:
		return fmt.Errorf("decode frame of qp %#x: BTH opcode %#x", f.QP, d.bth.OpCode)
	}
	return nil
}

// decodeSegment reads a data segment's sequence header and checks its
// content.
func decodeSegment(p []byte, f *Frame) error {
	if len(p) < SeqHeaderLen {
		return fmt.Errorf("decode data of qp %#x: %d bytes after the BTH, want a %d-byte sequence header", f.QP, len(p), SeqHeaderLen)
	}
	qp := binary.BigEndian.Uint32(p[0:4])
	off := binary.BigEndian.Uint64(p[4:12])
	n := binary.BigEndian.Uint32(p[12:16])
	switch {
	case qp != f.QP:
		return fmt.Errorf("decode data of qp %#x: sequence header of qp %#x", f.QP, qp)
	case n < 1 || n > SegmentPayload:
		return fmt.Errorf("decode data of qp %#x: segment of %d bytes", f.QP, n)
	case off > 1<<62:
		return fmt.Errorf("decode data of qp %#x: offset %d", f.QP, off)
	case len(p)-SeqHeaderLen != contentLen(int(n)):
		return fmt.Errorf("decode data of qp %#x: %d content bytes for a segment of %d", f.QP, len(p)-SeqHeaderLen, n)
	}
	f.Offset, f.Len = int64(off), int(n)
	if !contentOK(p[SeqHeaderLen:], qp, f.Offset) {
		return ErrCorrupt
	}
	return nil
}

// patternByte is content byte at flow position pos of queue pair qp.
func patternByte(qp uint32, pos uint64) byte {
	return byte((pos*0x9e3779b97f4a7c15 + uint64(qp)*0xbf58476d1ce4e5b9) >> 56)
}

// fillContent writes the content of queue pair qp at offset off into b.
func fillContent(b []byte, qp uint32, off int64) {
	for k := range b {
		b[k] = patternByte(qp, uint64(off)+uint64(k))
	}
}

// contentOK reports whether b is the content of queue pair qp at offset off.
func contentOK(b []byte, qp uint32, off int64) bool {
	for k, c := range b {
		if c != patternByte(qp, uint64(off)+uint64(k)) {
			return false
		}
	}
	return true
}
