package topo

import (
	"fmt"
	"math"
)

// ClosSettings are a Clos as a person writes it: the counts, the rates and
// delay as ParseLinkRate and ParseDuration read them ("25Gbps", "1us"),
// and the buffer in MiB (2^20 bytes). graphcc's Clos flags bind to them.
type ClosSettings struct {
	Leaves, Spines, HostsPerLeaf    int
	HostRate, FabricRate, LinkDelay string
	BufferMB                        float64
}

// ClosSettingsOf returns the settings of c, which ClosSettings.Config
// gives back.
func ClosSettingsOf(c ClosConfig) ClosSettings {
	return ClosSettings{
		Leaves: c.Leaves, Spines: c.Spines, HostsPerLeaf: c.HostsPerLeaf,
		HostRate: FormatRate(c.HostRate), FabricRate: FormatRate(c.FabricRate), LinkDelay: FormatDuration(c.LinkDelay),
		BufferMB: float64(c.Buffer) / (1 << 20),
	}
}

// Config returns the Clos of s: every count at least 1, the rates
// positive, the delay not negative, the buffer as BufferBytes. Errors name
// the setting prefix and its key: leaves, spines, hosts-per-leaf,
// host-rate, fabric-rate, link-delay, buffer-mb (with prefix "--",
// graphcc's flags).
func (s ClosSettings) Config(prefix string) (ClosConfig, error) {
	c := ClosConfig{Leaves: s.Leaves, Spines: s.Spines, HostsPerLeaf: s.HostsPerLeaf}
	for _, v := range []struct {
		key string
		n   int
	}{{"leaves", s.Leaves}, {"spines", s.Spines}, {"hosts-per-leaf", s.HostsPerLeaf}} {
		if v.n < 1 {
			return c, fmt.Errorf("%s%s %d: must be at least 1", prefix, v.key, v.n)
		}
	}
	var err error
	if c.HostRate, err = ParseLinkRate(prefix+"host-rate", s.HostRate); err != nil {
		return c, err
	}
	if c.FabricRate, err = ParseLinkRate(prefix+"fabric-rate", s.FabricRate); err != nil {
		return c, err
	}
	if c.LinkDelay, err = ParseDuration(prefix+"link-delay", s.LinkDelay, true); err != nil {
		return c, err
	}
	c.Buffer, err = s.BufferBytes(prefix)
	return c, err
}

// BufferBytes returns the buffer in bytes, rounded, refusing one under a
// byte or too large to add up; errors name it as Config does.
func (s ClosSettings) BufferBytes(prefix string) (int64, error) {
	b := s.BufferMB * (1 << 20)
	if !(b >= 1) || b > math.MaxInt64/2 {
		return 0, fmt.Errorf("%sbuffer-mb %v: must be positive and at most %.0e MiB", prefix, s.BufferMB, float64(math.MaxInt64/2)/(1<<20))
	}
	return int64(math.Round(b)), nil
}
