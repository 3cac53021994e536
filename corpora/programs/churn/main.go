// Command churn writes an execution trace full of short goroutines and of
// the ways goroutines block on each other: unbuffered and buffered
// channels, select (with and without a default case), sync.Mutex and
// sync.RWMutex contention, sync.WaitGroup and sync.Cond.
//
// Every goroutine here runs for microseconds, so the trace has many short
// slices, many goroutine creations and exits, and blocking and unblocking
// events of every synchronisation kind; none of it is greedy.
//
// Usage: churn TRACEFILE
package main

import (
	"fmt"
	"os"
	"runtime/trace"
	"strconv"
	"sync"
)

// sink keeps results observable; writes to it are guarded by sinkMu so
// that the race detector stays quiet if the program is run under it.
var (
	sinkMu sync.Mutex
	sink   int
)

func keep(v int) {
	sinkMu.Lock()
	sink += v
	sinkMu.Unlock()
}

// work is a few hundred nanoseconds of computation, enough for a goroutine
// to show up as a slice of its own.
func work(seed int) int {
	x := seed | 1
	for i := 0; i < 200; i++ {
		x = x*1103515245 + 12345
	}
	return x
}

// spawnWaves starts waves of short goroutines and waits for each wave with
// a WaitGroup: goroutine creation, start and exit dominate.
func spawnWaves(waves, perWave int) {
	for w := 0; w < waves; w++ {
		var wg sync.WaitGroup
		wg.Add(perWave)
		for i := 0; i < perWave; i++ {
			go func(id int) {
				defer wg.Done()
				keep(work(id))
			}(w*perWave + i)
		}
		wg.Wait()
	}
}

// pingPong passes a token back and forth over unbuffered channels: each
// send blocks until the other side receives, so every exchange is a
// block/unblock pair.
func pingPong(exchanges int) {
	ping := make(chan int)
	pong := make(chan int)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for v := range ping {
			pong <- v + 1
		}
	}()
	v := 0
	for i := 0; i < exchanges; i++ {
		ping <- v
		v = <-pong
	}
	close(ping)
	<-done
	keep(v)
}

// pipeline is a producer, a pool of workers and a collector joined by
// buffered channels: senders block only when a buffer is full, receivers
// only when it is empty.
func pipeline(items, workers int) {
	in := make(chan int, 8)
	out := make(chan int, 4)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range in {
				out <- work(v)
			}
		}()
	}
	go func() {
		for i := 0; i < items; i++ {
			in <- i
		}
		close(in)
	}()
	go func() {
		wg.Wait()
		close(out)
	}()
	total := 0
	for v := range out {
		total += v
	}
	keep(total)
}

// selects multiplexes three producers, a quit channel and a default case:
// the consumer sometimes finds a case ready, sometimes falls through to
// default and does other work, and sometimes blocks in a second select
// without a default.
func selects(perProducer int) {
	a := make(chan int)
	b := make(chan int, 2)
	c := make(chan int)
	quit := make(chan struct{})
	var producers sync.WaitGroup
	for _, ch := range []chan int{a, b, c} {
		producers.Add(1)
		go func(ch chan int) {
			defer producers.Done()
			for i := 0; i < perProducer; i++ {
				ch <- i
			}
		}(ch)
	}
	go func() {
		producers.Wait()
		close(quit)
	}()

	got, idle := 0, 0
	for {
		select {
		case v := <-a:
			got += v
		case v := <-b:
			got += v
		case v := <-c:
			got += v
		default:
			// Nothing ready: do a little work, then block until
			// something is.
			idle++
			keep(work(idle))
			select {
			case v := <-a:
				got += v
			case v := <-b:
				got += v
			case v := <-c:
				got += v
			case <-quit:
				// Drain what the buffered channel still holds.
				for len(b) > 0 {
					got += <-b
				}
				keep(got + idle)
				return
			}
		}
	}
}

// mutexes makes goroutines contend for a Mutex and an RWMutex: with
// several goroutines and short critical sections, some Lock calls find the
// lock held and block; writers on the RWMutex block readers and wait for
// them.
func mutexes(goroutines, iters int) {
	var mu sync.Mutex
	var rw sync.RWMutex
	shared := make(map[int]int)
	counter := 0

	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			for i := 0; i < iters; i++ {
				mu.Lock()
				counter += work(i) & 1
				mu.Unlock()

				if (id+i)%4 == 0 {
					rw.Lock()
					shared[i%16] = id
					rw.Unlock()
				} else {
					rw.RLock()
					_ = shared[i%16]
					rw.RUnlock()
				}
			}
		}(g)
	}
	wg.Wait()
	keep(counter)
}

// condQueue is a bounded queue guarded by a Mutex and two Conds: consumers
// wait on notEmpty, producers on notFull. At the end Broadcast wakes every
// waiting consumer at once.
type condQueue struct {
	mu       sync.Mutex
	notEmpty *sync.Cond
	notFull  *sync.Cond
	items    []int
	max      int
	closed   bool
}

func newCondQueue(max int) *condQueue {
	q := &condQueue{max: max}
	q.notEmpty = sync.NewCond(&q.mu)
	q.notFull = sync.NewCond(&q.mu)
	return q
}

func (q *condQueue) put(v int) {
	q.mu.Lock()
	for len(q.items) == q.max {
		q.notFull.Wait()
	}
	q.items = append(q.items, v)
	q.notEmpty.Signal()
	q.mu.Unlock()
}

// get returns false once the queue is closed and empty.
func (q *condQueue) get() (int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.notEmpty.Wait()
	}
	if len(q.items) == 0 {
		return 0, false
	}
	v := q.items[0]
	q.items = q.items[1:]
	q.notFull.Signal()
	return v, true
}

func (q *condQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.notEmpty.Broadcast()
	q.mu.Unlock()
}

func conds(items, consumers int) {
	q := newCondQueue(4)
	var wg sync.WaitGroup
	for i := 0; i < consumers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sum := 0
			for {
				v, ok := q.get()
				if !ok {
					break
				}
				sum += work(v)
			}
			keep(sum)
		}()
	}
	for i := 0; i < items; i++ {
		q.put(i)
	}
	q.close()
	wg.Wait()
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
		fmt.Fprintf(os.Stderr, "churn: bad GTR_REPEAT=%q: want a positive integer\n", s)
		os.Exit(2)
	}
	return n
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: churn TRACEFILE")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "churn:", err)
		os.Exit(1)
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "churn:", err)
		os.Exit(1)
	}

	for r := repeat(); r > 0; r-- {
		spawnWaves(10, 200) // 2000 short goroutines
		pingPong(300)
		pipeline(600, 4)
		selects(150)
		mutexes(8, 150)
		conds(400, 4)
	}

	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "churn:", err)
		os.Exit(1)
	}
}
