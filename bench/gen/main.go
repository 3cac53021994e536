// Command gen writes a big execution trace for the benchmarks: it runs
// the workloads of the corpus programs (corpora/programs) over and over
// under runtime/trace until the trace reaches a size or a time limit.
//
// Each round runs, in this order: churn (waves of short goroutines,
// ping-pong over unbuffered channels, a buffered pipeline, select, Mutex
// and RWMutex contention, a sync.Cond queue), timers (sleeps, time.After
// in a select, a ticker, AfterFunc, context timeouts), syscalls (a
// temporary file written and read back, TCP request/reply on 127.0.0.1),
// gcpressure (allocation with a ring of live objects, and every tenth
// round runtime.GC),
// annotations (tasks, nested regions, logs), greedy (CPU-bound spinners
// next to short goroutines), and every tenth round procs (GOMAXPROCS
// changes). The mix gives traces of the same shape as the corpus, only
// a thousand times longer.
//
// It builds with Go 1.15 and later (standard library only, no generics),
// so the same source writes v1 traces (Go 1.21 and older) and v2 traces
// (Go 1.22 and later).
//
// Usage: gen -o FILE -bytes N [-max-seconds S]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io/ioutil"
	"net"
	"os"
	"runtime"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"
)

var sink int64

func keep(v int) { atomic.AddInt64(&sink, int64(v)) }

func work(seed, n int) int {
	x := seed | 1
	for i := 0; i < n; i++ {
		x = x*1103515245 + 12345
	}
	return x
}

// ---- churn ----

func churn() {
	// Waves of short goroutines.
	for w := 0; w < 20; w++ {
		var wg sync.WaitGroup
		wg.Add(100)
		for i := 0; i < 100; i++ {
			go func(id int) {
				defer wg.Done()
				keep(work(id, 200))
			}(i)
		}
		wg.Wait()
	}
	// Ping-pong.
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	v := 0
	for i := 0; i < 2000; i++ {
		ping <- v
		v = <-pong
	}
	close(ping)
	<-pong
	// A pipeline over buffered channels.
	in, out := make(chan int, 16), make(chan int, 16)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := range in {
				out <- work(x, 100)
			}
		}()
	}
	go func() {
		for i := 0; i < 2000; i++ {
			in <- i
		}
		close(in)
	}()
	go func() { wg.Wait(); close(out) }()
	for x := range out {
		keep(x)
	}
	// Select over producers and default; when nothing is ready, a
	// little work and then a blocking select (as corpora's churn does).
	a, b, quit := make(chan int), make(chan int, 2), make(chan struct{})
	for _, c := range []chan int{a, b} {
		go func(c chan int) {
			for i := 0; ; i++ {
				select {
				case c <- i:
				case <-quit:
					return
				}
			}
		}(c)
	}
	for n := 0; n < 2000; n++ {
		select {
		case x := <-a:
			keep(x)
		case x := <-b:
			keep(x)
		default:
			keep(work(n, 50))
			select {
			case x := <-a:
				keep(x)
			case x := <-b:
				keep(x)
			}
		}
	}
	close(quit)
	// Mutex and RWMutex contention.
	var mu sync.Mutex
	var rw sync.RWMutex
	shared := 0
	wg = sync.WaitGroup{}
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				if i%4 == 0 {
					rw.Lock()
					shared++
					rw.Unlock()
				} else {
					rw.RLock()
					keep(shared)
					rw.RUnlock()
				}
				mu.Lock()
				shared += work(g, 20) & 1
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	// A queue on sync.Cond.
	var cmu sync.Mutex
	cond := sync.NewCond(&cmu)
	queue, done := []int{}, false
	wg = sync.WaitGroup{}
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				cmu.Lock()
				for len(queue) == 0 && !done {
					cond.Wait()
				}
				if len(queue) == 0 {
					cmu.Unlock()
					return
				}
				x := queue[0]
				queue = queue[1:]
				cmu.Unlock()
				keep(work(x, 50))
			}
		}()
	}
	for i := 0; i < 2000; i++ {
		cmu.Lock()
		queue = append(queue, i)
		cmu.Unlock()
		cond.Signal()
	}
	cmu.Lock()
	done = true
	cmu.Unlock()
	cond.Broadcast()
	wg.Wait()
}

// ---- timers ----

