package api

import "net/http"

func (s *Server) getDiagram(w http.ResponseWriter, r *http.Request) {}
func (s *Server) getExport(w http.ResponseWriter, r *http.Request)  {}
func (s *Server) compare(w http.ResponseWriter, r *http.Request)    {}
func serveOpenAPI(w http.ResponseWriter, r *http.Request)             {}

type searchPlan struct{}

func (s *Server) planSearch(req SearchRequest) (*searchPlan, error) { return &searchPlan{}, nil }
func (p *searchPool) run(j *job)                                      {}
func DecodeSearchRequest(b []byte) (SearchRequest, error) {
	var req SearchRequest
	return req, decodeStrict(b, &req)
}
