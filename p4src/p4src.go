package p4src

import _ "embed"

// Source is the P4_16 program, graphcc.p4.
//
//go:embed graphcc.p4
var Source string

// BMv2JSON is graphcc.p4 compiled by p4c-bm2-ss: the device config a
// P4Runtime SetForwardingPipelineConfig gives simple_switch_grpc.
//
//go:embed graphcc.json
var BMv2JSON []byte

// P4Info is the P4Info of graphcc.p4 in protobuf text format, as p4c-bm2-ss
// wrote it.
//
//go:embed graphcc.p4info.txtpb
var P4Info []byte

// Fully qualified P4Info names: p4c prefixes a control's tables, actions and
// counters with the control's type name; match fields are named by their
// @name annotations; action parameters by their declarations.
const (
	// TableIPv4Route maps a destination address (LPM, one /32 per host) to
	// ActionSetPort or ActionSetGroup; a miss drops.
	TableIPv4Route = "GraphccIngress.ipv4_route"
	// FieldDstAddr is TableIPv4Route's key: the IPv4 destination, 32 bits.
	FieldDstAddr = "dst_addr"

	// TableECMPGroup maps (group, member) to ActionSetPort.
	TableECMPGroup = "GraphccIngress.ecmp_group"
	// FieldGroup is TableECMPGroup's group id key, 16 bits.
	FieldGroup = "group"
	// FieldMember is TableECMPGroup's member index key, 16 bits: the 5-tuple
	// hash modulo the group's size.
	FieldMember = "member"

	// ActionSetPort sends the packet out of BMv2 port ParamPort.
	ActionSetPort = "GraphccIngress.set_port"
	// ParamPort is ActionSetPort's egress port, PortBits wide.
	ParamPort = "port"

	// ActionSetGroup selects ECMP group ParamGroup of ParamGroupSize members.
	ActionSetGroup = "GraphccIngress.set_group"
	// ParamGroup is ActionSetGroup's group id, 16 bits.
	ParamGroup = "group"
	// ParamGroupSize is ActionSetGroup's member count, 16 bits.
	ParamGroupSize = "group_size"

	// ActionDrop is the forwarding tables' default action.
	ActionDrop = "GraphccIngress.drop"

	// TableECNSettings holds one entry per egress port with ActionSetECN: the
	// port's RED setting. A port without an entry never marks.
	TableECNSettings = "GraphccEgress.ecn_settings"
	// FieldEgressPort is TableECNSettings's key, standard_metadata.egress_port,
	// PortBits wide.
	FieldEgressPort = "egress_port"

	// ActionSetECN sets a port's kmin and kmax in bytes (KBytesBits each) and
	// pmax as a fraction of PMaxOne (PMaxBits).
	ActionSetECN = "GraphccEgress.set_ecn"
	// ParamKMinBytes is ActionSetECN's kmin in bytes.
	ParamKMinBytes = "kmin_bytes"
	// ParamKMaxBytes is ActionSetECN's kmax in bytes.
	ParamKMaxBytes = "kmax_bytes"
	// ParamPMaxFixed is ActionSetECN's pmax times PMaxOne.
	ParamPMaxFixed = "pmax_fixed"

	// TableDepthBucket maps standard_metadata.enq_qdepth (packets, a range
	// key) to ActionSetDepthBucket: one entry per control.DepthHist bucket.
	TableDepthBucket = "GraphccEgress.depth_bucket"
	// FieldEnqQdepth is TableDepthBucket's range key, DepthBits wide.
	FieldEnqQdepth = "enq_qdepth"
	// ActionSetDepthBucket selects histogram bucket ParamBucket.
	ActionSetDepthBucket = "GraphccEgress.set_depth_bucket"
	// ParamBucket is ActionSetDepthBucket's bucket, 8 bits.
	ParamBucket = "bucket"

	// ActionNoAction is p4c's NoAction, the egress tables' default.
	ActionNoAction = "NoAction"

	// CounterRxPort counts packets and bytes received per ingress port
	// (index: BMv2 port number).
	CounterRxPort = "GraphccIngress.rx_port"
	// CounterTxPort counts packets and bytes transmitted per egress port.
	CounterTxPort = "GraphccEgress.tx_port"
	// CounterMarkedPort counts packets and bytes an egress port marked CE.
	CounterMarkedPort = "GraphccEgress.marked_port"
	// CounterEnqDepth counts packets per (egress port, enqueue-depth bucket)
	// at index port*DepthBuckets + bucket.
	CounterEnqDepth = "GraphccEgress.enq_depth"
	// CounterFlowStarts counts, per egress port, the packets CounterEnqDepth
	// counts whose RoCEv2 BTH PSN is 0: the flow starts of
	// control.PortSample.FlowStarts (control.IsFlowStart).
	CounterFlowStarts = "GraphccEgress.flow_starts"

	// PacketOutHeader is the controller_packet_metadata of a PacketOut: the
	// packet_out header BMv2's P4Runtime server puts before the frame.
	PacketOutHeader = "packet_out"
	// MetaEgressPort is PacketOutHeader's port to send the frame out of,
	// PortBits wide.
	MetaEgressPort = "egress_port"
	// PacketInHeader is the controller_packet_metadata of a PacketIn: the
	// packet_in header the pipeline puts before the frame.
	PacketInHeader = "packet_in"
	// MetaIngressPort is PacketInHeader's port the frame arrived on,
	// PortBits wide.
	MetaIngressPort = "ingress_port"
)

// Sizes and widths in graphcc.p4.
const (
	// PortSlots is the number of BMv2 port numbers the counter arrays cover,
	// 0..PortSlots-1; packets on higher ports are forwarded but not counted.
	PortSlots = 64
	// DepthBuckets is the number of enqueue-depth histogram buckets per port;
	// it equals control.DepthBuckets.
	DepthBuckets = 24
	// PortBits is the width of a BMv2 port number.
	PortBits = 9
	// DepthBits is the width of standard_metadata.enq_qdepth.
	DepthBits = 19
	// KBytesBits is the width of the kmin and kmax parameters.
	KBytesBits = 32
	// PMaxOne is pmax = 1 in ParamPMaxFixed's fixed point.
	PMaxOne = 1 << 16
	// PMaxBits is the width of ParamPMaxFixed (PMaxOne fits).
	PMaxBits = 17
	// QueuePacketBytes is the bytes per queued packet in the marking rule
	// (QUEUE_PACKET_BYTES); it equals control.QueuePacketBytes.
	QueuePacketBytes = 1048
	// RoCEv2Port is the UDP destination port after which the parser reads a
	// BTH (ROCEV2_PORT); it equals hostgen.RoCEv2Port.
	RoCEv2Port = 4791
	// PSNBits is the width of the BTH's PSN; it equals control.PSNBits.
	PSNBits = 24
	// EtherTypeInband is the EtherType of the in-band channel's frames
	// (ETHERTYPE_GRAPHCC): a PacketOut of it leaves the port its packet_out
	// header names in the control queue; one arriving on a data port becomes
	// a PacketIn. Neither is counted nor marked.
	EtherTypeInband = 0x88B5
	// CPUPort is the BMv2 port of the P4Runtime server (CPU_PORT): the lab
	// starts simple_switch_grpc with --cpu-port CPUPort.
	CPUPort = 255
)
