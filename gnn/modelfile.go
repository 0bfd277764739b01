package gnn

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"

	"graphcc/internal/fileio"
)

// A model file stores one trained network of any kind:
//
//	magic    "GRAPHCC-MODEL\n"             14 bytes
//	version  uint32, little-endian        FileVersion
//	hlen     uint32, little-endian        length of the header
//	header   hlen bytes of JSON           Header, in json.Marshal's canonical form
//	params   Header.Params float64s, little-endian IEEE 754 bits
//	crc      uint32, little-endian        CRC-32 (IEEE) of every byte before it
//
// Nothing follows the checksum. The header is the exact output of
// json.Marshal(Header), so reading and writing a file again gives the same
// bytes.
const (
	FileMagic   = "GRAPHCC-MODEL\n"
	FileVersion = 1
)

// Model kinds.
const (
	KindGraphCC = "graphcc-mpnn" // a Model
	KindACC     = "acc-mlp"      // one MLPNet per agent, parameters concatenated in agent order
)

// maxHeader bounds the JSON header: a model file's metadata is small.
const maxHeader = 1 << 20

// Errors of Read, Load and Unmarshal, for errors.Is; the returned error
// names the file and the field.
var (
	ErrBadMagic    = errors.New("not a graphcc model file")
	ErrVersion     = errors.New("unsupported model file version")
	ErrTruncated   = errors.New("truncated model file")
	ErrChecksum    = errors.New("model file checksum mismatch")
	ErrBadHeader   = errors.New("bad model file header")
	ErrMismatch    = errors.New("model does not fit")
	ErrTrailing    = errors.New("data after the model file checksum")
	errUnknownKind = errors.New("unknown model kind")
)

// Header describes the network in a model file.
type Header struct {
	Kind        string `json:"kind"`         // KindGraphCC or KindACC
	Features    int    `json:"features"`     // inputs per port (per agent for KindACC)
	Hidden      int    `json:"hidden"`       // hidden width
	K           int    `json:"k"`            // message-passing rounds; 0 for KindACC
	Actions     int    `json:"actions"`      // Q values per agent
	Agents      int    `json:"agents"`       // KindACC: number of per-agent networks; 0 for KindGraphCC
	ActionTable string `json:"action_table"` // identifier of the action table the model was trained on
	// FeatureLayout identifies the inputs the model was trained on
	// (FeatureSet.LayoutID, ACCFeatureLayoutID); empty in files written
	// before it was recorded.
	FeatureLayout string `json:"feature_layout,omitempty"`
	// FeatureSet names a KindGraphCC model's feature set (FeatureSet's
	// String): empty for FeaturesPaper, as in files written before it was
	// recorded, so that those keep their bytes; "flowmix" for
	// FeaturesFlowMix. Empty for KindACC.
	FeatureSet string `json:"feature_set,omitempty"`
	// Ports names the port of each KindACC network, in order
	// (topo.Fabric.PortName); empty in files written before it was
	// recorded, and for KindGraphCC, whose one network serves any port.
	Ports []string `json:"ports,omitempty"`
	// HostActions is the number of outputs of a KindGraphCC model's host
	// head (Shape.HostActions), and HostTable the identifier of the host
	// action table they index (HostTableID for the grid, HostProfilesID
	// for a table of profiles); both absent in a file without a host head
	// (every file written before host heads), which keeps its bytes.
	HostActions int    `json:"host_actions,omitempty"`
	HostTable   string `json:"host_table,omitempty"`
	// HostProfiles lists, with HostTable HostProfilesID, the DCQCN
	// constants of every host action in order (HostTable.Profiles), each
	// as the spec's +dcqcn: part writes them: the rate-increase timer, the
	// alpha and decrease periods in µs, AI and HAI in Mbps at 25 Gbps;
	// host_actions of them. Absent for the grid, so its files keep their
	// bytes.
	HostProfiles [][5]float64      `json:"host_profiles,omitempty"`
	Params       int               `json:"params"` // number of float64 parameters
	Meta         map[string]string `json:"meta"`   // training metadata: command line, seed, ...
}

