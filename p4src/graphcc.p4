/*
 * graphcc.p4: the testbed switch (P4_16, v1model, BMv2 simple_switch_grpc).
 *
 * Ingress: IPv4 forwarding with ECMP over equal-cost egress ports, TTL
 * decrement, a per-ingress-port counter (the bytes hosts send into the
 * fabric), and the egress queue: ECN-capable packets (the hosts' data) to
 * the data queue, every other packet (ACKs, NACKs, CNPs) to a control queue
 * served first. Egress: per-egress-port ECN marking with the simulator's RED
 * rule, and per-egress-port telemetry counters (transmitted, ECN-marked, a
 * histogram of the data-queue depth each ECN-capable packet met at enqueue,
 * and the flow starts among those packets: RoCEv2 BTH PSN 0).
 *
 * Why two queues: BMv2 rate-limits an egress queue in packets per second,
 * not bytes, so in one queue a 60-byte ACK would cost as much of the link as
 * a 1048-byte data packet, and a port carrying data one way and the ACKs of
 * the other direction's flows would be overloaded at loads the real link
 * carries easily. The testbed starts simple_switch_grpc with two priority
 * queues per port (--priority-queues 2), rate-limited to the port's scaled
 * rate in 1048-byte packets (data) and in 60-byte ones (control).
 *
 * The in-band channel: frames of EtherType ETHERTYPE_GRAPHCC (0x88B5) carry
 * the per-switch agents' messages. A P4Runtime PacketOut enters on CPU_PORT
 * behind a packet_out header naming its egress port; a PacketOut of that
 * EtherType leaves that port unmodified in the control queue, and any other
 * PacketOut is dropped. A frame of that EtherType arriving on a data port
 * goes to CPU_PORT behind a packet_in header naming its ingress port: a
 * PacketIn. Neither is counted in rx_port or in the egress telemetry, and
 * neither is ECN-marked: the features see data traffic only.
 *
 * Everything the controller programs or reads is a table entry or an
 * indirect counter: BMv2's P4Runtime server (PI) does not serve register
 * reads or writes (p4lang/PI issue 376). The per-port ECN settings are the
 * action parameters of the ecn_settings table (one entry per egress port)
 * and the telemetry lives in counter arrays indexed by port.
 *
 * The P4Info names of tables, actions, parameters, match fields and
 * counters are those p4c derives from the declarations (match keys carry
 * @name annotations); package p4src (p4src.go) holds them as Go constants,
 * and the controller resolves their P4Info IDs by name.
 */

#include <core.p4>
#include <v1model.p4>

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  IP_PROTO_UDP   = 17;
const bit<16> ROCEV2_PORT    = 4791; // UDP destination port of RoCEv2

// The in-band channel's EtherType (an IEEE local experimental one) and the
// BMv2 port of the P4Runtime server (simple_switch_grpc --cpu-port): its
// PacketOuts enter there, and frames sent there become PacketIns.
const bit<16> ETHERTYPE_GRAPHCC = 0x88B5;
#define CPU_PORT 255

// BMv2 port numbers the counter arrays cover: 0..PORT_SLOTS-1. The testbed
// numbers a switch's ports 1..n (controller/plan.go), so n <= 63.
#define PORT_SLOTS 64

// Buckets of the enqueue-depth histogram: control.DepthBuckets. The bucket
// edges are not in this program: the controller programs the depth_bucket
// table from control.DepthLow, so they live in one place (control/depth.go).
#define DEPTH_BUCKETS 24

// Queue depths are in packets on BMv2; the RED rule compares bytes. A queued
// packet counts as control.QueuePacketBytes = 1048 bytes (a full data
// packet on the wire), as the simulator's queue feature does.
const bit<64> QUEUE_PACKET_BYTES = 1048;

// Egress queues (standard_metadata.priority; BMv2 serves the highest
// first): data, and the control queue for packets that are not
// ECN-capable.
const bit<3> DATA_QUEUE    = 0;
const bit<3> CONTROL_QUEUE = 1;

