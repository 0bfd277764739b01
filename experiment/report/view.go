package report

import "graphcc/experiment"

// view is a report being rendered: the harness's data, with the methods
// that write its parts.
type view struct{ *experiment.Report }
