// Command views prints what Go's own trace reader (internal/trace) makes
// of a trace's tasks, regions and mutator utilization, in lines that
// tests/viewstest.sh compares with gtr's. It imports internal/trace, so it
// is built inside a toolchain's source tree (tests/oracle/build.sh puts it
// there with an overlay; nothing in the toolchain is written).
//
//	views tasks TRACE           task ID PARENT START END NAME / log ...
//	views regions TRACE         region G TASK START END ENDKIND NAME
//	views mmu TRACE FLAGS W...  mmu W VALUE, one line per window (ns)
//	views goroutines TRACE      g ID EXEC SCHED BLOCK SYSCALL CREATED ENDED
//
// Times are ns since the trace's first event; -1 stands for a time the
// trace does not have (a task begun before the trace started). FLAGS is a
// comma-separated subset of stw, background, assist, sweep, perproc.
package main

import (
	"bufio"
	"fmt"
	"internal/trace"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "views: "+format+"\n", args...)
	os.Exit(1)
}

func readAll(path string) []trace.Event {
	f, err := os.Open(path)
	if err != nil {
		die("%v", err)
	}
	defer f.Close()
	r, err := trace.NewReader(bufio.NewReader(f))
	if err != nil {
		die("%s: %v", path, err)
	}
	var evs []trace.Event
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			die("%s: %v", path, err)
		}
		evs = append(evs, ev)
	}
	if len(evs) == 0 {
		die("%s: no events", path)
	}
	return evs
}

func summarize(evs []trace.Event) *trace.Summary {
	s := trace.NewSummarizer()
	for i := range evs {
		s.Event(&evs[i])
	}
	return s.Finalize()
}

// rel is an event's time since the first event, or -1 for none.
func rel(ev *trace.Event, t0 trace.Time) int64 {
	if ev == nil {
		return -1
	}
	return int64(ev.Time() - t0)
}

func quote(s string) string { return strconv.Quote(s) }

func tasks(evs []trace.Event, w *bufio.Writer) {
	t0 := evs[0].Time()
	sum := summarize(evs)
	ids := make([]uint64, 0, len(sum.Tasks))
	for id := range sum.Tasks {
		ids = append(ids, uint64(id))
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		t := sum.Tasks[trace.TaskID(id)]
		if t.ID == trace.BackgroundTask {
			continue
		}
		parent := int64(-1)
		if t.Parent != nil {
			parent = int64(t.Parent.ID)
		}
		fmt.Fprintf(w, "task %d %d %d %d %s\n", id, parent, rel(t.Start, t0), rel(t.End, t0), quote(t.Name))
		for _, l := range t.Logs {
			lg := l.Log()
			fmt.Fprintf(w, "log %d %d %d %s %s\n", id, rel(l, t0), l.Goroutine(), quote(lg.Category), quote(lg.Message))
		}
	}
	if bg := sum.Tasks[trace.BackgroundTask]; bg != nil {
		for _, l := range bg.Logs {
			lg := l.Log()
			fmt.Fprintf(w, "log 0 %d %d %s %s\n", rel(l, t0), l.Goroutine(), quote(lg.Category), quote(lg.Message))
		}
	}
}