// Before a PacketOut's frame: the port to send it out of. PI reads the
// fields' widths from the P4Info (packet_out's metadata) and packs them, in
// order, into the bytes in front of the frame; the header is whole bytes.
@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> pad;
}

// Before a PacketIn's frame: the port it arrived on.
@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> pad;
}

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<6>  dscp;
    bit<2>  ecn;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length;
    bit<16> checksum;
}

// The InfiniBand Base Transport Header of a RoCEv2 packet (12 bytes; the
// layout of hostgen's gopacket layer, hostgen/bth.go).
header bth_t {
    bit<8>  opcode;
    bit<1>  se;
    bit<1>  migreq;
    bit<2>  padCnt;
    bit<4>  tver;
    bit<16> pkey;
    bit<1>  fecn;
    bit<1>  becn;
    bit<6>  resv6;
    bit<24> destQP;
    bit<1>  ackReq;
    bit<7>  resv7;
    bit<24> psn;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t  packet_in;
    ethernet_t   ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
    bth_t      bth;
}

struct metadata_t {
    bit<16> l4_src;       // UDP ports, 0 for other protocols
    bit<16> l4_dst;
    bit<16> ecmp_group;   // set by ipv4_route.set_group
    bit<16> ecmp_size;    // members of the group; 0: not a group
    bit<16> ecmp_member;  // hash of the 5-tuple modulo ecmp_size
    bit<1>  ecn_on;       // set by ecn_settings.set_ecn
    bit<32> kmin;         // bytes
    bit<32> kmax;         // bytes
    bit<17> pmax;         // fixed point: probability * 2^16, 0..65536
    bit<8>  depth_bucket; // set by depth_bucket.set_depth_bucket
    bit<1>  depth_hit;
}

parser GraphccParser(packet_in packet,
                     out headers_t hdr,
                     inout metadata_t meta,
                     inout standard_metadata_t standard_metadata) {
    state start {
        transition select(standard_metadata.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition parse_ethernet;
    }
    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        // UDP only right behind an option-less, unfragmented header.
        transition select(hdr.ipv4.ihl, hdr.ipv4.fragOffset, hdr.ipv4.protocol) {
            (4w5, 13w0, IP_PROTO_UDP): parse_udp;
            default: accept;
        }
    }
    state parse_udp {
        packet.extract(hdr.udp);
        meta.l4_src = hdr.udp.srcPort;
        meta.l4_dst = hdr.udp.dstPort;
        transition select(hdr.udp.dstPort) {
            ROCEV2_PORT: parse_bth;
            default: accept;
        }
    }
    state parse_bth {
        packet.extract(hdr.bth);
        transition accept;
    }
}

