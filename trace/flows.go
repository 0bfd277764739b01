package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"graphcc/topo"
)

// Destination ports and the priority group of generated flows. HPCC's
// traffic generator writes pg 3 and dport 100 for every flow, and its
// fct_analysis.py tells background flows (dport 100) from incast flows
// (dport 200) by the destination port alone.
const (
	DPortBackground = 100
	DPortIncast     = 200
	DefaultPG       = 3
)

// Flow is one line of an HPCC flow.txt: Size bytes from host Src to host
// Dst, starting at Start picoseconds.
type Flow struct {
	Src, Dst topo.NodeID
	PG       int   // priority group, 0..7 (DefaultPG for generated flows)
	DPort    int   // destination port: DPortBackground or DPortIncast for generated flows
	Size     int64 // bytes, > 0
	Start    int64 // picoseconds, >= 0
}

// Incast reports whether f is part of an incast (its DPort is DPortIncast).
func (f Flow) Incast() bool { return f.DPort == DPortIncast }

// FirstStart returns the earliest Start of flows, ps (0 for none).
func FirstStart(flows []Flow) int64 {
	if len(flows) == 0 {
		return 0
	}
	first := flows[0].Start
	for _, fl := range flows[1:] {
		first = min(first, fl.Start)
	}
	return first
}

// WindowEnd returns the end of a window of d ps from the first start of
// flows (FirstStart + d): where the arrival window of a trace generated
// over d ends. It returns 0, no end, when d is not positive, flows is
// empty or the end is past math.MaxInt64.
func WindowEnd(flows []Flow, d int64) int64 {
	if d <= 0 || len(flows) == 0 || FirstStart(flows) > math.MaxInt64-d {
		return 0
	}
	return FirstStart(flows) + d
}

// ReadFlows reads an HPCC flow.txt: a first line with the number of flows,
// then one flow per line, `src dst pg dport size start_seconds`. Blank lines
// are skipped. Like HPCC's simulator, exactly the declared number of flows
// is read and anything after them is ignored (HPCC's own sample
// simulation/mix/flow.txt declares 2 flows and carries 256 more lines and
// notes after them); a file with fewer flows than declared is an error.
//
// Start times are parsed as exact decimals (digits, optional fraction and
// exponent) into picoseconds, with no floating-point rounding; a time finer
// than 1 ps is an error. If f is not nil, src and dst must be distinct hosts
// of f. Flows are returned in file order and need not be sorted by start
// time; the simulator orders them.
//
// Errors have the form "name:line: reason".
func ReadFlows(r io.Reader, name string, f *topo.Fabric) ([]Flow, error) {
	var flows []Flow
	err := scanFlows(r, name, f, func(count int64) { flows = make([]Flow, 0, min(count, 1<<16)) },
		func(fl Flow, _ int) error { flows = append(flows, fl); return nil })
	if err != nil {
		return nil, err
	}
	return flows, nil
}

// scanFlows reads an HPCC flow.txt as ReadFlows does, calling start with
// the declared count and then each with every flow and its line; an
// error of each is returned as "name:line: error".
func scanFlows(r io.Reader, name string, f *topo.Fabric, start func(count int64), each func(fl Flow, line int) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	next := func() ([]string, bool) {
		for sc.Scan() {
			line++
			if fields := strings.Fields(sc.Text()); len(fields) > 0 {
				return fields, true
			}
		}
		return nil, false
	}
	scanErr := func() error {
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line+1, err)
		}
		return nil
	}

	fields, ok := next()
	if !ok {
		if err := scanErr(); err != nil {
			return err
		}
		return fmt.Errorf("%s:%d: missing flow count line", name, max(line, 1))
	}
	if len(fields) != 1 {
		return fmt.Errorf("%s:%d: want 1 field (flow count), got %d", name, line, len(fields))
	}
	count, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil || count < 0 {
		return fmt.Errorf("%s:%d: bad flow count %q", name, line, fields[0])
	}
	start(count)
	for n := int64(0); n < count; n++ {
		fields, ok := next()
		if !ok {
			if err := scanErr(); err != nil {
				return err
			}
			return fmt.Errorf("%s:%d: count mismatch: header declares %d flows, file has %d", name, line, count, n)
		}
		fl, err := parseFlow(fields, f)
		if err == nil {
			err = each(fl, line)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	return nil
}

// parseFlow parses the fields of one flow.txt line.
func parseFlow(fields []string, f *topo.Fabric) (Flow, error) {
	if len(fields) != 6 {
		return Flow{}, fmt.Errorf("want 6 fields (src dst pg dport size start_seconds), got %d", len(fields))
	}
	var fl Flow
	src, err := parseNode(fields[0], "src", f)
	if err != nil {
		return Flow{}, err
	}
	dst, err := parseNode(fields[1], "dst", f)
	if err != nil {
		return Flow{}, err
	}
	if src == dst {
		return Flow{}, fmt.Errorf("src == dst (node %d)", src)
	}
	fl.Src, fl.Dst = src, dst
	pg, err := parseInt(fields[2], "pg")
	if err != nil {
		return Flow{}, err
	}
	if pg < 0 || pg > 7 {
		return Flow{}, fmt.Errorf("pg %d out of [0,7]", pg)
	}
	fl.PG = int(pg)
	dport, err := parseInt(fields[3], "dport")
	if err != nil {
		return Flow{}, err
	}
	if dport < 0 || dport > 65535 {
		return Flow{}, fmt.Errorf("dport %d out of [0,65535]", dport)
	}
	fl.DPort = int(dport)
	if fl.Size, err = parseInt(fields[4], "size"); err != nil {
		return Flow{}, err
	}
	switch {
	case fl.Size < 0:
		return Flow{}, fmt.Errorf("negative size %d", fl.Size)
	case fl.Size == 0:
		return Flow{}, errors.New("zero size")
	}
	if fl.Start, err = parseSeconds(fields[5]); err != nil {
		return Flow{}, fmt.Errorf("bad start: %w", err)
	}
	return fl, nil
}

// parseInt parses a base-10 int64 for field what.
func parseInt(s, what string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) {
			err = ne.Err
		}
		return 0, fmt.Errorf("bad %s %q: %w", what, s, err)
	}
	return v, nil
}

