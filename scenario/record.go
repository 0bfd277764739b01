package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// Record is a scenario as plain data, every field of Scenario with the
// topology as the text of an HPCC topology.txt and each workload by value,
// for files that must carry a scenario whole: an evaluation's part files
// (the scenario files of the run, its topology and workload files need
// not be where the parts are merged). Its JSON is canonical: equal
// scenarios give equal bytes, which the part files' fingerprint hashes.
// Gen.Seed is not recorded (Build sets it).
type Record struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Clos        ClosRecord `json:"clos"`
	// Topology is the fabric's topology.txt (Fabric.WriteTopology), and
	// TopologyBuffer its switches' buffer, bytes; absent for a Clos.
	Topology       string        `json:"topology,omitempty"`
	TopologyName   string        `json:"topology_name,omitempty"`
	TopologyBuffer int64         `json:"topology_buffer,omitempty"`
	FailRandom     int           `json:"fail_random"`
	Fail           []string      `json:"fail"`
	Workload       *CDFRecord    `json:"workload"`
	Load           float64       `json:"load"`
	DurationPs     int64         `json:"duration_ps"`
	StartPs        int64         `json:"start_ps"`
	Incast         IncastRecord  `json:"incast"`
	Phases         []PhaseRecord `json:"phases,omitempty"`
	Events         []EventRecord `json:"events,omitempty"`
	// Flows is a recorded trace's flow.txt (Scenario.Trace, every flow,
	// from its first's start), TraceName its name and WindowPs the
	// windows' length; absent for generated traffic.
	Flows     string `json:"flows,omitempty"`
	TraceName string `json:"trace_name,omitempty"`
	WindowPs  int64  `json:"window_ps,omitempty"`
	HeldOut   bool   `json:"held_out,omitempty"`
	// HeldOutWhy is why training refuses a HeldOut scenario, if it says
	// (a family's evaluation draw: Scenario.CheckTraining).
	HeldOutWhy string `json:"held_out_why,omitempty"`
}

// EventRecord is an Event in a Record.
type EventRecord struct {
	AtPs int64  `json:"at_ps"`
	Link string `json:"link"`
	Up   bool   `json:"up,omitempty"`
}

// CDFRecord is a workload.CDF in a Record.
type CDFRecord struct {
	Name string `json:"name"`
	// Points are the CDF's [bytes, percent] pairs.
	Points [][2]float64 `json:"points"`
}

// PhaseRecord is a workload.Phase in a Record.
type PhaseRecord struct {
	DurationPs int64        `json:"duration_ps"`
	Workload   *CDFRecord   `json:"workload"`
	Load       float64      `json:"load"`
	Incast     IncastRecord `json:"incast"`
}

// ClosRecord is a topo.ClosConfig in a Record: rates in bits per second,
// the delay in picoseconds, the buffer in bytes (0: the default).
type ClosRecord struct {
	Leaves       int   `json:"leaves"`
	Spines       int   `json:"spines"`
	HostsPerLeaf int   `json:"hosts_per_leaf"`
	HostRate     int64 `json:"host_rate_bps"`
	FabricRate   int64 `json:"fabric_rate_bps"`
	LinkDelay    int64 `json:"link_delay_ps"`
	Buffer       int64 `json:"buffer_bytes"`
}

// IncastRecord is a workload.IncastConfig in a Record.
type IncastRecord struct {
	Period int64 `json:"period_ps"` // 0: no incasts
	FanIn  int   `json:"fanin"`
	Size   int64 `json:"size_bytes"`
}

