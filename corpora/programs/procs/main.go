// Command procs writes an execution trace during which GOMAXPROCS changes:
// the program runs the same batch of work with 1, 2 and 4 processors and
// then restores the value it started with.
//
// Each runtime.GOMAXPROCS call stops the world, so the trace records a
// stop-the-world phase for each change; processors appear or are
// retired, and the goroutines that ran on a retired P move to the
// remaining ones. An analysis that reasons per processor (or estimates a
// stop-the-world wait from GOMAXPROCS) must follow the count as it
// changes rather than read it once at the start.
//
// Usage: procs TRACEFILE
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/trace"
	"sync"
)

const (
	workers = 8     // goroutines per batch: more than the largest P count
	chunks  = 25    // results each worker sends to the collector
	iters   = 20000 // iterations per chunk: tens of microseconds
)

// sink keeps the results of the work observable.
var (
	sinkMu sync.Mutex
	sink   uint64
)

// batch runs workers that compute in chunks and hand each partial result
// to a collector over an unbuffered channel, so that each P count sees
// both CPU work and goroutines blocking and waking each other.
func batch(seed uint64) {
	results := make(chan uint64)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(id uint64) {
			defer wg.Done()
			x := seed*workers + id + 1
			for c := 0; c < chunks; c++ {
				for n := 0; n < iters; n++ {
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
				}
				results <- x
			}
		}(uint64(i))
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	var sum uint64
	for r := range results {
		sum += r
	}
	sinkMu.Lock()
	sink += sum
	sinkMu.Unlock()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: procs TRACEFILE")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "procs:", err)
		os.Exit(1)
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "procs:", err)
		os.Exit(1)
	}

	// runtime.GOMAXPROCS(0) reads the setting without changing it.
	initial := runtime.GOMAXPROCS(0)
	batch(0)
	for i, n := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(n)
		batch(uint64(i + 1))
	}
	runtime.GOMAXPROCS(initial)
	batch(4)

	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "procs:", err)
		os.Exit(1)
	}
}