// paramsFor returns the number of parameters the shape in h implies.
func (h *Header) paramsFor() (int, error) {
	switch h.Kind {
	case KindGraphCC:
		s := Shape{Features: h.Features, Hidden: h.Hidden, K: h.K, Actions: h.Actions, HostActions: h.HostActions}
		if err := s.Validate(); err != nil {
			return 0, err
		}
		if (h.HostActions > 0) != (h.HostTable != "") {
			return 0, fmt.Errorf("host_actions %d and host_table %q: give both or neither", h.HostActions, h.HostTable)
		}
		if h.HostActions > 1<<8 {
			return 0, fmt.Errorf("host_actions %d too large", h.HostActions)
		}
		if _, err := hostTableOfHeader(h); err != nil {
			return 0, err
		}
		if h.Agents != 0 || len(h.Ports) != 0 {
			return 0, fmt.Errorf("agents %d and ports %d must be 0 for kind %q", h.Agents, len(h.Ports), h.Kind)
		}
		if _, err := featureSetOfHeader(h.FeatureSet); err != nil {
			return 0, fmt.Errorf("feature_set: %w", err)
		}
		if s.Hidden > 1<<12 || s.Actions > 1<<16 {
			return 0, fmt.Errorf("hidden %d or actions %d too large", s.Hidden, s.Actions)
		}
		return s.NumParams(), nil
	case KindACC:
		if h.Features < 1 || h.Hidden < 1 || h.Actions < 1 || h.Agents < 1 {
			return 0, fmt.Errorf("features %d, hidden %d, actions %d and agents %d must all be at least 1",
				h.Features, h.Hidden, h.Actions, h.Agents)
		}
		if h.K != 0 || h.FeatureSet != "" || h.HostActions != 0 || h.HostTable != "" || h.HostProfiles != nil {
			return 0, fmt.Errorf("k %d, feature_set %q, host_actions %d and host_table %q must be 0 and empty for kind %q",
				h.K, h.FeatureSet, h.HostActions, h.HostTable, h.Kind)
		}
		if len(h.Ports) != 0 && len(h.Ports) != h.Agents {
			return 0, fmt.Errorf("%d ports for %d agents", len(h.Ports), h.Agents)
		}
		if h.Features > 1<<16 || h.Hidden > 1<<12 || h.Actions > 1<<16 || h.Agents > 1<<24 {
			return 0, fmt.Errorf("features %d, hidden %d, actions %d or agents %d too large",
				h.Features, h.Hidden, h.Actions, h.Agents)
		}
		per := MLP{In: h.Features, Hidden: h.Hidden, Out: h.Actions}.NumParams()
		if per > math.MaxInt32/h.Agents {
			return 0, fmt.Errorf("%d agents of %d parameters are too many", h.Agents, per)
		}
		return per * h.Agents, nil
	}
	return 0, fmt.Errorf("%w %q", errUnknownKind, h.Kind)
}

// Expect is what the caller of Read, Load or Unmarshal needs the model to
// be. A zero field is not checked.
type Expect struct {
	Kind        string
	Features    int
	Hidden      int
	K           int
	Actions     int
	Agents      int
	ActionTable string
	// FeatureLayout is checked when set; a file that records none fails.
	FeatureLayout string
	// AnyFeatureSet accepts a KindGraphCC file of any feature set this
	// build knows, checking its features and feature_layout against its
	// own feature_set (FeatureSet.Len and LayoutID) in place of Features
	// and FeatureLayout.
	AnyFeatureSet bool
	// AnyActionSet accepts a KindGraphCC file of any action table this
	// build knows (ActionSetOfTable) in place of ActionTable.
	AnyActionSet bool
}

