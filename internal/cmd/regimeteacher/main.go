// Command regimeteacher builds a regime teacher (package learn/regime)
// for graphcc train --teacher tuned:DIR, in three steps that the Makefile's
// targets models/family-regimes.json (the first two, with graphcc eval
// between them) and models/teacher-family (the third) run:
//
//	go run ./internal/cmd/regimeteacher scenarios -out regimes.yaml
//	graphcc eval --scenario-file regimes.yaml --reference J --policies J,CANDIDATES --json regimes.json ...
//	go run ./internal/cmd/regimeteacher table -eval regimes.json -base J.json -margin 0.02 -out table.json
//	go run ./internal/cmd/regimeteacher write -table table.json -scenarios family:1-64 -copy models/teacher-joint -out DIR
//
// scenarios writes one stationary scenario per regime (regime.ScenarioFile);
// table chooses each regime's label from eval's ratios to the base, the
// best_policy of the tune result -base, keeping the base unless a
// candidate beats it by more than -margin (regime.Choose); write writes
// the teacher of each scenario of -scenarios into -out (regime.WriteTeacher),
// and copies there the files of -copy's directory named by -copy-scenarios.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"graphcc/internal/fileio"
	"graphcc/learn/regime"
	"graphcc/policy"
	"graphcc/scenario"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "regimeteacher: %v\n", err)
		os.Exit(2)
	}
}

// run runs the step args name.
func run(args []string) error {
	if len(args) == 0 {
		return errors.New("want a step: scenarios, table or write")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	out := fs.String("out", "", "output file (scenarios, table) or directory (write)")
	switch args[0] {
	case "scenarios":
		ms := fs.Int("duration-ms", 20, "arrivals of each regime's scenario, ms")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return os.WriteFile(*out, regime.ScenarioFile(*ms), 0o644)
	case "table":
		eval := fs.String("eval", "", "graphcc eval's JSON report on the regimes' scenarios, the base as --reference")
		base := fs.String("base", "", "tune result whose best_policy is the base (the reference of -eval)")
		margin := fs.Float64("margin", 0.02, "fraction by which a candidate must beat the base on a regime")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return table(*eval, *base, *margin, *out)
	case "write":
		tab := fs.String("table", "", "the table of step table")
		scs := fs.String("scenarios", "", "comma-separated scenarios and family ranges to write the teacher of")
		from := fs.String("copy", "", "directory of teacher files to copy")
		names := fs.String("copy-scenarios", "", "comma-separated scenarios whose files -copy has")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return write(*tab, *scs, *from, *names, *out)
	}
	return fmt.Errorf("unknown step %q: want scenarios, table or write", args[0])
}

// table writes to out the table of margin chosen from the eval report at
// eval, whose reference is the tune result at base.
func table(eval, base string, margin float64, out string) error {
	ref, ratios, err := regime.ReadRatios(eval)
	if err != nil {
		return err
	}
	if !strings.HasSuffix(ref, base) {
		return fmt.Errorf("%s: reference %s, want the tune result %s", eval, ref, base)
	}
	best, err := bestPolicy(base)
	if err != nil {
		return err
	}
	t, err := regime.Choose(best, margin, ratios)
	if err != nil {
		return fmt.Errorf("%s: %w", eval, err)
	}
	return fileio.WriteAtomic(out, func(w io.Writer) error { return fileio.WriteJSON(w, t) })
}

// bestPolicy returns the best_policy of the tune result at path.
func bestPolicy(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var r struct {
		BestPolicy string `json:"best_policy"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.BestPolicy == "" {
		return "", fmt.Errorf("%s: not a tune result with a best_policy (%v)", path, err)
	}
	return r.BestPolicy, nil
}

// write writes the teacher of the scenarios scs by the table at tab into
// out, and copies there the files of names from the directory from.
func write(tab, scs, from, names, out string) error {
	b, err := os.ReadFile(tab)
	if err != nil {
		return err
	}
	var t regime.Table
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("%s: not a regime table: %w", tab, err)
	}
	expanded, err := scenario.ExpandNames(strings.Split(scs, ","))
	if err != nil {
		return err
	}
	var list []scenario.Scenario
	for _, n := range expanded {
		sc, err := scenario.ByName(n)
		if err != nil {
			return err
		}
		list = append(list, sc)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	note := fmt.Sprintf("regime teacher (graphcc/learn/regime) of %s: each phase's label by its regime, the base %s where no candidate beat it by more than %g", tab, t.Base, t.Margin)
	if _, err := regime.WriteTeacher(out, t, list, note); err != nil {
		return err
	}
	if names == "" {
		return nil
	}
	for _, n := range strings.Split(names, ",") {
		file := n + policy.TunedExt
		b, err := os.ReadFile(filepath.Join(from, file))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, file), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
