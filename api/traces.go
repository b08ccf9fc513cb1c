package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/racetrack-sim/racetrack/core/ingest"
	"github.com/racetrack-sim/racetrack/core/session"
	"github.com/racetrack-sim/racetrack/core/timeline"
)

// tracesPath is where logs are imported (its body limit is the
// server's MaxTraceBytes).
const tracesPath = "/api/v1/traces"

// minTraceBytes is the least an import reserves: a short log's records
// and their index.
const minTraceBytes = 64 << 10

// createTrace serves POST /api/v1/traces: a real system's log becomes
// runs every view of a run serves. The memory the upload and the import
// take is reserved before either starts.
func (s *Server) createTrace(w http.ResponseWriter, r *http.Request) {
	n := r.ContentLength
	if n > s.cfg.MaxTraceBytes {
		p := tooLarge(s.cfg.MaxTraceBytes)
		p.NeedBytes = n
		writeError(w, r, p)
		return
	}
	if n < 0 {
		n = s.cfg.MaxTraceBytes
	}
	// The body, and the log decoded from it.
	body, err := s.mem.reserve(kindTrace, 2*n, memoryHint{field: "log", what: "uploading this log"})
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer body.release()
	t, ok := decodeBody(w, r, session.DecodeTraceLog)
	if !ok {
		return
	}
	opened, recs, err := s.importTrace(t)
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer dropAll(recs)
	if err := s.store.PutTrace(opened.ID, traceRecord{Format: string(opened.Format), Parser: t.Parser, Delimiter: t.Delimiter,
		Hosts: opened.Hosts, Events: opened.Events, Executions: opened.Executions, Labels: opened.Labels}, t.Log); err != nil {
		writeError(w, r, fmt.Errorf("store log %s: %w", opened.ID, err))
		return
	}
	w.Header().Set("Location", "/api/v1/runs/"+recs[0].id)
	writeJSON(w, http.StatusCreated, session.Opened(opened))
}

func dropAll(recs []*recording) {
	for _, rec := range recs {
		rec.drop()
	}
}

// importTrace imports a log within memory reserved from the budget
// before parsing: the format's estimate for its size, and once more
// what the import says the whole log needs when its events turn out
// denser. It returns one recording per execution, each holding its
// share of the reservation (the caller drops them), offered to the
// cache.
func (s *Server) importTrace(t session.TraceLog) (*ingest.Opened, []*recording, error) {
	hint := memoryHint{field: "log", what: "importing this log"}
	need := max(session.TraceNeed(t), minTraceBytes)
	var mem *grant
	var opened *ingest.Opened
	var err error
	// The estimate assumes events of a typical size; the import, which
	// counts them before it makes their records, says what a log of
	// denser events or more hosts needs, and is tried again with that.
	for try := 0; ; try++ {
		if mem, err = s.mem.reserve(kindTrace, need, hint); err != nil {
			return nil, nil, err
		}
		opened, err = session.ImportTrace(t, need)
		var tle *ingest.TooLargeError
		if !errors.As(err, &tle) {
			break
		}
		mem.release()
		if try == 2 {
			return nil, nil, newProblem(http.StatusUnprocessableEntity, "too-large-for-memory", "Too large for this server's memory", "log",
				"importing this log needs about %s of memory: %v", formatBytes(tle.NeedBytes), tle)
		}
		need = tle.NeedBytes
	}
	if err != nil {
		mem.release()
		return nil, nil, err
	}
	var total int64
	sizes := make([]int64, len(opened.Timelines))
	for i, tl := range opened.Timelines {
		sizes[i] = tl.Bytes()
		total += sizes[i]
	}
	mem.resize(total)
	recs := make([]*recording, len(opened.Timelines))
	for i, tl := range opened.Timelines {
		recs[i] = &recording{id: tl.ID(), tl: tl, summary: tl.Summary(), size: sizes[i], mem: mem.split(sizes[i]), refs: 1}
		s.timelines.offer(recs[i])
	}
	s.metrics.runs.WithLabelValues("imported").Inc()
	return opened, recs, nil
}

// storedExecution reads the record of the log execution k of run id
// belongs to (session.ExecutionOf), refusing an id that names no
// execution of it: a log of one execution is run by its own id, one of
// several by id-k.
func (s *Server) storedExecution(id, logID string, k int) (traceRecord, error) {
	rec, err := s.store.Trace(logID)
	if errors.Is(err, ErrNotStored) {
		return rec, notFound("id", "no log with id %s; import it with POST %s", logID, tracesPath)
	}
	if err != nil {
		return rec, fmt.Errorf("read log %s: %w", logID, err)
	}
	if k >= rec.Executions || (id == logID) != (rec.Executions == 1) {
		return rec, notFound("id", "log %s holds %d execution(s): its runs are %s", logID, rec.Executions, traceRuns(logID, rec.Executions))
	}
	return rec, nil
}

