package viz

import (
	"strconv"
	"strings"
)

// SVG writes a display list as a standalone SVG document. Shapes carry
// their step as data-step, so a page can map clicks back to steps.
func SVG(d *Display) []byte {
	var b strings.Builder
	b.Grow(len(d.Shapes)*90 + 4096)
	w, h := num(d.Width), num(d.Height)
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + w + `" height="` + h + `" viewBox="0 0 ` + w + " " + h + `" font-family="` + FontFamily + `">` + "\n")
	b.WriteString("<style>\n")
	for _, s := range d.Styles {
		writeStyle(&b, s)
	}
	b.WriteString(".dim{opacity:" + num(DimOpacity) + "}\n</style>\n")
	b.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>` + "\n")
	for i := range d.Shapes {
		writeShape(&b, &d.Shapes[i])
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func writeStyle(b *strings.Builder, s Style) {
	b.WriteString("." + s.Class + "{")
	fill := s.Fill
	if fill == "" {
		fill = "none"
	}
	b.WriteString("fill:" + fill)
	if s.StrokeWidth > 0 && s.Stroke != "" {
		b.WriteString(";stroke:" + s.Stroke + ";stroke-width:" + num(s.StrokeWidth))
		if s.Dash != "" {
			b.WriteString(";stroke-dasharray:" + s.Dash)
		}
	}
	if s.Opacity > 0 && s.Opacity < 1 {
		b.WriteString(";opacity:" + num(s.Opacity))
	}
	if s.FontSize > 0 {
		b.WriteString(";font-size:" + num(s.FontSize) + "px")
	}
	if s.FontWeight != "" {
		b.WriteString(";font-weight:" + s.FontWeight)
	}
	if s.Anchor != "" {
		b.WriteString(";text-anchor:" + s.Anchor)
	}
	b.WriteString("}\n")
}

func writeShape(b *strings.Builder, s *Shape) {
	cls := s.Class
	if s.Dim {
		cls += " dim"
	}
	var tag string
	switch s.Type {
	case Rect:
		tag = "rect"
		b.WriteString(`<rect x="` + num(s.X) + `" y="` + num(s.Y) + `" width="` + num(s.W) + `" height="` + num(s.H) + `"`)
	case Line:
		tag = "line"
		b.WriteString(`<line x1="` + num(s.X) + `" y1="` + num(s.Y) + `" x2="` + num(s.X2) + `" y2="` + num(s.Y2) + `"`)
	case Circle:
		tag = "circle"
		b.WriteString(`<circle cx="` + num(s.X) + `" cy="` + num(s.Y) + `" r="` + num(s.R) + `"`)
	case Polygon, Polyline:
		tag = string(s.Type)
		b.WriteString("<" + tag + ` points="`)
		for k := 0; k+1 < len(s.Points); k += 2 {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(num(s.Points[k]) + "," + num(s.Points[k+1]))
		}
		b.WriteByte('"')
	case Text:
		tag = "text"
		b.WriteString(`<text x="` + num(s.X) + `" y="` + num(s.Y) + `"`)
	default:
		return
	}
	b.WriteString(` class="` + cls + `"`)
	if s.Step >= 0 {
		b.WriteString(` data-step="` + strconv.Itoa(s.Step) + `"`)
	}
	switch {
	case s.Type == Text:
		b.WriteByte('>')
		if s.Title != "" {
			b.WriteString("<title>" + escape(s.Title) + "</title>")
		}
		b.WriteString(escape(s.Text) + "</text>\n")
	case s.Title != "":
		b.WriteString("><title>" + escape(s.Title) + "</title></" + tag + ">\n")
	default:
		b.WriteString("/>\n")
	}
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func escape(s string) string { return xmlEscaper.Replace(s) }

// num writes a coordinate with at most two decimals.
func num(v float64) string { return formatNum(v, 2) }
