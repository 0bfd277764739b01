package replay

import (
	"fmt"

	"graphcc/dcqcn"
)

// HardwareSettings are the simulated hardware as a person writes it
// (graphcc's hardware flags bind to them): PFC and ECN marking turned
// off, the window, ACKs served first, HPCC's NIC round robin and
// nanosecond timing, and the hosts' DCQCN constants (dcqcn.Settings).
// DefaultHardwareSettings gives DefaultParams'.
type HardwareSettings struct {
	NoPFC, NoECN     bool
	Window           int64 // Params.Window: 0 the largest base-RTT BDP, -1 none
	AckHighPriority  bool
	HPCCRoundRobin   bool
	NanosecondTiming bool
	DCQCN            dcqcn.Settings
}

// DefaultHardwareSettings returns the settings of DefaultParams.
func DefaultHardwareSettings() HardwareSettings {
	p := DefaultParams()
	return HardwareSettings{NoPFC: !p.PFC, NoECN: !p.ECN, Window: p.Window, AckHighPriority: p.AckHighPriority,
		HPCCRoundRobin: p.HPCCRoundRobin, NanosecondTiming: p.NanosecondTiming, DCQCN: dcqcn.SettingsOf(p.DCQCN)}
}

// Params returns DefaultParams with s's settings, not yet validated
// (Params.Validate). Errors name the setting prefix and its key: window,
// and dcqcn- before the keys of dcqcn.Settings (with prefix "--",
// graphcc's flags).
func (s HardwareSettings) Params(prefix string) (Params, error) {
	p := DefaultParams()
	p.PFC, p.ECN = !s.NoPFC, !s.NoECN
	p.AckHighPriority, p.HPCCRoundRobin, p.NanosecondTiming = s.AckHighPriority, s.HPCCRoundRobin, s.NanosecondTiming
	if s.Window < -1 {
		return p, fmt.Errorf("%swindow %d: want a byte count, 0 (the largest BDP) or -1 (no window)", prefix, s.Window)
	}
	p.Window = s.Window
	err := s.DCQCN.Apply(&p.DCQCN, prefix+"dcqcn-")
	return p, err
}
