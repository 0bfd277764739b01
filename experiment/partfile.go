package experiment

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/topo"
	"graphcc/trace"
)

// A part file is one JSON object, written and read as a stream: the
// header (format first, then kind, build, shard, fingerprint, config and,
// for a tune-grid part, its search), then an eval part's units one by one,
// or a tune-grid part's runs. A merge reads the parts of every shard in
// step, one unit at a time in the units' canonical order (shard u mod N
// holds unit u), so that it holds only the units of the policy and
// scenario it is merging, not every shard's records at once.

// partHead is a part file's header.
type partHead struct {
	Format      string          `json:"format"`
	Kind        string          `json:"kind"`
	Graphcc     string          `json:"graphcc"`
	Shard       int             `json:"shard"`
	Shards      int             `json:"shards"`
	Fingerprint string          `json:"fingerprint"`
	Config      PartConfig      `json:"config"`
	Tune        json.RawMessage `json:"tune,omitempty"`
}

// unitJSON is a PartUnit in a part file.
type unitJSON struct {
	Unit        int             `json:"unit"`
	Scenario    string          `json:"scenario"`
	Policy      string          `json:"policy"`
	Seed        uint64          `json:"seed"`
	Flows       int             `json:"flows"`
	FailedLinks []string        `json:"failed_links"`
	Summary     metrics.Summary `json:"summary"`
	Rewards     []*float64      `json:"rewards,omitempty"` // null: NaN
	FCT         fctRows         `json:"fct"`
}

// fctRows are FCT records in a part file: each [src, dst, sport, dport,
// size, start, fct, standalone], sizes in bytes and times in ps, written
// and read without a slice per row.
type fctRows []trace.FCT

// MarshalJSON writes the rows.
func (rows fctRows) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(rows)*48)
	b = append(b, '[')
	for i, r := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for k, v := range [8]int64{int64(r.Src), int64(r.Dst), int64(r.SPort), int64(r.DPort), r.Size, r.Start, r.FCT, r.Standalone} {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, v, 10)
		}
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads rows of 8 whole numbers, the node ids within int32.
func (rows *fctRows) UnmarshalJSON(b []byte) error {
	p := rowParser{b: b}
	out := fctRows{}
	if !p.take('[') {
		return errors.New("FCT records: want an array of rows")
	}
	for i := 0; !p.take(']'); i++ {
		if i > 0 && !p.take(',') {
			return fmt.Errorf("FCT row %d: want ',' or ']'", i)
		}
		var v [8]int64
		if !p.take('[') {
			return fmt.Errorf("FCT row %d: want 8 whole numbers, src dst sport dport size start fct standalone", i)
		}
		for k := range v {
			if k > 0 && !p.take(',') || !p.int(&v[k]) {
				return fmt.Errorf("FCT row %d: want 8 whole numbers, src dst sport dport size start fct standalone", i)
			}
		}
		if !p.take(']') || v[0] != int64(int32(v[0])) || v[1] != int64(int32(v[1])) ||
			v[2] != int64(int(v[2])) || v[3] != int64(int(v[3])) {
			return fmt.Errorf("FCT row %d: want 8 whole numbers, src dst sport dport size start fct standalone", i)
		}
		out = append(out, trace.FCT{Src: topo.NodeID(v[0]), Dst: topo.NodeID(v[1]), SPort: int(v[2]), DPort: int(v[3]),
			Size: v[4], Start: v[5], FCT: v[6], Standalone: v[7]})
	}
	*rows = out
	return nil
}

// rowParser reads the JSON of fctRows, which encoding/json has checked
// is valid JSON.
type rowParser struct {
	b []byte
	i int
}

