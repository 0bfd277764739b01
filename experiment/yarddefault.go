package experiment

import (
	"fmt"
	"strings"

	"graphcc/policy"
	"graphcc/replay"
)

// AutoYardsticks is the PolicySpecs.Yardsticks that asks for the default
// yardsticks (eval's --yardsticks default): static and the shipped tune
// of the evaluation's hardware (DefaultYardstick), or none when no
// shipped tune was made on it.
const AutoYardsticks = "auto"

// DefaultYardstick returns the tuned yardstick an evaluation on the
// simulated hardware p and control interval measures every policy
// against unless told otherwise, as a policy spec, and one line for the
// report saying which it is or why there is none:
//
//   - tuned:joint (policy.ShippedTunes) when the shipped joint tune, the
//     switches' ECN and the hosts' DCQCN tuned together, was made on
//     exactly this hardware (policy.Hardware);
//   - else tuned:switch when the shipped switch-only tune was made on
//     hardware that differs from this in the hosts' DCQCN constants alone:
//     NICs other than those the joint tune set, with the switches as
//     tuned;
//   - else "": the note names what differs.
func DefaultYardstick(p replay.Params, interval int64) (spec, note string, err error) {
	tunes, err := policy.ShippedTunes()
	if err != nil {
		return "", "", err
	}
	here := policy.Hardware(p, interval)
	var joint, sw policy.ShippedTune
	for _, t := range tunes {
		if t.Joint {
			joint = t
		} else {
			sw = t
		}
	}
	jointDiff, swDiff := policy.HardwareDiff(joint.Hardware, here), policy.HardwareDiff(sw.Hardware, here)
	switch {
	case len(jointDiff) == 0:
		return "tuned:" + joint.Name, fmt.Sprintf("Yardstick tuned:%s: the tuned joint configuration shipped for this hardware, %s (%s, graphcc tune --dcqcn over the suite: "+
			"the switches' ECN and the hosts' DCQCN tuned together).", joint.Name, joint.BestPolicy, joint.File), nil
	case onlyHosts(swDiff):
		return "tuned:" + sw.Name, fmt.Sprintf("Yardstick tuned:%s: the switch-only configuration shipped, %s (%s, graphcc tune over the suite), "+
			"not the joint one (tuned:%s), whose hosts' DCQCN constants were tuned from others than this hardware's (%s).", sw.Name, sw.BestPolicy, sw.File, joint.Name, strings.Join(jointDiff, ", ")), nil
	}
	return "", fmt.Sprintf("No tuned yardstick: the shipped tunes (tuned:%s, tuned:%s) were made on other hardware (%s); "+
		"graphcc tune --dcqcn with this hardware's flags makes one for --yardsticks tuned:FILE.", joint.Name, sw.Name, strings.Join(swDiff, ", ")), nil
}

// onlyHosts reports whether every difference of diff (policy.HardwareDiff)
// is in the hosts' DCQCN constants.
func onlyHosts(diff []string) bool {
	for _, d := range diff {
		if !strings.HasPrefix(d, "params.DCQCN.") {
			return false
		}
	}
	return true
}
