package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Stand-ins for BMv2, so the lab's process management runs without it:
// the test binary, run through symlinks named simple_switch_grpc and
// simple_switch_CLI with GRAPHCC_FAKE_BMV2=<dir> set, acts as them.
//
// The switch checks its command line and that its interfaces exist (so it
// runs inside its namespace), writes <dir>/switch-<device id>.json, and
// listens on its gRPC address and Thrift port until SIGTERM.
// GRAPHCC_FAKE_BMV2_FAIL=<device id> makes that switch exit at once;
// GRAPHCC_FAKE_BMV2_IGNORE_TERM=1 makes every switch ignore SIGTERM;
// GRAPHCC_FAKE_BMV2_NO_THRIFT=1 makes it serve gRPC only, as a
// simple_switch_grpc built without Thrift does.
//
// The CLI checks its arguments and the --json file, connects to the Thrift
// port and writes its stdin to <dir>/cli-<netns inode>.txt;
// GRAPHCC_FAKE_CLI_ERROR=1 makes it print a BMv2-style error.

const fakeEnv = "GRAPHCC_FAKE_BMV2"

func init() {
	dir := os.Getenv(fakeEnv)
	if dir == "" {
		return
	}
	switch filepath.Base(os.Args[0]) {
	case DefaultSwitchBinary:
		os.Exit(fakeSwitch(dir, os.Args[1:]))
	case DefaultCLIBinary:
		os.Exit(fakeCLI(dir, os.Args[1:]))
	}
}

// fakeRecord is what the fake switch writes about itself.
type fakeRecord struct {
	PID      int      `json:"pid"`
	NetnsIno uint64   `json:"netns_ino"`
	DeviceID uint64   `json:"device_id"`
	Ifaces   []string `json:"ifaces"` // "num@iface"
	Thrift   int      `json:"thrift"`
	GRPC     string   `json:"grpc"`
	NoP4     bool     `json:"no_p4"`
}

func selfNetnsIno() uint64 {
	link, _ := os.Readlink("/proc/self/ns/net")
	var ino uint64
	fmt.Sscanf(link, "net:[%d]", &ino)
	return ino
}

func fakeSwitch(dir string, args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "fake switch: "+format+"\n", a...)
		return 2
	}
	r := fakeRecord{PID: os.Getpid(), NetnsIno: selfNetnsIno()}
	target := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			i++
			if i < len(args) {
				return args[i]
			}
			return ""
		}
		var err error
		switch {
		case a == "--":
			target = true
		case a == "--device-id" && !target:
			r.DeviceID, err = strconv.ParseUint(next(), 10, 64)
		case a == "-i" && !target:
			v := next()
			num, iface, ok := strings.Cut(v, "@")
			if _, perr := strconv.Atoi(num); !ok || perr != nil {
				return fail("bad -i %q", v)
			}
			if _, err := net.InterfaceByName(iface); err != nil {
				return fail("interface %s: %v", iface, err)
			}
			r.Ifaces = append(r.Ifaces, v)
		case a == "--thrift-port" && !target:
			r.Thrift, err = strconv.Atoi(next())
		case a == "--no-p4" && !target:
			r.NoP4 = true
		case a == "--grpc-server-addr" && target:
			r.GRPC = next()
		case (a == "--priority-queues" || a == "--cpu-port") && target:
			_, err = strconv.Atoi(next())
		default:
			return fail("unexpected argument %q", a)
		}
		if err != nil {
			return fail("%s: %v", a, err)
		}
	}
	if r.GRPC == "" || r.Thrift == 0 || r.DeviceID == 0 {
		return fail("missing --grpc-server-addr, --thrift-port or --device-id")
	}
	if os.Getenv("GRAPHCC_FAKE_BMV2_FAIL") == strconv.FormatUint(r.DeviceID, 10) {
		fmt.Fprintln(os.Stderr, "fake switch: failing as asked")
		return 3
	}
	if os.Getenv("GRAPHCC_FAKE_BMV2_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	b, _ := json.Marshal(r)
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("switch-%d.json", r.DeviceID)), b, 0o644); err != nil {
		return fail("%v", err)
	}
	addrs := []string{r.GRPC, net.JoinHostPort("127.0.0.1", strconv.Itoa(r.Thrift))}
	if os.Getenv("GRAPHCC_FAKE_BMV2_NO_THRIFT") == "1" {
		addrs = addrs[:1]
	}
	for _, addr := range addrs {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fail("%v", err)
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	select {}
}

func fakeCLI(dir string, args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "fake CLI: "+format+"\n", a...)
		return 2
	}
	port := ""
	for i := 0; i+1 < len(args); i += 2 {
		switch args[i] {
		case "--thrift-port":
			port = args[i+1]
		case "--json":
			b, err := os.ReadFile(args[i+1])
			if err != nil || !json.Valid(b) {
				return fail("--json %s: unreadable or not JSON (%v)", args[i+1], err)
			}
		default:
			return fail("unexpected argument %q", args[i])
		}
	}
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		fmt.Printf("Could not connect to thrift client on port %s\n", port)
		return 1
	}
	c.Close()
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		return fail("%v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("cli-%d.txt", selfNetnsIno())), in, 0o644); err != nil {
		return fail("%v", err)
	}
	fmt.Println("Obtaining JSON from switch...\nDone\nControl utility for runtime P4 table manipulation")
	if os.Getenv("GRAPHCC_FAKE_CLI_ERROR") == "1" {
		fmt.Println("RuntimeCmd: Error: Invalid egress port")
	}
	return 0
}

// fakeBMv2 puts the stand-ins on PATH for t and returns the directory they
// write their records to.
func fakeBMv2(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, name := range []string{DefaultSwitchBinary, DefaultCLIBinary} {
		if err := os.Symlink(exe, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	rec := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(fakeEnv, rec)
	return rec
}

// readFakeRecord reads the record of the fake switch with device id.
func readFakeRecord(t *testing.T, dir string, id uint64) fakeRecord {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("switch-%d.json", id)))
	if err != nil {
		t.Fatal(err)
	}
	var r fakeRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
