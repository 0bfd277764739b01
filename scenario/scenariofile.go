package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"graphcc/topo"
	"graphcc/workload"
)

// A scenario file describes scenarios of one's own, for graphcc eval and
// train, in YAML:
//
//	scenarios:
//	  - name: ws70-big              # required: letters, digits, '.', '_', '-'
//	    description: WebSearch at 70 % on a larger Clos
//	    base: fb60                  # a built-in scenario to start from (default fb60-incast)
//	    workload: websearch         # a built-in workload, or an HPCC CDF file (relative to this file)
//	    load: 0.7                   # of each host's link rate, in (0, 1]
//	    duration: 25ms              # of arrivals
//	    incast: {fanin: 32, size: 64KB, period: 1ms}   # or: none
//	    clos: {leaves: 8, spines: 4, hosts_per_leaf: 16, host_rate: 25Gbps,
//	           fabric_rate: 100Gbps, link_delay: 1us, buffer: 32MiB}
//	    fail: [leaf0-spine1]        # links failed in every run
//	    fail_random: 1              # leaf-spine links failed at random, per seed
//	  - name: fat60
//	    topology: fat.txt           # an HPCC topology.txt instead of the Clos (relative to this file)
//	    # or: topology: {file: fat.txt, buffer: 32MiB}
//	  - name: my-day                # phased traffic: the phases one after another
//	    workload: fb_hadoop         # what the phases inherit
//	    phases:
//	      - {duration: 10ms, load: 0.3, incast: none}
//	      - {duration: 5ms, workload: googlerpc, load: 0.9}
//
// Every field but name is optional and defaults to the base scenario's; an
// incast mapping's fields default to the base's incast (or DefaultIncast if
// it has none). A phase needs a duration; its workload, load and incast
// default to the scenario's (an incast mapping's fields to the scenario's
// incast, or DefaultIncast), and a phased scenario's duration is its
// phases' total. Links may fail and come back during the runs (Scenario.Events):
//
//	    events: [{at: 5ms, fail: leaf0-spine1}, {at: 15ms, restore: leaf0-spine1}]
//
// on a scenario, at from the start of its arrival window, or on a phase,
// at (default 0) from the phase's start and under its duration. Sizes
// take B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB; rates and times
// topo.ParseRate's and topo.ParseDelay's units.

// Load reads the scenario file at path (see Read);
// workload files are found relative to its directory.
func Load(path string) ([]Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	defer f.Close()
	return Read(f, path, filepath.Dir(path))
}

// maxScenarioFile is the largest scenario file Read reads.
const maxScenarioFile = 1 << 20

// Read parses a scenario file from r: the format above. name
// names the file in errors ("name:line: field: reason"); a workload that is
// not a built-in is read from the CDF file of that path, relative to dir if
// it is relative. Each scenario is checked as far as it can be without a
// seed: the Clos builds, the named links exist and their failure leaves
// every host pair connected, and the traffic fits the fabric.
func Read(r io.Reader, name, dir string) ([]Scenario, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxScenarioFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxScenarioFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxScenarioFile)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// A second document ("---") would be dropped without a word; an empty
	// one (a trailing "---") is harmless.
	for {
		var more yaml.Node
		err := dec.Decode(&more)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if c := more.Content; len(c) > 0 && c[0].ShortTag() != "!!null" {
			return nil, fmt.Errorf("%s:%d: a second YAML document: put every scenario in the one scenarios list", name, more.Line)
		}
	}
	p := scenarioParser{file: name, dir: dir}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: want a mapping with a scenarios list", name)
	}
	root := doc.Content[0]
	var list *yaml.Node
	if err := p.fields(root, func(key string, v *yaml.Node) error {
		if key != "scenarios" {
			return errors.New("unknown field (want scenarios)")
		}
		if v.Kind != yaml.SequenceNode {
			return errors.New("want a list of scenarios")
		}
		list = v
		return nil
	}); err != nil {
		return nil, err
	}
	if list == nil || len(list.Content) == 0 {
		return nil, fmt.Errorf("%s:%d: no scenarios", name, root.Line)
	}
	var out []Scenario
	seen := map[string]int{}
	for _, n := range list.Content {
		s, err := p.scenario(n)
		if err != nil {
			return nil, err
		}
		if line, ok := seen[s.Name]; ok {
			return nil, fmt.Errorf("%s:%d: name: %s is already the name of the scenario at line %d", name, n.Line, s.Name, line)
		}
		seen[s.Name] = n.Line
		out = append(out, s)
	}
	return out, nil
}