// NewRecord records s.
func NewRecord(s Scenario) (Record, error) {
	r := Record{
		Name: s.Name, Description: s.Description, Clos: ClosRecord(s.Clos),
		TopologyName: s.TopologyName, FailRandom: s.FailRandom, Fail: s.Fail,
		Workload: cdfRecord(s.Gen.Workload), Load: s.Gen.Load, DurationPs: s.Gen.Duration, StartPs: s.Gen.Start,
		Incast: IncastRecord(s.Gen.Incast), HeldOut: s.HeldOut, HeldOutWhy: s.heldOutWhy,
	}
	if s.Topology != nil {
		var b bytes.Buffer
		if err := s.Topology.WriteTopology(&b); err != nil {
			return Record{}, fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		r.Topology, r.TopologyBuffer = b.String(), s.Topology.Buffer
	}
	if s.Trace != nil {
		var b strings.Builder
		if err := trace.WriteFlows(&b, s.Trace.Flows()); err != nil {
			return Record{}, fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		r.Flows, r.TraceName, r.WindowPs = b.String(), s.TraceName, s.Trace.Length()
	}
	for _, p := range s.Gen.Phases {
		r.Phases = append(r.Phases, PhaseRecord{DurationPs: p.Duration, Workload: cdfRecord(p.Workload), Load: p.Load, Incast: IncastRecord(p.Incast)})
	}
	for _, e := range s.Events {
		r.Events = append(r.Events, EventRecord{AtPs: e.At, Link: e.Link, Up: e.Up})
	}
	return r, nil
}

func cdfRecord(c *workload.CDF) *CDFRecord {
	if c == nil {
		return nil
	}
	r := &CDFRecord{Name: c.Name, Points: make([][2]float64, len(c.Points))}
	for i, p := range c.Points {
		r.Points[i] = [2]float64{p.Bytes, p.Percent}
	}
	return r
}

func (r *CDFRecord) cdf() *workload.CDF {
	if r == nil {
		return nil
	}
	c := &workload.CDF{Name: r.Name, Points: make([]workload.CDFPoint, len(r.Points))}
	for i, p := range r.Points {
		c.Points[i] = workload.CDFPoint{Bytes: p[0], Percent: p[1]}
	}
	return c
}

// Scenario returns the scenario r records. Its errors name the scenario
// and the field at fault; it checks what it must to rebuild the scenario
// (a name, a topology that reads), not everything Build would refuse.
func (r Record) Scenario() (Scenario, error) {
	if r.Name == "" {
		return Scenario{}, errors.New("scenario record without a name")
	}
	s := Scenario{
		Name: r.Name, Description: r.Description, Clos: topo.ClosConfig(r.Clos), TopologyName: r.TopologyName,
		FailRandom: r.FailRandom, Fail: r.Fail, HeldOut: r.HeldOut, heldOutWhy: r.HeldOutWhy,
		Gen: workload.GenConfig{Workload: r.Workload.cdf(), Load: r.Load, Duration: r.DurationPs, Start: r.StartPs, Incast: workload.IncastConfig(r.Incast)},
	}
	if r.Topology != "" {
		f, err := topo.ReadTopology(strings.NewReader(r.Topology), "scenario "+r.Name+" topology", r.TopologyBuffer)
		if err != nil {
			return Scenario{}, err
		}
		s.Topology = f
	}
	if len(r.Phases) > workload.MaxPhases {
		return Scenario{}, fmt.Errorf("scenario %s: %d phases, more than %d", r.Name, len(r.Phases), workload.MaxPhases)
	}
	for _, p := range r.Phases {
		s.Gen.Phases = append(s.Gen.Phases, workload.Phase{Duration: p.DurationPs, Workload: p.Workload.cdf(), Load: p.Load, Incast: workload.IncastConfig(p.Incast)})
	}
	for _, e := range r.Events {
		s.Events = append(s.Events, Event{At: e.AtPs, Link: e.Link, Up: e.Up})
	}
	if r.Flows != "" {
		f, err := s.BaseFabric()
		if err != nil {
			return Scenario{}, fmt.Errorf("scenario %s: %w", r.Name, err)
		}
		if s.Trace, err = trace.ReadWindows(strings.NewReader(r.Flows), "scenario "+r.Name+" flows", f, r.WindowPs); err != nil {
			return Scenario{}, err
		}
		s.TraceName = r.TraceName
	}
	return s, nil
}
