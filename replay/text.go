package replay

import (
	"fmt"
	"io"
)

// WriteText writes r as graphcc sim prints it: a heading of desc, the
// summary's slowdown table (metrics.Summary.WriteTable) and, for a run
// with linkEvents link events, what they did: flows rerouted, packets
// dropped on failed links and on old routes, loss timeouts.
func (r *Result) WriteText(w io.Writer, desc string, linkEvents int) error {
	fmt.Fprintf(w, "# %s\n\n", desc)
	if err := r.Summary.WriteTable(w); err != nil {
		return err
	}
	if linkEvents == 0 {
		return nil
	}
	c := r.Counters
	_, err := fmt.Fprintf(w, "\nlink events: %d; flows rerouted: %d; packets dropped on failed links: %d, on old routes: %d; loss timeouts: %d\n",
		linkEvents, c.Reroutes, c.LinkDrops, c.StaleDrops, c.Timeouts)
	return err
}
