package p4rt

import (
	"errors"
	"fmt"
	"os"
	"unicode/utf8"

	p4configv1 "github.com/p4lang/p4runtime/go/p4/config/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"graphcc/p4src"
)

// P4Info is the P4Info of graphcc.p4 with the ID of every table, action,
// parameter, match field and counter the controller uses, resolved by name
// (the p4src constants) once.
type P4Info struct {
	Proto *p4configv1.P4Info

	// Tables and their match fields.
	IPv4Route, FieldDstAddr                 uint32
	ECMPGroup, FieldGroup, FieldMember      uint32
	ECNSettings, FieldEgressPort            uint32
	DepthBucket, FieldEnqQdepth             uint32
	SetPort, ParamPort                      uint32
	SetGroup, ParamGroup, ParamGroupSize    uint32
	SetECN, ParamKMin, ParamKMax, ParamPMax uint32
	SetDepthBucket, ParamBucket             uint32

	// Counters.
	RxPort, TxPort, MarkedPort, EnqDepth, FlowStarts uint32

	// The in-band channel: the controller packet metadata headers and the
	// port fields of PacketOut and PacketIn.
	PacketOut, MetaEgressPort uint32
	PacketIn, MetaIngressPort uint32

	outPad []uint32          // packet_out's other metadata, sent as 0
	names  map[uint32]string // every table, action and counter id: its name
}

// ReadP4InfoFile reads and resolves a P4Info file, text or binary.
func ReadP4InfoFile(path string) (*P4Info, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("p4info: %w", err)
	}
	info, err := ParseP4Info(data)
	if err != nil {
		return nil, fmt.Errorf("p4info %s: %w", path, err)
	}
	return info, nil
}

// ParseP4Info parses a P4Info in protobuf text format (what p4c writes to a
// .txtpb or .txt file) or binary wire format, and resolves it.
func ParseP4Info(data []byte) (*P4Info, error) {
	pb, err := UnmarshalP4Info(data)
	if err != nil {
		return nil, err
	}
	return ResolveP4Info(pb)
}

// UnmarshalP4Info parses a P4Info in text format if data is UTF-8 text
// that parses as one, and in binary wire format otherwise.
func UnmarshalP4Info(data []byte) (*p4configv1.P4Info, error) {
	pb := new(p4configv1.P4Info)
	if utf8.Valid(data) {
		terr := prototext.Unmarshal(data, pb)
		if terr == nil {
			return pb, nil
		}
		pb.Reset()
		if berr := proto.Unmarshal(data, pb); berr != nil {
			return nil, fmt.Errorf("p4info: neither text (%v) nor binary (%v)", terr, berr)
		}
		return pb, nil
	}
	if err := proto.Unmarshal(data, pb); err != nil {
		return nil, fmt.Errorf("p4info: binary: %w", err)
	}
	return pb, nil
}

