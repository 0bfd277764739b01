package testbed

import (
	"errors"
	"fmt"
	"os"

	"graphcc/controller/lab"
	"graphcc/controller/p4rt"
)

// Pipeline locates the compiled P4 program: the one built into the binary
// (p4src) when both paths are empty, else the files of make p4.
type Pipeline struct {
	JSON   string // BMv2 JSON of graphcc.p4 (--p4-json)
	P4Info string // its P4Info, text format (--p4info)
}

// Load returns the P4Info and the BMv2 JSON.
func (p Pipeline) Load() (*p4rt.P4Info, []byte, error) {
	if (p.JSON == "") != (p.P4Info == "") {
		return nil, nil, errors.New("--p4-json and --p4info go together (both from one make p4)")
	}
	if p.JSON == "" {
		return p4rt.BuiltinPipeline()
	}
	info, err := p4rt.ReadP4InfoFile(p.P4Info)
	if err != nil {
		return nil, nil, fmt.Errorf("--p4info: %w", err)
	}
	cfg, err := os.ReadFile(p.JSON)
	if err != nil {
		return nil, nil, fmt.Errorf("--p4-json: %w", err)
	}
	return info, cfg, nil
}

// jsonFile returns a path to the BMv2 JSON for the Thrift CLI: p.JSON,
// or the built-in one written into the lab directory dir.
func (p Pipeline) jsonFile(dir string, cfg []byte) (string, error) {
	if p.JSON != "" {
		return p.JSON, nil
	}
	return lab.WritePipelineJSON(dir, cfg)
}
