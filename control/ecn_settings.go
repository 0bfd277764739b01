package control

import (
	"fmt"
	"math"
)

// ECNSettings are an ECN setting as a person writes it: the thresholds in
// KB of 1000 B, the marking probability at KMax. graphcc's --kmin-kb,
// --kmax-kb and --pmax bind to them.
type ECNSettings struct {
	KMinKB, KMaxKB, PMax float64
}

// ECNSettingsOf returns the settings of e, which ECNSettings.ECN gives back.
func ECNSettingsOf(e ECN) ECNSettings {
	return ECNSettings{KMinKB: float64(e.KMin) / KB, KMaxKB: float64(e.KMax) / KB, PMax: e.PMax}
}

// ECN returns the setting of s, thresholds rounded to whole bytes,
// refusing a threshold outside [0, 1e9] KB and a setting ECN.Validate
// refuses. Errors name the settings prefix and their keys, kmin-kb,
// kmax-kb and pmax (with prefix "--", graphcc's flags).
func (s ECNSettings) ECN(prefix string) (ECN, error) {
	e := ECN{KMin: int64(math.Round(s.KMinKB * KB)), KMax: int64(math.Round(s.KMaxKB * KB)), PMax: s.PMax}
	for _, v := range []struct {
		key string
		kb  float64
	}{{"kmin-kb", s.KMinKB}, {"kmax-kb", s.KMaxKB}} {
		if !(v.kb >= 0 && v.kb <= 1e9) {
			return e, fmt.Errorf("%s%s %v: must be a number of KB in [0, 1e9]", prefix, v.key, v.kb)
		}
	}
	if err := e.Validate(); err != nil {
		return e, fmt.Errorf("%skmin-kb %g %skmax-kb %g %spmax %g: %w", prefix, s.KMinKB, prefix, s.KMaxKB, prefix, s.PMax, err)
	}
	return e, nil
}
