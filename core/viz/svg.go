package viz

import (
	"strconv"
	"strings"
)

// SVG writes a display list as a standalone SVG document. Shapes carry
// their step as data-step, so a page can map clicks back to steps.
func SVG(d *Display) []byte {
	b := make([]byte, 0, len(d.Shapes)*96+4096)
	b = append(b, `<svg xmlns="http://www.w3.org/2000/svg" width="`...)
	b = appendNum(b, d.Width)
	b = append(b, `" height="`...)
	b = appendNum(b, d.Height)
	b = append(b, `" viewBox="0 0 `...)
	b = appendNum(b, d.Width)
	b = append(b, ' ')
	b = appendNum(b, d.Height)
	b = append(b, `" font-family="`+FontFamily+`">`+"\n<style>\n"...)
	for _, s := range d.Styles {
		b = appendStyle(b, s)
	}
	b = append(b, ".dim{opacity:"...)
	b = appendNum(b, DimOpacity)
	b = append(b, "}\n</style>\n"+`<rect width="100%" height="100%" fill="#ffffff"/>`+"\n"...)
	for i := range d.Shapes {
		if isAggregate(d.Shapes[i].Class) {
			continue // an SVG zooms: it shows every step
		}
		b = appendShape(b, &d.Shapes[i])
	}
	return append(b, "</svg>\n"...)
}

func appendStyle(b []byte, s Style) []byte {
	b = append(b, '.')
	b = append(b, s.Class...)
	b = append(b, "{fill:"...)
	if s.Fill == "" {
		b = append(b, "none"...)
	} else {
		b = append(b, s.Fill...)
	}
	if s.StrokeWidth > 0 && s.Stroke != "" {
		b = append(b, ";stroke:"...)
		b = append(b, s.Stroke...)
		b = append(b, ";stroke-width:"...)
		b = appendNum(b, s.StrokeWidth)
		if s.Dash != "" {
			b = append(b, ";stroke-dasharray:"...)
			b = append(b, s.Dash...)
		}
	}
	if s.Opacity > 0 && s.Opacity < 1 {
		b = append(b, ";opacity:"...)
		b = appendNum(b, s.Opacity)
	}
	if s.FontSize > 0 {
		b = append(b, ";font-size:"...)
		b = appendNum(b, s.FontSize)
		b = append(b, "px"...)
	}
	if s.FontWeight != "" {
		b = append(b, ";font-weight:"...)
		b = append(b, s.FontWeight...)
	}
	if s.Anchor != "" {
		b = append(b, ";text-anchor:"...)
		b = append(b, s.Anchor...)
	}
	return append(b, "}\n"...)
}

func appendAttr(b []byte, name string, v float64) []byte {
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, `="`...)
	b = appendNum(b, v)
	return append(b, '"')
}

func appendShape(b []byte, s *Shape) []byte {
	switch s.Type {
	case Rect:
		b = append(b, "<rect"...)
		b = appendAttr(b, "x", s.X)
		b = appendAttr(b, "y", s.Y)
		b = appendAttr(b, "width", s.W)
		b = appendAttr(b, "height", s.H)
	case Line:
		b = append(b, "<line"...)
		b = appendAttr(b, "x1", s.X)
		b = appendAttr(b, "y1", s.Y)
		b = appendAttr(b, "x2", s.X2)
		b = appendAttr(b, "y2", s.Y2)
	case Circle:
		b = append(b, "<circle"...)
		b = appendAttr(b, "cx", s.X)
		b = appendAttr(b, "cy", s.Y)
		b = appendAttr(b, "r", s.R)
	case Polygon, Polyline:
		b = append(b, '<')
		b = append(b, s.Type...)
		b = append(b, ` points="`...)
		for k := 0; k+1 < len(s.Points); k += 2 {
			if k > 0 {
				b = append(b, ' ')
			}
			b = appendNum(b, s.Points[k])
			b = append(b, ',')
			b = appendNum(b, s.Points[k+1])
		}
		b = append(b, '"')
	case Text:
		b = append(b, "<text"...)
		b = appendAttr(b, "x", s.X)
		b = appendAttr(b, "y", s.Y)
	default:
		return b
	}
	b = append(b, ` class="`...)
	b = append(b, s.Class...)
	if s.Dim {
		b = append(b, " dim"...)
	}
	b = append(b, '"')
	if s.Step >= 0 {
		b = append(b, ` data-step="`...)
		b = strconv.AppendInt(b, int64(s.Step), 10)
		b = append(b, '"')
	}
	switch {
	case s.Type == Text:
		b = append(b, '>')
		if s.Title != "" {
			b = append(b, "<title>"...)
			b = appendEscaped(b, s.Title)
			b = append(b, "</title>"...)
		}
		b = appendEscaped(b, s.Text)
		return append(b, "</text>\n"...)
	case s.Title != "":
		b = append(b, "><title>"...)
		b = appendEscaped(b, s.Title)
		b = append(b, "</title></"...)
		b = append(b, s.Type...)
		return append(b, ">\n"...)
	}
	return append(b, "/>\n"...)
}

func appendEscaped(b []byte, s string) []byte {
	if !strings.ContainsAny(s, `&<>"`) {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b = append(b, "&amp;"...)
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '"':
			b = append(b, "&quot;"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendNum writes a coordinate with at most two decimals and no trailing
// zeros.
func appendNum(b []byte, v float64) []byte {
	if v == 0 {
		return append(b, '0')
	}
	start := len(b)
	b = strconv.AppendFloat(b, v, 'f', 2, 64)
	for b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	if string(b[start:]) == "-0" {
		b = append(b[:start], '0')
	}
	return b
}

func isAggregate(class string) bool { return len(class) > 4 && class[:4] == "agg-" }
