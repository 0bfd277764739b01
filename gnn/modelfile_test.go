package gnn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
)

const nnTestTable = "test-actions/v1"

func nnTestMeta() map[string]string {
	return map[string]string{"cmd": "graphcc train --seed 7 -o m.bin", "seed": "7", "note": "<&> ünïcode"}
}

func nnExpectGraphCC() Expect {
	return Expect{Kind: KindGraphCC, Features: NumFeatures, Hidden: Hidden, K: K, Actions: NumActions, ActionTable: nnTestTable}
}

func TestModelFileRoundTrip(t *testing.T) {
	m := NewModel(nnNewRand(1))
	m.Params[0] = math.NaN() // any bits survive
	m.Params[1] = math.Copysign(0, -1)
	m.Params[2] = math.Inf(-1)
	path := filepath.Join(t.TempDir(), "model.bin")
	if err := m.File(nnTestTable, nnTestMeta()).Save(path); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path, nnExpectGraphCC())
	if err != nil {
		t.Fatal(err)
	}
	m2, err := f.Model()
	if err != nil {
		t.Fatal(err)
	}
	if m2.Shape != m.Shape || len(m2.Params) != len(m.Params) {
		t.Fatalf("shape %+v, want %+v", m2.Shape, m.Shape)
	}
	for i := range m.Params {
		if math.Float64bits(m2.Params[i]) != math.Float64bits(m.Params[i]) {
			t.Fatalf("param %d: %x, want %x", i, math.Float64bits(m2.Params[i]), math.Float64bits(m.Params[i]))
		}
	}
	if f.ActionTable != nnTestTable || !nnMaps(f.Meta, nnTestMeta()) || f.Header.Params != 7728 {
		t.Fatalf("header %+v", f.Header)
	}
	// Marshal/Unmarshal (go:embed) give the same bytes as the file.
	disk, _ := os.ReadFile(path)
	mem, err := m.File(nnTestTable, nnTestMeta()).Marshal()
	if err != nil || !bytes.Equal(disk, mem) {
		t.Fatalf("Marshal differs from Save (%v)", err)
	}
	if _, err := Unmarshal(mem, "embedded", Expect{}); err != nil {
		t.Fatal(err)
	}
	if got := len(mem); got != len(FileMagic)+8+nnHeaderLen(mem)+8*7728+4 {
		t.Fatalf("file of %d bytes", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries after Save, want 1", len(entries))
	}
}

func TestModelFileACC(t *testing.T) {
	var nets []*MLPNet
	r := nnNewRand(3)
	for range 5 {
		nets = append(nets, NewMLPNet(16, 32, NumActions, r))
	}
	ports := []string{"s0->h0", "s0->h1", "s0->s1", "s1->s0", "s1->h2"}
	b, err := MLPNetsFile(nets, ports, nnTestTable, nil).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Unmarshal(b, "acc.bin", Expect{Kind: KindACC, Features: 16, Hidden: 32, Actions: NumActions, Agents: 5})
	if err != nil {
		t.Fatal(err)
	}
	got, gotPorts, err := f.MLPNets()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gotPorts, ports) {
		t.Errorf("ports %q, want %q", gotPorts, ports)
	}
	// A file without the ports (written before they were recorded) or with
	// as many as the agents does not serve.
	noPorts := *f
	noPorts.Ports = nil
	if _, _, err := noPorts.MLPNets(); err == nil || !strings.Contains(err.Error(), "ports is missing: the file predates agents bound to their ports by name; retrain it") {
		t.Errorf("a file without ports: %v", err)
	}
	fewer := *f
	fewer.Ports = ports[:4]
	if _, err := fewer.Marshal(); err == nil || !strings.Contains(err.Error(), "4 ports for 5 agents") {
		t.Errorf("a file of 4 ports for 5 agents: %v", err)
	}
	for i := range nets {
		if !slices.Equal(got[i].Params, nets[i].Params) || got[i].Layer != nets[i].Layer {
			t.Fatalf("net %d differs", i)
		}
	}
	if _, err := f.Model(); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Model() of an ACC file: %v", err)
	}
}

func nnMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func nnHeaderLen(b []byte) int { return int(binary.LittleEndian.Uint32(b[len(FileMagic)+4:])) }

// reseal recomputes the checksum of a hand-edited file.
func nnReseal(b []byte) []byte {
	b = slices.Clone(b)
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], nnCrc32IEEE(b[:n]))
	return b
}

