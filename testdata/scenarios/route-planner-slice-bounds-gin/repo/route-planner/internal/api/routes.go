package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/haulwise/fleet/route-planner/internal/model"
	"github.com/haulwise/fleet/route-planner/internal/optimize"
)

func (s *Server) optimizeRoute(c *gin.Context) {
	var r model.Route
	if err := c.ShouldBindJSON(&r); err != nil {
		c.JSON(http.StatusBadRequest, gin.H{"error": err.Error()})
		return
	}
	m, err := s.matrix.For(c.Request.Context(), r.Stops)
	if err != nil {
		c.JSON(http.StatusBadGateway, gin.H{"error": "distance matrix unavailable"})
		return
	}
	out, err := optimize.Optimize(r, m)
	if err != nil {
		c.JSON(http.StatusUnprocessableEntity, gin.H{"error": err.Error()})
		return
	}
	c.JSON(http.StatusOK, out)
}