// ResolveP4Info finds every ID the controller uses in pb by name and checks
// the widths and match kinds graphcc.p4 declares; the error names everything
// missing or different.
func ResolveP4Info(pb *p4configv1.P4Info) (*P4Info, error) {
	r := resolver{pb: pb}
	info := &P4Info{Proto: pb, names: make(map[uint32]string)}
	for _, t := range pb.GetTables() {
		info.names[t.GetPreamble().GetId()] = t.GetPreamble().GetName()
	}
	for _, a := range pb.GetActions() {
		info.names[a.GetPreamble().GetId()] = a.GetPreamble().GetName()
	}
	for _, c := range pb.GetCounters() {
		info.names[c.GetPreamble().GetId()] = c.GetPreamble().GetName()
	}

	var t *p4configv1.Table
	t, info.IPv4Route = r.table(p4src.TableIPv4Route)
	info.FieldDstAddr = r.field(t, p4src.FieldDstAddr, 32, p4configv1.MatchField_LPM)
	t, info.ECMPGroup = r.table(p4src.TableECMPGroup)
	info.FieldGroup = r.field(t, p4src.FieldGroup, 16, p4configv1.MatchField_EXACT)
	info.FieldMember = r.field(t, p4src.FieldMember, 16, p4configv1.MatchField_EXACT)
	t, info.ECNSettings = r.table(p4src.TableECNSettings)
	info.FieldEgressPort = r.field(t, p4src.FieldEgressPort, p4src.PortBits, p4configv1.MatchField_EXACT)
	t, info.DepthBucket = r.table(p4src.TableDepthBucket)
	info.FieldEnqQdepth = r.field(t, p4src.FieldEnqQdepth, p4src.DepthBits, p4configv1.MatchField_RANGE)

	var a *p4configv1.Action
	a, info.SetPort = r.action(p4src.ActionSetPort)
	info.ParamPort = r.param(a, p4src.ParamPort, p4src.PortBits)
	a, info.SetGroup = r.action(p4src.ActionSetGroup)
	info.ParamGroup = r.param(a, p4src.ParamGroup, 16)
	info.ParamGroupSize = r.param(a, p4src.ParamGroupSize, 16)
	a, info.SetECN = r.action(p4src.ActionSetECN)
	info.ParamKMin = r.param(a, p4src.ParamKMinBytes, p4src.KBytesBits)
	info.ParamKMax = r.param(a, p4src.ParamKMaxBytes, p4src.KBytesBits)
	info.ParamPMax = r.param(a, p4src.ParamPMaxFixed, p4src.PMaxBits)
	a, info.SetDepthBucket = r.action(p4src.ActionSetDepthBucket)
	info.ParamBucket = r.param(a, p4src.ParamBucket, 8)

	r.uses(info, info.IPv4Route, info.SetPort, info.SetGroup)
	r.uses(info, info.ECMPGroup, info.SetPort)
	r.uses(info, info.ECNSettings, info.SetECN)
	r.uses(info, info.DepthBucket, info.SetDepthBucket)

	both := p4configv1.CounterSpec_BOTH
	info.RxPort = r.counter(p4src.CounterRxPort, both, p4src.PortSlots)
	info.TxPort = r.counter(p4src.CounterTxPort, both, p4src.PortSlots)
	info.MarkedPort = r.counter(p4src.CounterMarkedPort, both, p4src.PortSlots)
	info.EnqDepth = r.counter(p4src.CounterEnqDepth, p4configv1.CounterSpec_PACKETS, p4src.PortSlots*p4src.DepthBuckets)
	info.FlowStarts = r.counter(p4src.CounterFlowStarts, p4configv1.CounterSpec_PACKETS, p4src.PortSlots)

	var m *p4configv1.ControllerPacketMetadata
	m, info.PacketOut = r.packetHeader(p4src.PacketOutHeader)
	info.MetaEgressPort = r.packetMeta(m, p4src.MetaEgressPort, p4src.PortBits)
	for _, x := range m.GetMetadata() {
		if x.GetId() != info.MetaEgressPort {
			info.outPad = append(info.outPad, x.GetId())
		}
	}
	m, info.PacketIn = r.packetHeader(p4src.PacketInHeader)
	info.MetaIngressPort = r.packetMeta(m, p4src.MetaIngressPort, p4src.PortBits)

	if err := errors.Join(r.errs...); err != nil {
		return nil, fmt.Errorf("p4info: %w", err)
	}
	return info, nil
}

// Name returns the name of a table, action or counter id, or the id in hex.
func (p *P4Info) Name(id uint32) string {
	if n, ok := p.names[id]; ok {
		return n
	}
	return fmt.Sprintf("%#08x", id)
}

type resolver struct {
	pb   *p4configv1.P4Info
	errs []error
}

