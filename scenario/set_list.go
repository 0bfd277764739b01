package scenario

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteList writes every scenario of the set, the built-in suite (Names)
// then the file's, as eval --list-scenarios prints them: its name and what
// it tests, then on a line of its own its fabric and traffic (Describe).
func (s Set) WriteList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, n := range append(Names(), s.Names()...) {
		sc, err := s.Lookup(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\n\t%s\n", sc.Name, sc.Description, sc.Describe())
	}
	return tw.Flush()
}