func (p *rowParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// take consumes c, after white space, if it comes next.
func (p *rowParser) take(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// int consumes a whole number into v.
func (p *rowParser) int(v *int64) bool {
	p.space()
	j := p.i
	if j < len(p.b) && p.b[j] == '-' {
		j++
	}
	for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
		j++
	}
	x, err := strconv.ParseInt(string(p.b[p.i:j]), 10, 64)
	if err != nil {
		return false
	}
	*v, p.i = x, j
	return true
}

// marshal is json.Marshal without HTML escaping.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// WritePart writes p as its file (docs/formats.md): one line of JSON,
// unit by unit.
func WritePart(w io.Writer, p *Part) error {
	bw := bufio.NewWriter(w)
	head, err := marshal(partHead{Format: PartFormat, Kind: p.Kind, Graphcc: p.Build, Shard: p.Shard.Index, Shards: p.Shard.Count,
		Fingerprint: p.Fingerprint, Config: p.Config, Tune: p.Tune})
	if err != nil {
		return err
	}
	bw.Write(head[:len(head)-1]) // without its '}'
	if len(p.Units) > 0 {
		bw.WriteString(`,"units":[`)
		for i, u := range p.Units {
			b, err := marshal(unitJSON{Unit: u.Unit, Scenario: u.Scenario, Policy: u.Policy, Seed: u.Seed, Flows: u.Flows,
				FailedLinks: u.FailedLinks, Summary: u.Summary, Rewards: fileio.JSONFloats(u.Rewards), FCT: u.FCT})
			if err != nil {
				return fmt.Errorf("unit %d: %w", u.Unit, err)
			}
			if i > 0 {
				bw.WriteByte(',')
			}
			bw.Write(b)
		}
		bw.WriteByte(']')
	}
	if len(p.Runs) > 0 {
		b, err := marshal(p.Runs)
		if err != nil {
			return err
		}
		bw.WriteString(`,"runs":`)
		bw.Write(b)
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// A PartReader reads a part file: its header at once (OpenPart), then
// its units one by one (Next).
type PartReader struct {
	// Part is the file's part but for its units: an eval part's are read
	// by Next.
	*Part
	name    string
	dec     *json.Decoder
	want    []int // the shard's units
	next    int   // units read
	inUnits bool  // the decoder is within the units' array
	done    bool
}

// Name is the name of the file, as OpenPart was given it.
func (pr *PartReader) Name() string { return pr.name }

// errNotPart is the error of a file that is not a part.
const errNotPart = "not a graphcc part file (a shard's --json of graphcc eval --shard or tune --shard)"

// OpenPart reads the header of a part file (name names it in errors)
// and checks it: its format, that its config is an evaluation's and
// matches its fingerprint. A tune-grid part's search and runs are
// package experiment/tune's to check.
func OpenPart(r io.Reader, name string) (*PartReader, error) {
	pr := &PartReader{name: name, dec: json.NewDecoder(r)}
	if err := pr.open(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pr, nil
}

// open reads the header up to the units (or the end of the object).
func (pr *PartReader) open() error {
	dec := pr.dec
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New(errNotPart)
	}
	var h partHead
	var runs json.RawMessage
	if key, err := dec.Token(); err != nil || key != "format" {
		return errors.New(errNotPart)
	}
	if err := dec.Decode(&h.Format); err != nil || h.Format != PartFormat {
		return fmt.Errorf("not a graphcc part file: format %q, want %q", h.Format, PartFormat)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("damaged part file: %w", err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("field %q twice", key)
		}
		seen[key] = true
		var v any
		switch key {
		case "kind":
			v = &h.Kind
		case "graphcc":
			v = &h.Graphcc
		case "shard":
			v = &h.Shard
		case "shards":
			v = &h.Shards
		case "fingerprint":
			v = &h.Fingerprint
		case "config":
			v = &h.Config
		case "tune":
			v = &h.Tune
		case "runs":
			v = &runs
		case "units":
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return errors.New("damaged part file: units: want an array")
			}
			pr.inUnits = true
			return pr.head(h, runs)
		default:
			return fmt.Errorf("unknown field %q", key)
		}
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("damaged part file: %s: %w", key, err)
		}
	}
	if err := pr.end(); err != nil {
		return err
	}
	return pr.head(h, runs)
}

// end reads the end of the file's object and checks nothing follows.
func (pr *PartReader) end() error {
	if tok, err := pr.dec.Token(); err != nil || tok != json.Delim('}') {
		return errors.New("damaged part file: want the end of its object")
	}
	if _, err := pr.dec.Token(); err != io.EOF {
		return errors.New("damaged part file: data after its object")
	}
	return nil
}

// head checks the header h (with a tune-grid part's runs) and makes it
// pr's Part.
func (pr *PartReader) head(h partHead, runs json.RawMessage) error {
	h.Tune, runs = nonNull(h.Tune), nonNull(runs)
	p := &Part{Kind: h.Kind, Build: h.Graphcc, Shard: Shard{Index: h.Shard, Count: h.Shards},
		Config: h.Config, Fingerprint: h.Fingerprint, Tune: h.Tune, Runs: runs}
	switch {
	case p.Kind != PartEval && p.Kind != PartTuneGrid && p.Kind != PartHeadroom:
		return fmt.Errorf("kind %q: want %s, %s or %s", p.Kind, PartEval, PartTuneGrid, PartHeadroom)
	case (p.Kind != PartEval) != (p.Tune != nil):
		return fmt.Errorf("a %s part with tune %v", p.Kind, p.Tune != nil)
	case p.Kind == PartTuneGrid && pr.inUnits:
		return fmt.Errorf("a %s part with units", p.Kind)
	case p.Kind != PartTuneGrid && runs != nil:
		return fmt.Errorf("a %s part with runs", p.Kind)
	case p.Shard == (Shard{}) || p.Shard.Check() != nil:
		return fmt.Errorf("shard %d of %d: want 0 <= shard < shards <= %d", h.Shard, h.Shards, MaxShards)
	}
	if err := p.Config.check(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if fp, err := Fingerprint(&p.Config, p.Tune); err != nil || fp != p.Fingerprint {
		return fmt.Errorf("config does not match its fingerprint %s (edited or damaged)", p.Fingerprint)
	}
	pr.Part = p
	if p.Kind == PartTuneGrid {
		pr.done = true
		return nil
	}
	pr.want = p.Shard.Units(p.Config.units())
	return nil
}

// nonNull returns raw, or nil for the JSON null (a field absent).
func nonNull(raw json.RawMessage) json.RawMessage {
	if string(raw) == "null" {
		return nil
	}
	return raw
}

// Next returns the part's next unit, checked, and io.EOF after the last
// one, once it has checked that the file ends there and that it held
// every unit of its shard.
func (pr *PartReader) Next() (PartUnit, error) {
	if pr.done {
		return PartUnit{}, io.EOF
	}
	u, err := pr.nextUnit()
	if err != nil && err != io.EOF {
		pr.done = true
		return PartUnit{}, fmt.Errorf("%s: %w", pr.name, err)
	}
	return u, err
}

func (pr *PartReader) nextUnit() (PartUnit, error) {
	if !pr.inUnits || !pr.dec.More() {
		if pr.inUnits {
			if tok, err := pr.dec.Token(); err != nil || tok != json.Delim(']') {
				return PartUnit{}, errors.New("damaged part file: units: want the end of the array")
			}
			if err := pr.end(); err != nil {
				return PartUnit{}, err
			}
		}
		pr.done = true
		if pr.next != len(pr.want) {
			return PartUnit{}, fmt.Errorf("%d units, but shard %s of its evaluation has %d", pr.next, pr.Shard, len(pr.want))
		}
		return PartUnit{}, io.EOF
	}
	if pr.next >= len(pr.want) {
		return PartUnit{}, fmt.Errorf("more units than the %d of shard %s of its evaluation", len(pr.want), pr.Shard)
	}
	var uj unitJSON
	if err := pr.dec.Decode(&uj); err != nil {
		return PartUnit{}, fmt.Errorf("damaged part file: unit %d: %w", pr.want[pr.next], err)
	}
	u, err := uj.unit(&pr.Config, pr.want[pr.next])
	if err != nil {
		return PartUnit{}, fmt.Errorf("unit %d: %w", uj.Unit, err)
	}
	pr.next++
	return u, nil
}

// unit checks uj, which should be unit want of pc, and returns it.
func (uj *unitJSON) unit(pc *PartConfig, want int) (PartUnit, error) {
	sc, pol, seed := pc.unit(want)
	switch {
	case uj.Unit != want:
		return PartUnit{}, fmt.Errorf("in the place of unit %d", want)
	case uj.Scenario != sc || uj.Policy != pol || uj.Seed != seed:
		return PartUnit{}, fmt.Errorf("runs %s on %s at seed %d, but the config's unit %d is %s on %s at seed %d",
			uj.Policy, uj.Scenario, uj.Seed, want, pol, sc, seed)
	case uj.Rewards != nil && len(uj.Rewards) != len(pc.Rewards):
		return PartUnit{}, fmt.Errorf("%d rewards' scores, want %d", len(uj.Rewards), len(pc.Rewards))
	case uj.Flows < 0 || len(uj.FCT) > uj.Flows:
		return PartUnit{}, fmt.Errorf("%d FCT records of %d flows", len(uj.FCT), uj.Flows)
	}
	u := PartUnit{Unit: uj.Unit, Scenario: uj.Scenario, Policy: uj.Policy, Seed: uj.Seed, Flows: uj.Flows,
		FailedLinks: uj.FailedLinks, Summary: uj.Summary, FCT: uj.FCT}
	if uj.Rewards != nil {
		u.Rewards = make([]float64, len(uj.Rewards))
		for k, v := range uj.Rewards {
			u.Rewards[k] = math.NaN()
			if v != nil {
				u.Rewards[k] = *v
			}
		}
	}
	return u, nil
}

// OpenParts opens the part files at paths and reads their headers
// (OpenPart); a merge then reads their units in step. closeAll closes
// the files; on an error they are closed already.
func OpenParts(paths []string) (parts []*PartReader, closeAll func(), err error) {
	var files []*os.File
	closeAll = func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		files = append(files, f)
		p, err := OpenPart(bufio.NewReaderSize(f, 1<<20), path)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		parts = append(parts, p)
	}
	return parts, closeAll, nil
}
