// Command longwait writes a trace in which the goroutines that hold the
// processors longest last did anything long before: four sleepers are
// created and block on a channel at the start, wait while waves of short
// goroutines churn through the trace (but for a moment halfway), and are
// woken at its end to spin for several milliseconds each. Beside them, a ticker goroutine
// wakes every millisecond for a moment and spins once at the end too (its
// history is recent), and a goroutine created at the very end spins at
// once (its whole history is its creation).
//
// A reader that looks for what happened to a goroutine before one of its
// slices must therefore look back over almost the whole trace for the
// sleepers, and only a little for the others.
//
// Usage: longwait TRACEFILE
package main

import (
	"fmt"
	"os"
	"runtime/trace"
	"sync"
	"time"
)

var (
	sinkMu sync.Mutex
	sink   uint64
)

func keep(v uint64) {
	sinkMu.Lock()
	sink += v
	sinkMu.Unlock()
}

// spin is a tight loop of about d of CPU time, without calls.
func spin(d time.Duration) uint64 {
	x := uint64(88172645463325252)
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		for i := 0; i < 20000; i++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	return x
}

// churn runs waves of short goroutines that hand values over a channel,
// a short pause apart: the waves fill most of the trace's time, and the
// sleepers' last events drift far back.
func churn(waves, perWave int) {
	for w := 0; w < waves; w++ {
		time.Sleep(500 * time.Microsecond)
		var wg sync.WaitGroup
		ch := make(chan int)
		wg.Add(perWave)
		for i := 0; i < perWave; i++ {
			go func(id int) {
				defer wg.Done()
				ch <- id * 3
			}(i)
		}
		sum := 0
		for i := 0; i < perWave; i++ {
			sum += <-ch
		}
		wg.Wait()
		keep(uint64(sum))
	}
}

func run() {
	half := make(chan struct{})
	start := make(chan struct{})
	var done sync.WaitGroup

	// The sleepers: they block now, wake for a moment halfway through
	// the churn, and run long at the end.
	for i := 0; i < 4; i++ {
		done.Add(1)
		go func(i int) {
			defer done.Done()
			<-half
			keep(spin(20 * time.Microsecond))
			<-start
			keep(spin(time.Duration(4+i) * time.Millisecond))
		}(i)
	}

	// The ticker: a moment of work every millisecond, then a long spin.
	stop := make(chan struct{})
	done.Add(1)
	go func() {
		defer done.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				keep(spin(10 * time.Microsecond))
			case <-stop:
				keep(spin(5 * time.Millisecond))
				return
			}
		}
	}()

	churn(180, 100)
	close(half)
	churn(180, 100)

	close(start)
	close(stop)
	// Born last, it spins at once.
	done.Add(1)
	go func() {
		defer done.Done()
		keep(spin(6 * time.Millisecond))
	}()
	done.Wait()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: longwait TRACEFILE")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	run()
	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if sink == 42 {
		fmt.Println("unlikely")
	}
}
