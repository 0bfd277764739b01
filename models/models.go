package models

import _ "embed"

// tunedJoint and tunedSwitch are the shipped global tune results (strings:
// nothing can change them).
var (
	//go:embed tuned-joint-global.json
	tunedJoint string
	//go:embed tuned-global.json
	tunedSwitch string
)

// TunedJointGlobal returns tuned-joint-global.json: the graphcc tune
// --dcqcn result over the whole suite, the switches' ECN setting and the
// hosts' DCQCN constants together, with the hardware it was made on.
func TunedJointGlobal() []byte { return []byte(tunedJoint) }

// TunedSwitchGlobal returns tuned-global.json: the graphcc tune result
// over the whole suite that sets the switches' ECN alone, with the
// hardware it was made on.
func TunedSwitchGlobal() []byte { return []byte(tunedSwitch) }
