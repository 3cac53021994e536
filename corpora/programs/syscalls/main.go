// Command syscalls writes an execution trace with blocking system calls
// and network waits: a temporary file is created, written, synced, read
// back and removed, while a TCP client and server exchange messages over
// the loopback interface.
//
// File operations are plain system calls: the goroutine stays on its
// thread, and a slow call (fsync) makes the runtime hand the P to another
// thread. Socket reads and writes go through the network poller instead:
// a goroutine that would block parks and is woken by the poller, without
// holding a thread.
//
// The only address used is 127.0.0.1 with a port chosen by the kernel.
//
// Usage: syscalls TRACEFILE
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/ioutil"
	"net"
	"os"
	"runtime/trace"
	"strings"
	"sync"
)

const (
	fileChunks = 32       // writes to the temporary file
	chunkSize  = 16 << 10 // bytes per write
	messages   = 100      // request/reply exchanges per client
	clients    = 2        // concurrent TCP clients
)

// fileRoundTrip exercises create, write, fsync, seek, read, close and
// remove on a temporary file in os.TempDir.
func fileRoundTrip() error {
	f, err := ioutil.TempFile(os.TempDir(), "gtr-syscalls-*.tmp")
	if err != nil {
		return err
	}
	name := f.Name()
	// Remove the file whatever happens below; the error of the first
	// failing step is the one reported.
	defer os.Remove(name)

	chunk := bytes.Repeat([]byte("gtr syscalls corpus\n"), chunkSize/20)
	for i := 0; i < fileChunks; i++ {
		if _, err := f.Write(chunk); err != nil {
			f.Close()
			return err
		}
		// A sync every few writes gives the trace several long,
		// blocking system calls rather than one.
		if i%8 == 7 {
			if err := f.Sync(); err != nil {
				f.Close()
				return err
			}
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	buf := make([]byte, 4096)
	total := 0
	for {
		n, err := f.Read(buf)
		total += n
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if want := fileChunks * len(chunk); total != want {
		return fmt.Errorf("read %d bytes back, wrote %d", total, want)
	}
	return os.Remove(name)
}

// serve echoes each line it reads back in upper case until the client
// closes the connection.
func serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if _, err := io.WriteString(conn, strings.ToUpper(line)); err != nil {
			return
		}
	}
}

// client sends messages one at a time and waits for each reply, so that
// both ends block in the network poller on every exchange.
func client(addr string, id int) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	for i := 0; i < messages; i++ {
		msg := fmt.Sprintf("client %d message %d\n", id, i)
		if _, err := io.WriteString(conn, msg); err != nil {
			return err
		}
		reply, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if reply != strings.ToUpper(msg) {
			return fmt.Errorf("client %d: got %q for %q", id, reply, msg)
		}
	}
	return nil
}

// tcpExchange runs a loopback server and clients against it.
func tcpExchange() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()

	var servers sync.WaitGroup
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // the listener was closed
			}
			servers.Add(1)
			go func() {
				defer servers.Done()
				serve(conn)
			}()
		}
	}()

	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		go func(id int) { errs <- client(ln.Addr().String(), id) }(i)
	}
	var first error
	for i := 0; i < clients; i++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	ln.Close()
	servers.Wait()
	return first
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: syscalls TRACEFILE")
		os.Exit(2)
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "syscalls:", err)
		os.Exit(1)
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "syscalls:", err)
		os.Exit(1)
	}

	// The file work and the network work run at the same time, so that
	// a goroutine blocked in fsync and goroutines parked on sockets
	// appear side by side.
	fileErr := make(chan error, 1)
	go func() { fileErr <- fileRoundTrip() }()
	netErr := tcpExchange()
	ferr := <-fileErr

	trace.Stop()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "syscalls:", err)
		os.Exit(1)
	}
	for _, err := range []error{ferr, netErr} {
		if err != nil {
			fmt.Fprintln(os.Stderr, "syscalls:", err)
			os.Exit(1)
		}
	}
}
