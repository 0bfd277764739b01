package topo

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// rateUnits and delayUnits map the units ParseRate and ParseDelay accept to
// their power of ten in bps and ps.
var (
	rateUnits  = map[string]int{"bps": 0, "Kbps": 3, "kbps": 3, "Mbps": 6, "Gbps": 9, "Tbps": 12}
	delayUnits = map[string]int{"s": 12, "ms": 9, "us": 6, "µs": 6, "ns": 3, "ps": 0}
)

// ParseRate parses an ns-3 style data rate such as "100Gbps", "25Gbps",
// "2.5Gbps", "400Mbps", "10Kbps" or "1000bps" into bps. The number is a
// non-negative decimal parsed exactly; the units are bps, Kbps (or kbps),
// Mbps, Gbps and Tbps. The result must be a whole number of bps.
func ParseRate(s string) (int64, error) {
	v, err := parseQuantity(s, rateUnits, "bps, Kbps, Mbps, Gbps or Tbps", "bps")
	if err != nil {
		return 0, fmt.Errorf("bad rate %q: %w", s, err)
	}
	return v, nil
}

// ParseDelay parses an ns-3 style time such as "0.001ms", "1us", "1000ns" or
// "0.000001s" into ps. The number is a non-negative decimal parsed exactly
// (no floating point); the units are s, ms, us (or µs), ns and ps, and a unit
// is required. The result must be a whole number of ps.
func ParseDelay(s string) (int64, error) {
	v, err := parseQuantity(s, delayUnits, "s, ms, us, ns or ps", "ps")
	if err != nil {
		return 0, fmt.Errorf("bad delay %q: %w", s, err)
	}
	return v, nil
}

// parseQuantity parses a non-negative decimal number followed by one of
// units, exactly, into the base unit.
func parseQuantity(s string, units map[string]int, want, base string) (int64, error) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, unit := s[:i], s[i:]
	if num == "" {
		return 0, errors.New("want a non-negative decimal number followed by a unit")
	}
	if unit == "" {
		return 0, fmt.Errorf("missing unit (want %s)", want)
	}
	exp, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (want %s)", unit, want)
	}
	intPart, frac, _ := strings.Cut(num, ".")
	if strings.Contains(frac, ".") || intPart == "" && frac == "" {
		return 0, fmt.Errorf("bad number %q", num)
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) > exp {
		return 0, fmt.Errorf("not a whole number of %s", base)
	}
	var m int64
	for _, c := range intPart + frac {
		d := int64(c - '0')
		if m > (math.MaxInt64-d)/10 {
			return 0, errors.New("out of range")
		}
		m = m*10 + d
	}
	for range exp - len(frac) {
		if m > math.MaxInt64/10 {
			return 0, errors.New("out of range")
		}
		m *= 10
	}
	return m, nil
}

// formatScaled writes v / 10^exp as an exact decimal without trailing zeros.
func formatScaled(v int64, exp int) string {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	p := uint64(1)
	for range exp {
		p *= 10
	}
	s := strconv.FormatUint(u/p, 10)
	if r := u % p; r != 0 {
		f := strconv.FormatUint(r, 10)
		s += "." + strings.TrimRight(strings.Repeat("0", exp-len(f))+f, "0")
	}
	if neg {
		s = "-" + s
	}
	return s
}

// FormatRate formats bps as ParseRate reads it, in the largest of Gbps, Mbps,
// Kbps and bps that keeps the number at least 1: "100Gbps", "2.5Gbps",
// "400Mbps".
func FormatRate(bps int64) string {
	a := bps
	if a < 0 {
		a = -a
	}
	switch {
	case a >= Gbps || a < 0:
		return formatScaled(bps, 9) + "Gbps"
	case a >= Mbps:
		return formatScaled(bps, 6) + "Mbps"
	case a >= Kbps:
		return formatScaled(bps, 3) + "Kbps"
	}
	return formatScaled(bps, 0) + "bps"
}

// FormatDelay formats ps in milliseconds as HPCC's topology files do, exactly:
// "0.001ms" for 1 µs, "0ms" for 0.
func FormatDelay(ps int64) string { return formatScaled(ps, 9) + "ms" }

// FormatDuration formats ps in the largest unit that keeps it whole, in the
// form ParseDelay reads: "25ms", "1us", "1500ns", "7ps", "0".
func FormatDuration(ps int64) string {
	if ps == 0 {
		return "0"
	}
	for _, u := range []struct {
		div  int64
		name string
	}{{Second, "s"}, {Millisecond, "ms"}, {Microsecond, "us"}, {Nanosecond, "ns"}} {
		if ps%u.div == 0 {
			return strconv.FormatInt(ps/u.div, 10) + u.name
		}
	}
	return strconv.FormatInt(ps, 10) + "ps"
}

