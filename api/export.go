package api

import (
	"bufio"
	"io"
	"net/http"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/racetrack-sim/racetrack/core/export"
)

// exportFormat is a format's writer, media type and file suffix.
type exportFormat struct {
	write  export.Writer
	media  string
	suffix string
}

// exportBytes is what one export in progress is charged: its buffer and
// the encoder's pieces (the run itself is held by the recording).
const exportBytes = 1 << 20

// exportBuffer is how much of an export is gathered before it is sent.
const exportBuffer = 64 << 10

// streamExport writes an export to the client as the core produces it,
// within an export slot and a memory grant, so no export is ever held
// whole in memory. A body that cannot be completed after it has started
// (the client is too slow for the write timeout, or gone) ends by
// aborting the connection: the client sees an error, never a truncated
// 200.
func (s *Server) streamExport(w http.ResponseWriter, r *http.Request, rec *recording, f exportFormat) {
	select {
	case s.exportSlots <- struct{}{}:
		defer func() { <-s.exportSlots }()
	default:
		writeError(w, r, busy(2, "all %d export slots are busy; retry shortly", cap(s.exportSlots)))
		return
	}
	mem, err := s.mem.reserve(kindExport, exportBytes, memoryHint{what: "this export"})
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer mem.release()
	w.Header().Set("Content-Type", f.media)
	w.Header().Set("Content-Disposition", `attachment; filename="`+rec.id+f.suffix+`"`)
	sent := &countingWriter{w: w}
	bw := bufio.NewWriterSize(sent, exportBuffer)
	err = f.write(bw, rec.tl)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		return
	}
	if sent.n == 0 {
		w.Header().Del("Content-Disposition")
		writeError(w, r, err)
		return
	}
	loggerFrom(r.Context()).WarnContext(r.Context(), "export aborted", "run", rec.id, "sent", sent.n, "err", err,
		"requestId", middleware.GetReqID(r.Context()))
	s.metrics.exportsAborted.Inc()
	panic(http.ErrAbortHandler)
}

// countingWriter counts the bytes handed to the client.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
