package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Fabric names the fabrics that write a summary: the simulator (package
// replay, Summary) and the testbed (package controller, whose
// TestbedSummary embeds Summary). As a set (Simulator|Testbed) it says
// which of them measure a key (SummaryKey.Fabrics).
type Fabric uint8

// The fabrics.
const (
	Simulator Fabric = 1 << iota // the packet simulator: sim, eval, tune, train
	Testbed                      // the BMv2 testbed: testbed run
	Both      = Simulator | Testbed
)

// String names f as the docs do: "simulator", "testbed" or "both".
func (f Fabric) String() string {
	switch f {
	case Simulator:
		return "simulator"
	case Testbed:
		return "testbed"
	case Both:
		return "both"
	}
	return fmt.Sprintf("Fabric(%d)", uint8(f))
}

// SummaryKey is one key of a run's summary JSON: its name, the fabrics that
// measure it, and what it means, the same on every fabric that writes it.
// A fabric not in Fabrics does not measure the key and leaves it out of
// its summary (OmitUnmeasured), never writing 0 for it.
type SummaryKey struct {
	Name    string
	Fabrics Fabric
	Meaning string
}

// Measures reports whether f measures the summary key name: false for a
// key SummaryKeys does not name.
func (f Fabric) Measures(name string) bool {
	for _, k := range SummaryKeys() {
		if k.Name == name {
			return k.Fabrics&f != 0
		}
	}
	return false
}

// SummaryKeys is the one definition of every summary key, in the order the
// simulator's summary writes them, then the testbed's own: Summary and
// AgentStats on the simulator, controller.TestbedSummary on the testbed.
// Both fabrics divide the telemetry by the nominal control interval; a
// key's meaning holds on every fabric in its Fabrics.
func SummaryKeys() []SummaryKey {
	return append(append(summaryKeys(), agentKeys()...), testbedKeys()...)
}

// summaryKeys are Summary's own keys.
func summaryKeys() []SummaryKey {
	return []SummaryKey{
		{"flows", Both, "flows in the trace"},
		{"completed", Both, "flows that finished (the slowdowns and the throughput are over these)"},
		{"slowdown", Both, "FCT slowdown (FCT over the flow's standalone FCT) of all completed flows: count, mean, p50, p95, p99 (sorted[int(n·q)])"},
		{"slowdown_by_size", Both, "the same per flow-size bin (max_bytes: ≤10 KB, 10–100 KB, 100 KB–1 MB, >1 MB as null)"},
		{"slowdown_incast", Both, "the same over incast flows (dport 200)"},
		{"slowdown_background", Both, "the same over every other flow"},
		{"throughput_gbps_mean", Both, "mean over completed flows of size·8/FCT, Gbps"},
		{"queue_bytes_mean", Simulator, "instantaneous queue: bytes queued at every switch egress port at every control instant of the queue span, mean (BMv2 cannot report it)"},
		{"queue_bytes_p99", Simulator, "the same, p99"},
		{"queue_seconds", Both, "the queue span: the fabric time the control steps sampled for the queue figures span (the arrival window of generated traffic, else the run)"},
		{"queue_feature_bytes_mean", Both, "queue feature (control.PortSample.QueueFeature: the mean depth data packets met at enqueue over an interval, what the policies see) of every switch egress port at every control step of the queue span, mean"},
		{"queue_feature_bytes_p99", Both, "the same, p99"},
		{"pfc_pauses", Simulator, "PAUSE frames the switches sent (BMv2 has no PFC)"},
		{"ecn_marked_packets", Both, "CE-marked data packets (the simulator counts them at the switches, the testbed at the receiving hosts: the same packets unless one is dropped after its mark)"},
		{"drops", Simulator, "packets dropped at switch admission or on a failed link (the testbed cannot count them)"},
		{"events", Simulator, "simulator events processed (the testbed's control steps are control_steps)"},
		{"sim_seconds", Both, "fabric time from the first flow's start to the run's end, s"},
		{"wall_seconds", Both, "real time the run took, s"},
		{"peak_rss_bytes", Both, "peak resident set size of the process that ran it"},
		{"ecn_settings", Both, "with a control policy: every ECN setting the policy put in force (thresholds per 25 Gbps) and the agent port-steps it held, most used first"},
		{"slowdown_by_phase", Simulator, "on a phased scenario only: the slowdowns of the flows by the phase they start in"},
	}
}

// agentKeys are AgentStats' keys, and the testbed's keys of the same
// names.
func agentKeys() []SummaryKey {
	return []SummaryKey{
		{"agents", Both, "how a GraphCC step ran: per-switch (and on the testbed central); the agent keys follow only with per-switch agents"},
		{"agent_switches", Simulator, "per-switch agents: agents, one per switch"},
		{"agent_steps", Both, "per-switch agents: control steps the agents began (the simulator), reported (the testbed), over every agent"},
		{"agent_messages", Both, "per-switch agents: in-band messages sent"},
		{"agent_message_bytes", Both, "per-switch agents: their frames' bytes on the wire, Ethernet header on"},
		{"agent_messages_lost", Simulator, "per-switch agents: messages dropped by the seeded message loss or a failed link"},
		{"late_messages", Both, "per-switch agents: messages a round went without (lost, or not in by its deadline)"},
		{"agent_fallback_rounds", Simulator, "per-switch agents: agent-rounds computed with a late message replaced by its last one"},
		{"agent_static_steps", Simulator, "per-switch agents: agent-steps on the static settings after too many steps with a message late"},
		{"fallback_port_steps", Both, "per-switch agents: agent port-steps held on the static settings after too many steps with a message late (control.Fallback)"},
		{"decision_mismatches", Both, "per-switch agents: agent port-steps whose model's choice differs from a shadow central step's on the same telemetry, whatever the agent applied"},
		{"host_decision_mismatches", Both, "per-switch agents with a host-head model: host-steps whose DCQCN constants differ from the shadow's"},
		{"agent_round_us_mean", Simulator, "per-switch agents: agent-round latency, µs of fabric time, mean"},
		{"agent_round_us_p99", Simulator, "the same, p99"},
		{"agent_decision_us_mean", Simulator, "per-switch agents: from the tick to the last agent's settings in force, µs of fabric time, mean"},
		{"agent_decision_us_p99", Simulator, "the same, p99"},
	}
}

// testbedKeys are the keys only controller.TestbedSummary writes.
func testbedKeys() []SummaryKey {
	return []SummaryKey{
		{"scale", Testbed, "real time per fabric time (the lab's scale)"},
		{"control_steps", Testbed, "control steps the loop ran (the simulator counts events instead)"},
		{"control_steps_late", Testbed, "control steps that began more than one real interval after they were due"},
		{"control_interval_measured_us_mean", Testbed, "diagnostic: fabric time between successive counter reads, µs, mean (the policies divide by the nominal interval)"},
		{"control_interval_measured_us_p99", Testbed, "the same, p99"},
		{"control_step_ms_mean", Testbed, "real time of a control step (read, decide, write), ms, mean"},
		{"control_step_ms_p99", Testbed, "the same, p99"},
		{"control_read_ms_mean", Testbed, "real time of a step's counter reads, ms, mean"},
		{"control_decide_ms_mean", Testbed, "real time of a step's decision, ms, mean"},
		{"control_write_ms_mean", Testbed, "real time of a step's writes, ms, mean"},
		{"ecn_entries_written", Testbed, "ECN table entries written"},
		{"incomplete", Testbed, "flows not finished when the run ended"},
		{"retransmitted_bytes", Testbed, "bytes the hosts sent again (go-back-N)"},
		{"switch_sched", Testbed, "the switches' threads' scheduling as the run began (fifo:N, other, mixed)"},
		{"agent_processes", Testbed, "per-switch agents: agent processes started"},
		{"agent_failures", Testbed, "per-switch agents: agents that ended before the run"},
		{"stale_messages", Testbed, "per-switch agents: messages that arrived after their round was computed"},
		{"agent_round_ms_mean", Testbed, "per-switch agents: agent-round latency, ms of real time, mean"},
		{"agent_round_ms_p99", Testbed, "the same, p99"},
		{"agent_round_ms_mean_by_round", Testbed, "the same per round k, mean"},
		{"agent_round_ms_p99_by_round", Testbed, "the same per round k, p99"},
		{"agent_exchange_ms_mean", Testbed, "per-switch agents: a step's K rounds, ms, mean"},
		{"agent_exchange_ms_p99", Testbed, "the same, p99"},
		{"agent_start_late_ms", Testbed, "per-switch agents: how late a step began, ms [mean, p99]"},
		{"agent_read_ms", Testbed, "per-switch agents: an agent's counter read, ms [mean, p99]"},
		{"agent_send_ms", Testbed, "per-switch agents: a message's send call, ms [mean, p99]"},
		{"agent_oneway_ms", Testbed, "per-switch agents: send to the neighbour's client receiving it, ms [mean, p99]"},
		{"agent_handoff_ms", Testbed, "per-switch agents: the neighbour's client to its round taking it, ms [mean, p99]"},
		{"agent_oneway_ms_by_round", Testbed, "agent_oneway_ms per round k"},
		{"agent_host_delay_ms", Testbed, "per-switch agents with a host-head model: a leaf's readout to its hosts' constants in force, ms [mean, p99]"},
		{"agent_host_hop_ms", Testbed, "the same from the report's writing, ms [mean, p99]"},
	}
}

// OmitUnmeasured returns the JSON object b without the keys that
// SummaryKeys says f does not measure, the others in their order and
// unchanged. A key SummaryKeys does not name stays.
func OmitUnmeasured(b []byte, f Fabric) ([]byte, error) {
	skip := make(map[string]bool)
	for _, k := range SummaryKeys() {
		skip[k.Name] = k.Fabrics&f == 0
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("summary json: not an object (%v)", err)
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("summary json: %w", err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("summary json: %w", err)
		}
		key, _ := t.(string)
		if skip[key] {
			continue
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		kb, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		out.Write(kb)
		out.WriteByte(':')
		out.Write(v)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}