// maxTopologyLine bounds a topology.txt line: the longest, the switch
// list, takes a few bytes per switch.
const maxTopologyLine = 16 << 20

var errLineTooLong = fmt.Errorf("line longer than %d bytes: not a topology file", maxTopologyLine)

// readLine is bufio.Reader.ReadString('\n') for lines of at most max bytes,
// so that a file without line breaks (a binary file, /dev/zero) fails
// instead of filling memory.
func readLine(rd *bufio.Reader, max int) (string, error) {
	var b []byte
	for {
		chunk, err := rd.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > max {
			return "", errLineTooLong
		}
		if err != bufio.ErrBufferFull {
			return string(b), err
		}
	}
}

// ReadTopology reads an HPCC topology.txt: a line "node_count switch_count
// link_count", a line of the switch node ids (absent when there are none),
// then one line per link "src dst rate delay error_rate", e.g. "0 24 25Gbps
// 0.001ms 0". Nodes not listed as switches are hosts; node i is named "n<i>".
// The error rate must be 0 (HPCC's files write 0 or 0.000000): graphcc's
// fabric is lossless, so a link that drops packets is refused, not ignored.
// Blank lines and surrounding white space are ignored. Every error names
// name:line and the reason. buffer is the shared buffer per switch in bytes
// (0 for the default 32 MiB).
func ReadTopology(r io.Reader, name string, buffer int64) (*Fabric, error) {
	t := &topoReader{rd: bufio.NewReader(r), name: name}
	nSwitches, nLinks, err := t.header()
	if err != nil {
		return nil, err
	}
	headerLine := t.lineNo
	isSwitch, err := t.switches(nSwitches)
	if err != nil {
		return nil, err
	}
	links, firstLine, err := t.links(nLinks)
	if err != nil {
		return nil, err
	}
	// Every host needs a link. This loop ends within the switch
	// count + len(firstLine) + 1 steps, so a huge node count with few lines is
	// refused before anything of that size is allocated.
	for i := range t.nNodes {
		id := NodeID(i)
		if _, ok := firstLine[id]; !ok && !isSwitch[id] {
			return nil, t.errAt(headerLine, "host n%d has no link", i)
		}
	}

	nodes := make([]Node, t.nNodes)
	for i := range nodes {
		nodes[i] = Node{ID: NodeID(i), Name: "n" + strconv.Itoa(i), Switch: isSwitch[NodeID(i)]}
	}
	f, err := New(nodes, links, buffer)
	if err != nil {
		var un *unreachableError
		if errors.As(err, &un) {
			return nil, t.errAt(firstLine[un.a], "%s", un.Error())
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

// topoReader reads a topology file's lines, naming name:line in its
// errors.
type topoReader struct {
	rd     *bufio.Reader
	name   string
	lineNo int // lines read
	nNodes int // the header's node count
}

// nodePair is an unordered pair of nodes, the smaller first.
type nodePair struct{ a, b NodeID }

func (t *topoReader) errAt(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", t.name, line, fmt.Sprintf(format, args...))
}

// next returns the fields of the next non-blank line, or nil at the end.
func (t *topoReader) next() ([]string, error) {
	for {
		s, err := readLine(t.rd, maxTopologyLine)
		if s == "" && err != nil {
			if err == io.EOF {
				return nil, nil
			}
			return nil, fmt.Errorf("%s:%d: %w", t.name, t.lineNo+1, err)
		}
		t.lineNo++
		if fs := strings.Fields(s); len(fs) > 0 {
			return fs, nil
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %w", t.name, t.lineNo, err)
		}
	}
}

// count parses a count of the current line.
func (t *topoReader) count(s, what string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > math.MaxInt32/2 {
		return 0, t.errAt(t.lineNo, "bad %s %q", what, s)
	}
	return v, nil
}

// node parses a node id of the current line.
func (t *topoReader) node(s string) (NodeID, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, t.errAt(t.lineNo, "bad node id %q", s)
	}
	if v < 0 || v >= t.nNodes {
		return 0, t.errAt(t.lineNo, "unknown node id %d (node count %d)", v, t.nNodes)
	}
	return NodeID(v), nil
}

// header reads the header line: it sets the node count and returns the
// switch and link counts.
func (t *topoReader) header() (nSwitches, nLinks int, err error) {
	fs, err := t.next()
	if err != nil {
		return 0, 0, err
	}
	if fs == nil {
		return 0, 0, t.errAt(t.lineNo+1, "missing header line \"node_count switch_count link_count\"")
	}
	if len(fs) != 3 {
		return 0, 0, t.errAt(t.lineNo, "header has %d fields, want 3 (node_count switch_count link_count)", len(fs))
	}
	if t.nNodes, err = t.count(fs[0], "node count"); err != nil {
		return 0, 0, err
	}
	if nSwitches, err = t.count(fs[1], "switch count"); err != nil {
		return 0, 0, err
	}
	if nLinks, err = t.count(fs[2], "link count"); err != nil {
		return 0, 0, err
	}
	if nSwitches > t.nNodes {
		return 0, 0, t.errAt(t.lineNo, "switch count %d exceeds node count %d", nSwitches, t.nNodes)
	}
	return nSwitches, nLinks, nil
}

// switches reads the line of the n switch ids, if n > 0.
func (t *topoReader) switches(n int) (map[NodeID]bool, error) {
	isSwitch := make(map[NodeID]bool, n)
	if n == 0 {
		return isSwitch, nil
	}
	fs, err := t.next()
	if err != nil {
		return nil, err
	}
	if fs == nil {
		return nil, t.errAt(t.lineNo+1, "missing switch id line (header says %d switches)", n)
	}
	if len(fs) != n {
		return nil, t.errAt(t.lineNo, "switch line has %d ids, header says %d", len(fs), n)
	}
	for _, s := range fs {
		id, err := t.node(s)
		if err != nil {
			return nil, err
		}
		if isSwitch[id] {
			return nil, t.errAt(t.lineNo, "duplicate switch id %d", id)
		}
		isSwitch[id] = true
	}
	return isSwitch, nil
}

// links reads the link lines to the end, n of them, and returns the links
// and the line of each node's first link.
func (t *topoReader) links(n int) ([]Link, map[NodeID]int, error) {
	linkLine := make(map[nodePair]int)
	firstLine := make(map[NodeID]int) // a node's first link line
	var links []Link
	for {
		fs, err := t.next()
		if err != nil {
			return nil, nil, err
		}
		if fs == nil {
			break
		}
		if len(links) == n {
			return nil, nil, t.errAt(t.lineNo, "more link lines than the header's %d", n)
		}
		l, err := t.link(fs, linkLine)
		if err != nil {
			return nil, nil, err
		}
		l.ID = LinkID(len(links))
		linkLine[nodePair{min(l.A, l.B), max(l.A, l.B)}] = t.lineNo
		for _, id := range []NodeID{l.A, l.B} {
			if _, ok := firstLine[id]; !ok {
				firstLine[id] = t.lineNo
			}
		}
		links = append(links, l)
	}
	if len(links) != n {
		return nil, nil, t.errAt(t.lineNo, "found %d link lines, header says %d", len(links), n)
	}
	return links, firstLine, nil
}

// link parses the fields of a link line; linkLine holds the lines of the
// links before it.
func (t *topoReader) link(fs []string, linkLine map[nodePair]int) (Link, error) {
	if len(fs) != 5 {
		return Link{}, t.errAt(t.lineNo, "link line has %d fields, want 5 (src dst rate delay error_rate)", len(fs))
	}
	a, err := t.node(fs[0])
	if err != nil {
		return Link{}, err
	}
	b, err := t.node(fs[1])
	if err != nil {
		return Link{}, err
	}
	if a == b {
		return Link{}, t.errAt(t.lineNo, "link from node %d to itself", a)
	}
	if l, dup := linkLine[nodePair{min(a, b), max(a, b)}]; dup {
		return Link{}, t.errAt(t.lineNo, "duplicate link %d-%d (first on line %d)", a, b, l)
	}
	rate, err := ParseRate(fs[2])
	if err != nil {
		return Link{}, t.errAt(t.lineNo, "%v", err)
	}
	if rate <= 0 {
		return Link{}, t.errAt(t.lineNo, "rate %q must be positive", fs[2])
	}
	delay, err := ParseDelay(fs[3])
	if err != nil {
		return Link{}, t.errAt(t.lineNo, "%v", err)
	}
	e, err := strconv.ParseFloat(fs[4], 64)
	if err != nil || !(e >= 0 && e <= 1) {
		return Link{}, t.errAt(t.lineNo, "bad error rate %q (want a number in [0, 1])", fs[4])
	}
	if e != 0 {
		return Link{}, t.errAt(t.lineNo, "error rate %s: graphcc does not simulate packet loss (its fabric is lossless under PFC); want 0", fs[4])
	}
	return Link{A: a, B: b, Rate: rate, Delay: delay}, nil
}

// WriteTopology writes f in HPCC's topology.txt format (see ReadTopology):
// rates as FormatRate, delays as FormatDelay (milliseconds) and every error
// rate 0. Node names are not part of the format.
func (f *Fabric) WriteTopology(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d %d %d\n", len(f.Nodes), len(f.switches), len(f.Links))
	for i, s := range f.switches {
		if i > 0 {
			bw.WriteByte(' ')
		}
		bw.WriteString(strconv.Itoa(int(s)))
	}
	bw.WriteByte('\n')
	for _, l := range f.Links {
		fmt.Fprintf(bw, "%d %d %s %s 0\n", l.A, l.B, FormatRate(l.Rate), FormatDelay(l.Delay))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write topology: %w", err)
	}
	return nil
}
