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