// lookupTrace resolves the id of an imported execution (execution k of
// log logID): the cache, else the stored log imported again.
func (s *Server) lookupTrace(id, logID string, k int) (*recording, error) {
	if rec, ok := s.timelines.peek(id); ok {
		return rec, nil
	}
	return s.timelines.get(id, func() (*recording, error) {
		if _, err := s.storedExecution(id, logID, k); err != nil {
			return nil, err
		}
		t, err := s.store.TraceLog(logID)
		if err != nil {
			return nil, fmt.Errorf("read log %s: %w", logID, err)
		}
		_, recs, err := s.importTrace(t)
		if err != nil {
			var p *Problem
			if errors.As(err, &p) && memoryRefusal(p) {
				return nil, err
			}
			return nil, newProblem(http.StatusGone, "gone", "Gone", "id", "log %s can no longer be imported by this server: %v", logID, err)
		}
		var found *recording
		for _, r := range recs {
			if r.id == id {
				found = r
			} else {
				r.drop()
			}
		}
		if found == nil {
			return nil, notFound("id", "log %s holds %d executions: its runs are %s", logID, len(recs), traceRuns(logID, len(recs)))
		}
		return found, nil
	})
}

// traceRuns names the runs of a log of n executions.
func traceRuns(id string, n int) string {
	if n == 1 {
		return id
	}
	if n > 3 {
		return id + "-1 to " + id + "-" + strconv.Itoa(n)
	}
	var ids []string
	for k := 1; k <= n; k++ {
		ids = append(ids, id+"-"+strconv.Itoa(k))
	}
	return strings.Join(ids, ", ")
}

// serverTraces gives a socket's session the server's imported logs:
// imported within the budget and stored, as POST /api/v1/traces does,
// and opened by id from the store ("#trace=ID" in the page). Their
// recordings are held like the session's runs.
func (r *serverRuns) Import(a session.TraceArgs) (*ingest.Opened, error) {
	if a.ID == "" {
		opened, recs, err := r.s.importTrace(a.TraceLog)
		if err != nil {
			return nil, sessionErrorOf(err)
		}
		defer dropAll(recs)
		if err := r.s.store.PutTrace(opened.ID, traceRecord{Format: string(opened.Format), Parser: a.Parser, Delimiter: a.Delimiter,
			Hosts: opened.Hosts, Events: opened.Events, Executions: opened.Executions, Labels: opened.Labels}, a.Log); err != nil {
			return nil, sessionErrorOf(fmt.Errorf("store log %s: %w", opened.ID, err))
		}
		for _, rec := range recs {
			rec.hold()
			r.keep(rec)
		}
		return opened, nil
	}
	if logID, _, ok := session.ExecutionOf(a.ID); !ok || logID != a.ID {
		return nil, &session.Error{Code: session.CodeNotFound, Field: "id", Message: fmt.Sprintf("no log with id %q: a log id is log- followed by 16 hex digits", truncate(a.ID, 40))}
	}
	rec, err := r.s.store.Trace(a.ID)
	if errors.Is(err, ErrNotStored) {
		return nil, &session.Error{Code: session.CodeNotFound, Field: "id", Message: "no log with id " + a.ID + " on this server; open the log file again"}
	}
	if err != nil {
		return nil, err
	}
	opened := &ingest.Opened{ID: a.ID, Format: ingest.Format(rec.Format), Hosts: rec.Hosts, Events: rec.Events,
		Executions: rec.Executions, Labels: rec.Labels}
	for k := 1; k <= rec.Executions; k++ {
		id := a.ID
		if rec.Executions > 1 {
			id += "-" + strconv.Itoa(k)
		}
		tl, err := r.Timeline(id)
		if err != nil {
			return nil, err
		}
		opened.Timelines = append(opened.Timelines, tl)
	}
	return opened, nil
}

// Timeline returns an imported execution's timeline, held for the socket.
func (r *serverRuns) Timeline(id string) (*timeline.Timeline, error) {
	rec, err := r.s.lookupRun(id)
	if err != nil {
		return nil, sessionErrorOf(err)
	}
	r.keep(rec)
	return rec.tl, nil
}

// Log returns a stored log as it was imported (a check against a model
// reads its executions again; the socket's admission reserved that).
func (r *serverRuns) Log(id string) (session.TraceLog, error) {
	t, err := r.s.store.TraceLog(id)
	if errors.Is(err, ErrNotStored) {
		return t, &session.Error{Code: session.CodeNotFound, Field: "run", Message: "no log " + id + " on this server"}
	}
	return t, err
}
