// Command timers writes an execution trace in which goroutines wait on
// the clock: time.Sleep of several lengths, time.After in a select, a
// time.Ticker, time.AfterFunc callbacks and a context.WithTimeout that
// expires and cancels the goroutines that depend on it.
//
// Sleeping goroutines leave their processors idle, and each timer that
// fires makes the runtime unblock a goroutine (or, for AfterFunc, start a
// new one) from whichever P runs the timer, so the trace shows wake-ups
// that no other goroutine caused.
//
// Usage: timers TRACEFILE
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/trace"
	"sync"
	"time"
)

// copies is how many instances of each kind of wait run concurrently in
// the second half of the trace.
const copies = 4

// sleepers sleep for a spread of durations, from below the timer
// granularity to a few milliseconds.
func sleepers() {
	durations := []time.Duration{
		10 * time.Microsecond,
		50 * time.Microsecond,
		200 * time.Microsecond,
		time.Millisecond,
		3 * time.Millisecond,
	}
	var wg sync.WaitGroup
	for _, d := range durations {
		wg.Add(1)
		go func(d time.Duration) {
			defer wg.Done()
			// Repeat so that each duration is seen more than once.
			for n := 0; n < 3; n++ {
				time.Sleep(d)
			}
		}(d)
	}
	wg.Wait()
}

// afters waits for a result with a deadline made by time.After: the first
// requests are answered in time, the last ones time out.
func afters() {
	for i := 0; i < 6; i++ {
		result := make(chan int, 1)
		delay := time.Duration(i) * 400 * time.Microsecond
		go func(i int) {
			time.Sleep(delay)
			result <- i
		}(i)
		select {
		case <-result:
		case <-time.After(time.Millisecond):
		}
	}
}

// ticker consumes a fixed number of ticks, then stops the ticker.
func ticker() {
	t := time.NewTicker(500 * time.Microsecond)
	defer t.Stop()
	for n := 0; n < 10; n++ {
		<-t.C
	}
}

// afterFuncs schedules callbacks, each run in a goroutine of its own when
// its timer fires, and stops one of them before it fires.
func afterFuncs() {
	var wg sync.WaitGroup
	for i := 1; i <= 4; i++ {
		wg.Add(1)
		time.AfterFunc(time.Duration(i)*300*time.Microsecond, wg.Done)
	}
	cancelled := time.AfterFunc(time.Hour, func() { panic("timer was stopped") })
	cancelled.Stop()
	wg.Wait()
}

// timeouts gives a group of workers a shared deadline: the fast workers
// finish, the slow ones are woken by the context's cancellation.
func timeouts() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer cancel()

	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Workers 0 and 1 finish before the deadline, 2 and 3
			// would take longer and are cancelled.
			work := time.NewTimer(time.Duration(1+2*i) * 700 * time.Microsecond)
			defer work.Stop()
			select {
			case <-work.C:
			case <-ctx.Done():
			}
		}(i)
	}
	wg.Wait()
	<-ctx.Done()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: timers TRACEFILE")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "timers:", err)
		os.Exit(1)
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "timers:", err)
		os.Exit(1)
	}

	// Each kind of wait runs on its own, then several copies of all of
	// them at once so that many timers are pending together.
	waits := []func(){sleepers, afters, ticker, afterFuncs, timeouts}
	for _, fn := range waits {
		fn()
	}
	var wg sync.WaitGroup
	for c := 0; c < copies; c++ {
		for _, fn := range waits {
			wg.Add(1)
			go func(fn func()) {
				defer wg.Done()
				fn()
			}(fn)
		}
	}
	wg.Wait()

	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "timers:", err)
		os.Exit(1)
	}
}