// scenarioParser holds what errors and workload files need.
type scenarioParser struct {
	file, dir string
}

// posError is an error at a line of the scenario file, under a path of
// fields ("incast: size").
type posError struct {
	file string
	line int
	path string
	err  error
}

func (e *posError) Error() string {
	if e.path == "" {
		return fmt.Sprintf("%s:%d: %v", e.file, e.line, e.err)
	}
	return fmt.Sprintf("%s:%d: %s: %v", e.file, e.line, e.path, e.err)
}

func (e *posError) Unwrap() error { return e.err }

// errorf formats an error at node n's line. An error of a nested field,
// already positioned, keeps its own line and gets field in front of its
// path: "f.yaml:3: incast: size: ...".
func (p *scenarioParser) errorf(n *yaml.Node, field string, err error) error {
	if inner, ok := err.(*posError); ok {
		path := field
		switch {
		case strings.HasPrefix(inner.path, "["): // an element of a list field: "phases[2].load"
			path = field + inner.path
		case inner.path != "" && strings.HasPrefix(field, "["):
			path = field + "." + inner.path
		case inner.path != "":
			path = field + ": " + inner.path
		}
		return &posError{file: inner.file, line: inner.line, path: path, err: inner.err}
	}
	return &posError{file: p.file, line: n.Line, path: field, err: err}
}

// fields calls f for every key of mapping m, in order, refusing a key given
// twice or not a plain string; an error of f is reported at the key's line
// with its name.
func (p *scenarioParser) fields(m *yaml.Node, f func(key string, v *yaml.Node) error) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return p.errorf(k, "", errors.New("want a field name"))
		}
		if seen[k.Value] {
			return p.errorf(k, k.Value, errors.New("given twice"))
		}
		seen[k.Value] = true
		if err := f(k.Value, v); err != nil {
			return p.errorf(k, k.Value, err)
		}
	}
	return nil
}

// scenario parses one scenario mapping.
func (p *scenarioParser) scenario(n *yaml.Node) (Scenario, error) {
	if n.Kind != yaml.MappingNode {
		return Scenario{}, p.errorf(n, "", errors.New("want a scenario (a mapping with a name)"))
	}
	// the base first: every other field overrides it
	s, err := p.base(n)
	if err != nil {
		return Scenario{}, err
	}
	baseIncast := s.Gen.Incast
	if baseIncast.Period == 0 {
		baseIncast = workload.DefaultIncast()
	}
	s.Description = ""
	var evs []eventAt
	err = p.fields(n, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "base", "phases", "flows", "window": // base first, the traffic last (resolvePhases)
		case "events":
			evs, err = p.events(v, "events", 0, 0)
		case "name":
			if s.Name, err = scalarString(v); err == nil {
				err = checkScenarioName(s.Name)
			}
		case "description":
			s.Description, err = scalarString(v)
		case "workload":
			var spec string
			if spec, err = scalarString(v); err == nil {
				s.Gen.Workload, err = p.workload(spec)
			}
		case "load":
			s.Gen.Load, err = scalarLoad(v)
		case "duration":
			s.Gen.Duration, err = scalarPositive(v, topo.ParseDelay)
		case "incast":
			s.Gen.Incast, err = p.incast(v, baseIncast)
		case "clos":
			err = p.clos(v, &s.Clos)
		case "topology":
			s.Topology, s.TopologyName, err = p.topology(v)
		case "fail":
			s.Fail, err = stringList(v)
		case "fail_random":
			if s.FailRandom, err = scalarInt(v); err == nil && s.FailRandom < 0 {
				err = fmt.Errorf("%d is negative", s.FailRandom)
			}
		default:
			err = errors.New("unknown field (want name, description, base, workload, load, duration, incast, phases, flows, window, events, clos, topology, fail, fail_random)")
		}
		return err
	})
	if err != nil {
		return Scenario{}, err
	}
	phaseEvs, err := p.resolvePhases(n, &s)
	if err != nil {
		return Scenario{}, err
	}
	if !has(n, "name") {
		return Scenario{}, p.errorf(n, "name", errors.New("missing"))
	}
	if has(n, "clos") && s.Topology != nil {
		return Scenario{}, p.errorf(n, "topology", errors.New("a scenario has a clos or a topology, not both"))
	}
	if !has(n, "description") {
		s.Description = "from " + filepath.Base(p.file)
	}
	if err := checkScenario(s); err != nil {
		var ge *workload.GenError
		if errors.As(err, &ge) {
			return Scenario{}, p.genError(n, s.Name, ge)
		}
		return Scenario{}, p.errorf(n, "", fmt.Errorf("scenario %s: %w", s.Name, err))
	}
	if err := p.resolveEvents(n, &s, append(evs, phaseEvs...)); err != nil {
		return Scenario{}, err
	}
	return s, nil
}

