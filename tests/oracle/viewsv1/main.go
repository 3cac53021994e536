// Command viewsv1 prints the mutator utilization of a v1 trace (go 1.5 to
// go 1.21 formats) as Go 1.21's own reader (internal/trace) computes it,
// for tests/viewstest.sh. Newer toolchains read v1 traces only through a
// conversion that loses the first GOMAXPROCS event, so Go 1.21 is the
// reference here. Built inside Go 1.21's source tree by
// tests/oracle/build.sh.
//
//	viewsv1 mmu TRACE FLAGS W...   mmu W VALUE, one line per window (ns)
//
// FLAGS is a comma-separated subset of stw, background, assist, sweep,
// perproc.
package main

import (
	"bufio"
	"fmt"
	"internal/trace"
	"os"
	"strconv"
	"strings"
	"time"
)

func die(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "viewsv1: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 4 || os.Args[1] != "mmu" {
		die("usage: viewsv1 mmu TRACE FLAGS [WINDOW...]")
	}
	f, err := os.Open(os.Args[2])
	if err != nil {
		die("%v", err)
	}
	// Go 1.5 traces need a binary for symbols; utilization needs none.
	res, err := trace.Parse(bufio.NewReader(f), "/bin/true")
	f.Close()
	if err != nil {
		die("%s: %v", os.Args[2], err)
	}
	if r := os.Getenv("VIEWS_EVENTS"); r != "" {
		var from, to int64
		fmt.Sscanf(r, "%d-%d", &from, &to)
		for _, ev := range res.Events {
			if ev.Ts >= from && ev.Ts <= to {
				fmt.Printf("%d P=%d G=%d %s\n", ev.Ts, ev.P, ev.G, trace.EventDescriptions[ev.Type].Name)
			}
		}
	}
	var flags trace.UtilFlags
	for _, fl := range strings.Split(os.Args[3], ",") {
		switch fl {
		case "stw":
			flags |= trace.UtilSTW
		case "background":
			flags |= trace.UtilBackground
		case "assist":
			flags |= trace.UtilAssist
		case "sweep":
			flags |= trace.UtilSweep
		case "perproc":
			flags |= trace.UtilPerProc
		case "":
		default:
			die("unknown flag %q", fl)
		}
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	util := trace.MutatorUtilization(res.Events, flags)
	if len(util) == 0 {
		fmt.Fprintln(w, "mmu none")
		return
	}
	n := 0
	for _, u := range util {
		n += len(u)
	}
	fmt.Fprintf(w, "series %d points %d\n", len(util), n)
	if os.Getenv("VIEWS_UTIL") != "" {
		for i, u := range util {
			for _, p := range u {
				fmt.Fprintf(w, "util %d %d %.6f\n", i, p.Time, p.Util)
			}
		}
	}
	curve := trace.NewMMUCurve(util)
	for _, ws := range os.Args[4:] {
		win, err := strconv.ParseInt(ws, 10, 64)
		if err != nil {
			die("window %q: %v", ws, err)
		}
		fmt.Fprintf(w, "mmu %d %.9f\n", win, curve.MMU(time.Duration(win)))
	}
}
