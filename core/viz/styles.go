package viz

import (
	"strconv"
)

func diagramStyles() []Style {
	st := []Style{
		{Class: "band", Fill: "#ffffff"},
		{Class: "band-alt", Fill: "#f3f4f6"},
		{Class: "band-sep", Stroke: "#d0d4da", StrokeWidth: 1},
		{Class: "lane", Stroke: "#9aa1ab", StrokeWidth: 1},
		{Class: "node-label", Fill: "#222222", FontSize: laneLabelPx, FontWeight: "bold", Anchor: "start"},
		{Class: "lane-label", Fill: "#333333", FontSize: laneLabelPx, Anchor: "end"},
		{Class: "grid", Stroke: "#e3e6ea", StrokeWidth: 1},
		{Class: "axis", Stroke: "#555555", StrokeWidth: 1},
		{Class: "tick-label", Fill: "#444444", FontSize: 11, Anchor: "middle"},
		{Class: "axis-title", Fill: "#444444", FontSize: 11, Anchor: "end"},
		{Class: "label", Fill: "#333333", FontSize: labelPx, Anchor: "start"},
		{Class: "hold-label", Fill: "#333333", FontSize: 9, Anchor: "start"},
		{Class: "wait-label", Fill: textVermilion, FontSize: labelPx, Anchor: "middle"},
		{Class: "legend", Fill: "#333333", FontSize: labelPx, Anchor: "start"},
		{Class: "ev-receive", Fill: okBlue, Stroke: "#ffffff", StrokeWidth: 1},
		{Class: "ev-timer", Fill: inkOrange, Stroke: "#ffffff", StrokeWidth: 1},
		{Class: "ev-local", Fill: "#555555"},
		{Class: "ev-lock", Fill: "#222222"},
		{Class: "ev-unlock", Fill: "#ffffff", Stroke: "#222222", StrokeWidth: 1.5},
		{Class: "ev-block", Fill: "#ffffff", Stroke: okVermilion, StrokeWidth: 2},
		{Class: "ev-wait", Fill: "#ffffff", Stroke: inkPurple, StrokeWidth: 2},
		{Class: "ev-signal", Fill: inkPurple},
		{Class: "ev-fault", Stroke: okVermilion, StrokeWidth: 2.5},
		{Class: "ev-exit", Stroke: "#222222", StrokeWidth: 2.5},
		{Class: "wait", Stroke: okVermilion, StrokeWidth: 2.5, Dash: "5 3"},
		{Class: "cond-wait", Stroke: inkPurple, StrokeWidth: 2, Dash: "2 3"},
		{Class: "msg", Stroke: okBlue, StrokeWidth: 1.3},
		{Class: "msg-head", Fill: okBlue},
		{Class: "msg-dense", Stroke: okBlue, StrokeWidth: 0.8, Opacity: 0.35},
		{Class: "msg-dense-head", Fill: okBlue, Opacity: 0.35},
		{Class: "msg-inflight", Stroke: okBlue, StrokeWidth: 1.3, Dash: "3 3"},
		{Class: "msg-inflight-head", Fill: okBlue},
		{Class: "msg-dropped", Stroke: okVermilion, StrokeWidth: 1.3, Dash: "4 3"},
		{Class: "msg-drop-x", Stroke: okVermilion, StrokeWidth: 2},
		{Class: "violation", Stroke: okVermilion, StrokeWidth: 2},
		{Class: "violation-label", Fill: textVermilion, FontSize: 11, FontWeight: "bold", Anchor: "start"},
		{Class: "violation-label-end", Fill: textVermilion, FontSize: 11, FontWeight: "bold", Anchor: "end"},
		{Class: "violation-mark", Fill: okVermilion, Stroke: "#ffffff", StrokeWidth: 1},
		{Class: "cycle", Stroke: cycleInk, StrokeWidth: 2},
		{Class: "agg-1", Fill: okBlue, Opacity: 0.3},
		{Class: "agg-2", Fill: okBlue, Opacity: 0.5},
		{Class: "agg-3", Fill: okBlue, Opacity: 0.75},
		{Class: "agg-4", Fill: okBlue},
		{Class: "cycle-head", Fill: cycleInk},
		{Class: "cycle-label", Fill: cycleInk, FontSize: labelPx, FontWeight: "bold", Anchor: "start"},
		{Class: "cycle-label-end", Fill: cycleInk, FontSize: labelPx, FontWeight: "bold", Anchor: "end"},
	}
	for k, c := range seriesPalette {
		st = append(st, Style{Class: "hold-m" + strconv.Itoa(k), Fill: c})
	}
	return st
}