func (r *resolver) fail(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

func (r *resolver) table(name string) (*p4configv1.Table, uint32) {
	for _, t := range r.pb.GetTables() {
		if t.GetPreamble().GetName() == name {
			if t.GetPreamble().GetId() == 0 {
				r.fail("table %s: id 0", name)
			}
			return t, t.GetPreamble().GetId()
		}
	}
	r.fail("table %s: missing", name)
	return nil, 0
}

func (r *resolver) field(t *p4configv1.Table, name string, bits int32, kind p4configv1.MatchField_MatchType) uint32 {
	if t == nil {
		return 0
	}
	table := t.GetPreamble().GetName()
	for _, f := range t.GetMatchFields() {
		if f.GetName() != name {
			continue
		}
		if f.GetBitwidth() != bits || f.GetMatchType() != kind {
			r.fail("table %s: match field %s is %d-bit %v, want %d-bit %v",
				table, name, f.GetBitwidth(), f.GetMatchType(), bits, kind)
		}
		if f.GetId() == 0 {
			r.fail("table %s: match field %s: id 0", table, name)
		}
		return f.GetId()
	}
	r.fail("table %s: match field %s: missing", table, name)
	return 0
}

func (r *resolver) action(name string) (*p4configv1.Action, uint32) {
	for _, a := range r.pb.GetActions() {
		if a.GetPreamble().GetName() == name {
			if a.GetPreamble().GetId() == 0 {
				r.fail("action %s: id 0", name)
			}
			return a, a.GetPreamble().GetId()
		}
	}
	r.fail("action %s: missing", name)
	return nil, 0
}

func (r *resolver) param(a *p4configv1.Action, name string, bits int32) uint32 {
	if a == nil {
		return 0
	}
	action := a.GetPreamble().GetName()
	for _, p := range a.GetParams() {
		if p.GetName() != name {
			continue
		}
		if p.GetBitwidth() != bits {
			r.fail("action %s: param %s is %d-bit, want %d-bit", action, name, p.GetBitwidth(), bits)
		}
		if p.GetId() == 0 {
			r.fail("action %s: param %s: id 0", action, name)
		}
		return p.GetId()
	}
	r.fail("action %s: param %s: missing", action, name)
	return 0
}

// uses checks that table may hold entries with each action.
func (r *resolver) uses(info *P4Info, table uint32, actions ...uint32) {
	var t *p4configv1.Table
	for _, x := range r.pb.GetTables() {
		if x.GetPreamble().GetId() == table {
			t = x
		}
	}
	if t == nil || table == 0 {
		return
	}
next:
	for _, id := range actions {
		if id == 0 {
			continue
		}
		for _, ref := range t.GetActionRefs() {
			if ref.GetId() == id && ref.GetScope() != p4configv1.ActionRef_DEFAULT_ONLY {
				continue next
			}
		}
		r.fail("table %s: action %s is not allowed in its entries", t.GetPreamble().GetName(), info.Name(id))
	}
}

func (r *resolver) counter(name string, unit p4configv1.CounterSpec_Unit, size int64) uint32 {
	for _, c := range r.pb.GetCounters() {
		if c.GetPreamble().GetName() != name {
			continue
		}
		if c.GetSpec().GetUnit() != unit || c.GetSize() != size {
			r.fail("counter %s: %v with %d cells, want %v with %d", name, c.GetSpec().GetUnit(), c.GetSize(), unit, size)
		}
		if c.GetPreamble().GetId() == 0 {
			r.fail("counter %s: id 0", name)
		}
		return c.GetPreamble().GetId()
	}
	r.fail("counter %s: missing", name)
	return 0
}

func (r *resolver) packetHeader(name string) (*p4configv1.ControllerPacketMetadata, uint32) {
	for _, m := range r.pb.GetControllerPacketMetadata() {
		if m.GetPreamble().GetName() == name {
			if m.GetPreamble().GetId() == 0 {
				r.fail("controller packet metadata %s: id 0", name)
			}
			return m, m.GetPreamble().GetId()
		}
	}
	r.fail("controller packet metadata %s: missing", name)
	return nil, 0
}

func (r *resolver) packetMeta(m *p4configv1.ControllerPacketMetadata, name string, bits int32) uint32 {
	if m == nil {
		return 0
	}
	header := m.GetPreamble().GetName()
	for _, f := range m.GetMetadata() {
		if f.GetName() != name {
			continue
		}
		if f.GetBitwidth() != bits {
			r.fail("controller packet metadata %s: %s is %d-bit, want %d-bit", header, name, f.GetBitwidth(), bits)
		}
		if f.GetId() == 0 {
			r.fail("controller packet metadata %s: %s: id 0", header, name)
		}
		return f.GetId()
	}
	r.fail("controller packet metadata %s: %s: missing", header, name)
	return 0
}
