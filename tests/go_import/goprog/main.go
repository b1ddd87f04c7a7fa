// Command goprog writes a Go execution trace (and a CPU profile alongside it) of a small
// workload that exercises what tracewire reads from Go traces: tasks across goroutines
// with parents, nested regions, logs, channel and mutex blocking, sleeps, syscalls, GC,
// many goroutines and CPU samples.
//
// Usage: goprog TRACE_OUT [PROFILE_OUT]
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sync"
	"syscall"
	"time"
)

var sink []byte

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		panic(err)
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// spin burns about d of CPU time (not of wall time, which a loaded machine stretches) so
// that the CPU profiler takes samples in it.
func spin(d time.Duration) int {
	n := 0
	for start := cpuTime(); cpuTime()-start < d; {
		for i := 0; i < 10000; i++ {
			n += i * i
		}
	}
	return n
}

// allocate makes garbage so that the GC runs.
func allocate(rounds int) {
	for i := 0; i < rounds; i++ {
		sink = make([]byte, 1<<20)
	}
}

func worker(ctx context.Context, id int, jobs <-chan int, results chan<- int, mu *sync.Mutex, total *int) {
	ctx, task := trace.NewTask(ctx, fmt.Sprintf("worker-%d", id))
	defer task.End()
	for job := range jobs {
		trace.WithRegion(ctx, "job", func() {
			trace.Logf(ctx, "job", "id=%d", job)
			trace.WithRegion(ctx, "compute", func() {
				spin(2 * time.Millisecond)
			})
			mu.Lock()
			*total += job
			time.Sleep(100 * time.Microsecond)
			mu.Unlock()
		})
		results <- job
	}
}

func run() error {
	ctx, main := trace.NewTask(context.Background(), "main")
	trace.Log(ctx, "phase", "start")

	// Tasks across goroutines: workers with their own child tasks.
	jobs := make(chan int)
	results := make(chan int, 4)
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			worker(ctx, i, jobs, results, &mu, &total)
		}(i)
	}
	go func() {
		for i := 0; i < 40; i++ {
			jobs <- i
		}
		close(jobs)
	}()
	received := 0
	trace.WithRegion(ctx, "collect", func() {
		for received < 40 {
			<-results
			received++
		}
	})
	wg.Wait()

	// A task ended on another goroutine than the one that began it.
	handoff, handoffTask := trace.NewTask(ctx, "handoff")
	done := make(chan struct{})
	go func() {
		trace.Log(handoff, "handoff", "ending on another goroutine")
		handoffTask.End()
		close(done)
	}()
	<-done

	// Syscalls.
	trace.WithRegion(ctx, "syscalls", func() {
		for i := 0; i < 20; i++ {
			f, err := os.CreateTemp("", "goprog")
			if err == nil {
				f.Write(make([]byte, 4096))
				f.Sync()
				f.Close()
				os.Remove(f.Name())
			}
		}
	})

	// GC.
	trace.WithRegion(ctx, "gc", func() {
		allocate(64)
		runtime.GC()
	})

	// Many goroutines.
	trace.WithRegion(ctx, "many", func() {
		var many sync.WaitGroup
		for i := 0; i < 500; i++ {
			many.Add(1)
			go func() {
				defer many.Done()
				time.Sleep(time.Millisecond)
			}()
		}
		many.Wait()
	})

	// A busy stretch for the CPU profile.
	trace.WithRegion(ctx, "spin", func() { spin(60 * time.Millisecond) })

	// A task, a region and a blocked goroutine that span the runtime's generation switch
	// (at most a second apart), so that the trace has several generations and what is
	// open at a switch is restated.
	long, longTask := trace.NewTask(ctx, "long")
	release := make(chan struct{})
	blocked := make(chan struct{})
	go func() {
		trace.WithRegion(long, "waiting", func() { <-release })
		close(blocked)
	}()
	trace.WithRegion(long, "idle", func() {
		deadline := time.Now().Add(1200 * time.Millisecond)
		for time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			trace.Log(long, "tick", "idle")
		}
	})
	close(release)
	<-blocked
	longTask.End()
	trace.Logf(ctx, "phase", "total=%d", total)
	main.End()
	return nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: goprog TRACE_OUT [PROFILE_OUT]")
		os.Exit(2)
	}
	out, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if len(os.Args) > 2 {
		prof, err := os.Create(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(prof); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := trace.Start(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = run()
	trace.Stop()
	out.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