// errEvent refuses a phase's event key: a phase's fabric events are a list,
// events.
var errEvent = errors.New("a phase's link events are a list: events: [{at: 2ms, fail: leaf0-spine1}, {at: 6ms, restore: leaf0-spine1}]")

// has reports whether mapping n has the key k.
func has(n *yaml.Node, k string) bool {
	key, _ := mapEntry(n, k)
	return key != nil
}

// resolvePhases gives scenario s, of mapping n, the phases of n's list, if
// it has one, and returns their events. A phase inherits every field but
// duration from the scenario (after n's own fields); the phases replace a
// phased base's, and n may not set its base's traffic fields without them.
// With flows or a window, n's traffic is instead a recorded trace (trace).
func (p *scenarioParser) resolvePhases(n *yaml.Node, s *Scenario) ([]eventAt, error) {
	if has(n, "flows") || has(n, "window") {
		return nil, p.trace(n, s)
	}
	key, list := mapEntry(n, "phases")
	if key == nil {
		traffic := slices.ContainsFunc([]string{"workload", "load", "duration", "incast"}, func(k string) bool { return has(n, k) })
		if len(s.Gen.Phases) > 0 && traffic {
			return nil, p.errorf(n, "phases", errors.New("the base scenario is phased, so workload, load, duration and incast are per phase: give phases (they replace the base's)"))
		}
		return nil, nil
	}
	if dk, _ := mapEntry(n, "duration"); dk != nil {
		return nil, p.errorf(dk, "duration", errors.New("a phased scenario lasts its phases: give each phase a duration, not the scenario"))
	}
	def := workload.Phase{Workload: s.Gen.Workload, Load: s.Gen.Load, Incast: s.Gen.Incast}
	phases, evs, err := p.phases(list, def)
	if err != nil {
		return nil, p.errorf(key, "phases", err)
	}
	s.Gen.Phases = phases
	s.Gen.Duration = workload.PhasesDuration(phases) // -1 on overflow, which Check refuses
	s.HeldOut = false                                // the file's own traffic
	return evs, nil
}

// phases parses a list of phases over def, and their events, timed from
// the start of the first phase.
func (p *scenarioParser) phases(n *yaml.Node, def workload.Phase) ([]workload.Phase, []eventAt, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, nil, errors.New("want a list of phases, each a mapping with a duration")
	}
	if len(n.Content) > workload.MaxPhases {
		return nil, nil, fmt.Errorf("%d phases, want at most %d", len(n.Content), workload.MaxPhases)
	}
	out := make([]workload.Phase, 0, len(n.Content))
	var evs []eventAt
	start := int64(0)
	for i, e := range n.Content {
		ph, pe, err := p.phase(e, def, start, fmt.Sprintf("phases[%d].", i))
		if err != nil {
			return nil, nil, p.errorf(e, fmt.Sprintf("[%d]", i), err)
		}
		out = append(out, ph)
		evs = append(evs, pe...)
		start = workload.PhasesDuration(out)
		if start < 0 {
			start = 0 // an overflow, which Check refuses
		}
	}
	return out, evs, nil
}

