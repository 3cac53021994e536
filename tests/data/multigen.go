// tests/data/multigen.go: the program that wrote tests/data/multigen-go1.N.trace
// (go run multigen.go OUT, with go.mod "go 1.22"): about 2.5 s of
// work, so that the v2 trace holds three generations.
// Writes a trace of about 2.5 s, so that it holds several generations.
package main

import (
	"os"
	"runtime/trace"
	"sync"
	"time"
)

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	ch := make(chan int)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range ch {
				s := 0
				for j := 0; j < 20000*v; j++ {
					s += j
				}
				_ = s
			}
		}()
	}
	deadline := time.Now().Add(2500 * time.Millisecond)
	for i := 1; time.Now().Before(deadline); i++ {
		ch <- i%5 + 1
		time.Sleep(50 * time.Millisecond)
	}
	close(ch)
	wg.Wait()
	trace.Stop()
	f.Close()
}
