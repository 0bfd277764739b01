package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/controller/p4rt"
	"graphcc/gnn"
	"graphcc/p4src"
	"graphcc/policy"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"

	"graphcc/internal/privtest"
)

// require skips t unless it runs as root with every named program on PATH
// (BMv2 with PI: see the Vagrantfile), or fails on the privileged
// runner (privtest).
func require(t *testing.T, programs ...string) { privtest.All(t, true, programs...) }

// compileP4 compiles p4src/graphcc.p4 into dir with p4c-bm2-ss, or, if it
// is not on PATH, writes there the compiled program committed in p4src
// (p4src's own tests check that it is what p4c makes of the source), and
// returns the P4Info and the BMv2 JSON's path and bytes.
func compileP4(t *testing.T, dir string) (*p4rt.P4Info, string, []byte) {
	t.Helper()
	info, js := filepath.Join(dir, "graphcc.p4info.txtpb"), filepath.Join(dir, "graphcc.json")
	if _, err := exec.LookPath("p4c-bm2-ss"); err != nil {
		t.Log("p4c-bm2-ss is not on PATH: using the compiled program committed in p4src/")
		if err := os.WriteFile(info, p4src.P4Info, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(js, p4src.BMv2JSON, 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		cmd := exec.Command("p4c-bm2-ss", "--arch", "v1model", "--std", "p4-16", "--p4runtime-files", info, "-o", js,
			filepath.Join("..", "p4src", "graphcc.p4"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("p4c-bm2-ss: %v\n%s", err, out)
		}
	}
	p4info, err := p4rt.ReadP4InfoFile(info)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	return p4info, js, cfg
}

// ecnTable reads every ecn_settings entry of every switch, by topo.PortID.
func ecnTable(t *testing.T, ctx context.Context, plan *lab.Plan, info *p4rt.P4Info, sws []*p4rt.Switch) map[topo.PortID]p4rt.ECNParams {
	t.Helper()
	got := map[topo.PortID]p4rt.ECNParams{}
	for i, s := range sws {
		entries, err := s.ReadTable(ctx, info.ECNSettings)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			num, err := p4rt.DecodeUint(e.Match[0].GetExact().Value, 32)
			if err != nil {
				t.Fatal(err)
			}
			var port topo.PortID = -1
			for _, pp := range plan.Switches[i].Ports {
				if uint64(pp.Num) == num {
					port = pp.Port
				}
			}
			if port < 0 {
				t.Fatalf("switch %s: ecn entry for unknown port %d", s.Name(), num)
			}
			var p p4rt.ECNParams
			for _, a := range e.Action.GetAction().Params {
				v, _ := p4rt.DecodeUint(a.Value, 32)
				switch a.ParamId {
				case info.ParamKMin:
					p.KMin = uint32(v)
				case info.ParamKMax:
					p.KMax = uint32(v)
				case info.ParamPMax:
					p.PMax = uint32(v)
				}
			}
			got[port] = p
		}
	}
	return got
}

func checkECN(t *testing.T, what string, got map[topo.PortID]p4rt.ECNParams, f *topo.Fabric, want []control.ECN) {
	t.Helper()
	if len(got) != len(f.Agents()) {
		t.Errorf("%s: %d ecn entries, want one per switch port (%d)", what, len(got), len(f.Agents()))
	}
	for _, p := range f.Agents() {
		w, err := p4rt.EncodeECN(want[p])
		if err != nil {
			t.Fatal(err)
		}
		if got[p] != w {
			t.Errorf("%s: port %d holds %+v, want %+v", what, p, got[p], w)
		}
	}
}

// TestTestbedWholeLoop is the testbed end to end on real BMv2: up a small
// Clos, push the pipeline, write and read back ECN settings, send traffic
// and see marks rise when kmin is lowered, run the GraphCC policy live,
// and take everything down.
func TestTestbedWholeLoop(t *testing.T) {
	require(t, lab.DefaultSwitchBinary, lab.DefaultCLIBinary)
	privtest.Runs(t, lab.DefaultCLIBinary, "p4lang/behavioral-model", "--help")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	dir := t.TempDir()
	info, jsonPath, devcfg := compileP4(t, dir)

	c := topo.DefaultClos()
	c.Leaves, c.Spines, c.HostsPerLeaf = 2, 2, 2
	f, err := topo.Clos(c)
	if err != nil {
		t.Fatal(err)
	}
	labName := fmt.Sprintf("it%d", os.Getpid()%100000)
	plan, err := lab.NewPlan(labName, f)
	if err != nil {
		t.Fatal(err)
	}
	labDir := filepath.Join(dir, "lab")
	t.Cleanup(func() {
		if err := lab.Down(context.Background(), labName, labDir); err != nil {
			t.Errorf("down: %v", err)
		}
		left, _ := filepath.Glob("/run/netns/" + labName + "-*")
		if len(left) > 0 {
			t.Errorf("namespaces left after down: %v", left)
		}
	})
	const scale = 2000
	start := time.Now()
	l, err := lab.Up(ctx, lab.Config{Plan: plan, Dir: labDir, PipelineJSON: jsonPath, Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("up of %d switches and %d hosts in %v", len(plan.Switches), len(plan.Hosts), time.Since(start))
	var sws []*p4rt.Switch
	for i, sp := range plan.Switches {
		s, err := p4rt.Dial(ctx, sp.Name, lab.GRPCAddr, sp.DeviceID, 1, grpc.WithContextDialer(l.Dialer(i)))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sws = append(sws, s)
	}
	rt, err := p4rt.NewFabric(plan, info, sws)
	if err != nil {
		t.Fatal(err)
	}
	depth, err := l.State().QueueDepths(len(f.Ports))
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.SetQueueDepths(depth); err != nil { // as testbed run reads
		t.Fatal(err)
	}
	static := control.StaticSettings(f)
	program := func(ecn []control.ECN) {
		t.Helper()
		if err := rt.Program(ctx, devcfg, ecn); err != nil {
			t.Fatal(err)
		}
		if err := l.SetQueues(ctx); err != nil {
			t.Fatal(err)
		}
	}
	program(static)
	checkECN(t, "after up", ecnTable(t, ctx, plan, info, sws), f, static)

	low := policy.ScaledECN(f, control.ECN{KMin: 2 * control.KB, KMax: 16 * control.KB, PMax: 1})
	if n, err := rt.SetECN(ctx, low); err != nil || n != len(f.Agents()) {
		t.Fatalf("SetECN wrote %d entries, err %v; want %d", n, err, len(f.Agents()))
	}
	checkECN(t, "after a MODIFY", ecnTable(t, ctx, plan, info, sws), f, low)

	// A 3:1 incast of 400 KB per sender: with Alibaba's thresholds the
	// receiver's queue hardly reaches kmin; with kmin 2 KB it marks.
	hosts := f.Hosts()
	var incast []trace.Flow
	for i, src := range hosts[1:] {
		incast = append(incast, trace.Flow{Src: src, Dst: hosts[0], PG: trace.DefaultPG, DPort: trace.DPortIncast,
			Size: 400_000, Start: 2*topo.Second + int64(i)*topo.Microsecond})
	}
	marks := map[string]int64{}
	for _, run := range []struct {
		name string
		ecn  []control.ECN
	}{{"static", static}, {"kmin 2 KB", low}} {
		program(run.ecn)
		res, err := controller.RunWorkload(ctx, controller.WorkloadConfig{
			Plan: plan, Runtime: rt, Static: run.ecn, Flows: incast, Scale: scale,
		})
		if err != nil {
			t.Fatalf("%s: %v", run.name, err)
		}
		s := res.Summary
		t.Logf("%s: %d/%d flows, slowdown mean %.2f, %d CE-marked packets, queue mean %.0f B, %d steps of %.2f ms",
			run.name, s.Completed, s.Flows, s.Slowdown.Mean, s.ECNMarkedPackets, s.QueueFeatureMean, s.ControlSteps, s.StepMsMean)
		if s.Completed != len(incast) {
			t.Errorf("%s: %d of %d flows completed", run.name, s.Completed, len(incast))
		}
		marks[run.name] = s.ECNMarkedPackets
	}
	if marks["kmin 2 KB"] <= marks["static"] || marks["kmin 2 KB"] == 0 {
		t.Errorf("CE marks: %d with static thresholds, %d with kmin 2 KB; want more with the lower kmin", marks["static"], marks["kmin 2 KB"])
	}

	// The GraphCC policy, live, on FB_Hadoop traffic.
	model, err := gnn.EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	g := workload.DefaultGen()
	g.Duration, g.Seed = 2*topo.Millisecond, 7
	g.Incast.FanIn = 3
	flows, err := workload.Generate(f, g)
	if err != nil {
		t.Fatal(err)
	}
	program(static)
	gc, err := gnn.NewGraphCC(model, f, gnn.FeatureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	pol := &startCounter{Policy: gc, f: f}
	res, err := controller.RunWorkload(ctx, controller.WorkloadConfig{
		Plan: plan, Runtime: rt, Policy: pol, Static: static, Flows: flows, Scale: scale,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	t.Logf("graphcc: %d/%d flows, slowdown mean %.2f p99 %.2f, %d steps, step %.2f ms mean (read %.2f, decide %.3f, write %.2f), %d entries written",
		s.Completed, s.Flows, s.Slowdown.Mean, s.Slowdown.P99, s.ControlSteps, s.StepMsMean, s.ReadMsMean, s.DecideMsMean, s.WriteMsMean, s.ECNWrites)
	if s.ControlSteps < 5 || s.ECNWrites == 0 {
		t.Errorf("graphcc ran %d control steps and wrote %d entries", s.ControlSteps, s.ECNWrites)
	}
	if s.Completed < len(flows)*9/10 {
		t.Errorf("graphcc: only %d of %d flows completed", s.Completed, len(flows))
	}
	// Every flow's first packet (BTH PSN 0) leaves its receiver's leaf
	// once, counted by the P4 program's flow_starts (a first packet lost
	// and sent again counts again).
	t.Logf("graphcc: %d flow starts counted on the ports to hosts, %d in all, for %d flows", pol.toHosts, pol.all, len(flows))
	if pol.toHosts < int64(s.Completed*9/10) || pol.all < pol.toHosts || pol.all > pol.enq {
		t.Errorf("flow starts: %d on the ports to hosts, %d in all among %d data packets, for %d completed flows", pol.toHosts, pol.all, pol.enq, s.Completed)
	}
	// The switches hold what the policy last chose (the loop ends on a
	// write, or on a read whose settings it never changed).
	checkECN(t, "after graphcc", ecnTable(t, ctx, plan, info, sws), f, rt.ECN())

	// A switch dies mid-run: the run fails naming it, and every other
	// switch is back on the static settings.
	program(static)
	victim := len(plan.Switches) - 1 // a spine
	pid := l.State().Switches[victim].PID
	go func() {
		time.Sleep(time.Duration(scale) * 300 * time.Microsecond) // 300 µs of fabric time
		syscall.Kill(pid, syscall.SIGKILL)
	}()
	gc, err = gnn.NewGraphCC(model, f, gnn.FeatureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = controller.RunWorkload(ctx, controller.WorkloadConfig{
		Plan: plan, Runtime: rt, Policy: gc, Static: static, Flows: flows, Scale: scale,
	})
	name := plan.Switches[victim].Name
	if err == nil || !strings.Contains(err.Error(), "switch "+name) {
		t.Fatalf("run with %s killed: error %v, want one naming switch %s", name, err, name)
	}
	t.Logf("run with %s killed: %v", name, err)
	alive, others := ecnTable(t, ctx, plan, info, sws[:victim]), map[topo.PortID]p4rt.ECNParams{}
	for p, v := range alive {
		others[p] = v
	}
	for _, pp := range plan.Switches[victim].Ports {
		others[pp.Port], _ = p4rt.EncodeECN(static[pp.Port]) // the dead switch holds nothing to check
	}
	checkECN(t, "after a switch died", others, f, static)
}

// startCounter is a policy that adds up the flow starts of every port's
// telemetry, and those of the switch ports to hosts, before its policy
// decides.
type startCounter struct {
	control.Policy
	f                 *topo.Fabric
	toHosts, all, enq int64
}

func (c *startCounter) Decide(t *control.Telemetry, ecn []control.ECN) {
	for p, s := range t.Ports {
		c.all += s.FlowStarts
		c.enq += s.EnqPackets()
		if pt := c.f.Ports[p]; c.f.Nodes[pt.Src].Switch && !c.f.Nodes[pt.Dst].Switch {
			c.toHosts += s.FlowStarts
		}
	}
	c.Policy.Decide(t, ecn)
}