// The hosts' checksums are not verified: a corrupt header is forwarded
// as it came (the veths carry checksummed frames, TX offload off).
control GraphccVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control GraphccIngress(inout headers_t hdr,
                       inout metadata_t meta,
                       inout standard_metadata_t standard_metadata) {
    // Packets and bytes received per ingress port: what the hosts send into
    // the fabric, their NIC links' utilization.
    counter(PORT_SLOTS, CounterType.packets_and_bytes) rx_port;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    // One egress port: a directly attached host, or a single next hop.
    action set_port(bit<9> port) {
        standard_metadata.egress_spec = port;
    }

    // An ECMP group of group_size members (ecmp_group entries with member
    // 0..group_size-1).
    action set_group(bit<16> group, bit<16> group_size) {
        meta.ecmp_group = group;
        meta.ecmp_size = group_size;
    }

    // One entry per destination host (/32).
    table ipv4_route {
        key = {
            hdr.ipv4.dstAddr: lpm @name("dst_addr");
        }
        actions = {
            set_port;
            set_group;
            @defaultonly drop;
        }
        const default_action = drop();
        size = 16384;
    }

    // (group, member) -> egress port.
    table ecmp_group {
        key = {
            meta.ecmp_group:  exact @name("group");
            meta.ecmp_member: exact @name("member");
        }
        actions = {
            set_port;
            @defaultonly drop;
        }
        const default_action = drop();
        size = 1024;
    }

    apply {
        if (hdr.packet_out.isValid()) {
            // A PacketOut: an in-band message leaves its port unmodified,
            // ahead of the data; anything else the controller sends, or a
            // message for a port beyond the data ports, is dropped.
            if (hdr.ethernet.etherType != ETHERTYPE_GRAPHCC ||
                hdr.packet_out.egress_port >= PORT_SLOTS) {
                drop();
            } else {
                standard_metadata.egress_spec = hdr.packet_out.egress_port;
                standard_metadata.priority = CONTROL_QUEUE;
            }
            hdr.packet_out.setInvalid();
            return;
        }
        if (hdr.ethernet.etherType == ETHERTYPE_GRAPHCC) {
            // A neighbour's message: to the agent, as a PacketIn.
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = standard_metadata.ingress_port;
            hdr.packet_in.pad = 0;
            standard_metadata.egress_spec = CPU_PORT;
            standard_metadata.priority = CONTROL_QUEUE;
            return;
        }
        if (standard_metadata.ingress_port < PORT_SLOTS) {
            rx_port.count((bit<32>)standard_metadata.ingress_port);
        }
        if (!hdr.ipv4.isValid() || hdr.ipv4.ihl != 5 || hdr.ipv4.ttl <= 1) {
            // Not IPv4, IPv4 with options (the deparser's checksum covers
            // only the 20-byte header), or TTL would reach 0.
            drop();
            return;
        }
        ipv4_route.apply();
        if (meta.ecmp_size != 0) {
            // Per-flow ECMP: member = crc16(5-tuple) mod size.
            hash(meta.ecmp_member, HashAlgorithm.crc16, (bit<16>)0,
                 { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
                   meta.l4_src, meta.l4_dst },
                 meta.ecmp_size);
            ecmp_group.apply();
        }
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        if (hdr.ipv4.ecn == 0) {
            standard_metadata.priority = CONTROL_QUEUE;
        } else {
            standard_metadata.priority = DATA_QUEUE;
        }
    }
}

