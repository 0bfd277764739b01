package replay

import (
	"reflect"
	"strings"
	"testing"
)

// TestHardwareSettings: the default settings give DefaultParams back,
// each setting reaches its field, and bad ones are refused naming them.
func TestHardwareSettings(t *testing.T) {
	p, err := DefaultHardwareSettings().Params("--")
	if err != nil || !reflect.DeepEqual(p, DefaultParams()) {
		t.Fatalf("default settings: %+v, %v; want %+v", p, err, DefaultParams())
	}
	s := DefaultHardwareSettings()
	s.NoPFC, s.NoECN, s.Window, s.AckHighPriority, s.HPCCRoundRobin, s.NanosecondTiming = true, true, -1, true, false, true
	s.DCQCN.G = 0.5
	if p, err = s.Params("--"); err != nil {
		t.Fatal(err)
	}
	if p.PFC || p.ECN || p.Window != -1 || !p.AckHighPriority || p.HPCCRoundRobin || !p.NanosecondTiming || p.DCQCN.G != 0.5 {
		t.Errorf("settings %+v gave %+v", s, p)
	}
	for _, c := range []struct {
		set  func(*HardwareSettings)
		want string
	}{
		{func(s *HardwareSettings) { s.Window = -2 }, "--window -2: want a byte count, 0 (the largest BDP) or -1 (no window)"},
		{func(s *HardwareSettings) { s.DCQCN.RPTimer = "soon" }, "--dcqcn-rp-timer soon"},
	} {
		s := DefaultHardwareSettings()
		c.set(&s)
		if _, err := s.Params("--"); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Params(%+v): %v; want %q", s, err, c.want)
		}
	}
}