// check returns an error naming the first field of h that does not fit e.
func (e Expect) check(h *Header) error {
	str := func(field, got, want string) error {
		if want != "" && got != want {
			return fmt.Errorf("%w: %s is %q, want %q", ErrMismatch, field, got, want)
		}
		return nil
	}
	num := func(field string, got, want int) error {
		if want != 0 && got != want {
			return fmt.Errorf("%w: %s is %d, want %d", ErrMismatch, field, got, want)
		}
		return nil
	}
	if e.AnyFeatureSet && h.Kind == KindGraphCC {
		set, err := featureSetOfHeader(h.FeatureSet)
		if err != nil {
			return fmt.Errorf("%w: feature_set: %w", ErrMismatch, err)
		}
		e.Features, e.FeatureLayout = set.Len(), set.LayoutID()
	}
	if e.AnyActionSet && h.Kind == KindGraphCC {
		set, err := ActionSetOfTable(h.ActionTable)
		if err != nil {
			return fmt.Errorf("%w: action_table: %w", ErrMismatch, err)
		}
		e.ActionTable = set.TableID()
	}
	var host error
	// A table of profiles carries itself (paramsFor checked its size).
	if h.HostActions > 0 && h.HostTable != HostProfilesID && (h.HostTable != HostTableID || h.HostActions != NumHostActions) {
		host = fmt.Errorf("%w: host head of %d actions on host_table %q: this build runs %d on %q, or the profiles of %q listed in the file",
			ErrMismatch, h.HostActions, h.HostTable, NumHostActions, HostTableID, HostProfilesID)
	}
	layout := str("feature_layout", h.FeatureLayout, e.FeatureLayout)
	if layout != nil && h.FeatureLayout == "" {
		layout = fmt.Errorf("%w: feature_layout is missing: the file predates the recording of its inputs' layout, so they may not be this build's (%q); retrain it", ErrMismatch, e.FeatureLayout)
	}
	return errors.Join(
		str("kind", h.Kind, e.Kind),
		num("features", h.Features, e.Features),
		num("hidden", h.Hidden, e.Hidden),
		num("k", h.K, e.K),
		num("actions", h.Actions, e.Actions),
		num("agents", h.Agents, e.Agents),
		str("action_table", h.ActionTable, e.ActionTable),
		layout,
		host,
	)
}

// File is a decoded model file.
type File struct {
	Header
	Params []float64
}

// File returns the model file of m trained on the action table actionTable
// (m.ActionSet.TableID() for a model of this build's tables) and on its
// feature set (m.FeatureSet: its name and LayoutID), with metadata meta
// (kept, not copied). A model with a host head records its host table
// (m.HostTable: the grid's id, or the profiles' id and every profile).
func (m *Model) File(actionTable string, meta map[string]string) *File {
	f := &File{
		Header: Header{Kind: KindGraphCC, Features: m.Features, Hidden: m.Hidden, K: m.K,
			Actions: m.Actions, ActionTable: actionTable, FeatureLayout: m.FeatureSet.LayoutID(),
			FeatureSet: m.FeatureSet.headerName(), Params: len(m.Params), Meta: meta},
		Params: m.Params,
	}
	if m.HostActions > 0 {
		f.HostActions, f.HostTable = m.HostActions, m.HostTable.ID()
		for _, h := range m.HostTable.profiles {
			f.HostProfiles = append(f.HostProfiles, hostProfileNumbers(h))
		}
	}
	return f
}

