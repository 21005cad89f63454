package benchmarks

import (
	"fmt"
	"image/color"
	"os"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// sideColors gives each side one colour in every panel; the floor is
// black.
var sideColors = map[string]color.RGBA{
	"badger":    {0, 0, 0, 255},
	"ordinary":  {213, 94, 0, 255},
	"clustered": {0, 114, 178, 255},
	"nottl":     {0, 158, 115, 255},
	"sqlite":    {204, 121, 167, 255},
	"rawidx":    {128, 128, 128, 255},
	"rawidx2":   {190, 190, 190, 255},
}

// plotSteady draws ws (every side's windows of one run of cfg) as four
// panels over time (live documents, CPU µs per document, bytes written
// per byte inserted, RSS), one line a side, into a PNG named name.
func plotSteady(name string, cfg steadyConfig, ws []steadyWindow) error {
	panels := []struct {
		title, y string
		f        func(steadyWindow) float64
	}{
		{"live documents", "thousands", func(w steadyWindow) float64 { return float64(w.Live) / 1000 }},
		{"CPU per document (insert + expire)", "µs", func(w steadyWindow) float64 { return w.CPUus }},
		{"bytes written per byte inserted", "ratio", func(w steadyWindow) float64 { return w.WBytes }},
		{"process RSS", "MiB", func(w steadyWindow) float64 { return float64(w.RSS) / (1 << 20) }},
	}
	var sides []string
	seen := map[string]bool{}
	for _, w := range ws {
		if !seen[w.Side] {
			seen[w.Side] = true
			sides = append(sides, w.Side)
		}
	}
	xlabel := "seconds"
	if cfg.Mode == modeCompressed {
		xlabel = "simulated seconds (one tick each)"
	}
	plots := make([][]*plot.Plot, 2)
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.title
		if i == 0 {
			p.Title.Text = fmt.Sprintf("%s (%s time: %d docs/s, TTL %d s, batches of %d)", pn.title, cfg.Mode, cfg.Rate, cfg.TTL, steadyBatch)
		}
		p.X.Label.Text = xlabel
		p.Y.Label.Text = pn.y
		p.Y.Min = 0
		p.Y.Tick.Marker = plainTicks{}
		p.Legend.Top = true
		p.Legend.Left = true
		for _, side := range sides {
			var xys plotter.XYs
			for _, w := range ws {
				if w.Side == side {
					xys = append(xys, plotter.XY{X: w.End, Y: pn.f(w)})
				}
			}
			l, sc, err := plotter.NewLinePoints(xys)
			if err != nil {
				return err
			}
			l.Color, sc.Color = sideColors[side], sideColors[side]
			l.Width = vg.Points(1.5)
			sc.Radius = vg.Points(2)
			p.Add(l, sc)
			if i == 0 {
				p.Legend.Add(sideLabel(side), l)
			}
		}
		plots[i/2] = append(plots[i/2], p)
	}
	const w, h = 12 * vg.Inch, 8 * vg.Inch
	img := vgimg.New(w, h)
	dc := draw.New(img)
	canvases := plot.Align(plots, draw.Tiles{Rows: 2, Cols: 2, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}, dc)
	for r := range plots {
		for c := range plots[r] {
			plots[r][c].Draw(canvases[r][c])
		}
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// plainTicks are plot.DefaultTicks labelled without trailing zeros.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		}
	}
	return ts
}

func sideLabel(side string) string {
	switch side {
	case "badger":
		return "raw Badger (floor)"
	case "ordinary":
		return "ttlkv, TTL index"
	case "clustered":
		return "ttlkv, clustered + TTL index"
	case "nottl":
		return "ttlkv, no TTL index"
	case sqliteSide:
		return "SQLite (WAL, date index, reaper)"
	case rawIdxSide:
		return "raw Badger, ttlkv's 3 keys, hand-made reaper"
	case rawIdx2Side:
		return "raw Badger, 2 keys (as clustered), hand-made reaper"
	}
	return side
}
