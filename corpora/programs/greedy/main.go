// Command greedy writes an execution trace in which a few CPU-bound
// goroutines hold their processors for several milliseconds at a time
// while short-lived goroutines wait for a P, and in which the garbage
// collector stops the world while those greedy goroutines are running.
//
// It is the example of the "diagreedy" proposal for go tool trace: the
// spinners' on-processor slices are the longest in the trace, and the sum
// of the GOMAXPROCS longest slices estimates the worst stop-the-world wait.
// Setting GTR_YIELD_EVERY=N makes each spinner call runtime.Gosched every N
// iterations, which splits its work into fine slices: comparing a trace
// made with N=0 (never yield, coarse) and one with a small N (fine) shows
// the effect of the proposal's fix.
//
// Usage: greedy TRACEFILE
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/trace"
	"strconv"
	"sync"
	"sync/atomic"
)

const (
	rounds     = 4       // each round starts a fresh set of spinners
	spinners   = 3       // more spinners than the default GOMAXPROCS=2 of the corpus
	shortLived = 150     // short-lived goroutines started beside the spinners per round
	spinIters  = 4000000 // iterations per spinner: a few ms of pure computation
	shortIters = 2000    // iterations per short-lived goroutine: a few microseconds
)

// sink keeps the results of the loops observable so that the compiler
// cannot discard the work.
var sink uint64

// spin runs iters rounds of xorshift. The inner loop contains no function
// calls, so it never reaches a cooperative preemption point: only the end
// of the loop, an explicit yield or an asynchronous preemption signal takes
// the P away. With every > 0 it yields after each chunk of every iterations.
func spin(seed uint64, iters, every int) uint64 {
	x := seed | 1
	if every <= 0 || every > iters {
		every = iters
	}
	for done := 0; done < iters; done += every {
		n := every
		if iters-done < n {
			n = iters - done
		}
		for i := 0; i < n; i++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
		if done+n < iters {
			runtime.Gosched()
		}
	}
	return x
}

// yieldEvery reads GTR_YIELD_EVERY; 0 (the default) means never yield.
func yieldEvery() int {
	s := os.Getenv("GTR_YIELD_EVERY")
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		fmt.Fprintf(os.Stderr, "greedy: bad GTR_YIELD_EVERY=%q: want a non-negative integer\n", s)
		os.Exit(2)
	}
	return n
}

// round starts a set of spinners and a crowd of short-lived goroutines,
// forces a collection while the spinners run, and waits for all of them.
func round(r, every int) {
	var wg sync.WaitGroup
	// started is closed by the first spinner to run.
	started := make(chan struct{})
	var once sync.Once

	for i := 0; i < spinners; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			once.Do(func() { close(started) })
			atomic.AddUint64(&sink, spin(uint64(r*spinners+id+1), spinIters, every))
		}(i)
	}

	// The short-lived goroutines queue up behind the spinners: the time
	// they spend runnable is the latency that greedy goroutines cause.
	for i := 0; i < shortLived; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			atomic.AddUint64(&sink, spin(uint64(1000+id), shortIters, 0))
		}(i)
	}

	// Wait until a spinner is on a processor, then force a collection:
	// its stop-the-world phases must wait for the spinners to give up
	// their Ps (by asynchronous preemption, or, with it turned off, by
	// finishing their loops). Blocking on a channel rather than polling
	// keeps the main goroutine from adding slices of its own.
	<-started
	runtime.GC()
	wg.Wait()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: greedy TRACEFILE")
		os.Exit(2)
	}
	every := yieldEvery()

	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "greedy:", err)
		os.Exit(1)
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "greedy:", err)
		os.Exit(1)
	}

	for r := 0; r < rounds; r++ {
		round(r, every)
	}

	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "greedy:", err)
		os.Exit(1)
	}
}