// Model returns the Model that f holds (its parameters copied).
func (f *File) Model() (*Model, error) {
	if f.Kind != KindGraphCC {
		return nil, fmt.Errorf("%w: kind is %q, want %q", ErrMismatch, f.Kind, KindGraphCC)
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	m := NewModelShape(Shape{Features: f.Features, Hidden: f.Hidden, K: f.K, Actions: f.Actions, HostActions: f.HostActions}, nil)
	m.FeatureSet, _ = featureSetOfHeader(f.FeatureSet) // validate checked it
	// A table this build does not know leaves ActionsPaper: GraphCCExpect
	// refuses such files before a policy runs them.
	m.ActionSet, _ = ActionSetOfTable(f.ActionTable)
	m.HostTable, _ = hostTableOfHeader(&f.Header) // validate checked it
	copy(m.Params, f.Params)
	return m, nil
}

// MLPNetsFile returns the model file of the per-agent networks nets (all of
// one shape; parameters copied), nets[i] the agent of the port named
// ports[i], trained on actionTable and on ACC's state (ACCFeatureLayoutID),
// with metadata meta.
func MLPNetsFile(nets []*MLPNet, ports []string, actionTable string, meta map[string]string) *File {
	if len(nets) == 0 || len(ports) != len(nets) {
		panic(fmt.Sprintf("gnn: model file of %d MLPNets and %d ports", len(nets), len(ports)))
	}
	l := nets[0].Layer
	f := &File{Header: Header{Kind: KindACC, Features: l.In, Hidden: l.Hidden, Actions: l.Out,
		Agents: len(nets), ActionTable: actionTable, FeatureLayout: ACCFeatureLayoutID, Ports: slices.Clone(ports), Meta: meta}}
	f.Params = make([]float64, 0, len(nets)*l.NumParams())
	for i, n := range nets {
		if n.Layer != l {
			panic(fmt.Sprintf("gnn: MLPNet %d has another shape than MLPNet 0", i))
		}
		f.Params = append(f.Params, n.Params...)
	}
	f.Header.Params = len(f.Params)
	return f
}

// MLPNets returns the per-agent networks that f holds (parameters copied)
// and the names of their ports. A file that records no ports fails.
func (f *File) MLPNets() ([]*MLPNet, []string, error) {
	if f.Kind != KindACC {
		return nil, nil, fmt.Errorf("%w: kind is %q, want %q", ErrMismatch, f.Kind, KindACC)
	}
	if err := f.validate(); err != nil {
		return nil, nil, err
	}
	if len(f.Ports) == 0 {
		return nil, nil, fmt.Errorf("%w: ports is missing: the file predates agents bound to their ports by name; retrain it", ErrMismatch)
	}
	nets := make([]*MLPNet, f.Agents)
	for i := range nets {
		n := NewMLPNet(f.Features, f.Hidden, f.Actions, nil)
		per := len(n.Params)
		copy(n.Params, f.Params[i*per:(i+1)*per])
		nets[i] = n
	}
	return nets, slices.Clone(f.Ports), nil
}

// validate checks that f's header is consistent and matches its parameters.
func (f *File) validate() error {
	want, err := f.paramsFor()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadHeader, err)
	}
	if f.Header.Params != want {
		return fmt.Errorf("%w: params is %d, the shape needs %d", ErrBadHeader, f.Header.Params, want)
	}
	if len(f.Params) != want {
		return fmt.Errorf("%w: %d parameters given, the header says %d", ErrBadHeader, len(f.Params), want)
	}
	return nil
}

// Marshal returns the model file of f.
func (f *File) Marshal() ([]byte, error) {
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("marshal model: %w", err)
	}
	hdr, err := json.Marshal(&f.Header)
	if err != nil {
		return nil, fmt.Errorf("marshal model header: %w", err)
	}
	if len(hdr) > maxHeader {
		return nil, fmt.Errorf("marshal model: %w: header of %d bytes is over %d", ErrBadHeader, len(hdr), maxHeader)
	}
	buf := make([]byte, 0, len(FileMagic)+8+len(hdr)+8*len(f.Params)+4)
	buf = append(buf, FileMagic...)
	buf = binary.LittleEndian.AppendUint32(buf, FileVersion)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(hdr)))
	buf = append(buf, hdr...)
	for _, p := range f.Params {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(p))
	}
	buf = binary.LittleEndian.AppendUint32(buf, crc32.ChecksumIEEE(buf))
	return buf, nil
}

