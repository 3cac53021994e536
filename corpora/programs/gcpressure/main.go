// Command gcpressure writes an execution trace dominated by the garbage
// collector: goroutines allocate quickly and keep part of what they
// allocate alive, so the heap reaches its goal again and again and the
// collector runs several cycles, some of them forced with runtime.GC.
//
// While a cycle is marking, a goroutine that allocates faster than the
// background workers can mark is made to help (a mark assist), so the
// trace shows assists, GC worker goroutines on the processors, the
// stop-the-world phases at the start and end of each cycle, and the heap
// size and goal moving.
//
// Usage: gcpressure TRACEFILE
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/trace"
	"strconv"
	"sync"
)

const (
	allocators = 4       // allocating goroutines
	allocs     = 1200    // allocations per goroutine and phase
	retained   = 256     // live objects kept by each goroutine
	objectSize = 4 << 10 // bytes per allocation
	phases     = 3       // allocation phases, each followed by a forced GC
)

// sink keeps the results observable, so that the allocations cannot be
// optimised away.
var sink int

// node is a small pointer-rich object, so that marking has pointers to
// follow and not just flat byte slices to skip.
type node struct {
	next    *node
	payload []byte
}

// allocate builds short linked lists of nodes and keeps only a ring of
// recent ones alive: most allocations become garbage at once, but the
// retained ring keeps the live heap, and so the work of each mark phase,
// from being trivial.
func allocate(seed int) int {
	ring := make([]*node, retained)
	sum := 0
	for i := 0; i < allocs; i++ {
		n := &node{payload: make([]byte, objectSize)}
		n.payload[0] = byte(seed + i)
		if prev := ring[(i+retained-1)%retained]; prev != nil && i%4 != 0 {
			n.next = prev
		}
		ring[i%retained] = n
		sum += int(n.payload[0])
	}
	return sum
}

// phase runs the allocators concurrently: their allocation, not
// runtime.GC, triggers the collections during a phase, so the mutators
// are running while the collector marks and some of them are made to
// assist.
func phase(p int) {
	var wg sync.WaitGroup
	results := make([]int, allocators)
	for i := 0; i < allocators; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = allocate(p*allocators + i)
		}(i)
	}
	wg.Wait()
	for _, r := range results {
		sink += r
	}
}

// repeat is GTR_REPEAT (default 1): how many times the whole workload
// runs, for runs long enough to be measured on a busy machine.
func repeat() int {
	s := os.Getenv("GTR_REPEAT")
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "gcpressure: bad GTR_REPEAT=%q: want a positive integer\n", s)
		os.Exit(2)
	}
	return n
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gcpressure TRACEFILE")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gcpressure:", err)
		os.Exit(1)
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "gcpressure:", err)
		os.Exit(1)
	}

	for r := repeat(); r > 0; r-- {
		for p := 0; p < phases; p++ {
			phase(p)
			// A forced collection between phases, when the allocators
			// have finished: runtime.GC also sweeps the whole heap
			// before it returns.
			runtime.GC()
		}
	}

	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "gcpressure:", err)
		os.Exit(1)
	}
}
