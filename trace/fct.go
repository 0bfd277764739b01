package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"graphcc/topo"
)

// Packet sizes of HPCC's standalone FCT: 1000 B of payload per packet and
// 48 B of headers (HPCC's CustomHeader without INT).
const (
	StandalonePayload = 1000
	StandaloneHeader  = 48
)

// FCT is one line of HPCC's fct.txt: a completed flow.
type FCT struct {
	Src, Dst     topo.NodeID
	SPort, DPort int
	Size         int64 // bytes
	Start        int64 // picoseconds
	FCT          int64 // flow completion time, picoseconds
	Standalone   int64 // FCT of the flow alone in the fabric, picoseconds (see Standalone)
}

// Slowdown is FCT/Standalone, clamped below at 1 as HPCC's fct_analysis.py
// does. A record without a positive Standalone counts as 1.
func (r FCT) Slowdown() float64 {
	if r.Standalone <= 0 {
		return 1
	}
	s := float64(r.FCT) / float64(r.Standalone)
	if s < 1 {
		return 1
	}
	return s
}

// Standalone is the FCT of a size-byte flow from src to dst alone in fabric
// f, as HPCC's qp_finish computes it: the pair's base RTT plus the
// serialization of the payload and one header per packet at the path's
// bottleneck rate, (size + packets*header)*8/Bottleneck with
// packets = ceil(size/payload). HPCC uses payload 1000 and header 48
// (StandalonePayload, StandaloneHeader). The result is in picoseconds,
// truncated; since HPCC truncates in nanoseconds, truncating it to ns again
// (as WriteFCT does) gives HPCC's value whenever the base RTT is a whole
// number of ns. A non-positive bottleneck rate or an overflow gives
// math.MaxInt64.
func Standalone(f *topo.Fabric, src, dst topo.NodeID, size int64, payload, header int) int64 {
	rtt := f.BaseRTT(src, dst)
	bw := f.Bottleneck(src, dst)
	if bw <= 0 || size < 0 || payload <= 0 || header < 0 {
		return math.MaxInt64
	}
	var packets int64
	if size > 0 {
		packets = (size-1)/int64(payload) + 1
	}
	total := uint64(size) + uint64(packets)*uint64(header)
	hi, lo := bits.Mul64(total, 8*uint64(topo.Second))
	if hi >= uint64(bw) {
		return math.MaxInt64
	}
	ser, _ := bits.Div64(hi, lo, uint64(bw))
	if ser > math.MaxInt64 || int64(ser) > math.MaxInt64-rtt {
		return math.MaxInt64
	}
	return rtt + int64(ser)
}

// nodeIDToIP is HPCC's node_id_to_ip.
func nodeIDToIP(id uint32) uint32 {
	return 0x0b000001 + (id/256)*0x00010000 + (id%256)*0x00000100
}

// formatNodeID writes id in decimal. An id of exactly 8 digits gets a
// leading zero so that ReadFCT does not take it for an HPCC hex IP.
func formatNodeID(id topo.NodeID) string {
	if id >= 10_000_000 && id <= 99_999_999 {
		return fmt.Sprintf("%09d", id)
	}
	return strconv.Itoa(int(id))
}

// WriteFCT writes records in HPCC's fct.txt layout,
// `src dst sport dport size start_ns fct_ns standalone_fct_ns`, with node ids
// in decimal (HPCC writes hex IPs; ReadFCT reads both) and times truncated
// to whole nanoseconds, HPCC's time resolution; a positive FCT or
// standalone FCT under 1 ns (a zero-delay link of a terabit) is written as
// 1 ns, so that the file reads back. A record ReadFCT would refuse (from a
// host to itself, of size 0, with a zero time) is not written.
func WriteFCT(w io.Writer, recs []FCT) error {
	bw := bufio.NewWriter(w)
	for i, r := range recs {
		if r.Src < 0 || r.Dst < 0 || r.SPort < 0 || r.DPort < 0 || r.Size < 0 ||
			r.Start < 0 || r.FCT < 0 || r.Standalone < 0 {
			return fmt.Errorf("write fct: record %d: negative field in %+v", i, r)
		}
		if r.Src == r.Dst || r.Size == 0 || r.FCT == 0 || r.Standalone == 0 {
			return fmt.Errorf("write fct: record %d: a flow to itself, of no bytes or of no time: %+v", i, r)
		}
		fmt.Fprintf(bw, "%s %s %d %d %d %d %d %d\n", formatNodeID(r.Src), formatNodeID(r.Dst),
			r.SPort, r.DPort, r.Size, r.Start/topo.Nanosecond, atLeastNs(r.FCT), atLeastNs(r.Standalone))
	}
	return bw.Flush()
}

