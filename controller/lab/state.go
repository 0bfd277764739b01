package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"graphcc/topo"
)

// StateFile is the name of a lab's state file inside its directory: the
// record of every resource the lab made, written before each is made, so
// Down can remove them after a crash of the process that made them.
const StateFile = "state.json"

// stateVersion is the version of the state file format.
const stateVersion = 1

// Lab phases recorded in State.Phase.
const (
	PhaseCreating = "creating" // Up is making resources (or crashed doing so)
	PhaseUp       = "up"       // Up finished
)

// State is the content of a lab's state file. Every namespace, link and
// switch process is listed before Up creates it, so the file may list
// resources that do not exist (Down treats them as removed), never the
// other way round.
type State struct {
	Version      int       `json:"version"`
	Lab          string    `json:"lab"`
	Phase        string    `json:"phase"`
	Created      time.Time `json:"created"`
	Scale        int64     `json:"scale"`                   // rates divided, times multiplied by it
	SwitchBinary string    `json:"switch_binary,omitempty"` // absolute path, symlinks resolved
	CLIBinary    string    `json:"cli_binary,omitempty"`
	CLIJSON      string    `json:"cli_json,omitempty"` // the --json file given to the Thrift CLI
	StopGraceNS  int64     `json:"stop_grace_ns"`      // SIGTERM to SIGKILL, nanoseconds
	// Realtime is the SCHED_FIFO priority of every switch thread (1 to
	// MaxRealtime; Config.Realtime), or 0 for normal scheduling.
	Realtime   int           `json:"realtime,omitempty"`
	Namespaces []string      `json:"namespaces"` // in creation order
	Links      []LinkState   `json:"links"`
	Switches   []SwitchState `json:"switches"`
	Hosts      []HostState   `json:"hosts"`
}

// LinkState is one veth pair: the topo link it stands for, the temporary
// name prefix it had in the root namespace, and its two ends.
type LinkState struct {
	Name string   `json:"name"` // topo link name, "h0-leaf0"
	Tmp  string   `json:"tmp"`  // root-namespace names are Tmp+"a" and Tmp+"b"
	A    Endpoint `json:"a"`
	B    Endpoint `json:"b"`
}

// Endpoint is one end of a veth pair: an interface inside a namespace.
type Endpoint struct {
	Netns string `json:"netns"`
	Iface string `json:"iface"`
}

// SwitchState is one simple_switch_grpc process. PID is 0 until the process
// has started; StartTime (field 22 of /proc/<pid>/stat, clock ticks since
// boot) tells the process from a later one that reuses its PID.
type SwitchState struct {
	Name       string      `json:"name"`
	Netns      string      `json:"netns"`
	DeviceID   uint64      `json:"device_id"`
	GRPCAddr   string      `json:"grpc_addr"`
	ThriftPort int         `json:"thrift_port"`
	Log        string      `json:"log"`
	PID        int         `json:"pid,omitempty"`
	StartTime  uint64      `json:"start_time,omitempty"`
	Ports      []PortState `json:"ports"`
}

// PortState is one switch port with its egress queue settings.
type PortState struct {
	Num          uint32      `json:"num"`
	Iface        string      `json:"iface"`
	Port         topo.PortID `json:"port"`
	Peer         string      `json:"peer"`
	RateBps      int64       `json:"rate_bps"`       // the fabric link's real rate
	QueueRatePPS int64       `json:"queue_rate_pps"` // BMv2 egress rate: RateBps/Scale in 1048-byte packets
	QueueDepth   int64       `json:"queue_depth"`    // BMv2 egress queue depth, packets
	// ControlRatePPS is the BMv2 rate of the control queue (ACKs, NACKs,
	// CNPs): RateBps/Scale in 60-byte packets; 0 in a state written before
	// it existed.
	ControlRatePPS int64 `json:"control_rate_pps,omitempty"`
}

// HostState is one host's namespace, NIC and addresses.
type HostState struct {
	Name  string     `json:"name"`
	Netns string     `json:"netns"`
	Iface string     `json:"iface"`
	IP    netip.Addr `json:"ip"`
	MAC   string     `json:"mac"`
}

// ReadState reads and checks the state file in dir. A missing file is an
// error satisfying errors.Is(err, fs.ErrNotExist).
func ReadState(dir string) (*State, error) {
	path := filepath.Join(dir, StateFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("lab state %s: %w", path, err)
	}
	s, err := ParseState(b)
	if err != nil {
		return nil, fmt.Errorf("lab state %s: %w", path, err)
	}
	return s, nil
}

