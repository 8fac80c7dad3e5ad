package github_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	gh "github.com/google/go-github/v62/github"

	"github.com/autoheal/autoheal/scenario"
	ghsim "github.com/autoheal/autoheal/sim/github"
)

// The real go-github client, pointed at the simulator in the GitHub
// Enterprise layout, reads a scenario's source.
func ExampleNewFromScenario() {
	sc, err := scenario.Load("../../testdata/examples/ad-npe-missing-context")
	if err != nil {
		panic(err)
	}
	srv, err := ghsim.NewFromScenario(sc, ghsim.Options{Tokens: []string{"ghp_example"}})
	if err != nil {
		panic(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	client, err := gh.NewClient(nil).WithAuthToken("ghp_example").WithEnterpriseURLs(hs.URL, hs.URL)
	if err != nil {
		panic(err)
	}
	repo, _, err := client.Repositories.Get(context.Background(), "acme", "astronomy-shop")
	if err != nil {
		panic(err)
	}
	commits, _, err := client.Repositories.ListCommits(context.Background(), "acme", "astronomy-shop",
		&gh.CommitsListOptions{Path: sc.Truth.File})
	if err != nil {
		panic(err)
	}
	fmt.Println(repo.GetFullName(), repo.GetDefaultBranch(), len(commits) > 0)
	// Output: acme/astronomy-shop main true
}