// atLeastNs is ps in whole nanoseconds, truncated, but 1 for 0 < ps < 1 ns.
func atLeastNs(ps int64) int64 {
	if ps > 0 && ps < topo.Nanosecond {
		return 1
	}
	return ps / topo.Nanosecond
}

// isHex8 reports whether s is exactly 8 hexadecimal digits.
func isHex8(s string) bool {
	if len(s) != 8 {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// parseFCTNode parses a node field of fct.txt: an HPCC host IP if it is
// exactly 8 hex digits, else a decimal node id.
func parseFCTNode(s, what string) (topo.NodeID, error) {
	if isHex8(s) {
		ip, _ := strconv.ParseUint(s, 16, 32)
		id := uint32(ip>>8) & 0xffff
		if nodeIDToIP(id) != uint32(ip) {
			return 0, fmt.Errorf("%s %s is not an HPCC host IP (0b000001 + id/256*0x10000 + id%%256*0x100)", what, s)
		}
		return topo.NodeID(id), nil
	}
	v, err := parseUint(s, what, math.MaxInt32)
	return topo.NodeID(v), err
}

// parseUint parses a non-negative decimal no larger than max.
func parseUint(s, what string, max uint64) (int64, error) {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad %s %q: not a non-negative integer", what, s)
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) {
			err = ne.Err
		}
		return 0, fmt.Errorf("bad %s %q: %w", what, s, err)
	}
	if v > max {
		return 0, fmt.Errorf("bad %s %q: out of range", what, s)
	}
	return int64(v), nil
}

// ReadFCT reads an fct.txt as written by WriteFCT or by HPCC's simulator.
// Each non-blank line is `src dst sport dport size start_ns fct_ns
// standalone_fct_ns`; src and dst are decimal node ids, or HPCC's hex host
// IPs (a field of exactly 8 hex digits, e.g. 0b000101 for node 1, mapped back
// with HPCC's ip_to_node_id). Times are converted to picoseconds. A record
// from a host to itself, of size 0, or with a zero FCT or standalone FCT is
// refused: no simulator writes one. Errors have the form "name:line: reason".
func ReadFCT(r io.Reader, name string) ([]FCT, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var recs []FCT
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		rec, err := parseFCT(fields)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return recs, nil
}

// parseFCT parses the fields of one fct.txt line.
func parseFCT(fields []string) (FCT, error) {
	if len(fields) != 8 {
		return FCT{}, fmt.Errorf("want 8 fields (src dst sport dport size start_ns fct_ns standalone_fct_ns), got %d", len(fields))
	}
	var r FCT
	var err error
	if r.Src, err = parseFCTNode(fields[0], "src"); err != nil {
		return FCT{}, err
	}
	if r.Dst, err = parseFCTNode(fields[1], "dst"); err != nil {
		return FCT{}, err
	}
	if r.Src == r.Dst {
		return FCT{}, fmt.Errorf("src and dst are both node %d: a flow runs between two hosts", r.Src)
	}
	sport, err := parseUint(fields[2], "sport", 65535)
	if err != nil {
		return FCT{}, err
	}
	dport, err := parseUint(fields[3], "dport", 65535)
	if err != nil {
		return FCT{}, err
	}
	r.SPort, r.DPort = int(sport), int(dport)
	if r.Size, err = parseUint(fields[4], "size", math.MaxInt64); err != nil {
		return FCT{}, err
	}
	if r.Size == 0 {
		return FCT{}, errors.New("size 0: a flow carries at least one byte")
	}
	const maxNs = math.MaxInt64 / topo.Nanosecond
	times := []*int64{&r.Start, &r.FCT, &r.Standalone}
	for i, what := range []string{"start_ns", "fct_ns", "standalone_fct_ns"} {
		ns, err := parseUint(fields[5+i], what, uint64(maxNs))
		if err != nil {
			return FCT{}, err
		}
		if ns == 0 && i > 0 {
			return FCT{}, fmt.Errorf("%s 0: a completed flow took at least 1 ns", what)
		}
		*times[i] = ns * topo.Nanosecond
	}
	return r, nil
}

// ThroughputGbps is the flow's size*8/FCT in Gbps; r.FCT must be positive.
func (r FCT) ThroughputGbps() float64 {
	return float64(r.Size) * 8 * float64(topo.Second) / float64(r.FCT) / float64(topo.Gbps)
}
