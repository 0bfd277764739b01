package dcqcn

import (
	"fmt"
	"math"

	"graphcc/topo"
)

// Settings are the constants of Params a person sets, in the units they
// are written in: the alpha gain, rates in Mbps (AI and HAI those of a
// 25 Gbps NIC, as Params' are), and periods as topo.ParseDuration reads
// them ("55us"). graphcc's --dcqcn-* flags bind to them.
type Settings struct {
	G                            float64
	AIMbps, HAIMbps, MinRateMbps float64
	// RPTimer is IncreaseInterval, AlphaPeriod AlphaInterval and
	// DecreasePeriod DecreaseInterval.
	RPTimer, AlphaPeriod, DecreasePeriod string
}

// SettingsOf returns the settings of p, which Apply sets back.
func SettingsOf(p Params) Settings {
	mbps := func(bps int64) float64 { return float64(bps) / float64(topo.Mbps) }
	return Settings{
		G:      p.G,
		AIMbps: mbps(p.AI), HAIMbps: mbps(p.HAI), MinRateMbps: mbps(p.MinRate),
		RPTimer:        topo.FormatDuration(p.IncreaseInterval),
		AlphaPeriod:    topo.FormatDuration(p.AlphaInterval),
		DecreasePeriod: topo.FormatDuration(p.DecreaseInterval),
	}
}

// Apply sets p's constants from s, refusing a value out of range and a
// rate-increase period that does not exceed the decrease check and its
// first delay (Params.Validate). Errors name a setting prefix and its
// key: g, ai-mbps, hai-mbps, min-rate-mbps, alpha-period, decrease-period,
// rp-timer (with prefix "--dcqcn-", graphcc's flags).
func (s Settings) Apply(p *Params, prefix string) error {
	if !(s.G > 0 && s.G <= 1) {
		return fmt.Errorf("%sg %v: must be in (0, 1]", prefix, s.G)
	}
	p.G = s.G
	mbps := func(key string, v float64) (int64, error) {
		if !(v >= 0) || v > math.MaxInt64/float64(topo.Mbps)/2 {
			return 0, fmt.Errorf("%s%s %v: must be a non-negative rate", prefix, key, v)
		}
		return int64(math.Round(v * float64(topo.Mbps))), nil
	}
	var err error
	if p.AI, err = mbps("ai-mbps", s.AIMbps); err != nil {
		return err
	}
	if p.HAI, err = mbps("hai-mbps", s.HAIMbps); err != nil {
		return err
	}
	if p.MinRate, err = mbps("min-rate-mbps", s.MinRateMbps); err != nil {
		return err
	}
	return s.applyPeriods(p, prefix)
}

// applyPeriods sets p's three periods from s (Apply): the alpha update and
// decrease check periods, and the rate-increase timer, which must exceed
// the decrease check and its first delay.
func (s Settings) applyPeriods(p *Params, prefix string) error {
	var err error
	if p.AlphaInterval, err = topo.ParseDuration(prefix+"alpha-period", s.AlphaPeriod, false); err != nil {
		return err
	}
	if p.DecreaseInterval, err = topo.ParseDuration(prefix+"decrease-period", s.DecreasePeriod, false); err != nil {
		return err
	}
	if p.DecreaseInterval > math.MaxInt64/4-p.FirstDecreaseDelay {
		return fmt.Errorf("%sdecrease-period %s: too long", prefix, s.DecreasePeriod)
	}
	if p.IncreaseInterval, err = topo.ParseDuration(prefix+"rp-timer", s.RPTimer, false); err != nil {
		return err
	}
	if min := p.DecreaseInterval + p.FirstDecreaseDelay; p.IncreaseInterval <= min {
		return fmt.Errorf("%srp-timer %s: must exceed %sdecrease-period %s plus the first check's delay (%s)",
			prefix, s.RPTimer, prefix, s.DecreasePeriod, topo.FormatDuration(min))
	}
	return nil
}

// CheckLineRates refuses settings that a NIC of fabric f cannot run: a
// floor of a decreased rate above some host's line rate, which would pace
// that host faster than its link. Errors name the floor as Apply does.
func (s Settings) CheckLineRates(f *topo.Fabric, prefix string) error {
	minRate := int64(math.Round(s.MinRateMbps * float64(topo.Mbps)))
	for _, n := range f.Hosts() {
		if rate := f.Ports[f.HostPort(n)].Rate; minRate > rate {
			return fmt.Errorf("%smin-rate-mbps %v: above host %s's line rate %s", prefix, s.MinRateMbps, f.Nodes[n].Name, topo.FormatRate(rate))
		}
	}
	return nil
}