func regions(evs []trace.Event, w *bufio.Writer) {
	t0 := evs[0].Time()
	sum := summarize(evs)
	var lines []string
	for id, g := range sum.Goroutines {
		for _, r := range g.Regions {
			// Regions a goroutine inherits from its creator are not
			// user regions: their start is the creation, not a RegionBegin.
			if r.Start != nil && r.Start.Kind() != trace.EventRegionBegin {
				continue
			}
			end := "none"
			if r.End != nil {
				end = r.End.Kind().String()
			}
			lines = append(lines, fmt.Sprintf("region %d %d %d %d %s %s", id, uint64(r.TaskID),
				rel(r.Start, t0), rel(r.End, t0), end, quote(r.Name)))
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// oneRunPerLabel gives each run of a goroutine that is ever labelled a
// GC worker an id of its own. Go 1.22 and later (MutatorUtilizationV2)
// remember that a goroutine was a background mark worker for ever: from
// its second labelled run on, each run adds one more P "in GC" that is
// never taken back, and utilization sinks to zero for the rest of the
// trace. Go's v1 analysis (and gtr) let a label count for the run it was
// given in; with one id per run, Go's own code computes exactly that.
func oneRunPerLabel(evs []trace.Event) []trace.Event {
	workers := make(map[trace.GoID]bool)
	for i := range evs {
		if evs[i].Kind() == trace.EventLabel && strings.HasPrefix(evs[i].Label().Label, "GC ") {
			workers[evs[i].Goroutine()] = true
		}
	}
	runs := make(map[trace.GoID]int64)
	alias := func(g trace.GoID) trace.GoID { return g + trace.GoID(runs[g]<<40) }
	out := make([]trace.Event, 0, len(evs))
	for i := range evs {
		ev := evs[i]
		switch ev.Kind() {
		case trace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != trace.ResourceGoroutine || !workers[st.Resource.Goroutine()] {
				break
			}
			g := st.Resource.Goroutine()
			from, to := st.Goroutine()
			if !from.Executing() && to.Executing() {
				runs[g]++
			}
			nt := trace.MakeGoStateTransition(alias(g), from, to)
			nt.Reason = st.Reason
			ne, err := trace.MakeEvent(trace.EventConfig[trace.StateTransition]{
				Kind: trace.EventStateTransition, Time: ev.Time(), Goroutine: alias(g),
				Proc: ev.Proc(), Thread: ev.Thread(), Details: nt})
			if err != nil {
				die("rewriting %v: %v", ev, err)
			}
			ev = ne
		case trace.EventLabel:
			g := ev.Goroutine()
			if !workers[g] {
				break
			}
			ne, err := trace.MakeEvent(trace.EventConfig[trace.Label]{
				Kind: trace.EventLabel, Time: ev.Time(), Goroutine: alias(g),
				Proc: ev.Proc(), Thread: ev.Thread(),
				Details: trace.Label{Label: ev.Label().Label, Resource: trace.MakeResourceID(alias(g))}})
			if err != nil {
				die("rewriting %v: %v", ev, err)
			}
			ev = ne
		}
		out = append(out, ev)
	}
	return out
}

// goroutines prints Go's summary of every goroutine: its time running,
// runnable, waiting (all reasons) and in system calls, when it was
// created (or found at a sync) and when it ended (-1: it did not).
func goroutines(evs []trace.Event, w *bufio.Writer) {
	t0 := evs[0].Time()
	sum := summarize(evs)
	ids := make([]int64, 0, len(sum.Goroutines))
	for id := range sum.Goroutines {
		ids = append(ids, int64(id))
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		g := sum.Goroutines[trace.GoID(id)]
		var block time.Duration
		for _, d := range g.BlockTimeByReason {
			block += d
		}
		end := int64(-1)
		if g.EndTime != 0 {
			end = int64(g.EndTime - t0)
		}
		fmt.Fprintf(w, "g %d %d %d %d %d %d %d\n", id, int64(g.ExecTime), int64(g.SchedWaitTime), int64(block),
			int64(g.SyscallTime+g.SyscallBlockTime), int64(g.CreationTime-t0), end)
	}
}

func mmu(evs []trace.Event, flagList string, windows []string, w *bufio.Writer) {
	var flags trace.UtilFlags
	for _, f := range strings.Split(flagList, ",") {
		switch f {
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
			die("unknown flag %q", f)
		}
	}
	if flags&trace.UtilBackground != 0 {
		evs = oneRunPerLabel(evs)
	}
	util := trace.MutatorUtilizationV2(evs, flags)
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
		t0 := int64(evs[0].Time())
		for i, u := range util {
			for _, p := range u {
				fmt.Fprintf(w, "util %d %d %.6f\n", i, p.Time-t0, p.Util)
			}
		}
	}
	curve := trace.NewMMUCurve(util)
	for _, ws := range windows {
		win, err := strconv.ParseInt(ws, 10, 64)
		if err != nil {
			die("window %q: %v", ws, err)
		}
		fmt.Fprintf(w, "mmu %d %.9f\n", win, curve.MMU(time.Duration(win)))
	}
}

func main() {
	if len(os.Args) < 3 {
		die("usage: views tasks|regions|mmu TRACE [FLAGS WINDOW...]")
	}
	evs := readAll(os.Args[2])
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	switch os.Args[1] {
	case "tasks":
		tasks(evs, w)
	case "regions":
		regions(evs, w)
	case "goroutines":
		goroutines(evs, w)
	case "mmu":
		if len(os.Args) < 4 {
			die("mmu needs FLAGS")
		}
		mmu(evs, os.Args[3], os.Args[4:], w)
	default:
		die("unknown mode %q", os.Args[1])
	}
}
