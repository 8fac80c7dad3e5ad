package github

import (
	"strings"
	"testing"

	gh "github.com/google/go-github/v62/github"
)

func BenchmarkGetContents(b *testing.B) {
	seed := smallRepo()
	seed.Files["big.go"] = []byte(strings.Repeat("line of source code\n", 5000))
	e := newEnv(b, Options{Repos: []RepoSeed{seed}})
	c := ctx(b)
	b.ResetTimer()
	for range b.N {
		if _, _, _, err := e.client.Repositories.GetContents(c, "acme", "shop", "big.go", nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPullRequestFiles(b *testing.B) {
	seed := smallRepo()
	old := strings.Repeat("unchanged line\n", 2000)
	seed.Files["big.go"] = []byte(old)
	e := newEnv(b, Options{Repos: []RepoSeed{seed}})
	c := ctx(b)
	head, _, err := e.client.Git.GetRef(c, "acme", "shop", "heads/main")
	if err != nil {
		b.Fatal(err)
	}
	commit := commitFile(b, c, e.client, "acme", "shop", head.GetObject().GetSHA(), "big.go",
		strings.Replace(old, "unchanged", "changed", 3), "edit")
	if _, _, err := e.client.Git.CreateRef(c, "acme", "shop", &gh.Reference{Ref: gh.String("refs/heads/fix"), Object: &gh.GitObject{SHA: commit.SHA}}); err != nil {
		b.Fatal(err)
	}
	pr, _, err := e.client.PullRequests.Create(c, "acme", "shop", &gh.NewPullRequest{Title: gh.String("fix"), Head: gh.String("fix"), Base: gh.String("main")})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, _, err := e.client.PullRequests.ListFiles(c, "acme", "shop", pr.GetNumber(), nil); err != nil {
			b.Fatal(err)
		}
	}
}
