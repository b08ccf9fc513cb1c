package api

import "net/http"

func (s *Server) getDiagram(w http.ResponseWriter, r *http.Request) {}
func (s *Server) getExport(w http.ResponseWriter, r *http.Request)  {}
func (s *Server) compare(w http.ResponseWriter, r *http.Request)    {}