control GraphccEgress(inout headers_t hdr,
                      inout metadata_t meta,
                      inout standard_metadata_t standard_metadata) {
    // Telemetry, indexed by egress port: packets and bytes transmitted,
    // packets and bytes this port marked CE, the enqueue-depth histogram of
    // ECN-capable packets (the data queue's depth each met) at index
    // port*DEPTH_BUCKETS + bucket (packets), and the flow starts among the
    // packets the histogram counts: those whose BTH PSN is 0, a queue
    // pair's first packet (control.IsFlowStart; a retransmitted PSN 0
    // counts again, as the switch cannot tell it from a first one).
    counter(PORT_SLOTS, CounterType.packets_and_bytes) tx_port;
    counter(PORT_SLOTS, CounterType.packets_and_bytes) marked_port;
    counter(PORT_SLOTS * DEPTH_BUCKETS, CounterType.packets) enq_depth;
    counter(PORT_SLOTS, CounterType.packets) flow_starts;

    // The port's RED setting. Widths: kmin, kmax are bytes in 32 bits;
    // pmax_fixed is the probability at kmax times 2^16 (0..65536, so 1.0 is
    // exact), in 17 bits.
    action set_ecn(bit<32> kmin_bytes,
                   bit<32> kmax_bytes,
                   bit<17> pmax_fixed) {
        meta.ecn_on = 1;
        meta.kmin = kmin_bytes;
        meta.kmax = kmax_bytes;
        meta.pmax = pmax_fixed;
    }

    // One entry per egress port; a port without one never marks.
    table ecn_settings {
        key = {
            standard_metadata.egress_port: exact @name("egress_port");
        }
        actions = {
            set_ecn;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = PORT_SLOTS;
    }

    action set_depth_bucket(bit<8> bucket) {
        meta.depth_bucket = bucket;
        meta.depth_hit = 1;
    }

    // enq_qdepth (packets) -> histogram bucket: one range entry per bucket,
    // [control.DepthLow(b), control.DepthLow(b+1)-1], the last one open to
    // the largest depth. The controller writes them (controller/entries.go).
    table depth_bucket {
        key = {
            standard_metadata.enq_qdepth: range @name("enq_qdepth");
        }
        actions = {
            set_depth_bucket;
            @defaultonly NoAction;
        }
        const default_action = NoAction();
        size = DEPTH_BUCKETS;
    }

    apply {
        if (standard_metadata.egress_port >= PORT_SLOTS ||
            hdr.ethernet.etherType == ETHERTYPE_GRAPHCC) {
            // Beyond the counted ports (the CPU port), or an in-band
            // message: not data, neither counted nor marked.
            return;
        }
        bit<32> port = (bit<32>)standard_metadata.egress_port;
        tx_port.count(port);

        if (hdr.ipv4.isValid() && hdr.ipv4.ecn != 0) {
            depth_bucket.apply();
        }
        if (meta.depth_hit == 1) {
            enq_depth.count(port * DEPTH_BUCKETS + (bit<32>)meta.depth_bucket);
            if (hdr.bth.isValid() && hdr.bth.psn == 0) {
                flow_starts.count(port);
            }
        }

        ecn_settings.apply();
        // RED on the queue this packet leaves behind, in bytes: q > kmax
        // marks; kmin < q <= kmax marks with probability
        // pmax*(q-kmin)/(kmax-kmin). Without division: with r uniform in
        // [0, 2^16), mark iff r*(kmax-kmin) < pmax_fixed*(q-kmin), which
        // holds with probability min(1, ceil(p*(q-kmin)/(kmax-kmin))/2^16)
        // for p = pmax_fixed: pmax*(q-kmin)/(kmax-kmin) within 2^-16.
        // Widths: q < 2^19 * 1048 < 2^30; r*(kmax-kmin) < 2^16 * 2^32 and
        // pmax_fixed*(q-kmin) <= 2^16 * 2^32: both fit bit<64>.
        // Only ECN-capable packets (ECT(1) = 1, ECT(0) = 2) are marked, to CE.
        if (meta.ecn_on == 1 && hdr.ipv4.isValid() &&
            (hdr.ipv4.ecn == 1 || hdr.ipv4.ecn == 2)) {
            bit<64> q = (bit<64>)standard_metadata.deq_qdepth * QUEUE_PACKET_BYTES;
            bit<64> kmin = (bit<64>)meta.kmin;
            bit<64> kmax = (bit<64>)meta.kmax;
            bool mark = false;
            if (q > kmax) {
                mark = true;
            } else if (q > kmin) {
                bit<16> r;
                random(r, 16w0, 16w0xFFFF);
                if ((bit<64>)r * (kmax - kmin) < (bit<64>)meta.pmax * (q - kmin)) {
                    mark = true;
                }
            }
            if (mark) {
                hdr.ipv4.ecn = 3;
                marked_port.count(port);
            }
        }
    }
}

// TTL and ECN changed: recompute the header checksum (20-byte headers only;
// ingress drops IPv4 with options).
control GraphccComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
              hdr.ipv4.totalLen, hdr.ipv4.identification, hdr.ipv4.flags,
              hdr.ipv4.fragOffset, hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control GraphccDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.udp);
        packet.emit(hdr.bth);
    }
}

V1Switch(
    GraphccParser(),
    GraphccVerifyChecksum(),
    GraphccIngress(),
    GraphccEgress(),
    GraphccComputeChecksum(),
    GraphccDeparser()
) main;
