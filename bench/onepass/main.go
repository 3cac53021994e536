// bench/onepass: one pass of Go's own trace reader over a file, the
// yardstick of `make bench`: trace.NewReader and ReadEvent until the end,
// nothing else. It is golang.org/x/exp/trace's reader, as the toolchain
// carries it (internal/trace), so bench/run.sh builds it inside the
// toolchain's tree with `go build -overlay` (an internal package is only
// importable from there); the tree itself is not written.
package main

import (
	"bufio"
	"fmt"
	"internal/trace"
	"io"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: onepass FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "onepass:", err)
		os.Exit(1)
	}
	r, err := trace.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		fmt.Fprintln(os.Stderr, "onepass:", err)
		os.Exit(1)
	}
	n := 0
	for {
		_, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "onepass:", err)
			os.Exit(1)
		}
		n++
	}
	fmt.Println(n, "events")
}
