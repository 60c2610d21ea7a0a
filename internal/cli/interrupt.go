package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// While a command writes a file atomically, SIGINT and SIGTERM stop the
// write rather than the process: a process killed mid-write would leave
// its temporary file, as large as the filter, beside the output. The
// handler is installed for the write only (the wait for the file's lock
// included); before and after it the signals end the process as usual
// (nothing is left to clean up), and serve and status keep handling them
// their own way.

// interrupted is the error of a command whose write a signal stopped:
// finish prints it on one line and exits with 128 + the signal's number,
// as a shell reports a process killed by the signal.
type interrupted struct {
	sig     os.Signal
	path    string
	written bool // the signal came after the file was in place
}

func (i *interrupted) Error() string {
	if i.written {
		return "interrupted after " + i.path + " was written"
	}
	return "interrupted; " + i.path + " not written"
}

// status is the exit status: 130 for SIGINT, 143 for SIGTERM.
func (i *interrupted) status() int {
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// catchSignals returns a context that SIGINT or SIGTERM cancels until
// release is called; release returns the signal received, or nil. A
// signal that arrives after release ends the process as usual.
func catchSignals() (ctx context.Context, release func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var got os.Signal
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case got = <-ch:
			cancel()
		case <-done:
		}
	}()
	return ctx, func() os.Signal {
		signal.Stop(ch)
		close(done)
		<-exited
		if got == nil {
			// Received as release began: the goroutine chose done.
			select {
			case got = <-ch:
			default:
			}
		}
		cancel()
		return got
	}
}
