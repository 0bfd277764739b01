package metrics

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
)

// AgentStats are the counts of a run whose GraphCC step ran as one agent
// per switch exchanging messages as packets (sim --agents per-switch,
// docs/agents.md). A Summary carries them only then, flattened into its
// JSON keys; the testbed's summary uses the same names where they mean
// the same (agents, agent_messages, agent_message_bytes,
// decision_mismatches, late_messages).
type AgentStats struct {
	Agents   string `json:"agents"`         // "per-switch"
	Switches int    `json:"agent_switches"` // agents: one per switch
	Steps    int64  `json:"agent_steps"`    // control steps the agents began
	// Messages and MessageBytes are the messages the agents sent and their
	// bytes on the wire (agentmsg frames: Ethernet and message headers and
	// the vector).
	Messages     int64 `json:"agent_messages"`
	MessageBytes int64 `json:"agent_message_bytes"`
	// Lost are messages dropped by the simulator's seeded message loss,
	// or with a link that failed (replay.Config.LinkEvents).
	Lost int64 `json:"agent_messages_lost"`
	// LateMessages are messages a round went without: lost, or not in by
	// the round's deadline (each replaced by its port's last message,
	// gnn.Agent.RoundFallback). FallbackRounds are the agent-rounds
	// computed with at least one of them.
	LateMessages   int64 `json:"late_messages"`
	FallbackRounds int64 `json:"agent_fallback_rounds"`
	// StaticSteps are agent-steps in which an agent put its own ports at
	// the static settings, after too many consecutive steps with a message
	// missing.
	StaticSteps int64 `json:"agent_static_steps"`
	// FallbackPortSteps are the agent port-steps held on the static
	// settings (the ports of the StaticSteps).
	FallbackPortSteps int64 `json:"fallback_port_steps"`
	// DecisionMismatches are the agent port-steps whose model's choice
	// differs from the central policy's on the same telemetry (a shadow
	// computation), whatever the agent applied: a port held on the
	// static settings counts in FallbackPortSteps, and here only if its
	// model's choice differs.
	DecisionMismatches int64 `json:"decision_mismatches"`
	// HostDecisionMismatches, with a model with a host head (nil
	// otherwise), are the host-steps whose committed DCQCN constants
	// differ from the central policy's.
	HostDecisionMismatches *int64 `json:"host_decision_mismatches,omitempty"`
	// RoundUSMean and RoundUSP99 are the agent-rounds' latency, µs of
	// fabric time: from the round's start at the agent (the step's tick,
	// or when it computed the previous round) to when it computed it.
	RoundUSMean float64 `json:"agent_round_us_mean"`
	RoundUSP99  float64 `json:"agent_round_us_p99"`
	// DecisionUSMean and DecisionUSP99 are the steps' decision delay, µs
	// of fabric time: from the tick to when the last agent's settings were
	// in force.
	DecisionUSMean float64 `json:"agent_decision_us_mean"`
	DecisionUSP99  float64 `json:"agent_decision_us_p99"`
}

// writeTable writes a's counts as key-value lines.
func (a *AgentStats) writeTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	kv := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	kv("agents", fmt.Sprintf("%s (%d switches, %d steps)", a.Agents, a.Switches, a.Steps))
	kv("agent messages", fmt.Sprintf("%d (%d bytes, %d lost)", a.Messages, a.MessageBytes, a.Lost))
	kv("late messages", fmt.Sprintf("%d (%d fallback rounds, %d static agent-steps)", a.LateMessages, a.FallbackRounds, a.StaticSteps))
	kv("decision mismatches", i(a.DecisionMismatches))
	if a.HostDecisionMismatches != nil {
		kv("host decision mismatches", i(*a.HostDecisionMismatches))
	}
	kv("agent round (µs)", fmt.Sprintf("mean %s, p99 %s", ff(a.RoundUSMean), ff(a.RoundUSP99)))
	kv("decision delay (µs)", fmt.Sprintf("mean %s, p99 %s", ff(a.DecisionUSMean), ff(a.DecisionUSP99)))
	return tw.Flush()
}
