package scenario

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"graphcc/topo"
)

// Event is a link failing or coming back during every run of a scenario
// (topo.LinkEvent, by name).
type Event struct {
	// At is the time from the start of the arrival window (Gen.Start), ps.
	At int64
	// Link names a link between two switches ("leaf0-spine1").
	Link string
	// Up is false when the link fails and true when it comes back.
	Up bool
}

// describe is "leaf0-spine1 fails at 5 ms" or "... comes back at 15 ms".
func (e Event) describe() string {
	verb := "fails"
	if e.Up {
		verb = "comes back"
	}
	return fmt.Sprintf("%s %s at %s", e.Link, verb, spaced(topo.FormatDuration(e.At)))
}

// LinkEvents returns the events of s on f, a fabric of s for some seed
// (Fabric, Build), for replay.Config.LinkEvents: each link by its id on f,
// each time from the start of f's trace's arrival window (ArrivalStart).
// A link not in f (one fail_random failed for this seed) is an error.
func (s Scenario) LinkEvents(f *topo.Fabric) ([]topo.LinkEvent, error) {
	if len(s.Events) == 0 {
		return nil, nil
	}
	out := make([]topo.LinkEvent, len(s.Events))
	for i, e := range s.Events {
		id, ok := f.LinkByName(e.Link)
		if !ok {
			return nil, &BuildError{s.Name, "Events", fmt.Errorf("event %s: no such link in this run's fabric (failed by fail_random for this seed?)", e.describe())}
		}
		out[i] = topo.LinkEvent{At: s.ArrivalStart() + e.At, Link: id, Up: e.Up}
	}
	return out, nil
}

// checkEvents checks events, in time order, on f: each link exists and
// joins two switches, fails while up and comes back while down, and no
// failure disconnects a host pair. It returns the index of the first event
// at fault.
func checkEvents(f *topo.Fabric, events []Event) (int, error) {
	down := map[string]bool{} // by canonical name
	var names []string
	for i, e := range events {
		id, ok := f.LinkByName(e.Link)
		if !ok {
			return i, fmt.Errorf("unknown link %q", e.Link)
		}
		l := f.Links[id]
		if !f.Nodes[l.A].Switch || !f.Nodes[l.B].Switch {
			return i, fmt.Errorf("%s: a host's link cannot fail during a run (a host has one NIC): fail a link between switches", l.Name)
		}
		switch {
		case !e.Up && down[l.Name]:
			return i, fmt.Errorf("%s fails while it is down", l.Name)
		case e.Up && !down[l.Name]:
			return i, fmt.Errorf("%s comes back while it is up", l.Name)
		}
		down[l.Name] = !e.Up
		if e.Up {
			names = slices.DeleteFunc(names, func(n string) bool { return n == l.Name })
			continue
		}
		names = append(names, l.Name)
		if _, err := f.FailLinks(names...); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// describeEvents is Describe's words for events: "leaf0-spine1 fails at
// 5 ms, leaf0-spine1 comes back at 15 ms".
func describeEvents(events []Event) string {
	parts := make([]string, len(events))
	for i, e := range events {
		parts[i] = e.describe()
	}
	return strings.Join(parts, ", ")
}

// eventAt is an event of a scenario file with where it was written, for
// errors.
type eventAt struct {
	Event
	line int
	path string // "events[1]", "phases[2].events[0]"
}

// events parses a list of events; each at is from offset, and under
// limit if limit is positive (a phase's events happen during the phase).
func (p *scenarioParser) events(n *yaml.Node, path string, offset, limit int64) ([]eventAt, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, errors.New("want a list of events, such as [{at: 2ms, fail: leaf0-spine1}, {at: 6ms, restore: leaf0-spine1}]")
	}
	var out []eventAt
	for i, en := range n.Content {
		e, err := p.event(en, limit)
		if err != nil {
			return nil, p.errorf(en, fmt.Sprintf("[%d]", i), err)
		}
		e.At += offset
		out = append(out, eventAt{Event: e, line: en.Line, path: fmt.Sprintf("%s[%d]", path, i)})
	}
	return out, nil
}

// event parses one event mapping: at (default 0) and fail or restore.
func (p *scenarioParser) event(n *yaml.Node, limit int64) (Event, error) {
	if n.Kind != yaml.MappingNode {
		return Event{}, errors.New("want an event: a mapping of at and fail or restore")
	}
	var e Event
	err := p.fields(n, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "at":
			var s string
			if s, err = scalarString(v); err == nil {
				e.At, err = topo.ParseDelay(s)
			}
			if err == nil && limit > 0 && e.At >= limit {
				err = fmt.Errorf("%s: want a time within the phase (under its duration, %s)", s, topo.FormatDuration(limit))
			}
		case "fail", "restore":
			if e.Link != "" {
				return errors.New("an event has one of fail and restore")
			}
			e.Link, err = scalarString(v)
			e.Up = key == "restore"
			if err == nil && e.Link == "" {
				err = errors.New("want a link name, such as leaf0-spine1")
			}
		default:
			err = errors.New("unknown field of an event (want at, fail, restore)")
		}
		return err
	})
	if err == nil && e.Link == "" {
		err = errors.New("missing fail or restore: an event fails a link or brings it back")
	}
	return e, err
}

// resolveEvents sorts the events of scenario s, read from mapping n, by
// time (stably), checks them on its fixed fabric, and sets s.Events.
func (p *scenarioParser) resolveEvents(n *yaml.Node, s *Scenario, evs []eventAt) error {
	if len(evs) == 0 {
		return nil
	}
	slices.SortStableFunc(evs, func(a, b eventAt) int { return cmp.Compare(a.At, b.At) })
	s.Events = make([]Event, len(evs))
	for i, e := range evs {
		s.Events[i] = e.Event
	}
	f, err := s.FixedFabric()
	if err != nil {
		return p.errorf(n, "", err)
	}
	if i, err := checkEvents(f, s.Events); err != nil {
		return &posError{file: p.file, line: evs[i].line, path: evs[i].path, err: err}
	}
	return nil
}