// parseNode parses a node id and, if f is not nil, checks that it is a host
// of f.
func parseNode(s, what string, f *topo.Fabric) (topo.NodeID, error) {
	v, err := parseInt(s, what)
	if err != nil {
		return 0, err
	}
	if v < 0 || v > math.MaxInt32 || (f != nil && v >= int64(len(f.Nodes))) {
		return 0, fmt.Errorf("%s: unknown node %d", what, v)
	}
	if f != nil && f.Nodes[v].Switch {
		return 0, fmt.Errorf("%s: node %d (%s) is not a host", what, v, f.Nodes[v].Name)
	}
	return topo.NodeID(v), nil
}

// errNegativeStart is returned by parseSeconds for a negative time.
var errNegativeStart = errors.New("negative start")

// parseSeconds parses a non-negative decimal number of seconds, such as "2",
// "2.000012345" or "2.5e-3", into exact picoseconds.
func parseSeconds(s string) (int64, error) {
	neg := false
	body := s
	if strings.HasPrefix(body, "-") {
		neg, body = true, body[1:]
	} else if strings.HasPrefix(body, "+") {
		body = body[1:]
	}
	mant, exp := body, 0
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		e, err := strconv.Atoi(body[i+1:])
		if err != nil || e < -1000 || e > 1000 {
			return 0, fmt.Errorf("%q: bad exponent", s)
		}
		mant, exp = body[:i], e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || strings.Contains(frac, ".") {
		return 0, fmt.Errorf("%q: not a decimal number", s)
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q: not a decimal number", s)
		}
	}
	// value = digits * 10^(len(intPart) + exp - len(digits)) seconds.
	shift := len(intPart) + exp - len(digits) + 12
	digits = strings.TrimLeft(digits, "0")
	if shift < 0 {
		cut := len(digits) + shift
		if cut < 0 {
			cut = 0
		}
		if strings.Trim(digits[cut:], "0") != "" {
			return 0, fmt.Errorf("%q: finer than 1 ps", s)
		}
		digits = digits[:cut]
	} else if digits != "" {
		if len(digits)+shift > 19 {
			return 0, fmt.Errorf("%q: out of range", s)
		}
		digits += strings.Repeat("0", shift)
	}
	if digits == "" {
		return 0, nil
	}
	ps, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: out of range", s)
	}
	if neg {
		return 0, fmt.Errorf("%w %s s", errNegativeStart, s)
	}
	return ps, nil
}

// formatSeconds formats ps as seconds with at least 9 decimals (like HPCC's
// "%.9f") and up to 12, exactly.
func formatSeconds(ps int64) string {
	frac := fmt.Sprintf("%012d", ps%topo.Second)
	for len(frac) > 9 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	return fmt.Sprintf("%d.%s", ps/topo.Second, frac)
}

// WriteFlows writes flows in HPCC's flow.txt format: the count, then
// `src dst pg dport size start_seconds` per flow. Start times are written
// exactly, with at least 9 decimals like HPCC's "%.9f" and up to 12 (whole
// picoseconds), so ReadFlows returns the same flows.
func WriteFlows(w io.Writer, flows []Flow) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d\n", len(flows))
	for i, fl := range flows {
		switch {
		case fl.Start < 0:
			return fmt.Errorf("write flows: flow %d: negative start %d ps", i, fl.Start)
		case fl.Size <= 0:
			return fmt.Errorf("write flows: flow %d: size %d, want > 0", i, fl.Size)
		case fl.Src < 0 || fl.Dst < 0:
			return fmt.Errorf("write flows: flow %d: negative node id", i)
		}
		fmt.Fprintf(bw, "%d %d %d %d %d %s\n", fl.Src, fl.Dst, fl.PG, fl.DPort, fl.Size, formatSeconds(fl.Start))
	}
	return bw.Flush()
}
