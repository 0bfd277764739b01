package policy

import "strings"

// SpecsHelp lists the forms of spec (Specs) for a command's help, each
// usage on a line and its help wrapped below it at 78 columns; without the
// simulator's ideal if controlOnly.
func SpecsHelp(controlOnly bool) string {
	var b strings.Builder
	for _, s := range Specs() {
		if controlOnly && s.SimulatorOnly {
			continue
		}
		b.WriteString("  " + s.Usage + "\n")
		line := "     "
		for _, w := range strings.Fields(s.Help) {
			if len(line)+1+len(w) > 78 {
				b.WriteString(line + "\n")
				line = "     "
			}
			line += " " + w
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
