package gh

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/autoheal/autoheal/investigate"
)

func TestDeployRepoIsReadOnlyUnderTheConfiguredOwnerAndGitHub(t *testing.T) {
	s := &Source{r: newRepo(Config{Repo: "acme/shop", APIURL: "https://api.github.com/"})}
	ctx := context.Background()

	r, used := s.deployRepo(ctx, investigate.DeployTarget{Source: "argocd", Repo: "acme/shop", Ref: "main"})
	assert.Same(t, s.r, r)
	assert.Equal(t, "acme/shop", used.Repo)
	assert.Empty(t, used.Note)

	r, used = s.deployRepo(ctx, investigate.DeployTarget{Source: "argocd", Repo: "evil/charts", RepoURL: "https://github.com/evil/charts"})
	assert.Same(t, s.r, r, "another owner's repository is never read with the deployment's credentials")
	assert.Equal(t, "acme/shop", used.Repo)
	assert.Contains(t, used.Note, "not under acme")

	r, used = s.deployRepo(ctx, investigate.DeployTarget{Source: "flux-kustomization", Repo: "acme/fleet", RepoURL: "https://gitlab.com/acme/fleet"})
	assert.Same(t, s.r, r, "a repository on another forge")
	assert.Contains(t, used.Note, "gitlab.com")

	_, used = s.deployRepo(ctx, investigate.DeployTarget{})
	assert.Equal(t, "configured", used.Source, "nothing resolved: the configured repository")
}

func TestGitHosts(t *testing.T) {
	assert.Equal(t, "github.com", gitHost("git@github.com:acme/fleet.git"))
	assert.Equal(t, "github.com", gitHost("ssh://git@github.com/acme/fleet"))
	assert.True(t, sameGitHub("github.com", ""))
	assert.True(t, sameGitHub("ghe.acme.io", "https://ghe.acme.io/api/v3/"))
	assert.False(t, sameGitHub("github.com", "https://ghe.acme.io/api/v3/"))
}