// phase parses one phase mapping over def: duration is required, and
// workload, load and incast default to def's (an incast mapping's fields
// to def's incast, or DefaultIncast if it has none). Its events are timed
// from start, the phase's own start; path prefixes their paths.
func (p *scenarioParser) phase(n *yaml.Node, def workload.Phase, start int64, path string) (workload.Phase, []eventAt, error) {
	if n.Kind != yaml.MappingNode {
		return def, nil, errors.New("want a phase: a mapping of duration, workload, load, incast, events")
	}
	ph := def
	ph.Duration = 0
	baseIncast := def.Incast
	if baseIncast.Period == 0 {
		baseIncast = workload.DefaultIncast()
	}
	err := p.fields(n, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "duration":
			ph.Duration, err = scalarPositive(v, topo.ParseDelay)
		case "workload":
			var spec string
			if spec, err = scalarString(v); err == nil {
				ph.Workload, err = p.workload(spec)
			}
		case "load":
			ph.Load, err = scalarLoad(v)
		case "incast":
			ph.Incast, err = p.incast(v, baseIncast)
		case "event":
			err = errEvent
		case "events": // once the duration is known
		default:
			err = errors.New("unknown field of a phase (want duration, workload, load, incast, events)")
		}
		return err
	})
	if err == nil && ph.Duration == 0 {
		err = &posError{file: p.file, line: n.Line, path: "duration", err: errors.New("missing: every phase has a duration")}
	}
	if err != nil {
		return ph, nil, err
	}
	var evs []eventAt
	if k, v := mapEntry(n, "events"); k != nil {
		if evs, err = p.events(v, path+"events", start, ph.Duration); err != nil {
			return ph, nil, p.errorf(k, "events", err)
		}
	}
	return ph, evs, nil
}

// scalarLoad parses a load, a number in (0, 1].
func scalarLoad(n *yaml.Node) (float64, error) {
	v, err := scalarFloat(n)
	if err == nil && !(v > 0 && v <= 1) {
		err = fmt.Errorf("%v not in (0, 1]", v)
	}
	return v, err
}

// base returns the built-in scenario that scenario mapping n names as its
// base, Default if it names none.
func (p *scenarioParser) base(n *yaml.Node) (Scenario, error) {
	s := Default()
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, v := n.Content[i], n.Content[i+1]; k.Value == "base" {
			name, err := scalarString(v)
			if err == nil {
				s, err = ByName(name)
			}
			if err != nil {
				return Scenario{}, p.errorf(v, "base", err)
			}
		}
	}
	return s, nil
}

// checkScenarioName refuses a name unfit for file names and reports, or
// taken by a built-in scenario.
func checkScenarioName(name string) error {
	if name == "" || name == "all" || strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	}) >= 0 || name[0] == '.' {
		return fmt.Errorf("%q: want letters, digits, '.', '_' or '-', not starting with '.', and not \"all\"", name)
	}
	if _, ok, _ := ParseFamilyDraws(name); ok {
		return fmt.Errorf("%s: names starting %s- or %s: are those of the scenario families' draws (start from one with base: %s-17 and name yours otherwise)", name, FamilyName, FamilyName, FamilyName)
	}
	if slices.Contains(Names(), name) {
		return fmt.Errorf("%s is a built-in scenario's name (start from it with base: %s and name yours otherwise)", name, name)
	}
	return nil
}

// checkScenario checks what can be checked without a seed.
func checkScenario(s Scenario) error {
	f, err := s.BaseFabric()
	if err != nil {
		return err
	}
	if len(s.Fail) > 0 {
		if f, err = f.FailLinks(s.Fail...); err != nil {
			return err
		}
	}
	hosts := len(f.Hosts())
	if hosts < 2 {
		return fmt.Errorf("the fabric has %d host(s); traffic needs at least 2", hosts)
	}
	if s.FailRandom > 0 {
		// The failures are drawn per seed; a count that no set of links
		// (or, on large fabrics, none of 1000 draws) can fail without
		// disconnecting a host pair is refused here, with the file's line,
		// rather than at the first seed of an evaluation.
		if _, err := f.FailRandom(s.FailRandom, 0); err != nil {
			return fmt.Errorf("fail_random %d: %s", s.FailRandom, strings.TrimPrefix(err.Error(), "fail random: "))
		}
	}
	if s.Trace != nil { // its flows were checked against the fabric as read
		return nil
	}
	return s.Gen.Check(f)
}

