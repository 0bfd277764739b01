package workload

import (
	"errors"
	"fmt"
	"strings"

	"graphcc/topo"
)

// GenSettings are a GenConfig's traffic as a person writes it: the
// workload's name or CDF file (LoadCDF), the load, the arrival window and
// the incast period as topo.ParseDuration reads them ("25ms", "0"), the
// incasts' fan-in and size, and NoIncast, which turns the incasts off.
// graphcc's traffic flags bind to them.
type GenSettings struct {
	Workload               string
	Load                   float64
	Duration, IncastPeriod string
	IncastFanIn            int
	IncastSize             int64
	NoIncast               bool
}

// Config returns DefaultGen with the traffic of s, checked on fabric f
// (GenConfig.Check). Errors name the setting prefix and its key:
// workload, load, duration, incast-period, incast-fanin, incast-size
// (with prefix "--", graphcc's flags).
func (s GenSettings) Config(f *topo.Fabric, prefix string) (GenConfig, error) {
	g := DefaultGen()
	w, err := LoadCDF(s.Workload)
	if err != nil {
		return g, fmt.Errorf("%sworkload %s: %w", prefix, s.Workload, err)
	}
	g.Workload, g.Load = w, s.Load
	if g.Duration, err = topo.ParseDuration(prefix+"duration", s.Duration, false); err != nil {
		return g, err
	}
	if g.Incast.Period, err = topo.ParseDuration(prefix+"incast-period", s.IncastPeriod, true); err != nil {
		return g, err
	}
	if s.NoIncast {
		g.Incast.Period = 0
	}
	g.Incast.FanIn, g.Incast.Size = s.IncastFanIn, s.IncastSize
	if err := g.Check(f); err != nil {
		var ge *GenError
		if !errors.As(err, &ge) || genKey(ge.Field) == "" {
			return g, err
		}
		hint := ""
		if ge.Field == "Incast.FanIn" {
			hint = fmt.Sprintf(" (lower it, or use %sno-incast)", prefix)
		}
		return g, fmt.Errorf("%s%s: %s%s", prefix, genKey(ge.Field), ge.Reason, hint)
	}
	return g, nil
}

// genKey is the key of the setting of GenSettings that sets GenConfig
// field (a GenError's Field), or "".
func genKey(field string) string {
	switch field {
	case "Workload", "Load", "Duration":
		return strings.ToLower(field)
	case "Incast.FanIn", "Incast.Size", "Incast.Period":
		return "incast-" + strings.ToLower(strings.TrimPrefix(field, "Incast."))
	}
	return ""
}
