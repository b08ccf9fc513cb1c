// Package viz lays out a timeline as a display list: the space-time
// diagram (lanes per node, shard and process; event glyphs; message
// arrows; lock-hold bars and waits; violation markers; axes) and charts of
// the run's series. A display list is plain data — shapes with
// coordinates, a style class and the step each stands for — so the browser
// paints it on a canvas and the server writes it as SVG (SVG in this
// package) from one computation.
//
// viz computes coordinates only; it never measures fonts, reads a clock or
// performs I/O. Text widths are estimated from character counts.
package viz

import "errors"

// ErrWindow is wrapped by errors about a window outside the timeline or
// malformed options.
var ErrWindow = errors.New("viz: bad window")

// ShapeType is what a shape draws.
type ShapeType string

// Shape types. Coordinates are in pixels from the top left.
const (
	// Rect draws X, Y, W, H.
	Rect ShapeType = "rect"
	// Line draws from X, Y to X2, Y2.
	Line ShapeType = "line"
	// Circle draws a circle of radius R at X, Y.
	Circle ShapeType = "circle"
	// Polygon closes Points (x0, y0, x1, y1, ...).
	Polygon ShapeType = "polygon"
	// Polyline draws Points open.
	Polyline ShapeType = "polyline"
	// Text writes Text with its baseline at X, Y; the style gives the
	// font size, weight and anchor.
	Text ShapeType = "text"
)

// Shape is one primitive of a display list.
type Shape struct {
	Type   ShapeType `json:"t"`
	Class  string    `json:"c"`
	X      float64   `json:"x"`
	Y      float64   `json:"y"`
	X2     float64   `json:"x2,omitempty"`
	Y2     float64   `json:"y2,omitempty"`
	W      float64   `json:"w,omitempty"`
	H      float64   `json:"h,omitempty"`
	R      float64   `json:"r,omitempty"`
	Points []float64 `json:"p,omitempty"`
	Text   string    `json:"text,omitempty"`
	// Step is the step the shape stands for (hover and click), -1 for
	// none (lanes, axes).
	Step int `json:"s"`
	// Title is a hover text for shapes whose step alone does not say
	// enough (a violation's explanation, a hold's mutex).
	Title string `json:"title,omitempty"`
	// Dim is set on shapes outside the highlighted causal slice.
	Dim bool `json:"dim,omitempty"`
}

// Style is how a class is painted. Colours are CSS colours; a zero
// StrokeWidth means no stroke and an empty Fill means none.
type Style struct {
	Class       string  `json:"class"`
	Fill        string  `json:"fill,omitempty"`
	Stroke      string  `json:"stroke,omitempty"`
	StrokeWidth float64 `json:"strokeWidth,omitempty"`
	// Dash is an SVG dash array ("4 3").
	Dash       string  `json:"dash,omitempty"`
	Opacity    float64 `json:"opacity,omitempty"` // 0 means 1
	FontSize   float64 `json:"fontSize,omitempty"`
	FontWeight string  `json:"fontWeight,omitempty"`
	// Anchor is the text anchor: start, middle or end.
	Anchor string `json:"anchor,omitempty"`
}

// DimOpacity is the opacity multiplier of dimmed shapes.
const DimOpacity = 0.18

// FontFamily is the font every text uses.
const FontFamily = "DejaVu Sans, Verdana, Arial, sans-serif"

// Box is a rectangle.
type Box struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// XScale maps the horizontal axis: a domain value (a step index or a time
// in ms) v sits at Plot.X + (v-Domain[0]) * Plot.W / (Domain[1]-Domain[0]).
type XScale struct {
	Axis   string     `json:"axis"` // "step" or "time"
	Domain [2]float64 `json:"domain"`
}

// LaneInfo says where a lane is, for hit testing.
type LaneInfo struct {
	Label string `json:"label"`
	Node  int    `json:"node"`
	// Procs are the processes drawn in the lane (several when shards are
	// collapsed).
	Procs []int   `json:"procs"`
	Y     float64 `json:"y"`
	H     float64 `json:"h"`
}

// Display is a display list.
type Display struct {
	Kind   string  `json:"kind"` // "diagram" or "charts"
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	// Plot is the data area of a diagram (of the first panel of charts).
	Plot   Box        `json:"plot"`
	X      XScale     `json:"x"`
	From   int        `json:"from"`
	To     int        `json:"to"`
	Lanes  []LaneInfo `json:"lanes,omitempty"`
	Styles []Style    `json:"styles"`
	Shapes []Shape    `json:"shapes"`
	// Aggregated says the list also holds aggregate marks (classes
	// "agg-1".."agg-4", one per lane and AggCols column of the window,
	// with the step count in the title) for a painter to show instead of
	// the single steps (classes "ev-", "label", "msg", "hold-label") when
	// it draws fewer than AggMinPx pixels per step. An SVG shows the steps.
	Aggregated bool `json:"aggregated,omitempty"`
	// Overview is the density of the whole run, for a navigation strip.
	Overview *Overview `json:"overview,omitempty"`
}

// Overview is the whole run at a glance: Counts[lane][col] is how many
// steps of the display's lane (in Lanes order) fall in column col, the
// steps [col*Steps/Cols, (col+1)*Steps/Cols). Max is the largest count.
type Overview struct {
	Steps  int     `json:"steps"`
	Cols   int     `json:"cols"`
	Max    int     `json:"max"`
	Counts [][]int `json:"counts"`
}

// Okabe-Ito: a palette distinguishable with every common colour-vision
// deficiency.
const (
	okBlack     = "#000000"
	okGreen     = "#009E73"
	okBlue      = "#0072B2"
	okVermilion = "#D55E00"
)

// Marks (glyphs, bars, lines) must stand out at 3:1 from the white and
// grey lane bands (WCAG 1.4.11): the light Okabe-Ito hues darkened to
// reach it, keeping each hue.
const (
	inkOrange = "#BF7300" // Okabe-Ito #E69F00, 3.7:1 on white
	inkSky    = "#2D8BC9" // #56B4E9, 3.7:1
	inkPurple = "#B5608F" // #CC79A7, 4.2:1
	inkYellow = "#938200" // #F0E442, 3.9:1
)

// seriesPalette orders the palette for lines and mutexes: the darker,
// most distinct colours first (yellow comes last).
var seriesPalette = [...]string{okBlue, inkOrange, okGreen, inkPurple, inkSky, okVermilion, okBlack, inkYellow}

// textPalette is seriesPalette darkened further for text, which needs
// 4.5:1 on white (WCAG 1.4.3): a series' value printed in its colour.
var textPalette = [...]string{okBlue, "#9E6300", "#007A5A", "#A8557F", "#1A6FA8", "#B04E00", okBlack, "#7F7000"}

// textVermilion is the vermilion of violation names (5.3:1 on white).
const textVermilion = "#B04E00"