// ParseState decodes a state file and checks it: every namespace, link
// and process it names must belong to its lab, so that a damaged or
// foreign file cannot make Down remove anything else.
func ParseState(b []byte) (*State, error) {
	var s State
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if dec.More() {
		return nil, errors.New("decode: data after the state object")
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

func (s *State) validate() error {
	if s.Version != stateVersion {
		return fmt.Errorf("version %d, want %d", s.Version, stateVersion)
	}
	if !validLabName(s.Lab) {
		return fmt.Errorf("lab name %q is invalid", s.Lab)
	}
	if s.Phase != PhaseCreating && s.Phase != PhaseUp {
		return fmt.Errorf("phase %q is unknown", s.Phase)
	}
	if s.Scale < 1 {
		return fmt.Errorf("scale %d is below 1", s.Scale)
	}
	if s.StopGraceNS < 0 || s.StopGraceNS > int64(maxStopGrace) {
		return fmt.Errorf("stop grace %v is outside [0, %v]", time.Duration(s.StopGraceNS), maxStopGrace)
	}
	if err := CheckRealtime(s.Realtime); err != nil {
		return err
	}
	ns := func(name string) error {
		if !labNetns(s.Lab, name) {
			return fmt.Errorf("namespace %q is not one of lab %s", name, s.Lab)
		}
		return nil
	}
	for _, n := range s.Namespaces {
		if err := ns(n); err != nil {
			return err
		}
	}
	tmp := tmpLinkPrefix(s.Lab)
	for _, l := range s.Links {
		if !strings.HasPrefix(l.Tmp, tmp) || len(l.Tmp)+1 > maxIfaceName {
			return fmt.Errorf("link %s: temporary name %q is not one of lab %s", l.Name, l.Tmp, s.Lab)
		}
		for _, e := range []Endpoint{l.A, l.B} {
			if err := ns(e.Netns); err != nil {
				return fmt.Errorf("link %s: %w", l.Name, err)
			}
			if !validIface(e.Iface) {
				return fmt.Errorf("link %s: interface name %q is invalid", l.Name, e.Iface)
			}
		}
	}
	for _, sw := range s.Switches {
		if err := ns(sw.Netns); err != nil {
			return fmt.Errorf("switch %s: %w", sw.Name, err)
		}
		if sw.PID < 0 || sw.PID == 1 {
			return fmt.Errorf("switch %s: pid %d is invalid", sw.Name, sw.PID)
		}
		for _, p := range sw.Ports {
			if !validIface(p.Iface) {
				return fmt.Errorf("switch %s: port %d: interface name %q is invalid", sw.Name, p.Num, p.Iface)
			}
		}
	}
	for _, h := range s.Hosts {
		if err := ns(h.Netns); err != nil {
			return fmt.Errorf("host %s: %w", h.Name, err)
		}
	}
	return nil
}

// writeState writes s to dir's state file atomically: a temporary file in
// dir renamed over the old one, so a crash leaves the old or the new state,
// never a torn one. (No fsync: the default directory is on tmpfs, and the
// namespaces the file describes do not survive a reboot either.)
func writeState(dir string, s *State) error {
	b, err := json.MarshalIndent(s, "", "\t")
	if err != nil {
		return fmt.Errorf("lab %s: encode state: %w", s.Lab, err)
	}
	path := filepath.Join(dir, StateFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("lab %s: write state: %w", s.Lab, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("lab %s: write state: %w", s.Lab, err)
	}
	return nil
}

// removeState deletes dir's state file; a missing one counts as removed.
func removeState(dir string) error {
	err := os.Remove(filepath.Join(dir, StateFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove lab state: %w", err)
	}
	return nil
}

// maxIfaceName is the longest Linux interface name (IFNAMSIZ - 1).
const maxIfaceName = 15

func validIface(s string) bool {
	if s == "" || len(s) > maxIfaceName || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c == '/' || c == ':' || c > '~' {
			return false
		}
	}
	return true
}

// labNetns reports whether namespace name belongs to lab: "<lab>-<node>"
// where the node name is not empty and has no '-'. Plans refuse node names
// with '-', so lab "a" never claims the namespaces of lab "a-b".
func labNetns(lab, name string) bool {
	rest, ok := strings.CutPrefix(name, lab+"-")
	if !ok || rest == "" || strings.Contains(rest, "-") || len(name) > MaxNetnsName {
		return false
	}
	for _, c := range rest {
		if c <= ' ' || c == '/' || c > '~' {
			return false
		}
	}
	return true
}

// tmpLinkPrefix is the prefix of the temporary names lab's veths have in
// the root namespace: "gc" and 24 bits of a hash of the lab name, so the
// names fit in 15 bytes and a scan can find the lab's leftovers.
func tmpLinkPrefix(lab string) string {
	h := fnv.New32a()
	h.Write([]byte(lab))
	return fmt.Sprintf("gc%06x", h.Sum32()&0xffffff)
}

// tmpLinkName is the temporary name prefix of link i of lab (CreateVeth
// appends "a" and "b").
func tmpLinkName(lab string, i int) string {
	return fmt.Sprintf("%s%d", tmpLinkPrefix(lab), i)
}

// QueueDepths returns the BMv2 egress queue depth of every switch port the
// state records, by topo.PortID over a fabric of ports ports (0 where none
// is recorded), for p4rt.Fabric.SetQueueDepths. It fails on a port
// outside the fabric.
func (s *State) QueueDepths(ports int) ([]int64, error) {
	d := make([]int64, ports)
	for _, ss := range s.Switches {
		for _, ps := range ss.Ports {
			if ps.Port < 0 || int(ps.Port) >= ports {
				return nil, fmt.Errorf("lab %s: switch %s port %d: fabric port %d outside the %d ports", s.Lab, ss.Name, ps.Num, ps.Port, ports)
			}
			d[ps.Port] = ps.QueueDepth
		}
	}
	return d, nil
}
