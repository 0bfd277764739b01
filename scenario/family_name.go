package scenario

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FamilyDraws is a range of draws of one family, First to Last, as a
// scenario name writes it (ParseFamilyDraws).
type FamilyDraws struct {
	Family      Family
	First, Last uint64
}

// ParseFamilyDraws reads a name of a family's draws: one draw,
// "family-17" (the draw's scenario name) or "family:17", or an inclusive
// range, "family:1-200" (the same for family-held). ok reports whether
// name is in a family's namespace at all (it is the family's name, or that
// name followed by '-' or ':'); err says, naming name, what is wrong with
// one that is: a number that is not a canonical decimal, a range that runs
// backwards, a draw the family does not have.
func ParseFamilyDraws(name string) (d FamilyDraws, ok bool, err error) {
	fams := Families()
	// the longer name first: family-held-3 is family-held's, not family's
	slices.SortFunc(fams, func(a, b Family) int { return cmp.Compare(len(b.Name), len(a.Name)) })
	for _, f := range fams {
		rest, found := strings.CutPrefix(name, f.Name)
		if !found || (rest != "" && rest[0] != '-' && rest[0] != ':') {
			continue
		}
		d.Family = f
		if rest == "" {
			return d, true, fmt.Errorf("%s is a family of scenarios: name one draw or a range of draws, such as %s", name, f.examples())
		}
		d.First, d.Last, err = parseDrawRange(rest)
		if err == nil {
			err = d.check()
		}
		if err != nil {
			return d, true, fmt.Errorf("scenario %s: %w", name, err)
		}
		return d, true, nil
	}
	return d, false, nil
}

// parseDrawRange reads what follows a family's name: "-N", ":N" or ":A-B".
func parseDrawRange(rest string) (first, last uint64, err error) {
	lo, hi, isRange := rest[1:], "", false
	if rest[0] == ':' {
		lo, hi, isRange = strings.Cut(rest[1:], "-")
	}
	if first, err = parseDraw(lo); err != nil {
		return 0, 0, err
	}
	if !isRange {
		return first, first, nil
	}
	if last, err = parseDraw(hi); err != nil {
		return 0, 0, err
	}
	return first, last, nil
}

// parseDraw reads a draw number, a decimal written without leading zeros
// or sign (so that one draw has one name).
func parseDraw(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || strconv.FormatUint(n, 10) != s {
		return 0, fmt.Errorf("draw %q: want a whole number written plainly, such as 17", s)
	}
	return n, nil
}

// check refuses a range that runs backwards or holds a draw its family
// does not have.
func (d FamilyDraws) check() error {
	first, last := d.Family.Draws()
	switch {
	case d.Last < d.First:
		return fmt.Errorf("draws %d-%d run backwards", d.First, d.Last)
	case d.First < first || d.Last > last:
		return fmt.Errorf("no such draw: %s has %s", d.Family.Name, d.Family.DescribeDraws())
	}
	return nil
}

// examples names a draw and ranges of f: "family-17, family:1-200 (for
// training) or family:10000-10009 (for evaluation)".
func (f Family) examples() string {
	eval := fmt.Sprintf("%s:%d-%d", f.Name, FirstEvaluationDraw, FirstEvaluationDraw+9)
	if f.HeldOut {
		return f.DrawName(FirstEvaluationDraw) + " or " + eval
	}
	return fmt.Sprintf("%s, %s:1-200 (for training) or %s (for evaluation)", f.DrawName(17), f.Name, eval)
}

// Names returns the scenario names of d's draws, in order: "family-1",
// "family-2", ...
func (d FamilyDraws) Names() []string {
	out := make([]string, 0, d.Last-d.First+1)
	for n := d.First; n <= d.Last; n++ {
		out = append(out, d.Family.DrawName(n))
	}
	return out
}

// String writes d as ParseFamilyDraws reads it: "family:1-200", or
// "family-17" for one draw.
func (d FamilyDraws) String() string {
	if d.First == d.Last {
		return d.Family.DrawName(d.First)
	}
	return fmt.Sprintf("%s:%d-%d", d.Family.Name, d.First, d.Last)
}

// one returns the only draw of d, parsed from name with error err, for
// ByName, which wants one scenario.
func (d FamilyDraws) one(name string, err error) (Scenario, error) {
	if err != nil {
		return Scenario{}, err
	}
	if d.First != d.Last {
		return Scenario{}, fmt.Errorf("%s names %d scenarios, the draws %s to %s, where one is wanted: name one draw, such as %s (a list of scenarios takes the range)", name, d.Last-d.First+1, d.Family.DrawName(d.First), d.Family.DrawName(d.Last), d.Family.DrawName(d.First))
	}
	return d.Family.Draw(d.First)
}

// ExpandNames returns names, each trimmed of spaces, with every range of a
// family's draws (ParseFamilyDraws: "family:1-3") replaced by the names of
// its draws (family-1, family-2, family-3), for a list of scenario names
// ("family:1-3,fb60"). An error names the bad range.
func ExpandNames(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		d, ok, err := ParseFamilyDraws(n)
		switch {
		case !ok:
			out = append(out, n)
		case err != nil:
			return nil, err
		default:
			out = append(out, d.Names()...)
		}
	}
	return out, nil
}