// withHeader replaces the JSON header of b and reseals it.
func nnWithHeader(b []byte, edit func(string) string) []byte {
	hl := nnHeaderLen(b)
	pre := len(FileMagic) + 8
	hdr := edit(string(b[pre : pre+hl]))
	out := slices.Clone(b[:pre])
	binary.LittleEndian.PutUint32(out[len(FileMagic)+4:], uint32(len(hdr)))
	out = append(out, hdr...)
	out = append(out, b[pre+hl:]...)
	return nnReseal(out)
}

func TestModelFileCorrupt(t *testing.T) {
	good, err := NewModel(nnNewRand(1)).File(nnTestTable, nnTestMeta()).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	small, err := NewModelShape(Shape{Features: 9, Hidden: 16, K: 2, Actions: NumActions}, nnNewRand(2)).File(nnTestTable, nil).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	acc, err := MLPNetsFile([]*MLPNet{NewMLPNet(9, 24, NumActions, nnNewRand(3))}, []string{"a->b"}, nnTestTable, nil).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte { b := slices.Clone(good); b[i] ^= 0x10; return b }
	body := len(FileMagic) + 8 + nnHeaderLen(good)
	for _, tc := range []struct {
		name   string
		data   []byte
		expect Expect
		is     error
		msg    string
	}{
		{"param byte flipped", flip(body + 100), nnExpectGraphCC(), ErrChecksum, "checksum mismatch"},
		{"checksum byte flipped", flip(len(good) - 2), nnExpectGraphCC(), ErrChecksum, "checksum mismatch"},
		{"header byte flipped", flip(len(FileMagic) + 8 + 10), nnExpectGraphCC(), ErrBadHeader, "bad model file header"},
		{"truncated in params", good[:body+50], nnExpectGraphCC(), ErrTruncated, "truncated"},
		{"truncated before checksum", good[:len(good)-1], nnExpectGraphCC(), ErrTruncated, "truncated"},
		{"truncated in header", good[:body-5], nnExpectGraphCC(), ErrTruncated, "inside the"},
		{"truncated in version", good[:len(FileMagic)+2], nnExpectGraphCC(), ErrTruncated, "truncated"},
		{"truncated in magic", good[:5], nnExpectGraphCC(), ErrTruncated, "truncated"},
		{"empty", nil, nnExpectGraphCC(), ErrTruncated, "truncated"},
		{"trailing data", append(slices.Clone(good), 0), nnExpectGraphCC(), ErrTrailing, "after the"},
		{"wrong magic", append([]byte("GRAPHCC-MODEX\n"), good[len(FileMagic):]...), nnExpectGraphCC(), ErrBadMagic, `magic is "GRAPHCC-MODEX\n"`},
		{"not a model", []byte("hello, world: definitely not a model"), nnExpectGraphCC(), ErrBadMagic, "magic"},
		{"wrong version", func() []byte {
			b := slices.Clone(good)
			binary.LittleEndian.PutUint32(b[len(FileMagic):], 2)
			return nnReseal(b)
		}(), nnExpectGraphCC(), ErrVersion, "version is 2, this build reads 1"},
		{"wrong kind", acc, nnExpectGraphCC(), ErrMismatch, `kind is "acc-mlp", want "graphcc-mpnn"`},
		{"wrong hidden", small, nnExpectGraphCC(), ErrMismatch, "hidden is 16, want 24"},
		{"wrong features", good, Expect{Features: 12}, ErrMismatch, "features is 9, want 12"},
		{"wrong K", good, Expect{K: 3}, ErrMismatch, "k is 2, want 3"},
		{"wrong actions", good, Expect{Actions: 64}, ErrMismatch, "actions is 120, want 64"},
		{"wrong action table", good, Expect{ActionTable: "other"}, ErrMismatch, `action_table is "test-actions/v1", want "other"`},
		{"unknown kind", nnWithHeader(good, func(h string) string {
			return strings.Replace(h, KindGraphCC, "graphcc-xxxx", 1)
		}), Expect{}, ErrBadHeader, `unknown model kind "graphcc-xxxx"`},
		{"param count", nnWithHeader(good, func(h string) string {
			return strings.Replace(h, `"params":7728`, `"params":7727`, 1)
		}), Expect{}, ErrBadHeader, "params is 7727, the graphcc-mpnn shape needs 7728"},
		{"non-canonical header", nnWithHeader(good, func(h string) string { return " " + h }), Expect{}, ErrBadHeader, "canonical"},
		{"unknown field", nnWithHeader(good, func(h string) string {
			return strings.Replace(h, `{"kind"`, `{"extra":1,"kind"`, 1)
		}), Expect{}, ErrBadHeader, "unknown field"},
		{"huge header length", func() []byte {
			b := slices.Clone(good)
			binary.LittleEndian.PutUint32(b[len(FileMagic)+4:], 1<<30)
			return b
		}(), Expect{}, ErrBadHeader, "header length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Unmarshal(tc.data, "testdata/m.bin", tc.expect)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "model testdata/m.bin: ") {
				t.Fatalf("error %q, want one naming the file, wrapping %q and containing %q", err, tc.is, tc.msg)
			}
			// The same through Load.
			path := filepath.Join(t.TempDir(), "m.bin")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(path, tc.expect); !errors.Is(err, tc.is) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Load: %v", err)
			}
		})
	}
}

