// Command benchprog writes a large Go execution trace for the import figures of
// docs/go-traces.md and the import's memory test: 8 goroutines running tiny
// trace.WithRegion jobs fed through a channel, a log every 16th job. Usage:
//
//	benchprog TRACE_OUT            300,000 jobs
//	benchprog TRACE_OUT SECONDS    jobs for SECONDS of wall time, so that the trace has
//	                               at least SECONDS generations (Go starts one a second)
package main

import (
	"context"
	"os"
	"runtime/trace"
	"strconv"
	"sync"
	"time"
)

func main() {
	f, _ := os.Create(os.Args[1])
	var deadline time.Time
	if len(os.Args) > 2 {
		seconds, err := strconv.ParseFloat(os.Args[2], 64)
		if err != nil {
			panic(err)
		}
		deadline = time.Now().Add(time.Duration(seconds * float64(time.Second)))
	}
	trace.Start(f)
	ctx := context.Background()
	var wg sync.WaitGroup
	ch := make(chan int)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				trace.WithRegion(ctx, "job", func() {
					if j%16 == 0 {
						trace.Log(ctx, "job", "tick")
					}
				})
			}
		}()
	}
	for i := 0; ; i++ {
		if deadline.IsZero() && i == 300000 {
			break
		}
		if !deadline.IsZero() && i%1024 == 0 && time.Now().After(deadline) {
			break
		}
		ch <- i
	}
	close(ch)
	wg.Wait()
	trace.Stop()
	f.Close()
}
