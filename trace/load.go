package trace

import (
	"fmt"
	"os"

	"graphcc/topo"
)

// LoadFlows reads the flow file (flow.txt) at path for fabric f
// (ReadFlows).
func LoadFlows(path string, f *topo.Fabric) ([]Flow, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return ReadFlows(file, path, f)
}

// LoadFCT reads the fct.txt at path (ReadFCT), which must hold at least
// one record.
func LoadFCT(path string) ([]FCT, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	recs, err := ReadFCT(file, path)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no FCT records", path)
	}
	return recs, nil
}
