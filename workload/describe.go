package workload

import (
	"fmt"

	"graphcc/topo"
	"graphcc/trace"
)

// Describe names the traffic c generates, in words for messages:
// "fb_hadoop at 60% load for 25ms, 16:1 incasts of 64000 B every 1ms, seed 1".
func (c GenConfig) Describe() string {
	what := fmt.Sprintf("%s at %g%% load for %s", c.Workload.Name, 100*c.Load, topo.FormatDuration(c.Duration))
	if c.Incast.Period > 0 {
		what += fmt.Sprintf(", %d:1 incasts of %d B every %s", c.Incast.FanIn, c.Incast.Size, topo.FormatDuration(c.Incast.Period))
	} else {
		what += ", no incasts"
	}
	return what + fmt.Sprintf(", seed %d", c.Seed)
}

// DescribeTrace sums up flows, a trace of c on fabric f, in words: their
// count (of incast flows too), their bytes and the load they offer
// (OfferedLoad) over c's arrival window, and c's phases if it has any:
// "120 flows (16 incast), 3000000 bytes, offered load 60.2% of 24 hosts'
// links over 25ms".
func DescribeTrace(f *topo.Fabric, flows []trace.Flow, c GenConfig) string {
	load, bytes, incast := OfferedLoad(f, flows, c.Duration)
	phases := ""
	if n := len(c.Phases); n > 0 {
		phases = fmt.Sprintf(" in %d phases", n)
	}
	return fmt.Sprintf("%d flows (%d incast), %d bytes, offered load %.1f%% of %d hosts' links over %s%s",
		len(flows), incast, bytes, 100*load, len(f.Hosts()), topo.FormatDuration(c.Duration), phases)
}