// genKeys is the path of keys in a scenario file that sets GenConfig field
// (a GenError's Field), or nil for a field a file cannot set.
func genKeys(field string) []string {
	switch field {
	case "Workload", "Load", "Duration":
		return []string{strings.ToLower(field)}
	case "Incast.FanIn", "Incast.Size", "Incast.Period":
		return []string{"incast", strings.ToLower(strings.TrimPrefix(field, "Incast."))}
	}
	return nil
}

// genError places a GenError of scenario mapping n at the line of the key
// that sets its field, or at the deepest of its parents the mapping has
// (the scenario's own line when the value comes from its base): "f.yaml:5:
// incast: fanin: 30 senders, but ...". A field of a phase is placed in the
// phases list: "f.yaml:9: phases[2].incast: fanin: 30 senders, but ...".
func (p *scenarioParser) genError(n *yaml.Node, name string, ge *workload.GenError) error {
	field, m, line, prefix := ge.Field, n, n.Line, ""
	if rest, ok := strings.CutPrefix(field, "Phases"); ok {
		prefix = "phases"
		key, list := mapEntry(n, "phases")
		if key != nil {
			line = key.Line
		}
		var i int
		if _, err := fmt.Sscanf(rest, "[%d].", &i); err != nil || !strings.Contains(rest, "].") {
			// the phases together
			return &posError{file: p.file, line: line, path: prefix, err: errors.New(ge.Reason)}
		}
		prefix += fmt.Sprintf("[%d].", i)
		field = rest[strings.Index(rest, "].")+2:]
		m = nil
		if list != nil && list.Kind == yaml.SequenceNode && i < len(list.Content) {
			m, line = list.Content[i], list.Content[i].Line
		}
	}
	keys := genKeys(field)
	if keys == nil {
		return p.errorf(n, "", fmt.Errorf("scenario %s: %w", name, ge))
	}
	for _, k := range keys {
		if m == nil {
			break
		}
		key, v := mapEntry(m, k)
		if key == nil {
			break
		}
		line, m = key.Line, v
	}
	return &posError{file: p.file, line: line, path: prefix + strings.Join(keys, ": "), err: errors.New(ge.Reason)}
}

// mapEntry returns the key node k of mapping m and its value, or nils.
func mapEntry(m *yaml.Node, k string) (key, value *yaml.Node) {
	if m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// path is the file a spec of the scenario file names: relative to its
// directory unless absolute.
func (p *scenarioParser) path(spec string) string {
	if filepath.IsAbs(spec) || p.dir == "" {
		return spec
	}
	return filepath.Join(p.dir, spec)
}

// workload resolves a workload spec: a built-in name, else a CDF file.
func (p *scenarioParser) workload(spec string) (*workload.CDF, error) {
	if workload.IsBuiltin(spec) {
		return workload.Builtin(spec)
	}
	path := p.path(spec)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%q is neither a built-in workload (%s) nor a readable CDF file: %w", spec, strings.Join(workload.Names(), ", "), err)
	}
	defer f.Close()
	return workload.ReadCDF(f, path)
}

// topology reads a topology file, given as its path or as a mapping of
// file and buffer, and returns it with the path as written.
func (p *scenarioParser) topology(n *yaml.Node) (*topo.Fabric, string, error) {
	var spec string
	var buffer int64
	var err error
	switch n.Kind {
	case yaml.ScalarNode:
		spec = n.Value
	case yaml.MappingNode:
		err = p.fields(n, func(key string, v *yaml.Node) error {
			var err error
			switch key {
			case "file":
				spec, err = scalarString(v)
			case "buffer":
				buffer, err = scalarBytes(v)
			default:
				err = errors.New("unknown field (want file, buffer)")
			}
			return err
		})
	default:
		err = errors.New("want a topology file, or a mapping of file and buffer")
	}
	if err != nil {
		return nil, "", err
	}
	if spec == "" {
		return nil, "", errors.New("no file")
	}
	path := p.path(spec)
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	t, err := topo.ReadTopology(f, path, buffer)
	return t, spec, err
}

