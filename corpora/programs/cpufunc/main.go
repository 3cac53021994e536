// Command cpufunc writes an execution trace of a small pipeline whose
// stages are goroutines with their own start functions: a producer, two
// checksum workers (pure computation) and two encode workers (computation
// and allocation), joined by buffered channels.
//
// GTR_SLOW_FACTOR=K (default 1) makes checksumWorker do K times the work
// for each item: the same program with one function K times slower, the
// regression a CI gate should catch.
//
// Usage: cpufunc TRACEFILE
package main

import (
	"fmt"
	"os"
	"runtime/trace"
	"strconv"
	"sync"
	"sync/atomic"
)

const (
	items        = 12000 // items through the pipeline
	checksumWork = 4000  // rounds of checksum work per item
	encodeWork   = 16000 // rounds of encode work per item
)

var sink uint64

func slowFactor() int {
	s := os.Getenv("GTR_SLOW_FACTOR")
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "cpufunc: bad GTR_SLOW_FACTOR=%q: want a positive integer\n", s)
		os.Exit(2)
	}
	return n
}

// mix is a few rounds of xorshift over x.
func mix(x uint64, rounds int) uint64 {
	for i := 0; i < rounds; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func producer(out chan<- uint64) {
	for i := 0; i < items; i++ {
		out <- uint64(i)*0x9e3779b97f4a7c15 | 1
	}
	close(out)
}

func checksumWorker(in <-chan uint64, out chan<- uint64, factor int, wg *sync.WaitGroup) {
	defer wg.Done()
	for x := range in {
		out <- mix(x, checksumWork*factor)
	}
}

func encodeWorker(in <-chan uint64, wg *sync.WaitGroup) {
	defer wg.Done()
	for x := range in {
		buf := make([]byte, 0, 256)
		for i := 0; i < encodeWork; i++ {
			x = mix(x, 1)
			if len(buf) == cap(buf) {
				buf = buf[:0]
			}
			buf = append(buf, byte(x))
		}
		atomic.AddUint64(&sink, x+uint64(len(buf)))
	}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cpufunc TRACEFILE")
		os.Exit(2)
	}
	factor := slowFactor()
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "cpufunc:", err)
		os.Exit(1)
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "cpufunc:", err)
		os.Exit(1)
	}
	raw := make(chan uint64, 16)
	sums := make(chan uint64, 16)
	var cw, ew sync.WaitGroup
	go producer(raw)
	for i := 0; i < 2; i++ {
		cw.Add(1)
		go checksumWorker(raw, sums, factor, &cw)
	}
	for i := 0; i < 2; i++ {
		ew.Add(1)
		go encodeWorker(sums, &ew)
	}
	cw.Wait()
	close(sums)
	ew.Wait()
	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "cpufunc:", err)
		os.Exit(1)
	}
}
