// Package workload makes flow traces: flow-size distributions (the public
// CDFs of FB_Hadoop, WebSearch, AliStorage and GoogleRPC are built in, or
// any HPCC-format CDF file) and Generate, HPCC's traffic generator with
// Poisson arrivals at a given load plus periodic N:1 incasts, seeded, also
// of phased traffic (a sequence of phases, each with its own workload,
// load and incasts, each drawn from streams of its own); and OfferedLoad,
// the load a trace offers a fabric. GenSettings are the traffic as a
// person writes it (the CLI's traffic flags), checked into a GenConfig;
// GenConfig.Describe and DescribeTrace put a traffic and a trace into
// words.
package workload
