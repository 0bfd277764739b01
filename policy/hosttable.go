package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"graphcc/control"
	"graphcc/gnn"
)

// HostActionsUsage is the grammar of ParseHostActions, for flag help.
const HostActionsUsage = "grid|tuned:DIR|tuned:FILE"

// ParseHostActions returns the host action table spec names: "grid", the
// 16 settings of gnn.HostAction (the zero gnn.HostTable), or "tuned:PATH",
// the profiles of TunedHostProfiles(PATH, scenarios, hardware).
func ParseHostActions(spec string, scenarios []string, hardware control.HostParams) (gnn.HostTable, error) {
	name, path, _ := strings.Cut(spec, ":")
	switch {
	case spec == "grid":
		return gnn.HostTable{}, nil
	case name == "tuned" && path != "":
		ps, err := TunedHostProfiles(path, scenarios, hardware)
		if err != nil {
			return gnn.HostTable{}, err
		}
		t, err := gnn.NewHostTable(ps)
		if err != nil {
			return gnn.HostTable{}, fmt.Errorf("tuned:%s: %w", path, err)
		}
		return t, nil
	}
	return gnn.HostTable{}, fmt.Errorf("%q: want %s", spec, HostActionsUsage)
}

// TunedHostProfiles returns the host profiles of the graphcc tune results
// at path (a result file, or a directory of them: with scenarios, the
// file NAME.json of each of them, as tuned:DIR gives each scenario its
// own, in sorted name order, a missing one an error; without, its *.json
// files in sorted name order): hardware first (the simulated hardware's
// constants, which its hosts run without a host head and under a result
// without its own: control.DefaultHostParams, HPCC's preset, by
// default), then every distinct set
// of hosts' DCQCN constants among the results' best_policy (the part
// after HostsMark, or those of a sched's steps, in step order), in order
// of first appearance. A result without them adds nothing. A file that is
// not a tune result fails, naming it, and so do a directory without
// results and results of which none has hosts' constants (a table of one
// profile has nothing to choose).
func TunedHostProfiles(path string, scenarios []string, hardware control.HostParams) ([]control.HostParams, error) {
	files := []string{path}
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("tune results %s: %w", path, err)
	} else if st.IsDir() && len(scenarios) > 0 {
		if files, err = scenarioFiles(path, scenarios); err != nil {
			return nil, err
		}
	} else if st.IsDir() {
		files, err = filepath.Glob(filepath.Join(path, "*"+TunedExt))
		if err != nil {
			return nil, fmt.Errorf("tune results %s: %w", path, err)
		}
		slices.Sort(files)
		if len(files) == 0 {
			return nil, fmt.Errorf("tune results %s: no *%s file in the directory", path, TunedExt)
		}
	}
	ps := []control.HostParams{hardware}
	for _, f := range files {
		r, err := loadTuned(f)
		if err != nil { // it names f
			return nil, err
		}
		hs, err := bestHosts(r.spec)
		if err != nil { // loadTuned parsed it
			return nil, fmt.Errorf("tune result %s: best_policy %q: %w", f, r.spec, err)
		}
		for _, h := range hs {
			if !slices.Contains(ps, h) {
				ps = append(ps, h)
			}
		}
	}
	if len(ps) == 1 {
		return nil, errors.New("tune results " + path + ": no best_policy sets the hosts' DCQCN constants (" + HostsMark + "… or a sched's steps) other than the hardware's: a table of those alone has nothing to choose")
	}
	return ps, nil
}

// bestHosts returns the hosts' DCQCN constants a tune result's
// best_policy sets: those after HostsMark, or those of a sched's steps
// in step order; none for a policy that sets none.
func bestHosts(best string) ([]control.HostParams, error) {
	base, hosts, ok := strings.Cut(best, HostsMark)
	if ok {
		h, err := ParseHostParams(hosts)
		if err != nil {
			return nil, err
		}
		return []control.HostParams{h}, nil
	}
	name, args, _ := strings.Cut(base, ":")
	if name != "sched" {
		return nil, nil
	}
	steps, err := parseSched(args)
	if err != nil {
		return nil, err
	}
	var out []control.HostParams
	for _, s := range steps {
		if s.Hosts != (control.HostParams{}) {
			out = append(out, s.Hosts)
		}
	}
	return out, nil
}

// scenarioFiles returns dir's result file of each of scenarios, NAME.json,
// in sorted name order, each once; a scenario without one is an error
// naming it.
func scenarioFiles(dir string, scenarios []string) ([]string, error) {
	names := slices.Clone(scenarios)
	slices.Sort(names)
	names = slices.Compact(names)
	files := make([]string, len(names))
	for i, name := range names {
		var err error
		if files[i], err = tunedFile(dir, name); err != nil {
			return nil, err
		}
		if _, err := os.Stat(files[i]); err != nil {
			return nil, fmt.Errorf("tune results %s: scenario %s: %w", dir, name, err)
		}
	}
	return files, nil
}
