package agent

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/topo"
)

// Floor holds a floored policy's agents to its fixed base (a gnn.Floor
// over static, edge or tuned constants, policy.FixedBase): each agent
// keeps its ports on the base's settings, and its hosts on the base's
// constants, unless its model's Q-gap passes the gate of the head
// (gnn.AgentFloor), and holds them there while a link of its own switch
// is down and LinkHold after.
type Floor struct {
	Gates gnn.FloorGates
	// Base are the base's settings, by topo.PortID: every port's floor,
	// and what an agent's ports start on and fall back to (Config.Static).
	Base []control.ECN
	// Hosts are, with a host head, the hosts' base constants by
	// topo.PortID: those the hosts start the run with.
	Hosts []control.HostParams
}

// floorFile is a Floor as WriteFloor writes it: the margins as text, so
// that ±inf survives JSON.
type floorFile struct {
	Margin     string               `json:"margin"`
	HostMargin string               `json:"host_margin"`
	HoldLinks  bool                 `json:"hold_links,omitempty"`
	LinkHold   int64                `json:"link_hold_ps,omitempty"`
	Base       []control.ECN        `json:"base"`
	Hosts      []control.HostParams `json:"hosts,omitempty"`
}

// WriteFloor writes fl to the file path, for the agent processes
// (ReadFloor).
func WriteFloor(path string, fl *Floor) error {
	ff := floorFile{
		Margin: strconv.FormatFloat(fl.Gates.Margin, 'g', -1, 64), HostMargin: strconv.FormatFloat(fl.Gates.HostMargin, 'g', -1, 64),
		HoldLinks: fl.Gates.HoldLinks, LinkHold: fl.Gates.LinkHold, Base: fl.Base, Hosts: fl.Hosts,
	}
	b, err := json.Marshal(ff)
	if err != nil {
		return fmt.Errorf("agent floor: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("agent floor: %w", err)
	}
	return nil
}

// ReadFloor reads the file WriteFloor wrote for fabric f: one base
// setting per port, valid, and with hosts' constants one per port, valid
// on every host's NIC port.
func ReadFloor(path string, f *topo.Fabric) (*Floor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("agent floor: %w", err)
	}
	var ff floorFile
	if err := json.Unmarshal(b, &ff); err != nil {
		return nil, fmt.Errorf("agent floor %s: %w", path, err)
	}
	fl := &Floor{Gates: gnn.FloorGates{HoldLinks: ff.HoldLinks, LinkHold: ff.LinkHold}, Base: ff.Base, Hosts: ff.Hosts}
	for _, m := range []struct {
		text string
		dst  *float64
	}{{ff.Margin, &fl.Gates.Margin}, {ff.HostMargin, &fl.Gates.HostMargin}} {
		if *m.dst, err = strconv.ParseFloat(m.text, 64); err != nil || math.IsNaN(*m.dst) {
			return nil, fmt.Errorf("agent floor %s: margin %q is not a number (nor inf or -inf)", path, m.text)
		}
	}
	if err := fl.check(f); err != nil {
		return nil, fmt.Errorf("agent floor %s: %w", path, err)
	}
	return fl, nil
}

// check refuses a floor that does not fit fabric f.
func (fl *Floor) check(f *topo.Fabric) error {
	if fl.Gates.LinkHold < 0 {
		return fmt.Errorf("negative link hold %d ps", fl.Gates.LinkHold)
	}
	if len(fl.Base) != len(f.Ports) {
		return fmt.Errorf("%d base settings for %d ports", len(fl.Base), len(f.Ports))
	}
	for p, e := range fl.Base {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("base setting of port %d: %w", p, err)
		}
	}
	if fl.Hosts == nil {
		return nil
	}
	if len(fl.Hosts) != len(f.Ports) {
		return fmt.Errorf("%d hosts' base constants for %d ports", len(fl.Hosts), len(f.Ports))
	}
	for _, p := range control.HostPorts(f) {
		if err := fl.Hosts[p].Validate(); err != nil {
			return fmt.Errorf("hosts' base constants of port %d: %w", p, err)
		}
	}
	return nil
}
