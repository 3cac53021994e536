// Command stwpause writes an execution trace of goroutines that allocate
// and compute while the main goroutine reads the memory statistics now and
// then (each read stops the world for a moment).
//
// GTR_HEAP_DUMP=1 adds one runtime/debug.WriteHeapDump of a heap of a
// few MB to /dev/null: the runtime stops the world for the whole dump,
// a long pause of the kind a CI gate should catch.
//
// Usage: stwpause TRACEFILE
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/trace"
	"sync"
	"sync/atomic"
)

const (
	workers  = 3
	rounds   = 3
	keepObjs = 2048 // objects each worker keeps alive (a ring)
	objSize  = 4096
	reads    = 8 // ReadMemStats calls by main
)

var (
	sink uint64
	// ballast keeps the heap big enough that a dump takes a while.
	ballast [][]byte
)

func worker(id int, wg *sync.WaitGroup) {
	defer wg.Done()
	ring := make([][]byte, keepObjs)
	x := uint64(id + 1)
	for r := 0; r < rounds; r++ {
		for i := range ring {
			b := make([]byte, objSize)
			b[0] = byte(x)
			ring[i] = b
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	atomic.AddUint64(&sink, x+uint64(len(ring)))
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: stwpause TRACEFILE")
		os.Exit(2)
	}
	dump := os.Getenv("GTR_HEAP_DUMP") == "1"
	for i := 0; i < 4000; i++ {
		ballast = append(ballast, make([]byte, 1024))
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "stwpause:", err)
		os.Exit(1)
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "stwpause:", err)
		os.Exit(1)
	}
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go worker(i, &wg)
	}
	var ms runtime.MemStats
	for i := 0; i < reads; i++ {
		runtime.ReadMemStats(&ms)
		atomic.AddUint64(&sink, ms.HeapAlloc)
		if dump && i == reads/2 {
			null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				fmt.Fprintln(os.Stderr, "stwpause:", err)
				os.Exit(1)
			}
			debug.WriteHeapDump(null.Fd())
			null.Close()
		}
		runtime.Gosched()
	}
	wg.Wait()
	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "stwpause:", err)
		os.Exit(1)
	}
	runtime.KeepAlive(ballast)
}