// Write writes the model file of f to w.
func (f *File) Write(w io.Writer) error {
	b, err := f.Marshal()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Save writes the model file of f to path atomically: into a temporary file
// in the same directory, synced, then renamed over path. On error nothing is
// left behind and an existing file at path is untouched.
func (f *File) Save(path string) error {
	b, err := f.Marshal()
	if err == nil {
		err = fileio.WriteAtomic(path, func(w io.Writer) error {
			_, err := w.Write(b)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("save model %s: %w", path, err)
	}
	return nil
}

// Load reads the model file at path and checks it against want.
func Load(path string, want Expect) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	defer f.Close()
	return Read(f, path, want)
}

// Read reads a model file from r, named name in errors, and checks it
// against want. It reads r to its end.
func Read(r io.Reader, name string, want Expect) (*File, error) {
	// The magic first, so that a stream of anything else fails at once.
	head := make([]byte, len(FileMagic))
	n, err := io.ReadFull(r, head)
	if err == nil && string(head) != FileMagic || err == io.ErrUnexpectedEOF || err == io.EOF {
		return Unmarshal(head[:n], name, want) // names what is wrong
	}
	if err != nil {
		return nil, fmt.Errorf("read model %s: %w", name, err)
	}
	b, err := io.ReadAll(io.LimitReader(io.MultiReader(bytes.NewReader(head), r), maxModelFile+1))
	if err != nil {
		return nil, fmt.Errorf("read model %s: %w", name, err)
	}
	if len(b) > maxModelFile {
		return nil, fmt.Errorf("model %s: %w: longer than %d bytes", name, ErrBadHeader, maxModelFile)
	}
	return Unmarshal(b, name, want)
}

// maxModelFile bounds what Read and Load read, so that an endless input
// (/dev/zero) fails instead of filling memory: 1 GiB, 130 million
// parameters, far beyond any network here.
const maxModelFile = 1 << 30

// Unmarshal decodes the model file b, named name in errors (for example the
// path of an embedded file), and checks it against want. The File does not
// alias b.
func Unmarshal(b []byte, name string, want Expect) (*File, error) {
	f, err := unmarshal(b, want)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	return f, nil
}

func unmarshal(b []byte, want Expect) (*File, error) {
	const pre = len(FileMagic) + 8
	if len(b) < len(FileMagic) {
		if bytes.HasPrefix([]byte(FileMagic), b) {
			return nil, fmt.Errorf("%w: %d bytes, shorter than the magic", ErrTruncated, len(b))
		}
		return nil, ErrBadMagic
	}
	if string(b[:len(FileMagic)]) != FileMagic {
		return nil, fmt.Errorf("%w: magic is %q, want %q", ErrBadMagic, b[:len(FileMagic)], FileMagic)
	}
	if len(b) < pre {
		return nil, fmt.Errorf("%w: %d bytes end inside the version and header length", ErrTruncated, len(b))
	}
	if v := binary.LittleEndian.Uint32(b[len(FileMagic):]); v != FileVersion {
		return nil, fmt.Errorf("%w: version is %d, this build reads %d", ErrVersion, v, FileVersion)
	}
	hlen := binary.LittleEndian.Uint32(b[len(FileMagic)+4:])
	if hlen > maxHeader {
		return nil, fmt.Errorf("%w: header length %d is over %d", ErrBadHeader, hlen, maxHeader)
	}
	if uint64(len(b)) < uint64(pre)+uint64(hlen) {
		return nil, fmt.Errorf("%w: %d bytes end inside the %d-byte header", ErrTruncated, len(b), hlen)
	}
	hdr := b[pre : pre+int(hlen)]
	f := new(File)
	dec := json.NewDecoder(bytes.NewReader(hdr))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f.Header); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadHeader, err)
	}
	if canon, err := json.Marshal(&f.Header); err != nil || !bytes.Equal(canon, hdr) {
		return nil, fmt.Errorf("%w: header is not in canonical form", ErrBadHeader)
	}
	n, err := f.paramsFor()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadHeader, err)
	}
	if f.Header.Params != n {
		return nil, fmt.Errorf("%w: params is %d, the %s shape needs %d", ErrBadHeader, f.Header.Params, f.Kind, n)
	}
	body := pre + int(hlen)
	end := uint64(body) + 8*uint64(n)
	if uint64(len(b)) < end+4 {
		return nil, fmt.Errorf("%w: %d bytes, the header needs %d", ErrTruncated, len(b), end+4)
	}
	if uint64(len(b)) > end+4 {
		return nil, fmt.Errorf("%w: %d bytes after the checksum", ErrTrailing, uint64(len(b))-end-4)
	}
	if got, sum := binary.LittleEndian.Uint32(b[end:]), crc32.ChecksumIEEE(b[:end]); got != sum {
		return nil, fmt.Errorf("%w: stored CRC-32 %08x, computed %08x", ErrChecksum, got, sum)
	}
	if err := want.check(&f.Header); err != nil {
		return nil, err
	}
	f.Params = make([]float64, n)
	for i := range f.Params {
		f.Params[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[body+8*i:]))
	}
	return f, nil
}
