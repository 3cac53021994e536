// Command tasks writes an execution trace whose user annotations cross
// the edges of the trace and of goroutines: what a reader of tasks and
// regions must count as incomplete, or close on a goroutine's behalf.
//
//   - a task begun before tracing starts and ended while it runs (its
//     begin is not in the trace), and a region of it begun before tracing
//     and ended while it runs, which the trace does not show at all
//     (runtime/trace records a region only when tracing was on at its
//     start);
//   - a task begun while tracing and never ended, and a region still open
//     when tracing stops (their ends are not in the trace);
//   - a goroutine that exits inside a region it never ends;
//   - tasks three levels deep, each level on its own goroutines, with
//     regions nested inside one another and logs with and without a
//     category;
//   - goroutines created inside a region, which Go's reader ties to the
//     region's task without putting them in the region;
//   - many short tasks of two types with durations spread over three
//     orders of magnitude, so that p50, p90 and p99 differ.
//
// Usage: tasks TRACEFILE
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/trace"
	"sync"
	"time"
)

var (
	sinkMu sync.Mutex
	sink   int
)

// spin is a little CPU work, n rounds of it.
func spin(seed, n int) {
	x := seed | 1
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sinkMu.Lock()
	sink += x & 1
	sinkMu.Unlock()
}

// level runs one level of a task tree: a subtask with a region on each of
// two goroutines, and one more level below it.
func level(ctx context.Context, depth int, wg *sync.WaitGroup) {
	defer wg.Done()
	ctx, task := trace.NewTask(ctx, fmt.Sprintf("level%d", depth))
	defer task.End()
	trace.Log(ctx, "", fmt.Sprintf("entering level %d", depth))
	var inner sync.WaitGroup
	for i := 0; i < 2; i++ {
		inner.Add(1)
		go func(i int) {
			defer inner.Done()
			trace.WithRegion(ctx, "outer", func() {
				spin(depth*10+i, 3000)
				trace.WithRegion(ctx, "inner", func() {
					spin(i, 2000)
					trace.Logf(ctx, "step", "depth %d worker %d", depth, i)
				})
			})
		}(i)
	}
	if depth < 3 {
		inner.Add(1)
		level(ctx, depth+1, &inner)
	}
	inner.Wait()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tasks TRACEFILE")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "tasks:", err)
		os.Exit(1)
	}
	ctx := context.Background()

	// Begun before tracing: the trace sees only their ends.
	early, earlyTask := trace.NewTask(ctx, "early")
	earlyStarted := make(chan struct{})
	earlyEnd := make(chan struct{})
	earlyDone := make(chan struct{})
	go func() {
		r := trace.StartRegion(early, "early-region")
		close(earlyStarted)
		<-earlyEnd
		r.End()
		close(earlyDone)
	}()
	<-earlyStarted

	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "tasks:", err)
		os.Exit(1)
	}

	// Three levels of tasks.
	var wg sync.WaitGroup
	wg.Add(1)
	level(ctx, 1, &wg)
	wg.Wait()

	// Goroutines created inside a region.
	spawn, spawnTask := trace.NewTask(ctx, "spawner")
	trace.WithRegion(spawn, "spawning", func() {
		var sw sync.WaitGroup
		for i := 0; i < 3; i++ {
			sw.Add(1)
			go func(i int) {
				defer sw.Done()
				spin(i, 1000)
				trace.Log(spawn, "child", fmt.Sprint(i))
			}(i)
		}
		sw.Wait()
	})
	spawnTask.End()

	// A goroutine that exits inside its region.
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		trace.StartRegion(ctx, "left-open")
		spin(7, 2000)
	}()
	<-exited

	// Many short tasks of two types, from 1 to about 1000 units of work.
	for i := 0; i < 120; i++ {
		kind := "short"
		if i%3 == 0 {
			kind = "long"
		}
		c, t := trace.NewTask(ctx, kind)
		n := 50 << uint(i%11)
		trace.WithRegion(c, kind+"-work", func() { spin(i, n) })
		if i%10 == 0 {
			trace.Logf(c, "i", "%d", i)
		}
		t.End()
	}

	// Ended while tracing, begun before.
	close(earlyEnd)
	<-earlyDone
	earlyTask.End()

	// Begun while tracing and never ended; a region open at the stop.
	late, _ := trace.NewTask(ctx, "unfinished")
	trace.Log(late, "state", "never ends")
	stop := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		r := trace.StartRegion(late, "open-at-stop")
		<-stop
		r.End()
		close(stopped)
	}()
	time.Sleep(time.Millisecond)

	trace.Stop()
	close(stop)
	<-stopped
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "tasks:", err)
		os.Exit(1)
	}
}
