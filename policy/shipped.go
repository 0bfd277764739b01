package policy

import (
	"fmt"

	"graphcc/models"
)

// ShippedTune is a tune result built into graphcc (package models), which
// tuned:NAME runs from any working directory.
type ShippedTune struct {
	// Name is what follows tuned: in a spec: joint or switch.
	Name string
	// File is where the repository keeps the result,
	// models/tuned-joint-global.json.
	File string
	// Joint reports whether its configuration sets the hosts' DCQCN
	// constants besides the switches' ECN (graphcc tune --dcqcn).
	Joint bool
	// BestPolicy is its best_policy, and Hardware the simulated hardware
	// it was tuned on, in Hardware's form.
	BestPolicy, Hardware string
}

// The shipped tune results' names (tuned:joint, tuned:switch).
const (
	ShippedJoint  = "joint"
	ShippedSwitch = "switch"
)

// shippedFile is a shipped tune result: its ShippedTune's name, file and
// kind, and its bytes.
type shippedFile struct {
	name, file string
	joint      bool
	data       []byte
}

// shippedFiles returns the shipped tune results, the joint one first.
func shippedFiles() []shippedFile {
	return []shippedFile{
		{name: ShippedJoint, file: "models/tuned-joint-global.json", joint: true, data: models.TunedJointGlobal()},
		{name: ShippedSwitch, file: "models/tuned-global.json", data: models.TunedSwitchGlobal()},
	}
}

// ShippedTunes returns the tune results built into graphcc, the joint one
// first.
func ShippedTunes() ([]ShippedTune, error) {
	var out []ShippedTune
	for _, s := range shippedFiles() {
		r, err := parseTuned(s.data, "tuned:"+s.name)
		if err != nil {
			return nil, err
		}
		out = append(out, ShippedTune{Name: s.name, File: s.file, Joint: s.joint, BestPolicy: r.spec, Hardware: r.hardwareOrDefault()})
	}
	return out, nil
}

// loadShipped returns the shipped tune result tuned:name runs, and false
// if name is not one's.
func loadShipped(name string) (tunedResult, bool, error) {
	for _, s := range shippedFiles() {
		if s.name == name {
			r, err := parseTuned(s.data, "tuned:"+name)
			if err != nil {
				return tunedResult{}, true, fmt.Errorf("the shipped %s: %w", s.file, err)
			}
			return r, true, nil
		}
	}
	return tunedResult{}, false, nil
}

// The names of the GraphCC policies built into graphcc: what follows
// graphcc: in a spec (graphcc alone is the default, DefaultGraphCC). A
// model file of one of these names is ./NAME.
const (
	// GraphCCBare is the shipped model unfloored (models.GraphCC, with a
	// host head).
	GraphCCBare = "bare"
	// GraphCCSwitch is the switch-only model held to the switch-only
	// tuned constant, SwitchGraphCC: for NICs whose DCQCN constants
	// cannot be set.
	GraphCCSwitch = "switch"
	// GraphCCBareSwitch is the switch-only model unfloored
	// (gnn.EmbeddedModel), what graphcc named before 2026-12-08.
	GraphCCBareSwitch = "bare-switch"
)

// DefaultGraphCC is the floor spec the default graphcc runs: the shipped
// model held to the tuned joint constant, a switch port leaving it at a
// Q-gap above 30, a host at one above 10, every port and host on it while
// a link is down and for 5 ms after (docs/learning.md, "The shipped
// default").
const DefaultGraphCC = "floor:30/10/5ms:tuned:joint@graphcc:bare"

// SwitchGraphCC is the floor spec graphcc:switch runs: the switch-only
// model held to the switch-only tuned constant, a switch port leaving it
// at a Q-gap above 5, every port on it while a link is down and for 5 ms
// after; gates chosen on training draws (docs/learning.md, "The shipped
// default").
const SwitchGraphCC = "floor:5/5/5ms:tuned:switch@graphcc:bare-switch"

// shippedFloor returns the floor spec graphcc:model runs, and false if
// model names no floor (a bare model or a file).
func shippedFloor(model string) (string, bool) {
	switch model {
	case "":
		return DefaultGraphCC, true
	case GraphCCSwitch:
		return SwitchGraphCC, true
	}
	return "", false
}
