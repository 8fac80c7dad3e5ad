package capture

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress reports a long capture's stages. Stage starts one (total 0:
// its length is not known), Step says how far it is, Done ends it.
type Progress interface {
	Stage(name string, total int)
	Step(done int, detail string)
	Done()
}

// NopProgress reports nothing.
type NopProgress struct{}

func (NopProgress) Stage(string, int) {}
func (NopProgress) Step(int, string)  {}
func (NopProgress) Done()             {}

// NewProgress reports on w: a bar redrawn in place when w is a terminal
// (tty), one plain line per stage otherwise (logs, CI).
func NewProgress(w io.Writer, tty bool) Progress {
	return &lineProgress{w: w, tty: tty}
}

type lineProgress struct {
	mu          sync.Mutex
	w           io.Writer
	tty         bool
	name        string
	total, done int
	detail      string
	drawn       time.Time
	open        bool
}

const barWidth = 24

func (p *lineProgress) Stage(name string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finish()
	p.name, p.total, p.done, p.detail, p.open = name, total, 0, "", true
	if p.tty {
		p.draw()
	} else {
		fmt.Fprintf(p.w, "capture: %s…\n", name)
	}
}

func (p *lineProgress) Step(done int, detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.detail = done, detail
	// A terminal is redrawn at most ten times a second.
	if p.tty && time.Since(p.drawn) >= 100*time.Millisecond {
		p.draw()
	}
}

func (p *lineProgress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finish()
}

// finish ends the open stage: the final bar, or the stage's last detail
// as a plain line.
func (p *lineProgress) finish() {
	if !p.open {
		return
	}
	p.open = false
	if p.tty {
		if p.total > 0 {
			p.done = p.total
		}
		p.draw()
		fmt.Fprintln(p.w)
		return
	}
	if p.detail != "" {
		fmt.Fprintf(p.w, "capture: %s: %s\n", p.name, p.detail)
	}
}

func (p *lineProgress) draw() {
	p.drawn = time.Now()
	var bar string
	if p.total > 0 {
		filled := min(barWidth, barWidth*p.done/p.total)
		bar = fmt.Sprintf("[%s%s] %d/%d", strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), p.done, p.total)
	} else {
		// Unknown length: a marker that moves with each step.
		pos := p.done % barWidth
		bar = fmt.Sprintf("[%s#%s]", strings.Repeat(" ", pos), strings.Repeat(" ", barWidth-pos-1))
	}
	line := fmt.Sprintf("%s %s", bar, p.name)
	if p.detail != "" {
		line += " · " + p.detail
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
}

// HumanBytes prints a size in B, KiB or MiB.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
