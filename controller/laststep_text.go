package controller

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"graphcc/control"
)

// WriteText writes the step as testbed status shows it: a line naming the
// policy and the step's time, then a table of every agent port's settings
// and telemetry.
func (l *LastStep) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "\nlast control step: policy %s at %.0f us of fabric time (%s)\n",
		l.Policy, l.FabricUS, l.Written.Local().Format(time.DateTime))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "port\tlink\tkmin KB\tkmax KB\tpmax\tutil\tmarking\tqueue KB\t")
	for _, p := range l.Ports {
		fmt.Fprintf(tw, "%d\t%s->%s\t%g\t%g\t%g\t%.3f\t%.3f\t%.1f\t\n", p.Port, p.Src, p.Dst,
			float64(p.KMin)/control.KB, float64(p.KMax)/control.KB, p.PMax, p.Utilization, p.MarkingRate, p.QueueFeature/1000)
	}
	return tw.Flush()
}
