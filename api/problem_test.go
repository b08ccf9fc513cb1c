package api

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProblemListsEveryField: a spec with several bad fields gets one 422
// whose errors name each of them, in the order they were checked; a
// search config the same.
func TestProblemListsEveryField(t *testing.T) {
	ts := newTestServer(t)
	p := ts.post(t, "/api/v1/runs", `{"scenario":"dining-philosophers","preset":"x","params":{"philosophers":99,"forks":1},"maxTime":-1}`).problem(t)
	assert.Equal(t, http.StatusUnprocessableEntity, p.Status)
	assert.Equal(t, "preset", p.Field)
	var fields []string
	for _, e := range p.Errors {
		fields = append(fields, e.Field)
		assert.NotEmpty(t, e.Detail, e.Field)
	}
	assert.Equal(t, []string{"preset", "params.forks", "params.philosophers", "maxTime"}, fields)
	assert.Contains(t, p.Detail, "params.philosophers: ")

	p = ts.post(t, "/api/v1/searches", `{"scenario":"dining-philosophers","strategy":"bogo","property":"nope"}`).problem(t)
	assert.Equal(t, http.StatusUnprocessableEntity, p.Status)
	fields = fields[:0]
	for _, e := range p.Errors {
		fields = append(fields, e.Field)
	}
	assert.Equal(t, []string{"strategy", "property"}, fields)

	// A problem about one field lists it too, so a client reads one shape.
	p = ts.get(t, "/api/v1/runs/r00000000000000000000/state").problem(t)
	require.Len(t, p.Errors, 1)
	assert.Equal(t, p.Field, p.Errors[0].Field)
}

// TestProblemTypesDocumentThemselves: every problem type the server can
// send resolves, on the server, to a page that describes it; every kind
// used in the package's source is described.
func TestProblemTypesDocumentThemselves(t *testing.T) {
	ts := newTestServer(t)
	p := ts.post(t, "/api/v1/runs", `{"scenario":"nope"}`).problem(t)
	assert.Equal(t, "/problems/invalid", p.Type)
	res := ts.get(t, p.Type)
	require.Equal(t, http.StatusOK, res.Status)
	assert.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	assert.Contains(t, string(res.Body), "<h1>Invalid value</h1>")
	assert.Contains(t, string(res.Body), "HTTP status 422")

	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	kindRe := regexp.MustCompile(`newProblem\(http\.Status\w+, "([a-z-]+)"`)
	used := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range kindRe.FindAllStringSubmatch(string(src), -1) {
			used++
			_, ok := problemTypes[m[1]]
			assert.True(t, ok, "%s: problem kind %q has no description in problemTypes", f, m[1])
		}
	}
	assert.GreaterOrEqual(t, used, 10, "the source scan found the kinds")
	assert.Equal(t, "about:blank", newProblem(http.StatusTeapot, "undescribed", "Teapot", "", "x").Type)
	for kind, pt := range problemTypes {
		res := ts.get(t, "/problems/"+kind)
		assert.Equal(t, http.StatusOK, res.Status, kind)
		assert.Contains(t, string(res.Body), pt.Title, kind)
	}
}

func TestBuildInfoMetric(t *testing.T) {
	ts := newTestServer(t)
	res := ts.get(t, "/metrics")
	require.Equal(t, http.StatusOK, res.Status)
	line := regexp.MustCompile(`(?m)^racetrack_build_info\{goversion="go[^"]+",revision="[^"]+",version="[^"]+"\} 1$`)
	assert.Regexp(t, line, string(res.Body))
	problems, err := promlint.New(bytes.NewReader(res.Body)).Lint()
	require.NoError(t, err)
	assert.Empty(t, problems, "promlint")
}
