package capture

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/autoheal/autoheal/investigate/tap"
)

// commit is one commit in GitHub's shape, kept whole.
type commit struct {
	SHA  string
	Date string
	Raw  map[string]any
	// Detailed: the answer of GET /commits/{sha} (with files and patches),
	// not a list entry.
	Detailed bool
}

// repoFile is one source file read through the Contents API.
type repoFile struct {
	Path    string
	Content []byte
}

// github gathers what the investigation read of the repository: the
// commits it listed (with the details it fetched, patches included) and
// the files it read, at the ref it read them at.
func github(answers []tap.HTTP, repo string) (commits []commit, files []repoFile, ref string, notes []string) {
	prefix := "/repos/" + strings.ToLower(repo) + "/"
	bySHA := map[string]int{}
	seenFile := map[string]bool{}
	unreadable := 0
	addCommit := func(raw map[string]any, detailed bool) {
		sha, _ := raw["sha"].(string)
		if sha == "" {
			return
		}
		c := commit{SHA: sha, Raw: raw, Detailed: detailed, Date: commitDate(raw)}
		if i, ok := bySHA[sha]; ok {
			if detailed && !commits[i].Detailed {
				commits[i] = c
			}
			return
		}
		bySHA[sha] = len(commits)
		commits = append(commits, c)
	}
	for _, a := range answers {
		path := a.URL.EscapedPath()
		i := strings.Index(strings.ToLower(path), prefix)
		if repo == "" || i < 0 {
			continue
		}
		rest := path[i+len(prefix):]
		switch {
		case rest == "commits":
			var list []map[string]any
			if json.Unmarshal(a.Body, &list) != nil {
				unreadable++
				continue
			}
			for _, c := range list {
				addCommit(c, false)
			}
		case strings.HasPrefix(rest, "commits/"):
			var c map[string]any
			if json.Unmarshal(a.Body, &c) != nil {
				unreadable++
				continue
			}
			addCommit(c, true)
		case strings.HasPrefix(rest, "contents/"):
			var fc struct {
				Type     string `json:"type"`
				Path     string `json:"path"`
				Encoding string `json:"encoding"`
				Content  string `json:"content"`
			}
			if json.Unmarshal(a.Body, &fc) != nil {
				continue // a directory listing (an array): nothing to keep
			}
			if fc.Type != "file" || fc.Encoding != "base64" {
				continue
			}
			b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(fc.Content, "\n", ""))
			if err != nil {
				unreadable++
				continue
			}
			p := fc.Path
			if p == "" {
				p, _ = url.PathUnescape(strings.TrimPrefix(rest, "contents/"))
			}
			if r := a.URL.Query().Get("ref"); r != "" && ref == "" {
				ref = r
			}
			if !seenFile[p] {
				seenFile[p] = true
				files = append(files, repoFile{Path: p, Content: b})
			}
		}
	}
	if unreadable > 0 {
		notes = append(notes, fmt.Sprintf("%d GitHub answers could not be read and were left out", unreadable))
	}
	sort.SliceStable(commits, func(i, j int) bool { return commits[i].Date > commits[j].Date })
	return commits, files, ref, notes
}

// commitDate is the later of the author and committer dates (RFC 3339
// strings sort by time when both are UTC, as GitHub gives them).
func commitDate(raw map[string]any) string {
	c := mapOf(raw, "commit")
	return max(str(c, "author", "date"), str(c, "committer", "date"))
}
