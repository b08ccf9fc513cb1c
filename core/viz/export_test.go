package viz

// TextWidth exposes the label-width estimate to the external tests.
var TextWidth = textWidth