// incast parses an incast mapping over base, or "none".
func (p *scenarioParser) incast(n *yaml.Node, base workload.IncastConfig) (workload.IncastConfig, error) {
	if n.Kind == yaml.ScalarNode && (n.Value == "none" || n.Value == "false") {
		return workload.IncastConfig{}, nil
	}
	if n.Kind != yaml.MappingNode {
		return workload.IncastConfig{}, errors.New("want none or a mapping of fanin, size and period")
	}
	c := base
	err := p.fields(n, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "fanin":
			if c.FanIn, err = scalarInt(v); err == nil && c.FanIn < 1 {
				err = fmt.Errorf("%d: want at least 1", c.FanIn)
			}
		case "size":
			c.Size, err = scalarBytes(v)
		case "period":
			c.Period, err = scalarPositive(v, topo.ParseDelay)
		default:
			err = errors.New("unknown field (want fanin, size, period)")
		}
		return err
	})
	return c, err
}

// clos parses a clos mapping over c.
func (p *scenarioParser) clos(n *yaml.Node, c *topo.ClosConfig) error {
	if n.Kind != yaml.MappingNode {
		return errors.New("want a mapping (leaves, spines, hosts_per_leaf, host_rate, fabric_rate, link_delay, buffer)")
	}
	return p.fields(n, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "leaves":
			c.Leaves, err = scalarInt(v)
		case "spines":
			c.Spines, err = scalarInt(v)
		case "hosts_per_leaf":
			c.HostsPerLeaf, err = scalarInt(v)
		case "host_rate":
			c.HostRate, err = scalarPositive(v, topo.ParseRate)
		case "fabric_rate":
			c.FabricRate, err = scalarPositive(v, topo.ParseRate)
		case "link_delay":
			c.LinkDelay, err = scalarPositive(v, topo.ParseDelay)
		case "buffer":
			c.Buffer, err = scalarBytes(v)
		default:
			err = errors.New("unknown field (want leaves, spines, hosts_per_leaf, host_rate, fabric_rate, link_delay, buffer)")
		}
		return err
	})
}

func scalarString(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", errors.New("want a single value")
	}
	return n.Value, nil
}

func scalarInt(n *yaml.Node) (int, error) {
	s, err := scalarString(n)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q: want a whole number", s)
	}
	return v, nil
}

func scalarFloat(n *yaml.Node) (float64, error) {
	s, err := scalarString(n)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: want a number", s)
	}
	return v, nil
}

// scalarPositive parses a scalar with parse (topo.ParseRate,
// topo.ParseDelay) and refuses zero.
func scalarPositive(n *yaml.Node, parse func(string) (int64, error)) (int64, error) {
	s, err := scalarString(n)
	if err != nil {
		return 0, err
	}
	v, err := parse(s)
	if err == nil && v <= 0 {
		err = fmt.Errorf("%s: must be positive", s)
	}
	return v, err
}

// byteUnits are the units of scalarBytes.
var byteUnits = []struct {
	unit string
	mult int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1},
}

// scalarBytes parses a positive whole number of bytes with an optional
// unit: 64000, 64KB, 1.5MB, 32MiB.
func scalarBytes(n *yaml.Node) (int64, error) {
	s, err := scalarString(n)
	if err != nil {
		return 0, err
	}
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range byteUnits {
		if rest, ok := strings.CutSuffix(num, u.unit); ok {
			num, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	b := v * float64(mult)
	switch {
	case err != nil || math.IsNaN(v):
		return 0, fmt.Errorf("%q: want bytes, such as 64000, 64KB or 32MiB", s)
	case !(b >= 1) || b > 1<<50:
		return 0, fmt.Errorf("%q: want between 1 B and 1 PiB", s)
	case b != math.Trunc(b):
		return 0, fmt.Errorf("%q: not a whole number of bytes", s)
	}
	return int64(b), nil
}

func stringList(n *yaml.Node) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, errors.New("want a list")
	}
	out := make([]string, 0, len(n.Content))
	for _, e := range n.Content {
		s, err := scalarString(e)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", e.Line, err)
		}
		out = append(out, s)
	}
	return out, nil
}
