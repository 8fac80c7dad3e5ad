// Package chart draws the evidence chart a result carries: the series that
// moved most at the onset for the blamed service, its baseline band, the
// detected onset and the blamed change, as one PNG small enough for Slack
// and readable in its light and dark themes (an opaque light canvas with
// dark text and saturated marks).
package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Point is one sample.
type Point struct {
	T time.Time
	V float64
}

// Marker is a moment drawn as a vertical line with a label (the blamed
// change: its short SHA).
type Marker struct {
	At    time.Time
	Label string
}

// Spec is one chart.
type Spec struct {
	Title string // "payment: error ratio"
	Unit  string // axis label: "ratio", "bytes", "s"
	// Points of the series, in time order (at least two).
	Points []Point
	// BaselineLow and BaselineHigh bound the series' normal range before
	// the onset (both zero: no band).
	BaselineLow, BaselineHigh float64
	// Limit, when set, is drawn as a horizontal line (a memory limit).
	Limit      float64
	LimitLabel string
	Onset      time.Time // zero: none
	Change     *Marker   // nil: none
}

// Size of the image: wide enough to read on a laptop, small in bytes.
const (
	Width  = 800
	Height = 360
	dpi    = 96
)

// Colours: saturated enough to read on Slack's dark theme around the
// image, on a light canvas that keeps the text dark.
var (
	background = color.RGBA{R: 0xfb, G: 0xfb, B: 0xfc, A: 0xff}
	ink        = color.RGBA{R: 0x1d, G: 0x1c, B: 0x1d, A: 0xff}
	seriesInk  = color.RGBA{R: 0x12, G: 0x64, B: 0xa3, A: 0xff}
	bandFill   = color.NRGBA{R: 0x2b, G: 0xac, B: 0x76, A: 0x48}
	onsetInk   = color.RGBA{R: 0xe0, G: 0x1e, B: 0x5a, A: 0xff}
	changeInk  = color.RGBA{R: 0xe8, G: 0x91, B: 0x2d, A: 0xff}
	limitInk   = color.RGBA{R: 0x61, G: 0x60, B: 0x61, A: 0xff}
)

// ErrTooFewPoints: a chart needs at least two samples.
var ErrTooFewPoints = errors.New("chart: fewer than two points")

// PNG draws s.
func PNG(s Spec) ([]byte, error) {
	if len(s.Points) < 2 {
		return nil, ErrTooFewPoints
	}
	p := plot.New()
	p.BackgroundColor = background
	p.Title.Text = s.Title
	p.Title.TextStyle.Color = ink
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Y.Label.Text = s.Unit
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Color, a.Label.TextStyle.Color, a.Tick.Color, a.Tick.Label.Color = ink, ink, ink, ink
	}
	p.Y.Tick.Marker = unitTicks{unit: s.Unit}
	p.X.Tick.Marker = minuteTicks{}
	p.Add(plotter.NewGrid())

	xs := make(plotter.XYs, 0, len(s.Points))
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range s.Points {
		if math.IsNaN(pt.V) || math.IsInf(pt.V, 0) {
			continue
		}
		xs = append(xs, plotter.XY{X: float64(pt.T.Unix()), Y: pt.V})
		lo, hi = min(lo, pt.V), max(hi, pt.V)
	}
	if len(xs) < 2 {
		return nil, ErrTooFewPoints
	}
	x0, x1 := xs[0].X, xs[len(xs)-1].X
	// A change shortly before the first sample widens the axis to it (up
	// to the series' own span); one further back is named at the left edge.
	var changeBefore string
	if s.Change != nil && !s.Change.At.IsZero() {
		if at := float64(s.Change.At.Unix()); at < x0 {
			if x0-at <= x1-x0 {
				x0 = at
			} else {
				changeBefore = "<- " + s.Change.Label
			}
		}
	}
	if s.Limit > 0 {
		hi = max(hi, s.Limit)
	}
	hi = max(hi, s.BaselineHigh)
	lo = min(lo, s.BaselineLow, 0)
	if hi <= lo {
		hi = lo + 1
	}
	p.Y.Min, p.Y.Max = lo, hi+(hi-lo)*0.12 // room for the labels
	p.X.Min, p.X.Max = x0, x1

	if s.BaselineHigh > s.BaselineLow {
		band, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: s.BaselineLow}, {X: x1, Y: s.BaselineLow}, {X: x1, Y: s.BaselineHigh}, {X: x0, Y: s.BaselineHigh}})
		if err != nil {
			return nil, fmt.Errorf("chart: baseline: %w", err)
		}
		band.Color, band.LineStyle.Width = bandFill, 0
		p.Add(band)
		p.Legend.Add("baseline", band)
	}
	line, err := plotter.NewLine(xs)
	if err != nil {
		return nil, fmt.Errorf("chart: series: %w", err)
	}
	line.Color, line.Width = seriesInk, vg.Points(2)
	p.Add(line)
	top := p.Y.Max
	var labels plotter.XYLabels
	vertical := func(at time.Time, c color.Color, dashed bool, label string) error {
		x := float64(at.Unix())
		if x < x0 || x > x1 {
			return nil
		}
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: top}})
		if err != nil {
			return err
		}
		l.Color, l.Width = c, vg.Points(1.5)
		if dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		labels.XYs = append(labels.XYs, plotter.XY{X: x, Y: top - (top-p.Y.Min)*0.06})
		labels.Labels = append(labels.Labels, " "+label)
		return nil
	}
	if !s.Onset.IsZero() {
		if err := vertical(s.Onset, onsetInk, true, "onset "+s.Onset.UTC().Format("15:04")); err != nil {
			return nil, fmt.Errorf("chart: onset: %w", err)
		}
	}
	if s.Change != nil && !s.Change.At.IsZero() {
		if err := vertical(s.Change.At, changeInk, false, s.Change.Label); err != nil {
			return nil, fmt.Errorf("chart: change: %w", err)
		}
	}
	if changeBefore != "" {
		labels.XYs = append(labels.XYs, plotter.XY{X: x0, Y: top - (top-p.Y.Min)*0.14})
		labels.Labels = append(labels.Labels, " "+changeBefore)
	}
	if s.Limit > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: s.Limit}, {X: x1, Y: s.Limit}})
		if err != nil {
			return nil, fmt.Errorf("chart: limit: %w", err)
		}
		l.Color, l.Dashes = limitInk, []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		name := s.LimitLabel
		if name == "" {
			name = "limit"
		}
		labels.XYs = append(labels.XYs, plotter.XY{X: x0, Y: s.Limit})
		labels.Labels = append(labels.Labels, " "+name)
	}
	if len(labels.XYs) > 0 {
		lb, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, fmt.Errorf("chart: labels: %w", err)
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Color = ink
			lb.TextStyle[i].Font.Size = vg.Points(9)
		}
		p.Add(lb)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Color = ink

	c := vgimg.NewWith(vgimg.UseWH(vg.Length(Width)*vg.Inch/dpi, vg.Length(Height)*vg.Inch/dpi), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(background))
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	// Fast compression: a third of the time of the default level, and the
	// flat colours of a chart still compress to a few tens of KB.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, c.Image()); err != nil {
		return nil, fmt.Errorf("chart: png: %w", err)
	}
	return buf.Bytes(), nil
}

