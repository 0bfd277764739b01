package models

import _ "embed"

// tunedJoint and tunedSwitch are the shipped global tune results, and
// graphccHosts the shipped GraphCC model (strings: nothing can change
// them).
var (
	//go:embed tuned-joint-global.json
	tunedJoint string
	//go:embed tuned-global.json
	tunedSwitch string
	// To ship another model, embed its file here and name it in
	// GraphCCFile.
	//go:embed graphcc-hosts.model
	graphccHosts string
)

// GraphCCFile is where the repository keeps the GraphCC model that
// GraphCC returns.
const GraphCCFile = "models/graphcc-hosts.model"

// TunedJointGlobal returns tuned-joint-global.json: the graphcc tune
// --dcqcn result over the whole suite, the switches' ECN setting and the
// hosts' DCQCN constants together, with the hardware it was made on.
func TunedJointGlobal() []byte { return []byte(tunedJoint) }

// TunedSwitchGlobal returns tuned-global.json: the graphcc tune result
// over the whole suite that sets the switches' ECN alone, with the
// hardware it was made on.
func TunedSwitchGlobal() []byte { return []byte(tunedSwitch) }

// GraphCC returns the shipped GraphCC model file, GraphCCFile: a model
// with a host head (graphcc train --hosts), which policy names
// graphcc:bare and, held to the tuned joint constant, graphcc.
func GraphCC() []byte { return []byte(graphccHosts) }