func TestModelFileSaveFailure(t *testing.T) {
	dir := t.TempDir()
	f := NewModel(nnNewRand(1)).File(nnTestTable, nil)
	// Renaming onto a non-empty directory fails after the temporary file is
	// written.
	target := filepath.Join(dir, "model.bin")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Save(target); err == nil || !strings.Contains(err.Error(), target) {
		t.Fatalf("Save onto a directory: %v", err)
	}
	// An inconsistent file fails before writing anything.
	bad := *f
	bad.Params = bad.Params[:10]
	if err := bad.Save(filepath.Join(dir, "bad.bin")); !errors.Is(err, ErrBadHeader) {
		t.Fatalf("Save of a bad file: %v", err)
	}
	// A missing directory.
	if err := f.Save(filepath.Join(dir, "missing", "m.bin")); err == nil {
		t.Fatal("Save into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "model.bin" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("directory holds %v after failed saves, want only the blocking directory", names)
	}
	// Overwriting an existing model works and replaces it.
	ok := filepath.Join(dir, "ok.bin")
	if err := os.WriteFile(ok, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Save(ok); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ok, nnExpectGraphCC()); err != nil {
		t.Fatal(err)
	}
}

func FuzzReadModel(f *testing.F) {
	good, _ := NewModelShape(Shape{Features: 2, Hidden: 3, K: 1, Actions: 2}, nnNewRand(1)).File("t", map[string]string{"a": "b"}).Marshal()
	acc, _ := MLPNetsFile([]*MLPNet{NewMLPNet(2, 2, 2, nnNewRand(2)), NewMLPNet(2, 2, 2, nnNewRand(3))}, []string{"a->b", "b->a"}, "", nil).Marshal()
	small := NewModelShape(Shape{Features: 2, Hidden: 3, K: 1, Actions: 2}, nnNewRand(4))
	small.FeatureSet = FeaturesFlowMix
	mix, _ := small.File("t", nil).Marshal()
	f.Add(good)
	f.Add(acc)
	f.Add(mix)
	hosts, _ := NewModelShape(Shape{Features: 2, Hidden: 3, K: 1, Actions: 2, HostActions: NumHostActions}, nnNewRand(5)).File("t", nil).Marshal()
	f.Add(hosts)
	tab, _ := NewHostTable(testProfiles())
	pm := NewModelShape(Shape{Features: 2, Hidden: 3, K: 1, Actions: 2, HostActions: tab.Len()}, nnNewRand(6))
	pm.HostTable = tab
	profiles, _ := pm.File("t", nil).Marshal()
	f.Add(profiles)
	f.Add(good[:40])
	f.Add([]byte(FileMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		if g, err := Read(bytes.NewReader(b), "fuzz", GraphCCExpect()); err == nil {
			m, err := g.Model()
			if err != nil {
				t.Fatal(err)
			}
			if m.Features != m.FeatureSet.Len() || g.FeatureLayout != m.FeatureSet.LayoutID() {
				t.Fatalf("GraphCCExpect accepted a model of %d features, layout %q, as feature set %v", m.Features, g.FeatureLayout, m.FeatureSet)
			}
		}
		m, err := Read(bytes.NewReader(b), "fuzz", Expect{})
		if err != nil {
			return
		}
		again, err := m.Marshal()
		if err != nil {
			t.Fatalf("re-marshal: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("re-marshal differs:\n%q\n%q", again, b)
		}
		switch m.Kind {
		case KindGraphCC:
			gm, err := m.Model()
			if err != nil {
				t.Fatal(err)
			}
			// A host head runs on a table of its size, which the model
			// writes back as it was read.
			if gm.HostActions > 0 && m.HostTable == gm.HostTable.ID() && gm.HostTable.Len() != gm.HostActions {
				t.Fatalf("host head of %d actions on a table of %d", gm.HostActions, gm.HostTable.Len())
			}
			if back, err := gm.File(m.ActionTable, m.Meta).Marshal(); err != nil || m.HostTable != "" && !bytes.Contains(back, []byte(`"host_table":"`+m.HostTable+`"`)) {
				t.Fatalf("the model's file loses its host table: %v", err)
			}
		case KindACC:
			if _, _, err := m.MLPNets(); err != nil && len(m.Ports) > 0 {
				t.Fatal(err)
			}
		}
	})
}

func nnCrc32IEEE(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

// TestFeatureLayoutIDs ties the layout identifiers to the constants that
// define the features: change one and the identifier must change with it.
func TestFeatureLayoutIDs(t *testing.T) {
	if FeatureSteps != 3 || FeatU != 0 || FeatQ != 1 || FeatM != 2 {
		t.Fatalf("GraphCC steps or offsets changed (%d steps; u %d, q %d, m %d): change FeatureLayoutID", FeatureSteps, FeatU, FeatQ, FeatM)
	}
	if ACCFeatQ != 0 || ACCFeatU != 1 || ACCFeatM != 2 || ACCFeatKMin != 3 || ACCFeatKMax != 4 || ACCFeatPMax != 5 {
		t.Fatal("ACC offsets changed: change ACCFeatureLayoutID")
	}
	scale := fmt.Sprintf("(%dKB*rate/%dG)/%g", DefaultQueueScaleKB, ActionRefRate/topo.Gbps, MaxQueue)
	for _, tc := range []struct{ name, got, want string }{
		{"FeatureLayoutID", FeatureLayoutID, fmt.Sprintf("graphcc-features/v1 q3 steps=t,t-1,t-2 step=u,q,m u/%g q=queue-feature/%s m/%g", MaxUtilization, scale, MaxMarking)},
		{"ACCFeatureLayoutID", ACCFeatureLayoutID, fmt.Sprintf("acc-state/v1 q3 steps=t,t-1,t-2 step=q,u,m,kmin,kmax,pmax q,kmin,kmax=bytes/%s u/%g m/%g pmax/1", scale, MaxUtilization, MaxMarking)},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, the constants say %q", tc.name, tc.got, tc.want)
		}
	}
}

// TestModelFileFeatureLayout checks that model files record the layout of
// their inputs and that GraphCCExpect and ACCExpect refuse a file without
// it (written before it was recorded) or with another, naming the field.
func TestModelFileFeatureLayout(t *testing.T) {
	gc := NewModel(nnNewRand(1)).File(ActionTableID, nil)
	var nets []*MLPNet
	r := nnNewRand(2)
	for range 3 {
		nets = append(nets, NewMLPNet(ACCNumFeatures, 8, NumActions, r))
	}
	acc := MLPNetsFile(nets, []string{"a->b", "b->a", "b->c"}, ActionTableID, nil)
	if gc.FeatureLayout != FeatureLayoutID || acc.FeatureLayout != ACCFeatureLayoutID {
		t.Fatalf("files record layouts %q and %q", gc.FeatureLayout, acc.FeatureLayout)
	}
	for _, tc := range []struct {
		name   string
		file   *File
		layout string
		want   Expect
		err    string
	}{
		{"graphcc", gc, FeatureLayoutID, GraphCCExpect(), ""},
		{"acc", acc, ACCFeatureLayoutID, ACCExpect(), ""},
		{"graphcc without a layout", gc, "", GraphCCExpect(), "feature_layout is missing: the file predates"},
		{"acc without a layout", acc, "", ACCExpect(), "feature_layout is missing"},
		{"graphcc on another layout", gc, "graphcc-features/v0 q2", GraphCCExpect(), `feature_layout is "graphcc-features/v0 q2", want "` + FeatureLayoutID + `"`},
		{"acc file as graphcc's layout", acc, FeatureLayoutID, ACCExpect(), `feature_layout is "` + FeatureLayoutID + `"`},
		{"unchecked", gc, "", Expect{}, ""},
	} {
		f := *tc.file
		f.FeatureLayout = tc.layout
		b, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		g, err := Unmarshal(b, "m.model", tc.want)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err == "" && g.FeatureLayout != tc.layout:
			t.Errorf("%s: read back layout %q, wrote %q", tc.name, g.FeatureLayout, tc.layout)
		case tc.err != "" && (err == nil || !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want ErrMismatch containing %q", tc.name, err, tc.err)
		}
	}
}

// zeros is an endless stream of zero bytes, like /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestModelFileEndless reads a model from an endless stream: it fails at
// the magic, without reading on.
func TestModelFileEndless(t *testing.T) {
	_, err := Read(zeros{}, "/dev/zero", GraphCCExpect())
	if !errors.Is(err, ErrBadMagic) {
		t.Errorf("error %v, want ErrBadMagic", err)
	}
}
