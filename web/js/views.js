// The views painted from the core's display lists and series: the
// diagram, the overview strip, the compare panes, the step table and the
// charts, built once and read by every other module.
import { $ } from "./dom.js";
import { Diagram } from "./diagram.js";
import { Charts } from "./charts.js";
import { Overview } from "./overview.js";
import { CompareView } from "./compare.js";
import { StepTable } from "./steptable.js";
import { S, RT } from "./state.js";
import { drawOverview, showRange } from "./windowing.js";
import { toggleLane } from "./lanes.js";
import { seek } from "./cursor.js";
import { showHover } from "./hover.js";
import { showSide } from "./comparing.js";

export let diagram;
export let charts;
export let overview;
export let cmpView;
export let stepTable;

// makeViews builds the views on the page's elements, each calling back
// into the controller.
export function makeViews() {
  diagram = new Diagram($("#diagram"), {
    onSelect: (step) => seek(step),
    onHover: showHover,
    onDraw: () => {
      RT.drawn++;
      if (!RT.firstDraw && S.run) RT.firstDraw = performance.now();
      drawOverview();
    },
    onLane: toggleLane,
  });
  overview = new Overview($("#overview"), { onRange: showRange, onSeek: (s) => seek(s, { center: true }) });
  RT.overview = overview;
  cmpView = new CompareView($("#cmpA"), $("#cmpB"), {
    onSelect: async (side, step) => {
      await showSide(side === 0 ? S.compare.a : S.compare.b);
      await seek(step, { center: true });
    },
  });
  RT.compareView = cmpView;
  stepTable = new StepTable($("#steptable"), $("#steptablebody"), { onSelect: (s) => seek(s, { center: true }) });
  charts = new Charts($("#charts"), { onSelect: (step) => seek(step), folds: $("#chartfolds") });
  RT.charts = charts;
  RT.diagram = diagram;
}
