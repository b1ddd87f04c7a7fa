// Command benchprog writes a large Go execution trace for the import-speed figures of
// docs/performance.md: 8 goroutines running 300,000 tiny trace.WithRegion jobs fed through
// a channel, a log every 16th job. Usage: benchprog TRACE_OUT
package main

import (
	"context"
	"os"
	"runtime/trace"
	"sync"
)

func main() {
	f, _ := os.Create(os.Args[1])
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
	for i := 0; i < 300000; i++ {
		ch <- i
	}
	close(ch)
	wg.Wait()
	trace.Stop()
	f.Close()
}
