package scenario

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteList writes every scenario of the set, the built-in suite (Names)
// then the file's, as eval --list-scenarios prints them: its name and what
// it tests, then on a line of its own its fabric and traffic (Describe);
// then the families (Families): their ranges of training and evaluation
// draws ("family:1-9999") and what they draw (Family.Describe).
func (s Set) WriteList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, n := range append(Names(), s.Names()...) {
		sc, err := s.Lookup(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\n\t%s\n", sc.Name, sc.Description, sc.Describe())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeFamilies(w)
}

// writeFamilies writes the families' ranges of draws and what they draw,
// under a line that says how to name them.
func writeFamilies(w io.Writer) error {
	fmt.Fprintf(w, "\nfamilies of randomized phased scenarios: draw N of FAMILY is the scenario FAMILY-N; FAMILY:A-B lists draws A to B\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range Families() {
		if !f.HeldOut {
			fmt.Fprintf(tw, "%s:%d-%d\ttraining draws of %s: %s\n", f.Name, FirstTrainingDraw, LastTrainingDraw, f.Name, f.Description)
		}
		fmt.Fprintf(tw, "%s:%d-%d\tevaluation draws of %s, held out of training", f.Name, FirstEvaluationDraw, LastEvaluationDraw, f.Name)
		if f.HeldOut {
			fmt.Fprintf(tw, ": %s", f.Description)
		}
		fmt.Fprintf(tw, "\n\t%s\n", f.Describe())
	}
	return tw.Flush()
}
