package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"graphcc/control"
	"graphcc/scenario"
	"graphcc/topo"
)

// TunedExt is the extension of a scenario's tune result in the directory
// of tuned:DIR: DIR/<scenario>.json.
const TunedExt = ".json"

// tunedDir is tuned:DIR, the per-scenario tuned yardstick: a run on
// scenario NAME runs the best_policy of DIR/NAME.json, the graphcc tune
// result of that scenario, whose scenario field must be NAME. Each file is
// read once, on the first run (or Check) of its scenario, and its policy
// shared by that scenario's runs; runs go concurrently.
type tunedDir struct {
	dir    string
	env    Env        // for warnHardware
	mu     sync.Mutex // guards byName
	byName map[string]*tunedOnce
}

// tunedOnce is the policy of one scenario of a tunedDir, read once.
type tunedOnce struct {
	once sync.Once
	f    Factory
	err  error
}

// load returns the policy of scenario name: DIR/name.json's best_policy.
// The names graphcc gives a run on no scenario of its own ("sim": sim
// without --scenario; "testbed": a testbed run) have none.
func (d *tunedDir) load(name string) (Factory, error) {
	switch name {
	case "", "sim", "testbed":
		return nil, fmt.Errorf("tuned:%s runs the tune result of the scenario a run is on, and this run is on none of its own "+
			"(scenario %q: sim without --scenario, or a testbed run): run a named scenario (sim --scenario NAME, eval --scenarios), or give a file, tuned:FILE",
			d.dir, name)
	}
	d.mu.Lock()
	t := d.byName[name]
	if t == nil {
		t = &tunedOnce{}
		d.byName[name] = t
	}
	d.mu.Unlock()
	t.once.Do(func() { t.f, t.err = d.read(name) })
	return t.f, t.err
}

// read reads scenario name's tune result file.
func (d *tunedDir) read(name string) (Factory, error) {
	path, err := tunedFile(d.dir, name)
	if err != nil {
		return nil, err
	}
	r, err := loadTuned(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("tuned:%s has no tune result for scenario %s: want %s (graphcc tune --scenario %s --out %s)", d.dir, name, path, name, path)
	case err != nil:
		return nil, fmt.Errorf("tuned:%s, scenario %s: %w", d.dir, name, err)
	case r.scenario != name:
		return nil, fmt.Errorf("tuned:%s, scenario %s: %s is the tune result of scenario %q, not of %s", d.dir, name, path, r.scenario, name)
	}
	r.warnHardware(d.env, path)
	return r.f, nil
}

// factory is tuned:DIR's Factory: the policy of sc's tune result.
func (d *tunedDir) factory(f *topo.Fabric, sc scenario.Scenario, seed uint64) (control.Policy, []control.ECN, error) {
	pf, err := d.load(sc.Name)
	if err != nil {
		return nil, nil, err
	}
	return pf(f, sc, seed)
}

// check is tuned:DIR's Named.Check: whether sc has a tune result in DIR
// that names it and runs.
func (d *tunedDir) check(sc scenario.Scenario) error {
	_, err := d.load(sc.Name)
	return err
}

// tunedFile returns the tune result file of scenario name in directory
// dir, DIR/NAME.json, or an error if name cannot name a file in it.
func tunedFile(dir, name string) (string, error) {
	if filepath.Base(name) != name || name == "." || name == ".." || name == "" {
		return "", fmt.Errorf("tuned:%s: scenario %q cannot name a file in it", dir, name)
	}
	return filepath.Join(dir, name+TunedExt), nil
}
