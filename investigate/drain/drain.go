// Package drain mines log templates with the Drain algorithm (He, Zhu,
// Zheng and Lyu, "Drain: An Online Log Parsing Approach with Fixed Depth
// Tree", ICWS 2017): a line is routed through a tree of fixed depth by its
// token count and its first tokens, and joins the most similar template of
// the leaf it reaches, or starts a new one. Positions where the lines of a
// template differ become the wildcard <*>.
//
// Lines are masked before mining (numbers, durations, hex ids, UUIDs,
// addresses, timestamps become <*>) so that one message repeated with
// different ids routes to one leaf.
package drain

import (
	"strings"
)

// Wildcard stands for a variable token in a template.
const Wildcard = "<*>"

// Config tunes a Miner. Zero values take the defaults of the paper and of
// Drain3: depth 4, similarity 0.4, 100 children per node.
type Config struct {
	// Depth of the parse tree, root and leaves included (at least 3): the
	// first Depth-2 tokens of a line route it.
	Depth int
	// SimThreshold is the least share of equal tokens for a line to join a
	// template (0..1).
	SimThreshold float64
	// MaxChildren bounds the children of an inner node; further tokens
	// route through the wildcard child.
	MaxChildren int
	// MaxClusters bounds the templates kept (0: unbounded); when reached,
	// lines that match none are reported under one overflow cluster.
	MaxClusters int
	// MaxTokens truncates long lines before mining (default 80).
	MaxTokens int
}

// Cluster is one template and how many lines joined it.
type Cluster struct {
	ID     int
	Tokens []string
	Size   int
}

// Template renders the cluster's tokens.
func (c *Cluster) Template() string { return strings.Join(c.Tokens, " ") }

type node struct {
	children map[string]*node
	clusters []*Cluster
}

// Miner is an online Drain parser. It is not safe for concurrent use.
type Miner struct {
	cfg      Config
	root     *node
	clusters []*Cluster
	overflow *Cluster
}

// New returns a Miner.
func New(cfg Config) *Miner {
	if cfg.Depth < 3 {
		cfg.Depth = 4
	}
	if cfg.SimThreshold <= 0 || cfg.SimThreshold > 1 {
		cfg.SimThreshold = 0.4
	}
	if cfg.MaxChildren <= 0 {
		cfg.MaxChildren = 100
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 80
	}
	return &Miner{cfg: cfg, root: &node{children: map[string]*node{}}}
}

// Clusters returns the templates in creation order (the overflow cluster,
// if any, last).
func (m *Miner) Clusters() []*Cluster {
	out := append([]*Cluster(nil), m.clusters...)
	if m.overflow != nil {
		out = append(out, m.overflow)
	}
	return out
}

// Add mines one line and returns the cluster it joined (never nil).
func (m *Miner) Add(line string) *Cluster {
	tokens := m.tokens(line)
	leaf := m.leaf(tokens, true)
	if c := m.best(leaf.clusters, tokens); c != nil {
		c.Size++
		for i, t := range tokens {
			if c.Tokens[i] != t {
				c.Tokens[i] = Wildcard
			}
		}
		return c
	}
	if m.cfg.MaxClusters > 0 && len(m.clusters) >= m.cfg.MaxClusters {
		if m.overflow == nil {
			m.overflow = &Cluster{ID: -1, Tokens: []string{Wildcard}}
		}
		m.overflow.Size++
		return m.overflow
	}
	c := &Cluster{ID: len(m.clusters) + 1, Tokens: tokens, Size: 1}
	m.clusters = append(m.clusters, c)
	leaf.clusters = append(leaf.clusters, c)
	return c
}

// Match returns the template a line fits without changing any (its
// non-wildcard tokens all equal), or nil.
func (m *Miner) Match(line string) *Cluster {
	tokens := m.tokens(line)
	leaf := m.leaf(tokens, false)
	if leaf == nil {
		return nil
	}
	for _, c := range leaf.clusters {
		if Fits(c.Tokens, tokens) {
			return c
		}
	}
	return nil
}

// Fits reports whether tokens fit a template: same length, and equal
// wherever the template has no wildcard.
func Fits(template, tokens []string) bool {
	if len(template) != len(tokens) {
		return false
	}
	for i, t := range template {
		if t != Wildcard && t != tokens[i] {
			return false
		}
	}
	return true
}

func (m *Miner) tokens(line string) []string {
	toks := Tokenize(line)
	if len(toks) > m.cfg.MaxTokens {
		toks = toks[:m.cfg.MaxTokens]
	}
	if len(toks) == 0 {
		toks = []string{""}
	}
	return toks
}

// leaf walks (and with grow, builds) the path of a token list: its length,
// then its first Depth-2 tokens.
func (m *Miner) leaf(tokens []string, grow bool) *node {
	n := m.child(m.root, lengthKey(len(tokens)), grow, false)
	for i := 0; n != nil && i < m.cfg.Depth-2 && i < len(tokens); i++ {
		n = m.child(n, tokens[i], grow, true)
	}
	return n
}

func lengthKey(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{digits[n%10]}, b...)
	}
	return string(b)
}

// child returns the child of n for key. Variable tokens (the wildcard, or
// tokens holding digits) route through the wildcard child, and so does
// anything once n has MaxChildren children.
func (m *Miner) child(n *node, key string, grow, routed bool) *node {
	if routed && (key == Wildcard || hasDigit(key)) {
		key = Wildcard
	}
	if c, ok := n.children[key]; ok {
		return c
	}
	if routed && key != Wildcard {
		if c, ok := n.children[Wildcard]; ok && len(n.children) >= m.cfg.MaxChildren {
			return c
		}
	}
	if !grow {
		if c, ok := n.children[Wildcard]; ok && routed {
			return c
		}
		return nil
	}
	if routed && len(n.children) >= m.cfg.MaxChildren {
		key = Wildcard
		if c, ok := n.children[key]; ok {
			return c
		}
	}
	c := &node{children: map[string]*node{}}
	n.children[key] = c
	return c
}

// best returns the most similar cluster at or above the threshold, as
// Drain3 does: similarity is the share of equal constant tokens
// (wildcards do not count); ties go to the template with more wildcards
// (the more general one), then to the older one.
func (m *Miner) best(cs []*Cluster, tokens []string) *Cluster {
	var best *Cluster
	bestSim, bestParams := -1.0, -1
	for _, c := range cs {
		if len(c.Tokens) != len(tokens) {
			continue
		}
		same, params := 0, 0
		for i, t := range c.Tokens {
			switch {
			case t == Wildcard:
				params++
			case t == tokens[i]:
				same++
			}
		}
		sim := float64(same) / float64(len(tokens))
		if sim > bestSim || (sim == bestSim && params > bestParams) {
			best, bestSim, bestParams = c, sim, params
		}
	}
	if best == nil || bestSim < m.cfg.SimThreshold {
		return nil
	}
	return best
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}