// unitTicks labels the default ticks in the series' unit: bytes in binary
// units, ratios in percent.
type unitTicks struct{ unit string }

func (u unitTicks) Ticks(min, max float64) []plot.Tick {
	if u.unit == "bytes" {
		// Round numbers of the binary unit the axis reaches (32Mi, 64Mi…).
		scale := 1.0
		for _, size := range []float64{1 << 40, 1 << 30, 1 << 20, 1 << 10} {
			if math.Max(math.Abs(min), math.Abs(max)) >= size {
				scale = size
				break
			}
		}
		ticks := plot.DefaultTicks{}.Ticks(min/scale, max/scale)
		for i := range ticks {
			ticks[i].Value *= scale
			if ticks[i].Label != "" {
				ticks[i].Label = formatValue(ticks[i].Value, u.unit)
			}
		}
		return ticks
	}
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = formatValue(ticks[i].Value, u.unit)
		}
	}
	return ticks
}

// minuteTicks marks the time axis at round minutes (every 1, 2, 5, 10,
// 15, 20, 30 minutes or hours), about six labels across.
type minuteTicks struct{}

func (minuteTicks) Ticks(min, max float64) []plot.Tick {
	span := max - min
	step := 60.0
	for _, m := range []float64{1, 2, 5, 10, 15, 20, 30, 60, 120, 180, 360, 720, 1440} {
		step = m * 60
		if span/step <= 7 {
			break
		}
	}
	format := "15:04"
	if span > 36*3600 {
		format = "Jan 2 15:04"
	}
	var ticks []plot.Tick
	for t := math.Ceil(min/step) * step; t <= max; t += step {
		ticks = append(ticks, plot.Tick{Value: t, Label: time.Unix(int64(t), 0).UTC().Format(format)})
		// A minor tick halfway, unlabelled.
		if h := t + step/2; h <= max {
			ticks = append(ticks, plot.Tick{Value: h})
		}
	}
	return ticks
}

func formatValue(v float64, unit string) string {
	switch unit {
	case "bytes":
		for _, u := range []struct {
			size float64
			name string
		}{{1 << 40, "Ti"}, {1 << 30, "Gi"}, {1 << 20, "Mi"}, {1 << 10, "Ki"}} {
			if math.Abs(v) >= u.size {
				return trimFloat(v/u.size) + u.name
			}
		}
		return trimFloat(v)
	case "ratio":
		return trimFloat(v*100) + "%"
	case "s":
		if math.Abs(v) < 1 && v != 0 {
			return trimFloat(v*1000) + "ms"
		}
		return trimFloat(v) + "s"
	case "/s":
		return trimFloat(v) + "/s"
	}
	return trimFloat(v)
}

func trimFloat(v float64) string {
	if math.Abs(v) < 1 && v != 0 {
		return strconv.FormatFloat(v, 'g', 2, 64) // 0.0029, not 0.0
	}
	s := fmt.Sprintf("%.1f", v)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s
}
