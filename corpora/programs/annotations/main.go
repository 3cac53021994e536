// Command annotations writes an execution trace carrying user
// annotations: tasks (trace.NewTask), nested regions (trace.WithRegion and
// trace.StartRegion) and log messages (trace.Log, trace.Logf), made by
// several goroutines working on the same tasks.
//
// A task is a logical operation that may span goroutines; a region is a
// time interval within one goroutine and must end on the goroutine that
// began it. The trace therefore has tasks whose regions run on different
// goroutines, a subtask, regions nested three deep, and log messages
// attached both to tasks and to no task at all.
//
// Usage: annotations TRACEFILE
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/trace"
	"sync"
)

const (
	requests = 40 // top-level tasks
	shards   = 3  // goroutines that work on each request
)

// sink keeps the computed values observable.
var (
	sinkMu sync.Mutex
	sink   int
)

// compute is a little CPU work to give regions a visible length.
func compute(seed, n int) int {
	x := seed | 1
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// shard is the part of a request done by one goroutine: a region for the
// whole shard, containing regions for its steps, one of which contains a
// region of its own.
func shard(ctx context.Context, req, id int) int {
	defer trace.StartRegion(ctx, "shard").End()
	trace.Logf(ctx, "shard", "request %d shard %d", req, id)

	var v int
	trace.WithRegion(ctx, "decode", func() {
		v = compute(req*shards+id, 2000)
	})
	trace.WithRegion(ctx, "transform", func() {
		for pass := 0; pass < 2; pass++ {
			r := trace.StartRegion(ctx, "pass")
			v = compute(v, 1500)
			r.End()
		}
	})
	trace.Log(ctx, "result", fmt.Sprint(v&0xffff))
	return v
}

// handle is one request: a task whose shards run in parallel goroutines,
// followed by a subtask that merges their results on the calling
// goroutine.
func handle(ctx context.Context, req int) {
	ctx, task := trace.NewTask(ctx, "request")
	defer task.End()
	trace.Logf(ctx, "id", "%d", req)

	results := make([]int, shards)
	var wg sync.WaitGroup
	for i := 0; i < shards; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = shard(ctx, req, i)
		}(i)
	}
	trace.WithRegion(ctx, "wait-shards", wg.Wait)

	mctx, merge := trace.NewTask(ctx, "merge")
	total := 0
	trace.WithRegion(mctx, "merge", func() {
		for _, r := range results {
			total += r
		}
	})
	trace.Log(mctx, "merged", fmt.Sprint(total&0xffff))
	merge.End()

	sinkMu.Lock()
	sink += total
	sinkMu.Unlock()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: annotations TRACEFILE")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "annotations:", err)
		os.Exit(1)
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "annotations:", err)
		os.Exit(1)
	}

	ctx := context.Background()
	// A message outside any task: annotations need not belong to one.
	trace.Log(ctx, "phase", "start")

	// Requests are handled two at a time, so that regions of different
	// tasks interleave on the processors.
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for req := 0; req < requests; req++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(req int) {
			defer func() { <-sem; wg.Done() }()
			handle(ctx, req)
		}(req)
	}
	wg.Wait()

	trace.Log(ctx, "phase", "done")
	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "annotations:", err)
		os.Exit(1)
	}
}