func timers() {
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			time.Sleep(time.Duration(10+i*50) * time.Microsecond)
			select {
			case <-time.After(time.Duration(i%5) * 100 * time.Microsecond):
			case <-time.After(200 * time.Microsecond):
			}
		}(i)
	}
	t := time.NewTicker(100 * time.Microsecond)
	for i := 0; i < 20; i++ {
		<-t.C
	}
	t.Stop()
	for i := 0; i < 10; i++ {
		wg.Add(1)
		time.AfterFunc(time.Duration(i)*50*time.Microsecond, wg.Done)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Microsecond)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-ctx.Done()
		}()
	}
	wg.Wait()
	cancel()
}

// ---- syscalls ----

func syscalls(ln net.Listener) {
	f, err := ioutil.TempFile("", "gtr-bench-gen-")
	if err == nil {
		buf := make([]byte, 4096)
		for i := 0; i < 64; i++ {
			f.Write(buf)
		}
		f.Seek(0, 0)
		for {
			if _, err := f.Read(buf); err != nil {
				break
			}
		}
		f.Close()
		os.Remove(f.Name())
	}
	var wg sync.WaitGroup
	for c := 0; c < 2; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				return
			}
			defer conn.Close()
			r := bufio.NewReader(conn)
			for i := 0; i < 100; i++ {
				fmt.Fprintf(conn, "req %d %d\n", c, i)
				if _, err := r.ReadString('\n'); err != nil {
					return
				}
			}
		}(c)
	}
	wg.Wait()
}

func serve(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func(conn net.Conn) {
			defer conn.Close()
			r := bufio.NewReader(conn)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				conn.Write([]byte("ok " + line))
			}
		}(conn)
	}
}

// ---- gcpressure ----

var ring [256][]byte

func gcpressure(force bool) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			local := make([][]byte, 64)
			for i := 0; i < 2000; i++ {
				b := make([]byte, 4096)
				b[0] = byte(i)
				local[i%len(local)] = b
			}
			keep(len(local))
		}(g)
	}
	wg.Wait()
	for i := range ring {
		ring[i] = make([]byte, 1024)
	}
	// runtime.GC waits for the sweep by calling Gosched in a loop, which
	// would fill the trace with yields if done every round: allocation
	// triggers the other cycles.
	if force {
		runtime.GC()
	}
}

// ---- annotations ----

func annotations() {
	var wg sync.WaitGroup
	for r := 0; r < 10; r++ {
		ctx, task := trace.NewTask(context.Background(), "request")
		for s := 0; s < 3; s++ {
			wg.Add(1)
			go func(s int) {
				defer wg.Done()
				defer trace.StartRegion(ctx, "shard").End()
				trace.WithRegion(ctx, "pass", func() {
					trace.Logf(ctx, "shard", "shard %d", s)
					keep(work(s, 500))
				})
			}(s)
		}
		wg.Wait()
		trace.Log(ctx, "done", "ok")
		task.End()
	}
}

// ---- greedy ----

func spin(seed uint64, iters int) uint64 {
	x := seed | 1
	for i := 0; i < iters; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func greedy() {
	var wg sync.WaitGroup
	for s := 0; s < 2; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			keep(int(spin(uint64(s), 300000)))
		}(s)
	}
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			keep(work(i, 100))
		}(i)
	}
	wg.Wait()
}

// ---- procs ----

func procs() {
	n := runtime.GOMAXPROCS(0)
	for _, p := range []int{1, 2, 4, n} {
		runtime.GOMAXPROCS(p)
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				keep(work(i, 2000))
			}(i)
		}
		wg.Wait()
	}
}

// counter passes writes through and counts the bytes.
type counter struct {
	w *bufio.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	atomic.AddInt64(&c.n, int64(n))
	return n, err
}

func main() {
	out := flag.String("o", "", "trace file to write")
	bytes := flag.Int64("bytes", 1<<30, "stop once the trace is this big")
	maxSeconds := flag.Int("max-seconds", 600, "stop after this long in any case")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: gen -o FILE -bytes N [-max-seconds S]")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	go serve(ln)
	c := &counter{w: bufio.NewWriterSize(f, 1<<20)}
	if err := trace.Start(c); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	deadline := time.Now().Add(time.Duration(*maxSeconds) * time.Second)
	rounds := 0
	for atomic.LoadInt64(&c.n) < *bytes && time.Now().Before(deadline) {
		churn()
		timers()
		syscalls(ln)
		gcpressure(rounds%10 == 4)
		annotations()
		greedy()
		if rounds%10 == 9 {
			procs()
		}
		rounds++
	}
	trace.Stop()
	ln.Close()
	if err := c.w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("gen: %s: %d bytes, %d rounds\n", *out, atomic.LoadInt64(&c.n), rounds)
}
